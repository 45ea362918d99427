// The residual stream's arithmetic for one token and one layer, from a real model's result
// (result.hidden, result.layers[l].output and .hidden) and, when given, the layer's block as the engine
// runs it (compute.models.layer: its norms and MLP). Pure, float64.
// One notation with the lab: x = the state entering the layer, a = attention's output, m = the MLP's output.
//   pre-LN (GPT-2, Llama, Qwen2, Mistral): leaving = x + a + m, a = Attn(LN₁(x)), m = MLP(LN₂(x + a))
//   post-LN (BERT): a = Attn(x), u = LN₁(x + a); leaving = LN₂(u + m), m = MLP(u)
// The engine's traced run keeps each layer's attention output (a) and the stream, not the MLP's
// output: for pre-LN it is also what remains (leaving − x − a), and with the block's weights it
// is computed here again, so that the sum is a check and not true by construction.

// The first features shown in the stream's summaries (a model's d_model is 768 and more: the whole row on demand).
export const SUMMARY_FEATURES = 8;

const row = (values, i, d) => Float64Array.from(values.subarray(i * d, (i + 1) * d));
const plus = (a, b) => a.map((x, j) => x + b[j]);
const minus = (a, b) => a.map((x, j) => x - b[j]);

/** ‖v‖ in float64. */
export const normOf = (v) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

// A LayerNorm or RMSNorm ({ kind, eps, weight, bias })
function normed(v, { kind, eps, weight, bias }) {
  const d = v.length;
  const mean = kind === 'rmsnorm' ? 0 : v.reduce((a, x) => a + x, 0) / d;
  const square = v.reduce((a, x) => a + (x - mean) ** 2, 0) / d;
  const scale = 1 / Math.sqrt(square + eps);
  return v.map((x, j) => (x - mean) * scale * weight[j] + (bias ? bias[j] : 0));
}

// x (d) · W (d × f, row-major (in, out)) + b
function times(x, w, f, b) {
  const out = new Float64Array(f);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    for (let o = 0; o < f; o++) out[o] += xi * w[i * f + o];
  }
  if (b) for (let o = 0; o < f; o++) out[o] += b[o];
  return out;
}

const erf = (x) => {
  // erf by its series below 3, its continued fraction above: float64-exact where each is used
  const a = Math.abs(x);
  let value;
  if (a < 3) {
    let term = a, sum = a;
    for (let k = 1; k < 80; k++) {
      term *= -a * a / k;
      sum += term / (2 * k + 1);
    }
    value = 2 / Math.sqrt(Math.PI) * sum;
  } else {
    let fraction = 0;
    for (let k = 60; k >= 1; k--) fraction = (k / 2) / (a + fraction);
    value = 1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / (a + fraction);
  }
  return x < 0 ? -value : value;
};
const silu = (x) => x / (1 + Math.exp(-x));
export const ACTIVATIONS = {
  gelu: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
  'gelu-tanh': (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))),
  relu: (x) => Math.max(0, x),
  silu,
};

/** The block's MLP on one row: plain (w1, b1, activation, w2, b2) or SwiGLU (wGate, wUp, wDown). */
export function mlpOf(mlp, x) {
  const d = x.length, f = mlp.hidden;
  if (mlp.kind === 'swiglu') {
    const gate = times(x, mlp.wGate, f), up = times(x, mlp.wUp, f);
    return times(gate.map((g, j) => silu(g) * up[j]), mlp.wDown, d);
  }
  const act = ACTIVATIONS[mlp.activation] ?? ACTIVATIONS.gelu;
  return times(times(x, mlp.w1, f, mlp.b1).map(act), mlp.w2, d, mlp.b2);
}

/**
 * Token i through layer l: { arrangement, rows: [{ key, values }] in the order the block adds them,
 * leaving (the model's), computed (the sum or the norms' result, with `block`), error (the largest
 * |computed − leaving| over the largest |leaving|), exact (false: the MLP row is the remainder) }.
 */
export function layerParts(result, l, i, { block = null, arrangement: given = 'pre' } = {}) {
  const d = result.hidden[0].length / result.n;
  const entering = row(result.hidden[l], i, d);
  const attention = row(result.layers[l].output, i, d);
  const leaving = row(result.layers[l].hidden, i, d);
  const arrangement = block?.arrangement ?? given;
  const compare = (computed) => {
    const scale = leaving.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
    return computed.reduce((m, x, j) => Math.max(m, Math.abs(x - leaving[j])), 0) / scale;
  };
  if (arrangement === 'post' && !block) {
    // without the block's norms: the sum LN₁ reads, and the model's leaving state
    return { arrangement, leaving, computed: null, error: null, exact: false, rows: [['entering', entering], ['attention', attention], ['sum1', plus(entering, attention)], ['leaving', leaving]] };
  }
  if (arrangement === 'post') {
    const sum1 = plus(entering, attention);
    const u = normed(sum1, block.norm1);
    const mlp = mlpOf(block.mlp, u);
    const sum2 = plus(u, mlp);
    const computed = normed(sum2, block.norm2);
    return { arrangement, leaving, computed, error: compare(computed), exact: true,
      rows: [['entering', entering], ['attention', attention], ['sum1', sum1], ['norm1', u], ['mlp', mlp], ['sum2', sum2], ['computed', computed], ['leaving', leaving]] };
  }
  // pre-LN: the MLP's output recomputed from the block's weights, else what remains
  const middle = plus(entering, attention);
  const mlp = block ? mlpOf(block.mlp, normed(middle, block.norm2)) : minus(leaving, middle);
  const computed = plus(middle, mlp);
  return { arrangement: 'pre', leaving, computed, error: compare(computed), exact: Boolean(block),
    rows: [['entering', entering], ['attention', attention], ['middle', middle], ['mlp', mlp], ['computed', computed], ['leaving', leaving]] };
}

/**
 * The stream's stages, in order: [{ key, values (n × d_model), layer }]. key: the hidden state's index
 * ('0' … 'L', as transformers numbers them) or 'before-norm': a pre-LN model's state leaving its last
 * layer before the final norm (the last layer's stream, not among transformers' hidden states, whose
 * last is after that norm). layer: the layer the state leaves (0: none, the embeddings). BERT (post-LN)
 * has no final norm: its last hidden state is the last layer's output.
 */
export function streamStages(result, report) {
  const count = result.hidden.length - 1;
  const stages = result.hidden.map((values, s) => ({ key: String(s), values, layer: s, final: s === count && report.family !== 'bert' }));
  if (report.family === 'bert' || !result.layers?.[count - 1]?.hidden) return stages;
  stages.splice(count, 0, { key: 'before-norm', values: result.layers[count - 1].hidden, layer: count, final: false });
  return stages;
}
