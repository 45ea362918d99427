// The engine in a Web Worker, so the page never waits on it. See src/engine/api.mjs.
// The engine's API is bundled in (one fetch less before the first result); the builds it loads
// stay in lib/ beside it.
import * as Comlink from 'comlink';
import { loadAttention } from './lib/attention.mjs';
import { createEngineApi } from './src/engine/api.mjs';

const builds = new URL('./lib/', import.meta.url);
// the "Real models" reader runs here too (a model's files are read beside the engine that runs it),
// imported when the first model is opened
Comlink.expose(createEngineApi((options) => loadAttention({ ...options, baseUrl: builds }), {
  models: () => import('./src/models/open.mjs'),
  // a model's run: its arrays' buffers moved to the page, not cloned (engine/models-calls.mjs)
  transfer: Comlink.transfer,
}));
