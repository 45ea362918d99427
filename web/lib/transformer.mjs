// engine.transformer() and engine.transformerGradients(): a stack of transformer blocks inside
// WebAssembly (core/include/attention/transformer.hpp, bound by core/bindings/transformer.cpp).
// This file checks JavaScript types, applies defaults and turns names into the core's codes; the
// core checks sizes and values and names the field at fault. Shapes and layouts: docs/api.md.

const STACK_OPTIONS = new Set(['ids', 'typeIds', 'vocab', 'dModel', 'tokens', 'positions', 'positionTable', 'rotary',
  'tokenTypes', 'typeTable', 'embeddingNorm', 'layers', 'finalNorm', 'unembedding', 'unembeddingWeight',
  'unembeddingBias', 'heads', 'padding']);
const GRADIENT_OPTIONS = new Set([...STACK_OPTIONS, 'dLogits', 'dOutput']);
const PREPARE_OPTIONS = new Set([...STACK_OPTIONS].filter((key) => !['ids', 'typeIds', 'heads', 'padding'].includes(key)));
const RUN_OPTIONS = new Set(['ids', 'typeIds', 'x', 'logits', 'hiddenStates', 'padding']);
const TRACE_OPTIONS = new Set(['ids', 'typeIds', 'x', 'openLayer', 'lastLogits', 'blocks', 'reuse']);
const MAX_STAGED_VALUES = 2 ** 27;  // kMaxTableValues: one staged tensor at most
const LAYER_OPTIONS = new Set(['arrangement', 'attention', 'norm1', 'norm2', 'mlp']);
const ATTENTION_OPTIONS = new Set(['heads', 'kvHeads', 'dK', 'dV', 'scale', 'mask', 'window',
  'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']);
const NORM_OPTIONS = new Set(['kind', 'eps', 'weight', 'bias']);
const MLP_OPTIONS = new Set(['kind', 'activation', 'hidden', 'w1', 'b1', 'w2', 'b2', 'wGate', 'wUp', 'wDown']);
const ROTARY_OPTIONS = new Set(['dims', 'theta', 'firstPosition']);
// The core's enums (transformer.hpp, layers.hpp), looked up in Maps: '__proto__' is no kind.
const NORM_KINDS = new Map([['none', 0], ['layernorm', 1], ['rmsnorm', 2]]);
const ARRANGEMENTS = new Map([['pre', 0], ['post', 1], ['attention-only', 2]]);
const MLP_KINDS = new Map([['none', 0], ['plain', 1], ['swiglu', 2]]);
const ACTIVATIONS = new Map([['gelu', 0], ['gelu-tanh', 1], ['relu', 2], ['silu', 3]]);
const POSITIONS = new Map([['none', 0], ['learned', 1], ['sinusoidal', 2], ['rotary', 3]]);
const UNEMBEDDINGS = new Map([['none', 0], ['tied', 1], ['own', 2]]);
const MASKS = new Map([['none', 0], ['causal', 1]]);
const MASK_KEEP = 2;  // MaskMode::Keep: the request's (n, n) keep flags
const MAX_LAYERS = 1024;  // kMaxLayers: refused here before any array is copied in
const INT_MAX = 2 ** 31 - 1;

// `api`: attention.mjs's option helpers (fieldError, describe, raise, matrix, scaleOption, guarded).
class Reader {
  constructor(api) {
    this.api = api;
  }

  // options[key], where a getter or a Proxy that throws fails naming the field
  read(options, key, path) {
    try {
      return options[key];
    } catch (error) {
      throw this.api.fieldError(TypeError, path + key, `${path}${key} could not be read: ${error?.message ?? String(error)}`);
    }
  }

  object(value, field, allowed) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw this.api.fieldError(TypeError, field, `${field} must be an object, got ${this.api.describe(value)}`);
    }
    for (const key of Object.keys(value)) {
      if (!allowed.has(key)) {
        throw this.api.fieldError(TypeError, `${field}.${key}`, `unknown option '${field}.${key}' (known: ${[...allowed].join(', ')})`);
      }
    }
    return value;
  }

  whole(options, key, path, fallback, min = 0) {
    const value = this.read(options, key, path);
    const field = path + key;
    if (value === undefined) {
      if (fallback === undefined) throw this.api.fieldError(TypeError, field, `${field} is required: a whole number`);
      return fallback;
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw this.api.fieldError(TypeError, field, `${field} must be a whole number, got ${this.api.describe(value)}`);
    }
    if (value < min || value > INT_MAX) {
      throw this.api.fieldError(RangeError, field, `${field} must be a whole number from ${min} to ${INT_MAX}, got ${value}`);
    }
    return value;
  }

  number(options, key, path, fallback) {
    const value = this.read(options, key, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'number') {
      throw this.api.fieldError(TypeError, path + key, `${path}${key} must be a number, got ${this.api.describe(value)}`);
    }
    return value;
  }

  // A name from `names` (a Map to the core's codes)
  choice(options, key, path, names, fallback) {
    const value = this.read(options, key, path);
    if (value === undefined) return names.get(fallback);
    if (typeof value === 'string' && names.has(value)) return names.get(value);
    const field = path + key;
    throw this.api.fieldError(TypeError, field, `${field} must be ${[...names.keys()].map((name) => `'${name}'`).join(', ')}; got ${this.api.describe(value)}`);
  }

  floats(options, key, path, required = false) {
    const value = this.read(options, key, path);
    if (value instanceof StagedTensor) return value.take(this.staging, path + key);
    return this.api.matrix(options, key, required, path + key);
  }

  // Whole numbers as an Int32Array: an array of them or an Int32Array
  ids(options, key, required) {
    const value = this.read(options, key, '');
    if (value === undefined || value === null) {
      if (required) throw this.api.fieldError(TypeError, key, `${key} is required: an array of whole numbers`);
      return null;
    }
    if (value instanceof Int32Array) return value;
    if (!Array.isArray(value)) {
      throw this.api.fieldError(TypeError, key, `${key} must be an array of whole numbers or an Int32Array, got ${this.api.describe(value)}`);
    }
    const ids = new Int32Array(value.length);
    value.forEach((id, i) => {
      if (typeof id !== 'number' || !Number.isInteger(id) || Math.abs(id) > INT_MAX) {
        throw this.api.fieldError(TypeError, key, `${key}[${i}] must be a whole number, got ${this.api.describe(id)}`);
      }
      ids[i] = id;
    });
    return ids;
  }
}

// A norm: undefined or null for none, else { kind, eps, weight, bias }.
function normSpec(reader, value, field) {
  if (value === undefined || value === null) return { kindCode: 0, eps: 1e-5, weight: null, bias: null };
  const norm = reader.object(value, field, NORM_OPTIONS);
  const path = `${field}.`;
  return {
    kindCode: reader.choice(norm, 'kind', path, NORM_KINDS, 'layernorm'),
    eps: reader.number(norm, 'eps', path, 1e-5),
    weight: reader.floats(norm, 'weight', path),
    bias: reader.floats(norm, 'bias', path),
  };
}

function mlpSpec(reader, value, field) {
  const none = { kindCode: 0, activationCode: 0, hidden: 0 };
  if (value === undefined || value === null) return none;
  const mlp = reader.object(value, field, MLP_OPTIONS);
  const path = `${field}.`;
  const spec = {
    kindCode: reader.choice(mlp, 'kind', path, MLP_KINDS, 'plain'),
    activationCode: reader.choice(mlp, 'activation', path, ACTIVATIONS, 'gelu'),
    hidden: reader.whole(mlp, 'hidden', path, 0),
  };
  for (const key of ['w1', 'b1', 'w2', 'b2', 'wGate', 'wUp', 'wDown']) spec[key] = reader.floats(mlp, key, path);
  return spec;
}

function attentionSpec(reader, value, field) {
  const attention = reader.object(value ?? {}, field, ATTENTION_OPTIONS);
  const path = `${field}.`;
  let scale;
  try {
    scale = reader.api.scaleOption(reader.read(attention, 'scale', path));
  } catch (error) {
    throw reader.api.fieldError(error.constructor, `${path}scale`, `${path}${error.message}`);
  }
  const spec = {
    heads: reader.whole(attention, 'heads', path, 1, 1),
    kvHeads: reader.whole(attention, 'kvHeads', path, 0),
    dK: reader.whole(attention, 'dK', path, 0),
    dV: reader.whole(attention, 'dV', path, 0),
    scaleMode: scale[0],
    scaleDivisor: scale[1],
    maskMode: reader.choice(attention, 'mask', path, MASKS, 'none'),
    window: reader.whole(attention, 'window', path, 0),
  };
  for (const key of ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) spec[key] = reader.floats(attention, key, path);
  return spec;
}

function layerSpec(reader, value, l) {
  const field = `layers[${l}]`;
  const layer = reader.object(value, field, LAYER_OPTIONS);
  const read = (key) => reader.read(layer, key, `${field}.`);
  return {
    arrangementCode: reader.choice(layer, 'arrangement', `${field}.`, ARRANGEMENTS, 'pre'),
    attention: attentionSpec(reader, read('attention'), `${field}.attention`),
    norm1: normSpec(reader, read('norm1'), `${field}.norm1`),
    norm2: normSpec(reader, read('norm2'), `${field}.norm2`),
    mlp: mlpSpec(reader, read('mlp'), `${field}.mlp`),
  };
}

function layersSpec(reader, options) {
  const layers = reader.read(options, 'layers', '') ?? [];
  if (!Array.isArray(layers)) {
    throw reader.api.fieldError(TypeError, 'layers', `layers must be an array of blocks, got ${reader.api.describe(layers)}`);
  }
  if (layers.length > MAX_LAYERS) {
    throw reader.api.fieldError(RangeError, 'layers', `layers has ${layers.length} blocks, above the cap of ${MAX_LAYERS}`);
  }
  return layers.map((layer, l) => layerSpec(reader, layer, l));
}

function rotarySpec(reader, value) {
  const rotary = reader.object(value ?? {}, 'rotary', ROTARY_OPTIONS);
  return {
    dims: reader.whole(rotary, 'dims', 'rotary.', 0),
    theta: reader.number(rotary, 'theta', 'rotary.', 10000),
    firstPosition: reader.whole(rotary, 'firstPosition', 'rotary.', 0),
  };
}

// A padding mask, { keep: flags } (1 or true: a real token) or { masked: flags } (1 or true: padding,
// hidden), one flag per token: every block's attention then takes (n, n) keep flags, key j visible to
// query i when j is kept and, in a causal block, j ≤ i (the blocks must agree on their mask). Padded
// queries still attend to the kept keys; their rows are the caller's to ignore. Undefined: no change.
function applyPadding(reader, options, request) {
  const keep = paddingKeep(reader, options, request.ids.length, request.layers.map((layer) => layer.attention.maskMode), 'ids');
  if (!keep) return;
  request.keep = keep;
  for (const layer of request.layers) layer.attention.maskMode = MASK_KEEP;
}

// The (n, n) key flags of options.padding (as applyPadding reads it), or null without one: `masks` the
// blocks' mask codes, `tokens` the field that has the n tokens ('ids' or 'x').
function paddingKeep(reader, options, n, masks, tokens) {
  const value = reader.read(options, 'padding', '');
  if (value === undefined || value === null) return null;
  const api = reader.api;
  const named = typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) ? Object.keys(value) : [];
  if (named.length !== 1 || !['keep', 'masked'].includes(named[0])) {
    throw api.fieldError(TypeError, 'padding', `padding must be { keep: flags } (1 or true: a token) or { masked: flags } (1 or true: padding), one flag per id; got ${api.describe(value)}`);
  }
  const field = `padding.${named[0]}`;
  const flags = reader.read(value, named[0], 'padding.');
  if (!Array.isArray(flags) && !(flags instanceof Uint8Array)) {
    throw api.fieldError(TypeError, field, `${field} must be an array of 0, 1, true or false, or a Uint8Array, got ${api.describe(flags)}`);
  }
  if (flags.length !== n) throw api.fieldError(RangeError, field, `${field} has ${flags.length} flags; ${tokens} has ${n} tokens, one flag each`);
  const kept = Array.from(flags, (flag, j) => {
    if (flag !== 0 && flag !== 1 && flag !== true && flag !== false) {
      throw api.fieldError(TypeError, field, `${field}[${j}] must be 1, 0, true or false, got ${api.describe(flag)}`);
    }
    return Boolean(flag) !== (named[0] === 'masked');
  });
  if (new Set(masks).size > 1) {
    throw api.fieldError(RangeError, 'padding', "padding needs every layer's attention.mask to be the same ('causal' or 'none')");
  }
  const causal = masks.includes(MASKS.get('causal'));
  const keep = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) keep[i * n + j] = kept[j] && (!causal || j <= i) ? 1 : 0;
  return keep;
}

// The request as the binding reads it: every field present, names as codes, arrays as typed arrays.
function stackRequest(api, options, allowed, what, staging = null) {
  api.checkOptions(options, allowed, what);
  const reader = new Reader(api);
  reader.staging = staging;
  const heads = flag(reader, options, 'heads', "each head's trace");
  const withIds = allowed.has('ids');
  const request = {
    ids: withIds ? reader.ids(options, 'ids', true) : null,
    typeIds: withIds ? reader.ids(options, 'typeIds', false) : null,
    vocab: reader.whole(options, 'vocab', '', undefined, 1),
    dModel: reader.whole(options, 'dModel', '', undefined, 1),
    tokens: reader.floats(options, 'tokens', '', true),
    positionsCode: reader.choice(options, 'positions', '', POSITIONS, 'none'),
    positionTable: reader.floats(options, 'positionTable', ''),
    rotary: rotarySpec(reader, reader.read(options, 'rotary', '')),
    tokenTypes: reader.whole(options, 'tokenTypes', '', 0),
    typeTable: reader.floats(options, 'typeTable', ''),
    embeddingNorm: normSpec(reader, reader.read(options, 'embeddingNorm', ''), 'embeddingNorm'),
    layers: layersSpec(reader, options),
    finalNorm: normSpec(reader, reader.read(options, 'finalNorm', ''), 'finalNorm'),
    unembeddingCode: reader.choice(options, 'unembedding', '', UNEMBEDDINGS, 'none'),
    unembeddingWeight: reader.floats(options, 'unembeddingWeight', ''),
    unembeddingBias: reader.floats(options, 'unembeddingBias', ''),
    heads: heads ?? true,
  };
  if (withIds) applyPadding(reader, options, request);
  return request;
}

// options[key]: true, false or undefined
function flag(reader, options, key, what) {
  const value = reader.read(options, key, '');
  if (value !== undefined && typeof value !== 'boolean') {
    throw reader.api.fieldError(TypeError, key, `${key} must be true or false (${what}), got ${reader.api.describe(value)}`);
  }
  return value;
}

// The binding's answer, or its error raised naming the field.
function answer(api, out) {
  if (out.error) api.raise(out.error);
  return out;
}

/** The forward pass: the trace of every block (docs/api.md#transformer). */
export function transformer(runtime, api, options) {
  const request = stackRequest(api, options, STACK_OPTIONS, 'transformer()');
  return api.guarded(runtime, 'transformer()', (module) => answer(api, module.transformerForward(request)));
}

/** The gradient of Σ dLogits ⊙ logits + Σ dOutput ⊙ output with respect to every weight, and the trace. */
export function transformerGradients(runtime, api, options) {
  const request = stackRequest(api, options, GRADIENT_OPTIONS, 'transformerGradients()');
  request.dLogits = api.matrix(options, 'dLogits', false);
  request.dOutput = api.matrix(options, 'dOutput', false);
  return api.guarded(runtime, 'transformerGradients()', (module) => answer(api, module.transformerGradients(request)));
}

/**
 * A stack whose weights are checked and packed into WebAssembly memory once (engine.prepareTransformer,
 * docs/api.md#prepared-stacks); run() takes only ids (or x) and keeps no trace. Free it with dispose().
 */
export class PreparedTransformer {
  #handle;
  #api;
  #runtime;
  #generation;
  #masks;  // each block's mask code, for a run's padding

  // `staged`: a TransformerStaging's { staging, handle } whose tensors `options` names
  constructor(runtime, api, options, staged = null) {
    let request;
    try {
      request = stackRequest(api, options, PREPARE_OPTIONS, 'prepareTransformer()', staged?.staging ?? null);
    } catch (error) {
      staged?.handle.delete();  // the staged tensors go with the refused request
      throw error;
    }
    this.#handle = api.guarded(runtime, 'prepareTransformer()', (module) => {
      const handle = staged?.handle ?? new module.PreparedTransformer();
      const error = handle.prepare(request);
      if (error) {
        handle.delete();
        api.raise(error.error);
      }
      return handle;
    });
    this.#api = api;
    this.#runtime = runtime;
    this.#generation = runtime.generation;
    this.dModel = request.dModel;
    this.vocab = request.vocab;
    this.layers = request.layers.length;
    this.#masks = request.layers.map((layer) => layer.attention.maskMode);
  }

  #live() {
    if (!this.#handle) throw this.#api.fieldError(Error, 'prepared', 'this prepared stack was disposed; call engine.prepareTransformer() again');
    if (this.#generation !== this.#runtime.generation) {
      throw this.#api.fieldError(Error, 'prepared', 'this prepared stack was lost when the engine started again after a WebAssembly error; prepare it again');
    }
    return this.#handle;
  }

  /** { n, output (n × dModel), logits (n × vocab, with an unembedding), hiddenStates (with hiddenStates: true) }. */
  run(options) {
    const handle = this.#live();
    const api = this.#api;
    api.checkOptions(options, RUN_OPTIONS, 'run()');
    const reader = new Reader(api);
    const x = api.matrix(options, 'x', false);
    const ids = reader.ids(options, 'ids', x === null);
    if (x !== null && ids !== null) throw api.fieldError(TypeError, 'x', 'give ids or x, not both');
    const typeIds = reader.ids(options, 'typeIds', false);
    const logits = flag(reader, options, 'logits', 'compute the logits') ?? true;
    const hiddenStates = flag(reader, options, 'hiddenStates', 'keep every block\'s output') ?? false;
    // a padding mask (as transformer()'s): n from ids, or from x when x is n × dModel (else the core names x)
    const whole = x === null || x.length % this.dModel === 0;
    const keep = whole ? paddingKeep(reader, options, x === null ? ids.length : x.length / this.dModel, this.#masks, x === null ? 'ids' : 'x') : null;
    return answer(api, api.guarded(this.#runtime, 'run()', () => handle.run(ids, typeIds, x, logits, hiddenStates, keep)));
  }

  /**
   * The traced run (docs/api.md#prepared-stacks): { n, embeddings, layers[l] { input (what attention
   * read), weights[h] (n × n), output (attention's), hidden (the stream out) }, open (block openLayer's
   * attention trace: heads[h] { q, k, v, scores, scaled, weights, z }, concat, output; null without),
   * output, lastLogits (the last position's, with an unembedding) }. With `blocks`, only blocks
   * 0 … blocks − 1 are run: layers holds those, output is null and lastLogits absent. `reuse`: an
   * array of ArrayBuffers (an earlier trace's, no longer used) the arrays are written into when one of
   * the same byte length is left (each taken out of the array), so that a run makes no new buffer.
   */
  trace(options) {
    const handle = this.#live();
    const api = this.#api;
    api.checkOptions(options, TRACE_OPTIONS, 'trace()');
    const reader = new Reader(api);
    const x = api.matrix(options, 'x', false);
    const ids = reader.ids(options, 'ids', x === null);
    if (x !== null && ids !== null) throw api.fieldError(TypeError, 'x', 'give ids or x, not both');
    const typeIds = reader.ids(options, 'typeIds', false);
    const openLayer = reader.read(options, 'openLayer', '') === undefined ? -1 : reader.whole(options, 'openLayer', '', -1, 0);
    const lastLogits = flag(reader, options, 'lastLogits', 'the last position\'s logits') ?? true;
    const blocks = reader.read(options, 'blocks', '') === undefined ? -1 : reader.whole(options, 'blocks', '', -1, 0);
    const reuse = reuseOption(reader, options);
    // the binding gives views of WebAssembly memory: copied out before anything else runs in it
    return answer(api, api.guarded(this.#runtime, 'trace()', () => tracedRun(handle, [ids, typeIds, x, openLayer, lastLogits, blocks], reuse)));
  }

  /** Frees the weights in WebAssembly memory; run() then throws. Safe to call twice. */
  dispose() {
    if (this.#handle && this.#generation === this.#runtime.generation && this.#runtime.module) this.#handle.delete();
    this.#handle = null;
  }
}

// trace()'s `reuse`: an array of ArrayBuffers (earlier traces' buffers handed back) or undefined
function reuseOption(reader, options) {
  const reuse = reader.read(options, 'reuse', '');
  if (reuse === undefined || reuse === null) return null;
  if (!Array.isArray(reuse) || !reuse.every((b) => b instanceof ArrayBuffer)) {
    throw reader.api.fieldError(TypeError, 'reuse', `reuse must be an array of ArrayBuffers, got ${reader.api.describe(reuse)}`);
  }
  return reuse;
}

// A view of WebAssembly memory copied into a Float32Array of its own: over a buffer of `reuse` of the
// same byte length (taken out of the array) when there is one, else a new one.
function copyOut(view, reuse) {
  const at = reuse ? reuse.findIndex((buffer) => !buffer.detached && buffer.byteLength === view.byteLength) : -1;
  if (at < 0) return view.slice();
  const array = new Float32Array(reuse.splice(at, 1)[0]);
  array.set(view);
  return array;
}

// The binding's traced run, each block's trace copied out as that block ends (the binding holds one
// block's trace at a time in WebAssembly memory, not every block's). The callback never throws into
// the binding (a throw would cross its C++ frames, leaving what they hold allocated): it keeps the
// error and stops the run, and the error is thrown here once the binding has returned.
function tracedRun(handle, args, reuse) {
  const layers = [];
  let failure = null;
  const onLayer = (l, layer) => {
    try {
      layers.push(copyLayer(layer, reuse));
      return true;
    } catch (error) {
      failure = error;
      return false;
    }
  };
  const out = handle.trace(...args, onLayer);
  if (failure) throw failure;
  return copyTrace(out, layers, reuse);
}

// One block's views ({ input, weights[h], output, hidden }) copied out
function copyLayer(layer, reuse) {
  const copy = (view) => copyOut(view, reuse);
  return { input: copy(layer.input), weights: layer.weights.map(copy), output: copy(layer.output), hidden: copy(layer.hidden) };
}

// The binding's trace (views of the trace it keeps, but open's copies) with every view copied out;
// `layers`: the blocks' traces already copied out.
function copyTrace(out, layers, reuse) {
  if (out.error) return out;
  const copy = (view) => copyOut(view, reuse);
  const traced = { n: out.n, embeddings: copy(out.embeddings), layers, open: out.open, output: out.output === null ? null : copy(out.output) };
  if (out.lastLogits) traced.lastLogits = copy(out.lastLogits);
  return traced;
}

/** A tensor handed into WebAssembly memory by TransformerStaging.tensor(): named in place of its array. */
export class StagedTensor {
  #staging;
  #index;

  constructor(staging, index, length) {
    this.#staging = staging;
    this.#index = index;
    this.length = length;
  }

  // { staged: index } for the binding; only in its own staging's prepare()
  take(staging, field) {
    if (staging !== this.#staging) {
      throw new TypeError(`${field} is a staged tensor of another stageTransformer(): give it to that one's prepare()`);
    }
    return { staged: this.#index };
  }
}

/**
 * engine.stageTransformer() (docs/api.md#prepared-stacks): a model's weights handed into WebAssembly
 * memory tensor by tensor as they are read (tensor(values) copies one array in; the caller may then let
 * it go), then prepare(weights), whose arrays may be those staged tensors, gives the PreparedTransformer.
 * Each block's weight matrices are packed in their own staged storage and its other staged tensors
 * freed once it is prepared: the weights are never held twice over, not even one block's.
 */
export class TransformerStaging {
  #handle;
  #api;
  #runtime;
  #generation;

  constructor(runtime, api) {
    this.#api = api;
    this.#runtime = runtime;
    this.#handle = api.guarded(runtime, 'stageTransformer()', (module) => new module.PreparedTransformer());
    this.#generation = runtime.generation;
    this.values = 0;
  }

  #live() {
    if (!this.#handle) throw this.#api.fieldError(Error, 'staging', 'this staging was prepared or disposed; call engine.stageTransformer() again');
    if (this.#generation !== this.#runtime.generation) {
      throw this.#api.fieldError(Error, 'staging', 'the staged tensors were lost when the engine started again after a WebAssembly error; stage them again');
    }
    return this.#handle;
  }

  /** `values` (a Float32Array) copied into WebAssembly memory: a StagedTensor for prepare()'s weights. */
  tensor(values) {
    if (!(values instanceof Float32Array)) throw this.#api.fieldError(TypeError, 'tensor', `tensor() takes a Float32Array, got ${this.#api.describe(values)}`);
    const { tensor, fill } = this.tensorOf(values.length);
    fill(0, values);
    return tensor;
  }

  /**
   * A tensor of `length` values in WebAssembly memory, filled piece by piece: { tensor (a StagedTensor),
   * fill(offset, values) (a Float32Array copied in at `offset`) }, so that a large table never needs
   * one array in JavaScript. `rows`: the token table's rows (vocab), given room for a tied
   * unembedding's panels, which prepare() then packs in place of a second copy.
   */
  tensorOf(length, { rows = 0 } = {}) {
    const handle = this.#live();
    const api = this.#api;
    if (!Number.isInteger(length) || length < 0 || length > MAX_STAGED_VALUES) {
      throw api.fieldError(RangeError, 'tensor', `a tensor of ${length} values is above the cap of ${MAX_STAGED_VALUES} for one weight table`);
    }
    if (!Number.isInteger(rows) || rows < 0 || rows > INT_MAX) throw api.fieldError(RangeError, 'rows', `rows must be a whole number, got ${api.describe(rows)}`);
    const index = api.guarded(this.#runtime, 'stageTransformer().tensor()', () => handle.stage(length, rows));
    this.values += length;
    const fill = (offset, values) => {
      if (!(values instanceof Float32Array) || offset < 0 || offset + values.length > length) {
        throw api.fieldError(RangeError, 'tensor', `fill() takes a Float32Array within the tensor's ${length} values`);
      }
      this.#live();
      // HEAPF32 read at each fill: memory may have grown since
      api.guarded(this.#runtime, 'stageTransformer().tensor()', (module) => module.HEAPF32.set(values, (handle.stagedAddress(index) >> 2) + offset));
    };
    return { tensor: new StagedTensor(this, index, length), fill };
  }

  /**
   * Room made in WebAssembly memory for `values` more floats, grown at once and not touched, so that
   * the tensors staged next (up to that many values) do not grow it: true when made. A reader may then
   * have reads in flight while tensors are staged (a read in flight across a growth once hung Chromium).
   */
  reserve(values) {
    const handle = this.#live();
    if (!Number.isFinite(values) || values <= 0) return false;
    return this.#api.guarded(this.#runtime, 'stageTransformer().reserve()', () => handle.reserve(4 * values));
  }

  /** The PreparedTransformer of `weights` (prepareTransformer()'s), whose arrays may be staged tensors. */
  prepare(weights) {
    const handle = this.#live();
    this.#handle = null;  // prepared or refused, the staging is used up
    return new PreparedTransformer(this.#runtime, this.#api, weights, { staging: this, handle });
  }

  /** Frees the staged tensors. Safe to call twice, and after prepare(). */
  dispose() {
    if (this.#handle && this.#generation === this.#runtime.generation && this.#runtime.module) this.#handle.delete();
    this.#handle = null;
  }
}

/** engine.stageTransformer(): tensors handed in one by one, then prepare(weights). */
export function stageTransformer(runtime, api) {
  return new TransformerStaging(runtime, api);
}

/** engine.prepareTransformer(weights): the stack's weights without ids (docs/api.md#prepared-stacks). */
export function prepareTransformer(runtime, api, options) {
  return new PreparedTransformer(runtime, api, options);
}
