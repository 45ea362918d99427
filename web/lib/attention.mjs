// The Attention Lab engine: the C++ core compiled to WebAssembly, behind a small checked API.
//
//   import { loadAttention } from './lib/attention.mjs';
//   const engine = await loadAttention();            // { simd: 'auto' | 'relaxed' | true | false }
//   const r = engine.attention({ x, n, dModel, heads, wq, wk, wv, wo, mask, scale, trace });
//   const learner = await loadAttention({ learning: true });   // + gradients(), createTrainer(), transformer()
//
// This file checks JavaScript types, applies defaults and turns the core's errors into exceptions.
// Value checks (sizes, finiteness, caps) happen once, in the core, so their messages are the same
// natively and here. Shapes and layouts: see attention.d.ts.
import { relaxedSimd as relaxedSupported, simd as simdSupported } from 'wasm-feature-detect';
import { Runtime, guarded } from './runtime.mjs';
// the browser's or Node's way to the builds, chosen by package.json "imports" (files.mjs, files.node.mjs)
import { engineFiles } from '#engine-files';

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
  'bq', 'bk', 'bv', 'bo', 'positions', 'kvHeads', 'rotary', 'window',
]);
const FLASH_OPTIONS = new Set([...[...ATTENTION_OPTIONS].filter((key) => key !== 'trace'), 'tile', 'sinks']);
const ROTARY_OPTIONS = new Set(['dims', 'theta', 'firstPosition']);
const MAX_POSITION = 2 ** 18;  // the core's kMaxPosition (rotary.firstPosition)
const GRADIENT_OPTIONS = new Set([...ATTENTION_OPTIONS, 'dOutput', 'dWeights']);
const POSITION_MODES = new Map([['none', 0], ['sinusoidal', 1]]);
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
    if (ArrayBuffer.isView(value)) return isTypedArray(value) ? `a ${TYPED_KIND.call(value)} of ${typedLength(value)}` : 'a DataView';
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
    throw new TypeError(`${what}: the options could not be read: ${error?.message ?? String(error)}`, { cause: error });
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
    if (isTypedArray(value)) return typedAsFloat32(field, value);
    if (!Array.isArray(value)) throw fieldError(TypeError, field, `${field} must be a Float32Array or an array of numbers, got ${describe(value)}`);
    // converting is a copy: refuse what no input may hold before making it
    if (value.length > MAX_VALUES) {
      throw fieldError(RangeError, field, `${field} has ${value.length} values, above the cap of ${MAX_VALUES} for any one input`);
    }
    {
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

// What a typed array really holds, read through %TypedArray%.prototype's own getters: a subclass
// (or an own property) can make `length`, `buffer` or `byteLength` say anything, these cannot.
const TYPED_PROTOTYPE = Object.getPrototypeOf(Uint8Array.prototype);
const intrinsic = (name) => Object.getOwnPropertyDescriptor(TYPED_PROTOTYPE, name).get;
const TYPED_LENGTH = intrinsic('length');
const TYPED_BUFFER = intrinsic('buffer');
const TYPED_OFFSET = intrinsic('byteOffset');
const TYPED_KIND = intrinsic(Symbol.toStringTag);  // 'Float32Array', …; undefined for anything else
const TYPED_SET = TYPED_PROTOTYPE.set;
const typedLength = (array) => TYPED_LENGTH.call(array);
const isTypedArray = (value) => ArrayBuffer.isView(value) && TYPED_KIND.call(value) !== undefined;

// A typed array as a plain Float32Array of its true length: a Float32Array (of any subclass) as a
// plain view of the same memory, any other kind converted. Every later `.length` is then the truth.
function typedAsFloat32(field, value) {
  const kind = TYPED_KIND.call(value);
  const buffer = TYPED_BUFFER.call(value);
  if (isDetached(buffer)) {
    throw fieldError(TypeError, field, `${field} cannot be read: its ArrayBuffer was detached (transferred to a worker or another owner)`);
  }
  const length = typedLength(value);
  if (kind === 'Float32Array') return new Float32Array(buffer, TYPED_OFFSET.call(value), length);
  if (kind.startsWith('Big')) throw fieldError(TypeError, field, `${field} must be a Float32Array or an array of numbers, got a ${kind} of ${length}`);
  if (length > MAX_VALUES) throw fieldError(RangeError, field, `${field} has ${length} values, above the cap of ${MAX_VALUES} for any one input`);
  const copy = new Float32Array(length);
  TYPED_SET.call(copy, value);  // from a typed array: reads its elements by their true length
  return copy;
}

// A Uint8Array (of any subclass) as a plain Uint8Array of its true length.
function plainBytes(field, value) {
  const buffer = TYPED_BUFFER.call(value);
  if (isDetached(buffer)) {
    throw fieldError(TypeError, field, `${field} cannot be read: its ArrayBuffer was detached (transferred to a worker or another owner)`);
  }
  return new Uint8Array(buffer, TYPED_OFFSET.call(value), typedLength(value));
}

// A typed array whose buffer was transferred away reads as empty: say so, instead of "0 values".
function checkReadable(field, array) {
  if (isDetached(TYPED_BUFFER.call(array))) {
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

// A mask: 'none', 'causal', or a matrix of n × m flags whose convention is named:
// { keep } (1 or true: the query may look at that key, the engine's own convention) or { masked }
// (1 or true: hidden, as PyTorch's boolean attn_mask). An unnamed array of flags (typed or not) is
// refused, with the two names to choose from: the conventions a reader may come from read the same
// flags opposite ways, and a mask silently inverted computes without a word.
function maskOption(value) {
  if (value === undefined) return [MASK_MODES.get('none'), null];
  if (typeof value === 'string' && MASK_MODES.has(value)) return [MASK_MODES.get(value), null];
  if (isTypedArray(value) || Array.isArray(value)) {
    throw fieldError(TypeError, 'mask', `mask is an array of flags without its convention: give { keep: [...] } ` +
      '(1 or true: the query may look at that key) or { masked: [...] } (1 or true: hidden, as in PyTorch\'s boolean attn_mask)');
  }
  const named = value !== null && typeof value === 'object' && !isTypedArray(value) ? Object.keys(value) : [];
  if (named.length === 1 && (named[0] === 'keep' || named[0] === 'masked')) {
    const field = `mask.${named[0]}`;
    return [MASK_KEEP, maskFlags(readOption(value, named[0]), field, named[0] === 'masked')];
  }
  throw fieldError(TypeError, 'mask', "mask must be 'none', 'causal', { keep: flags } or { masked: flags } (n × m flags, " +
    `1 or true where the name says), got ${describe(value)}`);
}

// Flags (a Uint8Array, or an array of 0, 1, true, false) as keep flags; `masked`: they name the hidden keys.
function maskFlags(flags, field, masked) {
  const error = (why) => fieldError(why.kind, 'mask', why.text);
  if (isTypedArray(flags) && TYPED_KIND.call(flags) === 'Uint8Array') {
    const bytes = plainBytes(field, flags);
    const bad = bytes.findIndex((b) => b > 1);
    if (bad >= 0) throw error({ kind: TypeError, text: `${field}[${bad}] must be 1 or 0, got ${bytes[bad]}` });
    return masked ? bytes.map((b) => 1 - b) : bytes;
  }
  if (!Array.isArray(flags)) throw error({ kind: TypeError, text: `${field} must be a Uint8Array or an array of 0, 1, true or false, got ${describe(flags)}` });
  if (flags.length > MAX_VALUES) throw error({ kind: RangeError, text: `${field} has ${flags.length} values, above the cap of ${MAX_VALUES}` });
  const keep = new Uint8Array(flags.length);
  for (let i = 0; i < flags.length; i++) {
    const cell = flags[i];
    const on = cell === true || cell === 1;
    if (!on && cell !== false && cell !== 0) {
      throw error({ kind: TypeError, text: `${field}[${i}] must be 1 (${masked ? 'masked' : 'keep'}) or 0 (${masked ? 'keep' : 'masked'}), got ${describe(cell)}` });
    }
    keep[i] = on !== masked ? 1 : 0;
  }
  return keep;
}

function positionsOption(value) {
  if (value === undefined) return POSITION_MODES.get('none');
  if (typeof value === 'string' && POSITION_MODES.has(value)) return POSITION_MODES.get(value);
  throw fieldError(TypeError, 'positions', `positions must be 'none' or 'sinusoidal', got ${describe(value)}`);
}

// A whole number from 0 (`fallback` when omitted); the core checks how it fits the rest.
function count(value, field, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw fieldError(TypeError, field, `${field} must be a whole number, got ${describe(value)}`);
  }
  if (value < 0) throw fieldError(RangeError, field, `${field} must be 0 or more, got ${value}`);
  if (value > INT32_MAX) throw fieldError(RangeError, field, `${field} (${value}) is far above any cap`);
  return value;
}

// kvHeads (0: heads), rotary { dims, theta, firstPosition } and window, as the request's scalars.
function modernOptions(options) {
  const kvHeads = count(readOption(options, 'kvHeads'), 'kvHeads', 0);
  if (kvHeads === 0 && readOption(options, 'kvHeads') !== undefined) {
    throw fieldError(RangeError, 'kvHeads', 'kvHeads must be at least 1 (a divisor of heads), got 0');
  }
  const rotary = readOption(options, 'rotary');
  let rotaryDims = 0, rotaryTheta = 10000, rotaryFirstPosition = 0;
  if (rotary !== undefined) {
    try {
      checkOptions(rotary, ROTARY_OPTIONS, 'rotary');
    } catch (error) {  // named inside rotary: 'rotary.base', or 'rotary' itself when it is not an object
      throw fieldError(TypeError, error.field ? `rotary.${error.field}` : 'rotary', error.message);
    }
    rotaryDims = count(readOption(rotary, 'dims'), 'rotary.dims', undefined);
    if (rotaryDims === undefined) throw fieldError(TypeError, 'rotary.dims', 'rotary.dims is required: the even number of rotated features per head');
    const theta = readOption(rotary, 'theta');
    if (theta !== undefined && typeof theta !== 'number') {
      throw fieldError(TypeError, 'rotary.theta', `rotary.theta must be a number, got ${describe(theta)}`);
    }
    rotaryTheta = theta ?? 10000;  // the core checks it is finite and above 1
    rotaryFirstPosition = count(readOption(rotary, 'firstPosition'), 'rotary.firstPosition', 0);
    if (rotaryFirstPosition > MAX_POSITION) {
      throw fieldError(RangeError, 'rotary.firstPosition', `rotary.firstPosition is ${rotaryFirstPosition}; it must be a whole number from 0 to ${MAX_POSITION}`);
    }
  }
  return { kvHeads, rotaryDims, rotaryTheta, rotaryFirstPosition, window: count(readOption(options, 'window'), 'window', 0) };
}

function raise(error) {
  throw fieldError(error.kind === 'type' ? TypeError : RangeError, error.field, error.message);
}

// The request block of the engine's plain exports (core/bindings/calls.cpp): these scalars in this
// order, then an (address, length) pair per array in REQUEST_ARRAYS order; length -1: omitted.
const REQUEST_SCALARS = ['n', 'm', 'dModel', 'heads', 'dK', 'dV', 'scaleMode', 'scaleDivisor', 'maskMode', 'positionsMode', 'trace',
  'kvHeads', 'rotaryDims', 'rotaryTheta', 'rotaryFirstPosition', 'window'];
const REQUEST_ARRAYS = ['x', 'context', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo', 'keep', 'dOutput', 'dWeights'];
// per head; qUnrotated and kUnrotated (q and k before the rotation) are empty, and left out, without rotary
const HEAD_ARRAYS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'z', 'qUnrotated', 'kUnrotated'];
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
function takeOutput(module, output, shapeCount = 10) {
  try {
    const arrays = [];
    for (let i = 0, count = module._attn_output_count(output); i < count; i++) {
      const at = module._attn_output_data(output, i) >> 2;
      arrays.push(module.HEAPF32.slice(at, at + module._attn_output_size(output, i)));
    }
    const shapeAt = module._attn_output_shape(output) >> 3;
    return { arrays, shape: Array.from(module.HEAPF64.subarray(shapeAt, shapeAt + shapeCount)) };
  } finally {
    module._attn_output_free(output);
  }
}

// attention()'s result from an Output: the shape, output, and with the trace concat, every head's
// intermediates and the positions added.
function attentionResult(module, output, trace) {
  const { arrays, shape } = takeOutput(module, output);
  return attentionFrom(arrays, shape, trace);
}

// attention()'s result from an Output's arrays (output, concat, positions, then each head's) and shape
function attentionFrom(arrays, [n, m, dModel, heads, dK, dV, dOut, scale, self, kvHeads], trace) {
  const [out, concat, positionsX, positionsContext] = arrays;
  const result = { shape: { n, m, dModel, heads, kvHeads, dK, dV, dOut, scale, self: self === 1 }, dOut, output: out };
  if (!trace) return result;
  result.concat = concat;
  result.heads = [];
  for (let at = 4; at < arrays.length; at += HEAD_ARRAYS.length) {
    result.heads.push(Object.fromEntries(HEAD_ARRAYS.map((name, i) => [name, arrays[at + i]]).filter(([name, array]) => array.length || !name.endsWith('Unrotated'))));
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
    ...modernOptions(options),
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
// what modern.mjs (flashAttention, kvCache) calls back into
const MODERN_API = Object.freeze({
  ...TRAINER_API, guarded, attentionRequest, callWithArrays, takeOutput, attentionFrom, raiseLast, HEAD_ARRAYS,
});

function notLearning(what) {
  return new Error(`${what} needs the learning engine: this engine was loaded without the backward pass and ` +
    'trainer, to keep it small. Load it with loadAttention({ learning: true })');
}

class AttentionEngine {
  #runtime;
  #Trainer;
  #stack;
  #modern;
  #StackTrainer;

  // runtime: runtime.mjs's Runtime (the instance, replaced after a trap). learningParts: trainer.mjs's
  // Trainer class and transformer.mjs, on a learning engine only (imported with it: the page's
  // engine does not download them).
  constructor(runtime, learningParts = null) {
    const module = runtime.module;
    // the build's instruction set, as the C++ was compiled (calls.cpp's attn_has_simd: 0, 1 or 2)
    const build = ENGINE_BUILDS[module._attn_has_simd()];
    const Trainer = learningParts?.Trainer ?? null;
    this.#runtime = runtime;
    this.#Trainer = Trainer;
    this.#stack = learningParts?.stack ?? null;
    this.#modern = learningParts?.modern ?? null;
    this.#StackTrainer = learningParts?.StackTrainer ?? null;
    // A build without the backward pass has no gradients export (see CMakeLists.txt).
    this.info = Object.freeze({ version: VERSION, simd: build !== 'scalar', build,
      learning: typeof module._attn_gradients === 'function' && Trainer !== null });
  }

  attention(options) {
    checkOptions(options, ATTENTION_OPTIONS, 'attention()');
    const { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep, ...scalars } = attentionRequest(options);
    return guarded(this.#runtime, 'attention()', (module) => {
      const output = callWithArrays(module, module._attn_check, module._attn_attention, scalars, { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep });
      return attentionResult(module, output, scalars.trace);
    });
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
    const [out, ...gradients] = guarded(this.#runtime, 'gradients()', (module) => {
      const output = callWithArrays(module, module._attn_check_gradients, module._attn_gradients, scalars,
        { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep, dOutput, dWeights });
      return takeOutput(module, output).arrays;
    });
    const result = { output: out };
    GRADIENT_ARRAYS.forEach((field, i) => {
      if (gradients[i].length) result[field] = gradients[i];
    });
    return result;
  }

  /** One attention layer that learns, inside WebAssembly; see trainer.mjs. Free it with dispose(). */
  createTrainer(options) {
    if (!this.info.learning) throw notLearning('createTrainer()');
    return new this.#Trainer(this.#runtime, { ...TRAINER_API, guarded }, options);
  }

  /** A stack of transformer blocks that trains inside WebAssembly (stack-trainer.mjs, docs/api.md). */
  createStackTrainer(options) {
    if (!this.info.learning) throw notLearning('createStackTrainer()');
    return new this.#StackTrainer(this.#runtime, { ...TRAINER_API, guarded }, options);
  }

  /** A stack of transformer blocks, forward, with every block's trace (transformer.mjs, docs/api.md). */
  transformer(options) {
    if (!this.info.learning) throw notLearning('transformer()');
    return this.#stack.transformer(this.#runtime, { ...TRAINER_API, guarded }, options);
  }

  /**
   * A stack prepared once, run many times on ids or x without a trace: { run(request), dispose() }
   * (transformer.mjs, docs/api.md#prepared-stacks). Learning engine only, as transformer().
   */
  prepareTransformer(weights) {
    if (!this.info.learning) throw notLearning('prepareTransformer()');
    return this.#stack.prepareTransformer(this.#runtime, { ...TRAINER_API, guarded }, weights);
  }

  /**
   * Weights handed into WebAssembly memory tensor by tensor, then prepared:
   * { tensor(Float32Array), prepare(weights), dispose() } (transformer.mjs, docs/api.md#prepared-stacks).
   */
  stageTransformer() {
    if (!this.info.learning) throw notLearning('stageTransformer()');
    return this.#stack.stageTransformer(this.#runtime, { ...TRAINER_API, guarded });
  }

  /** The stack's gradients with respect to every weight, given dLogits and/or dOutput, and its trace. */
  transformerGradients(options) {
    if (!this.info.learning) throw notLearning('transformerGradients()');
    return this.#stack.transformerGradients(this.#runtime, { ...TRAINER_API, guarded }, options);
  }

  /** softmax(QKᵀ/√dK)·V tile by tile (FlashAttention's online softmax), with the per-tile trace (modern.mjs). */
  flashAttention(options) {
    if (!this.info.learning) throw notLearning('flashAttention()');
    return this.#modern.flashAttention(this.#runtime, MODERN_API, options, FLASH_OPTIONS);
  }

  /** A KV cache in the engine's memory: prefill(x), then step(x) one token at a time (modern.mjs). */
  kvCache(options) {
    if (!this.info.learning) throw notLearning('kvCache()');
    return new this.#modern.KvCache(this.#runtime, MODERN_API, options);
  }

  /**
   * A model to run many times: the weights are checked once and stay in WebAssembly memory, and
   * each run() copies only x in and the output out. Self-attention; mask 'none' or 'causal'.
   */
  prepare(options) {
    return prepareModel(this.#runtime, options);
  }

  /** WebAssembly memory in use: the whole heap, the bytes malloc has handed out, and the stack pointer. */
  memory() {
    return guarded(this.#runtime, 'memory()', (module) => (
      { heapBytes: module.HEAPU8.length, allocatedBytes: module._attn_allocated_bytes(), stackPointer: module._attn_stack_pointer() }));
  }

  initWeights(options) {
    checkOptions(options, INIT_OPTIONS, 'initWeights()');
    const given = readOption(options, 'seed');
    const seed = given === undefined ? 0 : given;
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
      throw fieldError(RangeError, 'seed', `seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${describe(seed)}`);
    }
    const sizes = [integer(options, 'dModel'), integer(options, 'heads', 1), integer(options, 'dK', 0), integer(options, 'dV', 0)];
    return guarded(this.#runtime, 'initWeights()', (module) => {
      const output = module._attn_init_weights(...sizes, seed);
      if (!output) raiseLast(module);
      const [wq, wk, wv, wo] = takeOutput(module, output).arrays;
      return { wq, wk, wv, wo };
    });
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

// prepare()'s options checked in JavaScript: the sizes, scale, mask and the weights (copies: a
// prepared model sets itself up again from them on a new instance after a trap).
function preparedSpec(options) {
  checkOptions(options, PREPARE_OPTIONS, 'prepare()');
  const sizes = [integer(options, 'dModel'), integer(options, 'heads', 1), integer(options, 'dK', 0), integer(options, 'dV', 0)];
  const [scaleMode, scaleDivisor] = scaleOption(readOption(options, 'scale'));
  const [maskMode, keep] = maskOption(readOption(options, 'mask'));
  if (keep) throw fieldError(TypeError, 'mask', `a prepared model's mask must be 'none' or 'causal' (keep flags depend on n), got ${describe(options.mask)}`);
  const weights = ['wq', 'wk', 'wv', 'wo'].map((field) => matrix(options, field, false)?.slice() ?? null);
  return { sizes, scaleMode, scaleDivisor, maskMode, weights };
}

// The spec's model in `module`'s memory, checked by the core: its address, or an error thrown.
function preparedIn(module, { sizes, scaleMode, scaleDivisor, maskMode, weights }) {
  const model = module._attn_prepared_new(...sizes, scaleMode, scaleDivisor, maskMode);
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
  return model;
}

function prepareModel(runtime, options) {
  const spec = preparedSpec(options);
  return guarded(runtime, 'prepare()', (module) => {
    const model = preparedIn(module, spec);
    return new PreparedAttention(runtime, spec, model, module._attn_prepared_d_out(model));
  });
}

class PreparedAttention {
  #runtime;
  #spec;
  #model;
  #generation;

  constructor(runtime, spec, model, dOut) {
    this.#runtime = runtime;
    this.#spec = spec;
    this.#model = model;
    this.#generation = runtime.generation;
    this.dModel = spec.sizes[0];
    this.dOut = dOut;
  }

  // The model's address in the live instance: set up again when the engine was restarted since.
  #modelIn(module) {
    if (this.#generation !== this.#runtime.generation) {
      this.#model = preparedIn(module, this.#spec);
      this.#generation = this.#runtime.generation;
    }
    return this.#model;
  }

  /**
   * { output (n × dOut Float32Array, owned by the caller), dOut } for x (n × dModel). With `output`
   * (a Float32Array of n × dOut values) the result is written into it and it is returned: a loop of
   * calls then allocates nothing (a new 64 KB array cost Chromium 35 µs, Node 5, on one machine; 190 µs on
   * a VM whose first-touched pages fault: docs/api.md, "The prepared model").
   */
  run(options) {
    if (this.#model === 0) throw new Error('this prepared model was disposed; call engine.prepare() again');
    checkOptions(options, RUN_OPTIONS, 'run()');
    const x = matrix(options, 'x', true);
    const n = integer(options, 'n');
    if (x.length !== n * this.dModel) {
      throw fieldError(RangeError, 'x', `x has ${x.length} values; expected n × dModel = ${n} × ${this.dModel} = ${n * this.dModel}`);
    }
    const given = readOption(options, 'output');
    if (given !== undefined) checkOutput(given, n * this.dOut, n, this.dOut);
    return guarded(this.#runtime, 'run()', (module) => {
      const model = this.#modelIn(module);
      const input = module._attn_prepared_input(model, n);
      if (!input) throw fieldError(RangeError, 'n', `n (${n}) is above the cap of 4096 tokens`);
      module.HEAPF32.set(x, input >> 2);
      const status = module._attn_prepared_run(model);
      if (status) raisePrepared(module, model, status);
      const output = module._attn_prepared_output(model) >> 2;
      if (given !== undefined) {
        TYPED_SET.call(given, module.HEAPF32.subarray(output, output + n * this.dOut));
        return { output: given, dOut: this.dOut };
      }
      return { output: module.HEAPF32.slice(output, output + n * this.dOut), dOut: this.dOut };
    });
  }

  /** Frees the weights and buffers in WebAssembly memory; run() then throws. Safe to call twice. */
  dispose() {
    const model = this.#model;
    this.#model = 0;
    // a model of an instance since replaced went with that instance's memory
    if (model !== 0 && this.#generation === this.#runtime.generation && this.#runtime.module) this.#runtime.module._attn_prepared_free(model);
  }
}

// run()'s `output`: a real Float32Array (a Proxy or a look-alike is not one), readable, of n × dOut.
function checkOutput(given, count, n, dOut) {
  if (!isTypedArray(given) || TYPED_KIND.call(given) !== 'Float32Array') {
    throw fieldError(TypeError, 'output', `output must be a Float32Array of n × dOut values, got ${describe(given)}`);
  }
  if (isDetached(TYPED_BUFFER.call(given))) {
    throw fieldError(TypeError, 'output', 'output cannot be written: its ArrayBuffer was detached (transferred to a worker or another owner)');
  }
  if (typedLength(given) !== count) {
    throw fieldError(RangeError, 'output', `output has ${typedLength(given)} values; expected n × dOut = ${n} × ${dOut} = ${count}`);
  }
}

// The trainer's and the stack's JavaScript sides, fetched with a learning engine only (chunks of their
// own in dist/lib).
const trainerClass = async () => {
  const [{ Trainer }, stack, modern, { StackTrainer }] = await Promise.all([import('./trainer.mjs'), import('./transformer.mjs'),
    import('./modern.mjs'), import('./stack-trainer.mjs')]);
  return { Trainer, stack, modern, StackTrainer };
};

// info.build by the engine's attn_has_simd(): scalar, SIMD, or SIMD with relaxed SIMD's fused multiply-add
const ENGINE_BUILDS = ['scalar', 'simd', 'relaxed'];

function checkLoadOptions(simd, learning) {
  if (simd !== 'auto' && simd !== 'relaxed' && typeof simd !== 'boolean') {
    throw fieldError(TypeError, 'simd', `simd must be 'auto', 'relaxed', true or false, got ${describe(simd)}`);
  }
  if (typeof learning !== 'boolean') {
    throw fieldError(TypeError, 'learning', `learning must be true or false, got ${describe(learning)}`);
  }
}

/**
 * The build for the `simd` option: 'auto' takes the relaxed build (fused multiply-adds) when this
 * runtime validates a relaxed-SIMD probe module and `hasRelaxed`, else the SIMD build when it
 * validates a SIMD probe, else the scalar one; 'relaxed', true (SIMD) and false (scalar) force one.
 */
async function chooseBuild(simd, hasRelaxed = true) {
  if (simd === 'relaxed') {
    if (!(await relaxedSupported())) {
      throw fieldError(RangeError, 'simd', "simd: 'relaxed' needs relaxed SIMD (f32x4.relaxed_madd), which this WebAssembly runtime does not support; use 'auto', true or false");
    }
    return 'relaxed';
  }
  if (simd !== 'auto') return simd ? 'simd' : 'scalar';
  if (hasRelaxed && await relaxedSupported()) return 'relaxed';
  return await simdSupported() ? 'simd' : 'scalar';
}

/**
 * Loads the engine. `simd: 'auto'` takes the relaxed-SIMD build where the runtime supports relaxed
 * SIMD, else the SIMD build where it validates a SIMD probe module, else the scalar one (info.build
 * says which); 'relaxed', true or false forces a build. `learning: true` loads the larger build that also has
 * gradients() and createTrainer() (attention-learn-*); the default build runs the forward pass only.
 * `wasmBinary` (bytes of the chosen build's .wasm) skips the fetch. `baseUrl` is the folder holding
 * the builds (default: this file's own folder, named so that bundlers copy the builds: files.mjs).
 */
export async function loadAttention({ simd = 'auto', learning = false, wasmBinary, baseUrl } = {}) {
  checkLoadOptions(simd, learning);
  const build = await chooseBuild(simd);
  // The module is compiled here, once (while the glue script loads): a restart after a trap makes
  // a new instance of it (runtime.mjs).
  const { glue, compiled } = engineFiles(`${learning ? 'learn-' : ''}${build}`, { baseUrl, wasmBinary });
  const [{ default: createAttentionModule }, learningParts, wasmModule] = await Promise.all([
    glue, learning ? trainerClass() : null, compiled]);
  const runtime = await Runtime.create(createAttentionModule, wasmModule);
  return new AttentionEngine(runtime, learningParts);
}

/**
 * Loads the engine from builds already in hand, for a page that carries everything inside itself:
 * builds = { simd: { createModule, wasmBinary }, scalar: { createModule, wasmBinary } }, and for
 * `learning: true`, 'learn-simd' and 'learn-scalar' alike ('relaxed' and 'learn-relaxed' optional:
 * 'auto' takes them where the runtime supports relaxed SIMD and they are there). A build may instead be an async function
 * returning { createModule, wasmBinary }, so that a bundle can load the learning builds when asked.
 */
export async function loadAttentionFrom(builds, { simd = 'auto', learning = false } = {}) {
  checkLoadOptions(simd, learning);
  const prefix = learning ? 'learn-' : '';
  const name = `${prefix}${await chooseBuild(simd, `${prefix}relaxed` in builds)}`;
  let build = builds[name];
  if (typeof build === 'function') build = await build();
  if (!build) throw fieldError(RangeError, 'learning', `these builds have no '${name}' engine (have: ${Object.keys(builds).join(', ')})`);
  const { createModule, wasmBinary } = build;
  const [wasmModule, learningParts] = await Promise.all([WebAssembly.compile(wasmBinary), learning ? trainerClass() : null]);
  const runtime = await Runtime.create(createModule, wasmModule);
  return new AttentionEngine(runtime, learningParts);
}
