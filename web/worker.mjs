// The engine in a Web Worker, so the page never waits on it. See src/engine/api.mjs.
// The engine's API is bundled in (one fetch less before the first result); the builds it loads
// stay in lib/ beside it.
import * as Comlink from 'comlink';
import { loadAttention } from './lib/attention.mjs';
import { createEngineApi } from './src/engine/api.mjs';

const builds = new URL('./lib/', import.meta.url);
// the "Real models" reader runs here too (a model's files are read beside the engine that runs it),
// imported when the first model is opened
// its weights read in a worker of their own, stopped after each opening (src/models/remote-reads.mjs)
const readWorker = new URL('./read-worker.js', import.meta.url);
const models = async () => {
  const reader = await import('./src/models/open.mjs');
  return { ...reader, openModel: (files, options) => reader.openModel(files, { ...options, readWorker }) };
};
Comlink.expose(createEngineApi((options) => loadAttention({ ...options, baseUrl: builds }), {
  models,
  // a model's run: its arrays' buffers moved to the page, not cloned (engine/models-calls.mjs)
  transfer: Comlink.transfer,
}));
