// The Attention Lab engine: the C++ core compiled to WebAssembly, behind a small checked API.
//
//   import { loadAttention } from './lib/attention.mjs';
//   const engine = await loadAttention();            // { simd: 'auto' | true | false }
//   const r = engine.attention({ x, n, dModel, heads, wq, wk, wv, wo, mask, scale, trace });
//   const learner = await loadAttention({ learning: true });   // + gradients() and createTrainer()
//
// This file checks JavaScript types, applies defaults and turns the core's errors into exceptions.
// Value checks (sizes, finiteness, caps) happen once, in the core, so their messages are the same
// natively and here. Shapes and layouts: see attention.d.ts.
import { simd as simdSupported } from 'wasm-feature-detect';

export const VERSION = '0.1.0';

// Names a caller gives are looked up in Maps: 'toString' or '__proto__' is an unknown name, never a mode.
const SCALE_MODES = new Map([['sqrt_dk', 0], ['none', 1]]);
const SCALE_DIVISOR = 2;
const MASK_MODES = new Map([['none', 0], ['causal', 1]]);
const MASK_KEEP = 2;
const INT32_MAX = 2147483647;
const MAX_VALUES = 2 ** 24;  // the core's kMaxMatrixValues: no input may hold more

const ATTENTION_OPTIONS = new Set([
  'x', 'n', 'dModel', 'context', 'm', 'heads', 'dK', 'dV', 'wq', 'wk', 'wv', 'wo', 'scale', 'mask', 'trace',
  'bq', 'bk', 'bv', 'bo', 'positions',
]);
const GRADIENT_OPTIONS = new Set([...ATTENTION_OPTIONS, 'dOutput', 'dWeights']);
const POSITION_MODES = { none: 0, sinusoidal: 1 };
const INIT_OPTIONS = new Set(['dModel', 'heads', 'dK', 'dV', 'seed']);
const PREPARE_OPTIONS = new Set(['dModel', 'heads', 'dK', 'dV', 'wq', 'wk', 'wv', 'wo', 'scale', 'mask']);
const RUN_OPTIONS = new Set(['x', 'n', 'output']);

// A value named in a message. Never throws: an object whose toString, constructor or length throws
// (a look-alike of a typed array, a Proxy) is named by its type alone.
function describe(value) {
  try {
    if (value === null) return 'null';
    if (value === undefined) return 'nothing (undefined)';
    if (Array.isArray(value)) return `an array of ${value.length}`;
    if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.length}`;
    if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    return `${typeof value} ${String(value)}`;
  } catch {
    return `an unreadable ${typeof value}`;
  }
}

function checkOptions(options, allowed, what) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${what} takes an options object, got ${describe(options)}`);
  }
  let keys;
  try {
    keys = Object.keys(options);
  } catch (error) {
    throw new TypeError(`${what}: the options could not be read: ${error?.message ?? String(error)}`);
  }
  for (const key of keys) {
    if (!allowed.has(key)) throw fieldError(TypeError, key, `unknown option '${key}' (known: ${[...allowed].join(', ')})`);
  }
}

// options[field], where a getter or a Proxy that throws fails naming the field.
function readOption(options, field) {
  try {
    return options[field];
  } catch (error) {
    throw fieldError(TypeError, field, `${field} could not be read: ${error?.message ?? String(error)}`);
  }
}

function fieldError(Kind, field, message) {
  const error = new Kind(message);
  error.field = field;
  return error;
}

// An integer option; `fallback` (0 meaning "derive it") when omitted.
function integer(options, field, fallback) {
  const value = readOption(options, field);
  if (value === undefined) {
    if (fallback === undefined) throw fieldError(TypeError, field, `${field} is required: a whole number`);
    return fallback;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw fieldError(TypeError, field, `${field} must be a whole number, got ${describe(value)}`);
  }
  if (value < 1) throw fieldError(RangeError, field, `${field} must be at least 1, got ${value}`);
  if (value > INT32_MAX) throw fieldError(RangeError, field, `${field} (${value}) is far above any cap`);
  return value;
}

// options[key] (named `field` in errors) as a Float32Array (number arrays are converted; other types
// refused), or null. Whatever fails while the value is read (a getter, a Proxy) fails here, naming the field.
function matrix(options, key, required, field = key) {
  const value = readOption(options, key);
  if (value === undefined || value === null) {
    if (required) throw fieldError(TypeError, field, `${field} is required: a Float32Array or an array of numbers`);
    return null;
  }
  try {
    if (ArrayBuffer.isView(value)) checkReadable(field, value);
    if (value instanceof Float32Array) return value;
    const convertible = Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView) && typeof value[0] !== 'bigint');
    if (!convertible) throw fieldError(TypeError, field, `${field} must be a Float32Array or an array of numbers, got ${describe(value)}`);
    // converting is a copy: refuse what no input may hold before making it
    if (value.length > MAX_VALUES) {
      throw fieldError(RangeError, field, `${field} has ${value.length} values, above the cap of ${MAX_VALUES} for any one input`);
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (typeof value[i] !== 'number') {
          throw fieldError(TypeError, field, `${field}[${i}] is not a number (got ${describe(value[i])})`);
        }
      }
    }
    return Float32Array.from(value);
  } catch (error) {
    if (error.field) throw error;
    throw fieldError(TypeError, field, `${field} could not be read: ${error.message}`);
  }
}

// The length a typed array really has (a subclass cannot override the intrinsic getter).
const TYPED_LENGTH = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'length').get;
const TYPED_BUFFER = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'buffer').get;
const typedLength = (array) => TYPED_LENGTH.call(array);

// A typed array whose buffer was transferred away reads as empty: say so, instead of "0 values".
function checkReadable(field, array) {
  if (isDetached(array.buffer)) {
    throw fieldError(TypeError, field, `${field} cannot be read: its ArrayBuffer was detached (transferred to a worker or another owner)`);
  }
}

function isDetached(buffer) {
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  if (buffer.byteLength !== 0) return false;
  try {
    new Uint8Array(buffer);  // throws on a detached buffer, even where .detached is missing
    return false;
  } catch {
    return true;
  }
}

function scaleOption(value) {
  if (value === undefined) return [SCALE_MODES.get('sqrt_dk'), 1];
  if (typeof value === 'string' && SCALE_MODES.has(value)) return [SCALE_MODES.get(value), 1];
  if (typeof value === 'number') return [SCALE_DIVISOR, value];  // the core checks it is finite and > 0
  throw fieldError(TypeError, 'scale', `scale must be 'sqrt_dk', 'none' or a number to divide the scores by, got ${describe(value)}`);
}

function maskOption(value) {
  if (value === undefined) return [MASK_MODES.get('none'), null];
  if (typeof value === 'string' && MASK_MODES.has(value)) return [MASK_MODES.get(value), null];
  if (value instanceof Uint8Array) {
    checkReadable('mask', value);
    return [MASK_KEEP, value];
  }
  if (Array.isArray(value)) {
    const keep = new Uint8Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const cell = value[i];
      if (cell === true || cell === 1) keep[i] = 1;
      else if (cell === false || cell === 0) keep[i] = 0;
      else throw fieldError(TypeError, 'mask', `mask[${i}] must be 1 (keep) or 0 (masked), got ${describe(cell)}`);
    }
    return [MASK_KEEP, keep];
  }
  throw fieldError(TypeError, 'mask', `mask must be 'none', 'causal' or a Uint8Array of n × m keep flags, got ${describe(value)}`);
}

function positionsOption(value) {
  if (value === undefined) return POSITION_MODES.none;
  if (typeof value === 'string' && value in POSITION_MODES) return POSITION_MODES[value];
  throw fieldError(TypeError, 'positions', `positions must be 'none' or 'sinusoidal', got ${describe(value)}`);
}

function raise(error) {
  throw fieldError(error.kind === 'type' ? TypeError : RangeError, error.field, error.message);
}

// The request block of the engine's plain exports (core/bindings/calls.cpp): these scalars in this
// order, then an (address, length) pair per array in REQUEST_ARRAYS order; length -1: omitted.
const REQUEST_SCALARS = ['n', 'm', 'dModel', 'heads', 'dK', 'dV', 'scaleMode', 'scaleDivisor', 'maskMode', 'positionsMode', 'trace'];
const REQUEST_ARRAYS = ['x', 'context', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo', 'keep', 'dOutput', 'dWeights'];
const HEAD_ARRAYS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'z'];
// gradients()'s Output after the output, in this order (empty: the input was omitted)
const GRADIENT_ARRAYS = ['x', 'context', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];

// The last failed call's { kind, field, message } thrown, and its text freed in the engine.
function raiseLast(module) {
  const kind = module._attn_error_kind() === 1 ? 'type' : 'range';
  const field = readString(module, module._attn_error_field());
  const message = readString(module, module._attn_error_message());
  module._attn_error_clear();
  raise({ kind, field, message });
}

// The arrays of an Output (calls.cpp) as Float32Array copies the caller owns; the Output is freed.
function takeOutput(module, output) {
  try {
    const arrays = [];
    for (let i = 0, count = module._attn_output_count(output); i < count; i++) {
      const at = module._attn_output_data(output, i) >> 2;
      arrays.push(module.HEAPF32.slice(at, at + module._attn_output_size(output, i)));
    }
    const shapeAt = module._attn_output_shape(output) >> 3;
    return { arrays, shape: Array.from(module.HEAPF64.subarray(shapeAt, shapeAt + 9)) };
  } finally {
    module._attn_output_free(output);
  }
}

// attention()'s result from an Output: the shape, output, and with the trace concat, every head's
// intermediates and the positions added.
function attentionResult(module, output, trace) {
  const { arrays, shape: [n, m, dModel, heads, dK, dV, dOut, scale, self] } = takeOutput(module, output);
  const [out, concat, positionsX, positionsContext] = arrays;
  const result = { shape: { n, m, dModel, heads, dK, dV, dOut, scale, self: self === 1 }, dOut, output: out };
  if (!trace) return result;
  result.concat = concat;
  result.heads = [];
  for (let at = 4; at < arrays.length; at += HEAD_ARRAYS.length) {
    result.heads.push(Object.fromEntries(HEAD_ARRAYS.map((name, i) => [name, arrays[at + i]])));
  }
  if (positionsX.length) {
    result.positions = { x: positionsX };
    if (positionsContext.length) result.positions.context = positionsContext;
  }
  return result;
}

/**
 * Calls the core on arrays, the one way every entry point hands arrays over:
 *   1. the request block gets the scalars and only the lengths of the arrays, and `check` (an
 *      export of calls.cpp) checks them, so sizes are refused before a single byte is allocated or
 *      copied (a 600-million-value x costs nothing);
 *   2. each array is copied into memory from malloc, here in JavaScript: an array that fails while
 *      being read fails here, with its field, and no C++ frame is on the stack to leak;
 *   3. `run` runs on the addresses and lengths and returns an Output (read it with takeOutput);
 *   4. the copies are freed, whatever happened.
 * `arrays` maps a field to a Float32Array, a Uint8Array, or null (omitted).
 */
function callWithArrays(module, check, run, request, arrays) {
  const lengths = REQUEST_ARRAYS.map((field) => {
    const array = arrays[field];
    if (!array) return -1;
    checkReadable(field, array);  // detached since it was read (by a getter of a later option)
    return typedLength(array);
  });
  const addresses = lengths.map(() => 0);
  // The whole block is written just before each call, with no caller's code in between (a getter
  // run while the arrays are copied may call the engine again, and the block is the engine's one).
  const call = (core) => {
    const at = module._attn_request() >> 3;
    module.HEAPF64.set([...REQUEST_SCALARS.map((name) => Number(request[name])), ...lengths.flatMap((length, i) => [addresses[i], length])], at);
    return core();
  };
  if (call(check)) raiseLast(module);
  try {
    REQUEST_ARRAYS.forEach((field, i) => {
      const array = arrays[field];
      if (!array) return;
      const length = lengths[i];
      const Type = array instanceof Uint8Array ? Uint8Array : Float32Array;
      const address = module._malloc(Math.max(length * Type.BYTES_PER_ELEMENT, 8));
      if (address === 0) throw fieldError(RangeError, field, `${field} (${length} values) does not fit in the engine's memory`);
      addresses[i] = address;
      try {
        checkReadable(field, array);
        // a fresh view each time: a malloc above may have grown the memory and replaced its buffer
        new Type(module.HEAPU8.buffer, address, length).set(array);
      } catch (error) {
        if (error.field) throw error;
        throw fieldError(TypeError, field, `${field} could not be read: ${error.message}`);
      }
    });
    const output = call(run);
    if (!output) raiseLast(module);
    return output;
  } finally {
    for (const address of addresses) if (address) module._free(address);
  }
}

// An attention() request checked for types, with defaults applied, as the binding reads it.
function attentionRequest(options) {
  const x = matrix(options, 'x', true);
  const context = matrix(options, 'context', false);
  const n = integer(options, 'n');
  const dModel = integer(options, 'dModel');
  const heads = integer(options, 'heads', 1);
  const [scaleMode, scaleDivisor] = scaleOption(readOption(options, 'scale'));
  const [maskMode, keep] = maskOption(readOption(options, 'mask'));
  const given = readOption(options, 'trace');
  const trace = given === undefined ? true : given;
  if (typeof trace !== 'boolean') throw fieldError(TypeError, 'trace', `trace must be true or false, got ${describe(trace)}`);
  let m = integer(options, 'm', 0);
  if (context && m === 0) {
    if (context.length % dModel !== 0) {
      throw fieldError(RangeError, 'context', `context has ${context.length} values, not a multiple of dModel (${dModel})`);
    }
    m = context.length / dModel;
  }
  return {
    n, m, dModel, heads,
    dK: integer(options, 'dK', 0),
    dV: integer(options, 'dV', 0),
    scaleMode, scaleDivisor, maskMode, trace,
    positionsMode: positionsOption(options.positions),
    x, context,
    wq: matrix(options, 'wq', false),
    wk: matrix(options, 'wk', false),
    wv: matrix(options, 'wv', false),
    wo: matrix(options, 'wo', false),
    bq: matrix(options, 'bq', false),
    bk: matrix(options, 'bk', false),
    bv: matrix(options, 'bv', false),
    bo: matrix(options, 'bo', false),
    keep,
  };
}

// The option helpers trainer.mjs shares.
const TRAINER_API = Object.freeze({
  fieldError, describe, raise, matrix, integer, checkOptions, scaleOption, positionsOption,
});

// What gradients() and createTrainer() say on an engine loaded without the learning code.
function notLearning(what) {
  return new Error(`${what} needs the learning engine: this engine was loaded without the backward pass and ` +
    'trainer, to keep it small. Load it with loadAttention({ learning: true })');
}

class AttentionEngine {
  #module;
  #Trainer;

  // Trainer: trainer.mjs's class, on a learning engine only (imported with it: the page's engine
  // does not download it).
  constructor(module, simd, Trainer = null) {
    this.#module = module;
    this.#Trainer = Trainer;
    // A build without the backward pass has no gradients export (see CMakeLists.txt).
    this.info = Object.freeze({ version: VERSION, simd, learning: typeof module._attn_gradients === 'function' && Trainer !== null });
  }

  attention(options) {
    checkOptions(options, ATTENTION_OPTIONS, 'attention()');
    const { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep, ...scalars } = attentionRequest(options);
    const module = this.#module;
    const output = callWithArrays(module, module._attn_check, module._attn_attention, scalars, { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep });
    return attentionResult(module, output, scalars.trace);
  }

  /**
   * The gradient of L = Σ dOutput ⊙ output + Σ dWeights ⊙ weights with respect to every input
   * present (x, context, wq, wk, wv, wo, bq, bk, bv, bo), each in its input's layout, and output.
   */
  gradients(options) {
    if (!this.info.learning) throw notLearning('gradients()');
    checkOptions(options, GRADIENT_OPTIONS, 'gradients()');
    const { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep, ...scalars } = attentionRequest(options);
    scalars.trace = true;
    const dOutput = matrix(options, 'dOutput', true);
    const dWeights = matrix(options, 'dWeights', false);
    const module = this.#module;
    const output = callWithArrays(module, module._attn_check_gradients, module._attn_gradients, scalars,
      { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep, dOutput, dWeights });
    const [out, ...gradients] = takeOutput(module, output).arrays;
    const result = { output: out };
    GRADIENT_ARRAYS.forEach((field, i) => {
      if (gradients[i].length) result[field] = gradients[i];
    });
    return result;
  }

  /** One attention layer that learns, inside WebAssembly; see trainer.mjs. Free it with dispose(). */
  createTrainer(options) {
    if (!this.info.learning) throw notLearning('createTrainer()');
    return new this.#Trainer(this.#module, TRAINER_API, options);
  }

  /**
   * A model to run many times: the weights are checked once and stay in WebAssembly memory, and
   * each run() copies only x in and the output out. Self-attention; mask 'none' or 'causal'.
   */
  prepare(options) {
    return prepareModel(this.#module, options);
  }

  /** WebAssembly memory in use: the whole heap, the bytes malloc has handed out, and the stack pointer. */
  memory() {
    const module = this.#module;
    return { heapBytes: module.HEAPU8.length, allocatedBytes: module._attn_allocated_bytes(), stackPointer: module._attn_stack_pointer() };
  }

  initWeights(options) {
    checkOptions(options, INIT_OPTIONS, 'initWeights()');
    const given = readOption(options, 'seed');
    const seed = given === undefined ? 0 : given;
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
      throw fieldError(RangeError, 'seed', `seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${describe(seed)}`);
    }
    const module = this.#module;
    const output = module._attn_init_weights(
      integer(options, 'dModel'), integer(options, 'heads', 1), integer(options, 'dK', 0), integer(options, 'dV', 0), seed);
    if (!output) raiseLast(module);
    const [wq, wk, wv, wo] = takeOutput(module, output).arrays;
    return { wq, wk, wv, wo };
  }
}

// A zero-terminated string in WebAssembly memory.
function readString(module, pointer) {
  const bytes = module.HEAPU8;
  let end = pointer;
  while (bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(pointer, end));
}

function raisePrepared(module, model, kind) {
  const field = readString(module, module._attn_prepared_error_field(model));
  throw fieldError(kind === 1 ? TypeError : RangeError, field, readString(module, module._attn_prepared_error_message(model)));
}

function prepareModel(module, options) {
  checkOptions(options, PREPARE_OPTIONS, 'prepare()');
  const dModel = integer(options, 'dModel');
  const heads = integer(options, 'heads', 1);
  const dK = integer(options, 'dK', 0);
  const dV = integer(options, 'dV', 0);
  const [scaleMode, scaleDivisor] = scaleOption(options.scale);
  const [maskMode] = maskOption(options.mask);
  const weights = ['wq', 'wk', 'wv', 'wo'].map((field) => matrix(options, field, false));
  const model = module._attn_prepared_new(dModel, heads, dK, dV, scaleMode, scaleDivisor, maskMode);
  try {
    weights.forEach((values, which) => {
      if (!values) return;
      const pointer = module._attn_prepared_weight(model, which, values.length);
      const field = ['wq', 'wk', 'wv', 'wo'][which];
      if (!pointer) throw fieldError(RangeError, field, `${field} has ${values.length} values, above the cap of ${2 ** 24}`);
      module.HEAPF32.set(values, pointer >> 2);  // HEAPF32 read after the allocation: memory may have grown
    });
    const status = module._attn_prepared_check(model);
    if (status) raisePrepared(module, model, status);
  } catch (error) {
    module._attn_prepared_free(model);
    throw error;
  }
  return new PreparedAttention(module, model, dModel, module._attn_prepared_d_out(model));
}

class PreparedAttention {
  #module;
  #model;

  constructor(module, model, dModel, dOut) {
    this.#module = module;
    this.#model = model;
    this.dModel = dModel;
    this.dOut = dOut;
  }

  /**
   * { output (n × dOut Float32Array, owned by the caller), dOut } for x (n × dModel). With `output`
   * (a Float32Array of n × dOut values) the result is written into it and it is returned: a loop of
   * calls then allocates nothing (a new 64 KB array costs Chromium about 35 µs, Node 5).
   */
  run(options) {
    if (this.#model === 0) throw new Error('this prepared model was disposed; call engine.prepare() again');
    checkOptions(options, RUN_OPTIONS, 'run()');
    const x = matrix(options, 'x', true);
    const n = integer(options, 'n');
    const module = this.#module;
    if (x.length !== n * this.dModel) {
      throw fieldError(RangeError, 'x', `x has ${x.length} values; expected n × dModel = ${n} × ${this.dModel} = ${n * this.dModel}`);
    }
    const given = readOption(options, 'output');
    if (given !== undefined) {
      // a real Float32Array (a Proxy or a look-alike is not one), readable, of the right length
      if (!ArrayBuffer.isView(given) || !(given instanceof Float32Array)) {
        throw fieldError(TypeError, 'output', `output must be a Float32Array of n × dOut values, got ${describe(given)}`);
      }
      if (isDetached(TYPED_BUFFER.call(given))) {
        throw fieldError(TypeError, 'output', 'output cannot be written: its ArrayBuffer was detached (transferred to a worker or another owner)');
      }
      if (typedLength(given) !== n * this.dOut) {
        throw fieldError(RangeError, 'output', `output has ${typedLength(given)} values; expected n × dOut = ${n} × ${this.dOut} = ${n * this.dOut}`);
      }
    }
    const input = module._attn_prepared_input(this.#model, n);
    if (!input) throw fieldError(RangeError, 'n', `n (${n}) is above the cap of 4096 tokens`);
    module.HEAPF32.set(x, input >> 2);
    const status = module._attn_prepared_run(this.#model);
    if (status) raisePrepared(module, this.#model, status);
    const output = module._attn_prepared_output(this.#model) >> 2;
    if (given !== undefined) {
      Float32Array.prototype.set.call(given, module.HEAPF32.subarray(output, output + n * this.dOut));
      return { output: given, dOut: this.dOut };
    }
    return { output: module.HEAPF32.slice(output, output + n * this.dOut), dOut: this.dOut };
  }

  /** Frees the weights and buffers in WebAssembly memory; run() then throws. Safe to call twice. */
  dispose() {
    if (this.#model !== 0) this.#module._attn_prepared_free(this.#model);
    this.#model = 0;
  }
}

const isNode = typeof process === 'object' && process.versions != null && process.versions.node != null;

// The trainer's JavaScript side, fetched with a learning engine only (a chunk of its own in dist/lib).
const trainerClass = async () => (await import('./trainer.mjs')).Trainer;

function checkLoadOptions(simd, learning) {
  if (simd !== 'auto' && typeof simd !== 'boolean') {
    throw fieldError(TypeError, 'simd', `simd must be 'auto', true or false, got ${describe(simd)}`);
  }
  if (typeof learning !== 'boolean') {
    throw fieldError(TypeError, 'learning', `learning must be true or false, got ${describe(learning)}`);
  }
}

/**
 * Loads the engine. `simd: 'auto'` takes the SIMD build when this runtime validates a SIMD probe
 * module; true or false forces a build. `learning: true` loads the larger build that also has
 * gradients() and createTrainer() (attention-learn-*); the default build runs the forward pass only.
 * `wasmBinary` (bytes of the chosen build's .wasm) skips the fetch. `baseUrl` is the folder holding
 * the builds (default: this file's own folder).
 */
export async function loadAttention({ simd = 'auto', learning = false, wasmBinary, baseUrl = new URL('./', import.meta.url) } = {}) {
  checkLoadOptions(simd, learning);
  const useSimd = simd === 'auto' ? await simdSupported() : simd;
  const build = `${learning ? 'learn-' : ''}${useSimd ? 'simd' : 'scalar'}`;
  const wasmUrl = new URL(`attention-${build}.wasm`, baseUrl);
  const moduleOptions = {};
  if (wasmBinary) {
    moduleOptions.wasmBinary = wasmBinary;
  } else if (isNode) {
    // Node's fetch() cannot read files: hand the module its bytes.
    const { readFile } = await import('node:fs/promises');
    moduleOptions.wasmBinary = await readFile(wasmUrl);
  } else if (typeof WebAssembly.compileStreaming === 'function') {
    // Compile while the glue script loads, instead of after it: one round trip less before the
    // first result. (A server that does not send .wasm as application/wasm makes this fail; the
    // glue then fetches and compiles the file itself.)
    const compiled = WebAssembly.compileStreaming(fetch(wasmUrl, { credentials: 'same-origin' }));
    compiled.catch(() => {});
    moduleOptions.instantiateWasm = (imports, receiveInstance) => {
      compiled
        .then((wasmModule) => WebAssembly.instantiate(wasmModule, imports).then((instance) => receiveInstance(instance, wasmModule)))
        .catch(() => fetch(wasmUrl).then((r) => r.arrayBuffer()).then((bytes) => WebAssembly.instantiate(bytes, imports))
          .then(({ instance, module }) => receiveInstance(instance, module)));
      return {};
    };
  }
  const [{ default: createAttentionModule }, Trainer] = await Promise.all([
    import(new URL(`attention-${build}.mjs`, baseUrl).href), learning ? trainerClass() : null]);
  const module = await createAttentionModule(moduleOptions);
  return new AttentionEngine(module, module._attn_has_simd() === 1, Trainer);
}

/**
 * Loads the engine from builds already in hand, for a page that carries everything inside itself:
 * builds = { simd: { createModule, wasmBinary }, scalar: { createModule, wasmBinary } }, and for
 * `learning: true`, 'learn-simd' and 'learn-scalar' alike. A build may instead be an async function
 * returning { createModule, wasmBinary }, so that a bundle can load the learning builds when asked.
 */
export async function loadAttentionFrom(builds, { simd = 'auto', learning = false } = {}) {
  checkLoadOptions(simd, learning);
  const useSimd = simd === 'auto' ? await simdSupported() : simd;
  const name = `${learning ? 'learn-' : ''}${useSimd ? 'simd' : 'scalar'}`;
  let build = builds[name];
  if (typeof build === 'function') build = await build();
  if (!build) throw fieldError(RangeError, 'learning', `these builds have no '${name}' engine (have: ${Object.keys(builds).join(', ')})`);
  const { createModule, wasmBinary } = build;
  const [module, Trainer] = await Promise.all([createModule({ wasmBinary }), learning ? trainerClass() : null]);
  return new AttentionEngine(module, module._attn_has_simd() === 1, Trainer);
}
