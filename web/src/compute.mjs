// The page's connection to the engine: a Web Worker when one can start, else the engine on the
// page itself (a folder opened from disk, a script served from another origin than the page).
// Either way the same calls (engine-api.mjs), all asynchronous. One connection can serve several labs.
import * as Comlink from 'comlink';
import { createEngineApi } from './engine-api.mjs';

/**
 * workerUrl: the worker script; loadEngine: async () => loadAttention, for the fallback.
 * Returns { ready (engine info, with .where), run, varianceLab, softmaxRow }.
 */
export function createCompute({ workerUrl, loadEngine }) {
  const onPage = async () => {
    const api = createEngineApi(await loadEngine());
    const info = await api.load();
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
  const call = (name) => async (...args) => (await connection).api[name](...args);
  const train = (name) => async (...args) => (await connection).api.training[name](...args);
  return {
    training: { start: train('start'), step: train('step'), probe: train('probe'), weights: train('weights'), dispose: train('dispose') },
    ready: connection.then(({ info }) => info),
    run: call('run'),
    varianceLab: call('varianceLab'),
    softmaxRow: call('softmaxRow'),
  };
}
