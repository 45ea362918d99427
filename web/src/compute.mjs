// The page's side of the engine worker: one request in flight matters, the newest. An answer to a
// request that a newer one has replaced is dropped, so fast typing never shows stale tables.
import * as Comlink from 'comlink';

export function createCompute(workerUrl = new URL('./worker.js', import.meta.url)) {
  const worker = new Worker(workerUrl, { type: 'module' });
  const api = Comlink.wrap(worker);
  const ready = api.load();
  let latest = 0;
  return {
    ready,
    /** Resolves to { result, weights } or { error }, or null when a newer request has superseded this one. */
    async run(request) {
      const id = ++latest;
      await ready;
      const reply = await api.run(request);
      return id === latest ? reply : null;
    },
    /** The scaling lab's engine calls; see worker.mjs. */
    async varianceLab(options) {
      await ready;
      return api.varianceLab(options);
    },
    async softmaxRow(scores, factor) {
      await ready;
      return api.softmaxRow(scores, factor);
    },
  };
}
