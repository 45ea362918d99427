// A recognised model's tensors → engine.transformer()'s request (docs/api.md#transformer-stacks),
// tensor by tensor: each shape checked against config.json before its bytes are read, then turned
// into the engine's layout (in, out), attention head-major, and the raw tensor let go.
//   nn.Linear (BERT, Llama): weight (out, in) → transposed; Conv1D (GPT-2): (in, out) already,
//   c_attn's q|k|v side by side (in, 3·d).
// Letters: d = d_model, f = the MLP's hidden width, h heads, g key/value heads, d_k per head.
import { ModelError, readTensor } from './tensors.mjs';
import { product } from '../shared/safetensors.mjs';
import { isolate } from '../shared/bidi.mjs';
import { freeBuffers } from './free.mjs';

// Linear (out = heads·width, in) or Conv1D (in, total) columns from `column` → heads × in × width
// (`out`: an array of that length to fill, else a new one)
function headMajor(w, linear, inWidth, total, column, heads, width, out = new Float32Array(heads * inWidth * width)) {
  if (!linear) {
    // Conv1D: head h's row i is `width` contiguous values of row i, copied as one run
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < inWidth; i++) {
        const from = i * total + column + h * width;
        out.set(w.subarray(from, from + width), (h * inWidth + i) * width);
      }
    return out;
  }
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < inWidth; i++)
      for (let c = 0; c < width; c++) {
        const o = column + h * width + c;
        out[(h * inWidth + i) * width + c] = linear ? w[o * inWidth + i] : w[i * total + o];
      }
  return out;
}

// nn.Linear's (out, in) as (in, out)
function transposed(w, outWidth, inWidth) {
  const t = new Float32Array(w.length);
  for (let o = 0; o < outWidth; o++) for (let i = 0; i < inWidth; i++) t[i * outWidth + o] = w[o * inWidth + i];
  return t;
}

const shapeText = (shape) => `[${shape.join(', ')}]`;

// Every Float32Array in `value` (a layer, a norm, the request's tables) passed through `keep` (the
// engine's staging: each array handed into WebAssembly memory, then let go here), in place.
function kept(value, keep) {
  if (!keep) return value;
  for (const [key, item] of Object.entries(value)) {
    if (item instanceof Float32Array) value[key] = keep(item);
    else if (item && typeof item === 'object' && !Array.isArray(item)) kept(item, keep);
  }
  return value;
}

/**
 * The reader of one model: `take(name, shape)` checks, reads and counts (a Float32Array); `used` the
 * names taken. With `stage(tensor, { rows })` (the engine's staging: the tensor read into WebAssembly
 * memory piece by piece, a StagedTensor back), `takeAsIs(name, shape, { rows })` hands a tensor used
 * as the file has it straight there; without, it is take(). `timings` (ms) gathers read and stage.
 */
export function tensorTaker(catalogue, prefix, onProgress, { stage = null, timings = null, reading = null } = {}) {
  const used = new Set();
  let done = 0;
  const checked = (name, shape, bare) => {
    const full = bare ? name : prefix + name;
    const tensor = catalogue.tensors.get(full);
    if (!tensor) throw new ModelError(catalogue.files.length > 1 ? 'model.safetensors.index.json' : 'model.safetensors', `has no tensor "${isolate(full)}", which config.json's model needs`, { key: 'models.error.noTensor', values: { tensor: full } });
    if (tensor.shape.length !== shape.length || tensor.shape.some((s, i) => s !== shape[i])) {
      throw new ModelError(tensor.fileName, `tensor "${isolate(full)}" has shape ${shapeText(tensor.shape)}, but config.json implies ${shapeText(shape)}`,
        { key: 'models.error.shape', values: { tensor: full, shape: shapeText(tensor.shape), expected: shapeText(shape) } });
    }
    return tensor;
  };
  const counted = (tensor, values) => {
    used.add(tensor.name);
    done += tensor.end - tensor.begin;
    onProgress?.({ done, total: catalogue.bytes, tensor: tensor.name });
    return values;
  };
  // while staging, read through the opening's window (tensors.mjs) and copied out of it: the request keeps it
  const take = async (name, shape, { bare = false } = {}) => {
    const tensor = checked(name, shape, bare);
    const values = await readTensor(tensor, timings, stage ? reading : null);
    return counted(tensor, stage && reading ? values.slice() : values);
  };
  const takeAsIs = async (name, shape, { bare = false, rows = 0 } = {}) => {
    if (!stage) return take(name, shape, { bare });
    const tensor = checked(name, shape, bare);
    if (product(shape) === 0) return counted(tensor, new Float32Array(0));
    return counted(tensor, await stage(tensor, { rows }));
  };
  // While staging (each block's arrays copied into WebAssembly memory before the next block is read):
  // copied(name, shape, use) reads a tensor into the opening's one buffer (`reading`, readBuffer()) and
  // gives it to `use`, which copies what it needs at once; reused(role, length) gives the same array
  // for a role every block, so converting a tensor leaves no new array behind. Without staging: take()
  // and new arrays.
  const copied = async (name, shape, use, { bare = false } = {}) => {
    if (!stage || !reading) return use(await take(name, shape, { bare }));
    const tensor = checked(name, shape, bare);
    return use(counted(tensor, await readTensor(tensor, timings, reading)));
  };
  const arrays = new Map();
  const reused = (role, length) => {
    if (!stage) return new Float32Array(length);
    if (arrays.get(role)?.length !== length) arrays.set(role, new Float32Array(length));
    return arrays.get(role);
  };
  const has = (name) => catalogue.tensors.has(prefix + name);
  // once the model is read: the reused arrays freed now (free.mjs), not left to the collector
  const release = () => {
    freeBuffers([...arrays.values()]);
    arrays.clear();
  };
  return { take, takeAsIs, copied, reused, has, used, release };
}

// withAttention false: the block's norms and MLP only (attention null), its attention not read
async function bertLayer(take, s, p, withAttention = true) {
  const { dModel: d, heads, hidden: f } = s;
  const dK = d / heads;
  const norm = async (name) => ({ kind: 'layernorm', eps: s.eps, weight: await take(`${name}.weight`, [d]), bias: await take(`${name}.bias`, [d]) });
  const projection = async (name) => headMajor(await take(`${p}attention.self.${name}.weight`, [d, d]), true, d, d, 0, heads, dK);
  return {
    arrangement: 'post',
    attention: !withAttention ? null : {
      heads, wq: await projection('query'), wk: await projection('key'), wv: await projection('value'),
      bq: await take(`${p}attention.self.query.bias`, [d]), bk: await take(`${p}attention.self.key.bias`, [d]), bv: await take(`${p}attention.self.value.bias`, [d]),
      wo: transposed(await take(`${p}attention.output.dense.weight`, [d, d]), d, d), bo: await take(`${p}attention.output.dense.bias`, [d]),
    },
    norm1: await norm(`${p}attention.output.LayerNorm`),
    norm2: await norm(`${p}output.LayerNorm`),
    mlp: { kind: 'plain', activation: s.activation, hidden: f, w1: transposed(await take(`${p}intermediate.dense.weight`, [f, d]), f, d),
      b1: await take(`${p}intermediate.dense.bias`, [f]), w2: transposed(await take(`${p}output.dense.weight`, [d, f]), d, f), b2: await take(`${p}output.dense.bias`, [d]) },
  };
}

async function bertRequest({ take, takeAsIs }, s, keep) {
  const d = s.dModel;
  const norm = async (name) => ({ kind: 'layernorm', eps: s.eps, weight: await take(`${name}.weight`, [d]), bias: await take(`${name}.bias`, [d]) });
  const request = {
    vocab: s.vocab, dModel: d, tokens: await takeAsIs('embeddings.word_embeddings.weight', [s.vocab, d], { rows: s.vocab }), positions: 'learned',
    positionTable: (await take('embeddings.position_embeddings.weight', [s.positions, d])).subarray(s.positionOffset * d),
    embeddingNorm: await norm('embeddings.LayerNorm'), layers: [], unembedding: 'none',
  };
  if (s.tokenTypes > 0) Object.assign(request, { tokenTypes: s.tokenTypes, typeTable: await take('embeddings.token_type_embeddings.weight', [s.tokenTypes, d]) });
  kept(request, keep);
  for (let l = 0; l < s.layers; l++) request.layers.push(kept(await bertLayer(take, s, `encoder.layer.${l}.`), keep));
  return request;
}

// While staging (tensorTaker's copied and reused), c_attn is freed once W_q, W_k, W_v are made from it,
// in arrays reused every block: GPT-2 small's 12 × 14 MB of conversions leave no garbage behind
const fresh = (role, length) => new Float32Array(length);
async function gpt2Attention({ take, takeAsIs, copied = async (name, shape, use) => use(await take(name, shape)), reused = fresh }, s, p) {
  const { dModel: d, heads } = s;
  const dK = d / heads;
  const part = (qkv, role, column) => headMajor(qkv, false, d, 3 * d, column, heads, dK, reused(role, d * d));
  const [wq, wk, wv] = await copied(`${p}attn.c_attn.weight`, [d, 3 * d], (qkv) => [part(qkv, 'wq', 0), part(qkv, 'wk', d), part(qkv, 'wv', 2 * d)]);
  const bias = await take(`${p}attn.c_attn.bias`, [3 * d]);
  const attention = {
    heads, mask: 'causal', wq, wk, wv, bq: bias.slice(0, d), bk: bias.slice(d, 2 * d), bv: bias.slice(2 * d),
    wo: await takeAsIs(`${p}attn.c_proj.weight`, [d, d]), bo: await take(`${p}attn.c_proj.bias`, [d]),
  };
  if (s.scale) attention.scale = s.scale;
  return attention;
}

// withAttention false: the block's norms and MLP only (attention null), its attention not read
async function gpt2Layer({ take, takeAsIs = take, copied, reused }, s, p, withAttention = true) {
  const { dModel: d, hidden: f } = s;
  const norm = async (name) => ({ kind: 'layernorm', eps: s.eps, weight: await take(`${name}.weight`, [d]), bias: await take(`${name}.bias`, [d]) });
  const attention = withAttention ? await gpt2Attention({ take, takeAsIs, copied, reused }, s, p) : null;
  return {
    arrangement: 'pre', attention, norm1: await norm(`${p}ln_1`), norm2: await norm(`${p}ln_2`),
    mlp: { kind: 'plain', activation: s.activation, hidden: f, w1: await takeAsIs(`${p}mlp.c_fc.weight`, [d, f]), b1: await take(`${p}mlp.c_fc.bias`, [f]),
      w2: await takeAsIs(`${p}mlp.c_proj.weight`, [f, d]), b2: await take(`${p}mlp.c_proj.bias`, [d]) },
  };
}

async function gpt2Request(taker, s, keep) {
  const { take, takeAsIs } = taker;
  const d = s.dModel;
  const request = kept({ vocab: s.vocab, dModel: d, tokens: await takeAsIs('wte.weight', [s.vocab, d], { rows: s.vocab }), positions: 'learned', layers: [], unembedding: 'tied' }, keep);
  request.positionTable = kept({ table: await takeAsIs('wpe.weight', [s.positions, d]) }, keep).table;
  for (let l = 0; l < s.layers; l++) request.layers.push(kept(await gpt2Layer(taker, s, `h.${l}.`), keep));
  request.finalNorm = kept({ kind: 'layernorm', eps: s.eps, weight: await take('ln_f.weight', [d]), bias: await take('ln_f.bias', [d]) }, keep);
  return request;
}

async function llamaAttention(take, s, p, l) {
  const { dModel: d, heads, kvHeads, dK } = s;
  const a = `${p}self_attn.`;
  const projection = async (name, count) => headMajor(await take(`${a}${name}.weight`, [count * dK, d]), true, d, count * dK, 0, count, dK);
  const attention = { heads, kvHeads, dK, mask: 'causal', window: s.windows[l], wq: await projection('q_proj', heads),
    wk: await projection('k_proj', kvHeads), wv: await projection('v_proj', kvHeads), wo: transposed(await take(`${a}o_proj.weight`, [d, heads * dK]), d, heads * dK) };
  if (s.qkvBias) {
    Object.assign(attention, { bq: await take(`${a}q_proj.bias`, [heads * dK]), bk: await take(`${a}k_proj.bias`, [kvHeads * dK]), bv: await take(`${a}v_proj.bias`, [kvHeads * dK]) });
  }
  if (s.outBias) attention.bo = await take(`${a}o_proj.bias`, [d]);
  return attention;
}

// withAttention false: the block's norms and MLP only (attention null), its attention not read
async function llamaLayer(take, s, p, l, withAttention = true) {
  const { dModel: d, hidden: f } = s;
  const attention = withAttention ? await llamaAttention(take, s, p, l) : null;
  return {
    arrangement: 'pre', attention,
    norm1: { kind: 'rmsnorm', eps: s.eps, weight: await take(`${p}input_layernorm.weight`, [d]) },
    norm2: { kind: 'rmsnorm', eps: s.eps, weight: await take(`${p}post_attention_layernorm.weight`, [d]) },
    mlp: { kind: 'swiglu', hidden: f, wGate: transposed(await take(`${p}mlp.gate_proj.weight`, [f, d]), f, d),
      wUp: transposed(await take(`${p}mlp.up_proj.weight`, [f, d]), f, d), wDown: transposed(await take(`${p}mlp.down_proj.weight`, [d, f]), d, f) },
  };
}

async function llamaRequest({ take, takeAsIs }, s, keep) {
  const d = s.dModel;
  const request = kept({ vocab: s.vocab, dModel: d, tokens: await takeAsIs('embed_tokens.weight', [s.vocab, d], { rows: s.vocab }), positions: 'rotary', rotary: s.rotary, layers: [] }, keep);
  for (let l = 0; l < s.layers; l++) request.layers.push(kept(await llamaLayer(take, s, `layers.${l}.`, l), keep));
  request.finalNorm = kept({ kind: 'rmsnorm', eps: s.eps, weight: await take('norm.weight', [d]) }, keep);
  if (s.tied) request.unembedding = 'tied';
  else Object.assign(request, kept({ unembedding: 'own', unembeddingWeight: transposed(await take('lm_head.weight', [s.vocab, d], { bare: true }), s.vocab, d) }, keep));
  return request;
}

/**
 * The engine's request without ids, read through `taker` (tensorTaker) for a recognised model. With
 * `keep`, every array is passed through it as soon as its part (a table, a block) is read.
 */
export function buildRequest(taker, recognised, keep = null) {
  const build = { bert: bertRequest, gpt2: gpt2Request, llama: llamaRequest }[recognised.family];
  return build(taker, recognised.settings, keep);
}

/** Block l alone, read again from the files: what "Open this layer in the lab" needs of a staged model. */
// With { attention: false }, only its norms and MLP are read (attention is null): the stream's check
// recomputes a token's MLP from them, and needs no attention weight.
export function buildLayer(taker, recognised, l, { attention = true } = {}) {
  const s = recognised.settings;
  if (recognised.family === 'bert') return bertLayer(taker.take, s, `encoder.layer.${l}.`, attention);
  if (recognised.family === 'gpt2') return gpt2Layer({ take: taker.take }, s, `h.${l}.`, attention);
  return llamaLayer(taker.take, s, `layers.${l}.`, l, attention);
}

/** F32 bytes of the weights a model keeps, from config.json alone (for the size check before reading). */
export function keptBytes(recognised) {
  const s = recognised.settings;
  const d = s.dModel;
  const attention = recognised.family === 'llama' ? 2 * d * s.heads * s.dK + 2 * d * s.kvHeads * s.dK : 4 * d * d;
  const mlp = (recognised.family === 'llama' ? 3 : 2) * d * s.hidden;
  const tables = s.vocab * d * (recognised.family === 'llama' && !s.tied ? 2 : 1) + (s.positions ?? 0) * d;
  return 4 * (tables + s.layers * (attention + mlp));
}
