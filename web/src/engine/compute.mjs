// The page's connection to the engine: a Web Worker when one can start, else the engine on the
// page itself (a folder opened from disk, a script served from another origin than the page).
// Either way the same calls (engine-api.mjs), all asynchronous. One connection can serve several labs.
//
// With a worker, small requests (forwardWork ≤ PAGE_WORK_LIMIT: an edit at 12 tokens takes 0.1 to
// 0.6 ms) are computed on the page by a second copy of the same engine build, loaded once the worker
// is up: the worker's round trip (two messages, a copy of the trace each way, and often a frame
// rendered while the answer is on its way) costs more than the forward pass and would hold an
// edit back by a frame. Both copies are the same WebAssembly build given the same request, so they
// give the same numbers to the bit. Large requests stay in the worker, off the page's thread.
import * as Comlink from 'comlink';
import { createEngineApi } from './api.mjs';

/** Multiply-adds at or below which a request is computed on the page (about 1 ms at 64 tokens × d_model 128 × 8 heads). */
export const PAGE_WORK_LIMIT = 2 ** 23;

/**
 * The multiply-adds of one traced forward pass: the projections Q = X·W_q (n rows), K and V
 * (m rows), the scores Q·Kᵀ and the weighted sum of V per head, and W_O when it is used.
 */
export function forwardWork({ n, m = n, dModel, heads, dK, dV, useWo }) {
  const projections = heads * dModel * (n * dK + m * (dK + dV));
  const attention = heads * n * m * (dK + dV);
  return projections + attention + (useWo ? n * heads * dV * dModel : 0);
}

/**
 * workerUrl: the worker script; loadEngine: async () => loadAttention, for the page; models: async () =>
 * the "Real models" reader (web/src/models/open.mjs) for an engine on the page (the worker has its own).
 * Returns { ready (engine info, with .where), run, varianceLab, softmaxRow, flash, kvDecode, windowReach, sinkAttention, evictDecode, training }; run's reply
 * says where it was computed (.where: 'worker' or 'page'). A request with a `stack` (state/stack.mjs)
 * is run by engine/stack.mjs on the learning engine, on the page's copy once it is up.
 */
export function createCompute({ workerUrl, loadEngine, models = null }) {
  const onPage = async (simd) => {
    const api = createEngineApi(await loadEngine(), { models });
    const info = await api.load(simd);
    return { api, info: { ...info, where: 'page' } };
  };
  const inWorker = () => new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { type: 'module' });
    worker.addEventListener('error', (event) => reject(new Error(event.message || 'the worker did not start')), { once: true });
    const api = Comlink.wrap(worker);
    api.load().then((info) => resolve({ api, info: { ...info, where: 'worker' } }), reject);
  });
  const connection = (async () => {
    if (!workerUrl || typeof Worker !== 'function') return onPage();
    try {
      return await inWorker();
    } catch {
      return onPage();
    }
  })();
  // the page's own copy beside a worker, of the worker's build (relaxed SIMD, SIMD or scalar: the same
  // bits); null until loaded, and for good if it cannot load (the worker then takes every request)
  let small = null;
  connection.then(({ api, info }) => {
    if (info.where === 'page') small = api;
    else onPage(info.build === 'relaxed' ? 'relaxed' : info.simd).then(({ api: pageApi }) => { small = pageApi; }, () => {});
  }, () => {});

  const call = (name) => async (...args) => (await connection).api[name](...args);
  const train = (name) => async (...args) => (await connection).api.training[name](...args);
  // a progress callback crosses to the worker as a Comlink proxy
  const progress = (info, onProgress) => (onProgress && info.where === 'worker' ? Comlink.proxy(onProgress) : onProgress);
  return {
    models: {
      async open(key, files, onProgress) {
        const { api, info } = await connection;
        return api.models.open(key, files, progress(info, onProgress));
      },
      async run(key, input, onFirstLayer, spare) {
        const { api, info } = await connection;
        const moved = (given) => (Array.isArray(given) && info.where === 'worker' ? Comlink.transfer(given, given) : given);
        // the ArrayBuffers onFirstLayer gives back (results the page no longer holds), and `spare`
        // (buffers the page holds no longer, for layer 1 alone), moved to the worker, not cloned
        const handBack = onFirstLayer && info.where === 'worker' ? async (partial) => moved(await onFirstLayer(partial)) : onFirstLayer;
        return api.models.run(key, input, progress(info, handBack), moved(spare));
      },
      warm: async () => (await connection).api.models.warm(),
      layer: async (key, l) => (await connection).api.models.layer(key, l),
      block: async (key, l) => (await connection).api.models.block(key, l),
      close: async (key) => (await connection).api.models.close(key),
    },
    training: { start: train('start'), step: train('step'), probe: train('probe'), ablate: train('ablate'), weights: train('weights'), gradient: train('gradient'), dispose: train('dispose') },
    ready: connection.then(({ info }) => info),
    async run(request) {
      // a stack of layers: on the page's copy when it is up (the learning engine loads there once), else in the worker
      if (request.stack) {
        const target = small ?? (await connection).api;
        return { ...await target.stack(request), where: small ? 'page' : (await connection).info.where };
      }
      if (small && forwardWork(request) <= PAGE_WORK_LIMIT) return { ...small.run(request), where: 'page' };
      const { api, info } = await connection;
      return { ...await api.run(request), where: info.where };
    },
    varianceLab: call('varianceLab'),
    softmaxRow: call('softmaxRow'),
    // the flash chapter's tiled pass, on the learning engine (api.mjs)
    flash: call('flash'),
    kvDecode: call('kvDecode'),
    rope: call('rope'),
    gqa: call('gqa'),
    windowReach: call('windowReach'),
    sinkAttention: call('sinkAttention'),
    evictDecode: call('evictDecode'),
  };
}
