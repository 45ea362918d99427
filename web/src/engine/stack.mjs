// A stack of blocks for the page (issue 23): the request's weight recipes turned into matrices and
// one traced forward pass through engine.transformer() of the learning engine, loaded the first time
// a lab asks for more than one attention layer (docs/api.md, "Layers on the page"). The sentence's
// vectors X are the token table (token i is row i), so the stream entering layer 1 is X (+ positions).
// The reply is the page's: result.layers[l] for every block, result.heads … for the chosen one
// (lab/run.mjs picks it), and the weights of every layer as they were used.

/**
 * Seeded random weights for `kvHeads` key/value heads (grouped-query attention): the heads' draw, with
 * W_k and W_v cut to their first kvHeads heads (each head's block is dModel × dK, head-major).
 */
export function randomWeights(engine, { dModel, heads, dK, dV, kvHeads = heads }, seed) {
  const drawn = seeded(engine, { dModel, heads, dK, dV, seed });
  return { ...drawn, wk: drawn.wk.slice(0, kvHeads * dModel * dK), wv: drawn.wv.slice(0, kvHeads * dModel * dV) };
}

function identity(size) {
  const w = new Float32Array(size * size);
  for (let i = 0; i < size; i++) w[i * size + i] = 1;
  return w;
}

// The engine's seeded weights for these sizes and seed, drawn once per engine: every edit of a stack
// asks again for each layer's attention and MLP (6 calls into WebAssembly for two full blocks). A
// copy each time: the reader's typed cells are written over them. The last 32 kept.
const drawnBy = new WeakMap();
function seeded(engine, options) {
  if (!drawnBy.has(engine)) drawnBy.set(engine, new Map());
  const drawn = drawnBy.get(engine);
  const key = JSON.stringify(options);
  if (!drawn.has(key)) {
    if (drawn.size >= 32) drawn.delete(drawn.keys().next().value);
    drawn.set(key, engine.initWeights(options));
  }
  return Object.fromEntries(Object.entries(drawn.get(key)).map(([name, values]) => [name, values?.slice?.() ?? values]));
}

// One layer's W_q, W_k, W_v, W_O (and biases) from its recipe, as api.mjs's weightsFor does for one layer.
function layerWeights(engine, recipe, { dModel, heads, dK, dV, useWo, kvHeads }) {
  if (recipe.mode === 'identity') return { wq: identity(dModel), wk: identity(dModel), wv: identity(dModel), wo: useWo ? identity(dModel) : null };
  if (recipe.mode === 'random') {
    const drawn = randomWeights(engine, { dModel, heads, dK, dV, kvHeads }, recipe.seed);
    return { ...drawn, wo: useWo ? drawn.wo : null };
  }
  const f32 = (values) => (values ? Float32Array.from(values) : null);
  const own = { wq: f32(recipe.wq), wk: f32(recipe.wk), wv: f32(recipe.wv), wo: useWo ? f32(recipe.wo) : null };
  for (const name of ['bq', 'bk', 'bv']) if (recipe[name]) own[name] = f32(recipe[name]);
  if (useWo && recipe.bo) own.bo = f32(recipe.bo);
  return own;
}

// A full block's MLP, seeded from the lab's seed and the layer (Xavier/Glorot uniform, the core's
// init_weights): w1 d_model × hidden, w2 hidden × d_model, no biases, GELU (erf); cells the reader
// typed are written over it (stackOptions).
function mlpOf(engine, { dModel, hidden, seed }, l) {
  const layerSeed = seed + 1000 * (l + 1);
  const w1 = seeded(engine, { dModel, heads: 1, dK: hidden, dV: hidden, seed: layerSeed }).wq;
  const w2 = seeded(engine, { dModel: hidden, heads: 1, dK: dModel, dV: dModel, seed: layerSeed + 1 }).wq;
  return { kind: 'plain', activation: 'gelu', hidden, w1, w2 };
}

// The reader's typed cells of a table ([[index, value], …], state/stack.mjs) written over its values
function withEdits(values, edits) {
  for (const [index, value] of edits ?? []) values[index] = value;
  return values;
}

// A norm's table as the page shows it, 2 × d_model: the weight γ (1s), then the bias β (0s), typed cells over them
function normTable(dModel, edits) {
  const table = new Float32Array(2 * dModel);
  table.fill(1, 0, dModel);
  return withEdits(table, edits);
}
const normOf = (table, dModel) => ({ kind: 'layernorm', weight: table.slice(0, dModel), bias: table.slice(dModel) });

// A real model's block (state.modelBlock, as the worker read it): its norms and MLP as float32, the
// reader's typed cells over them; the tables the page shows: w1, w2 (a plain MLP's) and each norm's
// γ and β (RMSNorm has no β: 0s shown, a typed β unused).
function modelLayer(model, dModel, edits) {
  const f32 = (values) => (values ? Float32Array.from(values) : undefined);
  const normTableOf = (norm, typed) => {
    const table = new Float32Array(2 * dModel);
    table.set(norm.weight);
    if (norm.bias) table.set(norm.bias, dModel);
    return withEdits(table, typed);
  };
  const [ln1, ln2] = [normTableOf(model.norm1, edits.ln1), normTableOf(model.norm2, edits.ln2)];
  const norm = (source, table) => ({ kind: source.kind, eps: source.eps, weight: table.slice(0, dModel), ...(source.kind === 'layernorm' ? { bias: table.slice(dModel) } : {}) });
  const { kind, activation, hidden } = model.mlp;
  const mlp = kind === 'swiglu'
    ? { kind, hidden, wGate: f32(model.mlp.wGate), wUp: f32(model.mlp.wUp), wDown: f32(model.mlp.wDown) }
    : { kind, activation, hidden, w1: withEdits(f32(model.mlp.w1), edits.w1), w2: withEdits(f32(model.mlp.w2), edits.w2), b1: f32(model.mlp.b1), b2: f32(model.mlp.b2) };
  // (with each norm's kind and ε and the MLP's kind, for the explanations and the walk: shared/mlp-text.mjs)
  const norms = { kind: [model.norm1.kind, model.norm2.kind], eps: [model.norm1.eps, model.norm2.eps], mlp: kind, activation: activation ?? null };
  // SwiGLU's W_gate, W_up and W_down shown as they are used (read only: the lab's typed cells are w1's and w2's)
  const shown = kind === 'swiglu' ? { wGate: mlp.wGate, wUp: mlp.wUp, wDown: mlp.wDown, ln1, ln2, norms } : { w1: mlp.w1, w2: mlp.w2, ln1, ln2, norms };
  return { norm1: norm(model.norm1, ln1), norm2: norm(model.norm2, ln2), mlp: Object.fromEntries(Object.entries(mlp).filter(([, v]) => v !== undefined)), shown };
}

/** engine.transformer()'s options for a page request with a `stack`, and each layer's weights. */
export function stackOptions(engine, request) {
  const { x, n, dModel, heads, dK, dV, scale, mask, positions, weights, useWo, stack, kvHeads = heads, rotary, window = 0 } = request;
  const sizes = { dModel, heads, dK, dV, useWo, kvHeads };
  const used = stack.recipes.map((recipe, l) => layerWeights(engine, l === 0 ? weights : recipe, sizes));
  const full = stack.arrangement !== 'attention-only';
  const layers = used.map((w, l) => {
    const attention = { heads, kvHeads, dK, dV, scale, mask, window, ...Object.fromEntries(Object.entries(w).filter(([, v]) => v)) };
    if (!full) return { arrangement: 'attention-only', attention };
    const edits = stack.edits?.[l] ?? {};
    if (l === 0 && stack.model) {
      const own = modelLayer(stack.model, dModel, edits);
      Object.assign(w, own.shown);
      return { arrangement: stack.arrangement, attention, norm1: own.norm1, norm2: own.norm2, mlp: own.mlp };
    }
    const mlp = mlpOf(engine, { dModel, hidden: stack.hidden, seed: stack.seed }, l);
    withEdits(mlp.w1, edits.w1);
    withEdits(mlp.w2, edits.w2);
    const [ln1, ln2] = [normTable(dModel, edits.ln1), normTable(dModel, edits.ln2)];
    Object.assign(w, { w1: mlp.w1, w2: mlp.w2, ln1, ln2 });  // shown with the layer's weights, as used
    return { arrangement: stack.arrangement, attention, norm1: normOf(ln1, dModel), norm2: normOf(ln2, dModel), mlp };
  });
  const ids = Array.from({ length: n }, (_, i) => i);
  // rotary positions turn every layer's q and k (the stack's positions: 'rotary')
  const placed = rotary ? { positions: 'rotary', rotary } : { positions: positions ?? 'none' };
  const options = { ids, vocab: n, dModel, tokens: x, ...placed, layers, unembedding: 'none' };
  return { options, used };
}

// One block's trace as the page shows it: the attention's (as attention() gives it) and the stream's.
function pageLayer(layer, full) {
  const { output, concat, heads } = layer.attention;
  const page = { input: layer.input, heads, concat, attention: output, attended: layer.attended, output: layer.output };
  if (!full) return page;
  return {
    ...page, norm1: layer.norm1.output, middle: layer.middle, norm2: layer.norm2.output,
    mlpPre: layer.mlpPre, mlpHidden: layer.mlpHidden, mlpOut: layer.mlpOut, summed: layer.summed,
  };
}

/** The traced stack for a page request: { result: { shape, embeddings, layers }, layerWeights }, or throws. */
export function runStack(engine, request) {
  const { options, used } = stackOptions(engine, request);
  const trace = engine.transformer(options);
  const { n, dModel, heads, dK, dV, scale } = request;
  const full = request.stack.arrangement !== 'attention-only';
  const layers = trace.layers.map((layer) => pageLayer(layer, full));
  // the divisor as attention() reports it: √d_k, 1 for none, or the number given
  const divisor = scale === 'sqrt_dk' ? Math.sqrt(dK) : scale === 'none' ? 1 : scale;
  const shape = { n, m: n, dModel, heads, kvHeads: request.kvHeads ?? heads, dK, dV, dOut: dModel, scale: divisor, self: true, layers: layers.length };
  return { result: { shape, dOut: dModel, arrangement: request.stack.arrangement, embeddings: trace.embeddings, layers }, layerWeights: used };
}
