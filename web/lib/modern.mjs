// engine.flashAttention() and engine.kvCache(): issue 25's exact traces (core/include/attention/modern.hpp,
// bound in core/bindings/calls.cpp). Learning engine only, fetched with it as trainer.mjs is.
// This file checks JavaScript types; the core checks sizes and values and names the field at fault.
//
// `api` is attention.mjs's helpers: fieldError, describe, matrix, integer, checkOptions, guarded,
// attentionRequest, callWithArrays, takeOutput, attentionFrom, HEAD_ARRAYS.

const FLASH_HEAD_ARRAYS = ['runningMax', 'runningSum', 'rescale', 'runningOutput', 'z', 'weights', 'sinkWeight'];
const STEP_ARRAYS = ['q', 'k', 'v', 'scores', 'weights', 'z', 'output', 'keyPositions'];
const KV_OPTIONS = new Set(['dModel', 'heads', 'dK', 'dV', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo', 'scale',
  'mask', 'kvHeads', 'rotary', 'window', 'capacity', 'evict']);
const EVICT_OPTIONS = new Set(['sinks', 'budget']);

// evict: omitted, or { sinks, budget } (StreamingLLM: keep the first `sinks` tokens and the most recent,
// `budget` in all); the core checks their range against capacity.
function evictionOf(api, options) {
  const evict = options.evict;
  if (evict === undefined || evict === null) return { sinks: 0, budget: 0 };
  if (typeof evict !== 'object' || Array.isArray(evict)) throw api.fieldError(TypeError, 'evict', `evict must be an object { sinks, budget }, got ${api.describe(evict)}`);
  api.checkOptions(evict, EVICT_OPTIONS, 'kvCache() evict');
  const sinks = evict.sinks ?? 0;
  if (!Number.isInteger(sinks) || sinks < 0 || sinks > 2 ** 31 - 1) {
    throw api.fieldError(TypeError, 'sinks', `evict.sinks must be a whole number from 0, got ${api.describe(sinks)}`);
  }
  return { sinks, budget: api.integer(evict, 'budget') };
}

// values (a Float32Array) copied into memory from malloc: its address, or 0 for none; freed by the caller.
function copyIn(api, module, values, field) {
  if (!values) return 0;
  const address = module._malloc(Math.max(values.length * 4, 8));
  if (address === 0) throw api.fieldError(RangeError, field, `${field} (${values.length} values) does not fit in the engine's memory`);
  module.HEAPF32.set(values, address >> 2);
  return address;
}

/** softmax(QKᵀ/√dK)·V computed tile by tile with the online softmax, with its per-tile trace. */
export function flashAttention(runtime, api, options, allowed) {
  api.checkOptions(options, allowed, 'flashAttention()');
  const tile = api.integer(options, 'tile');
  const sinks = api.matrix(options, 'sinks', false);
  const { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep, ...scalars } = api.attentionRequest({ ...options, tile: undefined, sinks: undefined });
  scalars.trace = true;
  return api.guarded(runtime, 'flashAttention()', (module) => {
    const sinksAt = copyIn(api, module, sinks, 'sinks');
    let taken;
    try {
      const run = () => module._attn_flash(tile, sinksAt, sinks ? sinks.length : -1);
      const output = api.callWithArrays(module, module._attn_check, run, scalars, { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep });
      taken = api.takeOutput(module, output, 14);
    } finally {
      if (sinksAt) module._free(sinksAt);
    }
    return flashFrom(api, taken);
  });
}

function flashFrom(api, { arrays, shape }) {
  const heads = shape[3];
  const exactCount = 4 + heads * api.HEAD_ARRAYS.length;
  const exact = api.attentionFrom(arrays.slice(0, exactCount), shape.slice(0, 10), true);
  const result = {
    shape: exact.shape, tile: shape[10], tiles: shape[11],
    memory: { fullValues: shape[12], tiledValues: shape[13] },
    heads: [], exact,
  };
  for (let at = exactCount; at < arrays.length; at += FLASH_HEAD_ARRAYS.length) {
    result.heads.push(Object.fromEntries(FLASH_HEAD_ARRAYS.map((name, i) => [name, arrays[at + i]])));
  }
  return result;
}

/**
 * A KV cache held in the engine's memory: prefill(x) runs the causal pass on the first tokens, step(x)
 * decodes one more token computing only its query row. Free it with dispose().
 */
export class KvCache {
  #runtime;
  #api;
  #generation;
  #handle = 0;

  constructor(runtime, api, options) {
    api.checkOptions(options, KV_OPTIONS, 'kvCache()');
    const capacity = api.integer(options, 'capacity');
    const { sinks, budget } = evictionOf(api, options);
    const mask = options.mask ?? 'causal';
    // the request's x stands for one token (the core refuses the mode when it is not causal)
    const request = api.attentionRequest({ ...options, capacity: undefined, evict: undefined, mask, x: [], n: 1 });
    const { x, context, wq, wk, wv, wo, bq, bk, bv, bo, keep, ...scalars } = request;
    this.#runtime = runtime;
    this.#api = api;
    this.#handle = api.guarded(runtime, 'kvCache()', (module) =>
      api.callWithArrays(module, () => 0, () => module._attn_kv_start(capacity, sinks, budget), scalars, { wq, wk, wv, wo, bq, bk, bv, bo }));
    this.#generation = runtime.generation;
    this.capacity = capacity;
  }

  #live(what) {
    if (!this.#handle) throw this.#api.fieldError(Error, 'cache', `${what}: this cache was disposed; create a new one`);
    if (this.#generation !== this.#runtime.generation) {
      throw this.#api.fieldError(Error, 'cache', `${what}: this cache was lost when the engine started again after a WebAssembly error; create a new one`);
    }
    return this.#handle;
  }

  #withX(what, x, call) {
    const values = this.#api.matrix({ x }, 'x', true);
    const handle = this.#live(what);
    return this.#api.guarded(this.#runtime, what, (module) => {
      const at = copyIn(this.#api, module, values, 'x');
      try {
        return call(module, handle, at, values.length);
      } finally {
        module._free(at);
      }
    });
  }

  /** The causal pass over the first tokens (x: n × dModel), with its trace; their k and v stay in the cache. */
  prefill(x) {
    return this.#withX('prefill()', x, (module, handle, at, length) => {
      const output = module._attn_kv_prefill(handle, at, length);
      if (!output) this.#api.raiseLast(module);
      const { arrays, shape } = this.#api.takeOutput(module, output);
      return this.#api.attentionFrom(arrays, shape, true);
    });
  }

  /** One more token (x: dModel values): its row in every head, and the work it took. */
  step(x) {
    return this.#withX('step()', x, (module, handle, at, length) => {
      const output = module._attn_kv_step(handle, at, length);
      if (!output) this.#api.raiseLast(module);
      const { arrays, shape } = this.#api.takeOutput(module, output);
      const result = Object.fromEntries(STEP_ARRAYS.map((name, i) => [name, arrays[i]]));
      result.keyPositions = Array.from(result.keyPositions);
      const [position, firstKey, multiplyAdds, cacheValues, cached, capacity, fullMultiplyAdds] = shape;
      return { ...result, position, firstKey, length: cached, capacity, multiplyAdds, fullMultiplyAdds, cacheValues, cacheBytes: cacheValues * 4 };
    });
  }

  /** Tokens held. */
  get length() {
    const handle = this.#live('length');
    return this.#api.guarded(this.#runtime, 'length', (module) => module._attn_kv_length(handle));
  }

  dispose() {
    if (this.#handle && this.#generation === this.#runtime.generation && this.#runtime.module) {
      this.#runtime.module._attn_kv_free(this.#handle);
    }
    this.#handle = 0;
  }
}
