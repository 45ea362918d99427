// dist/attention-lab.js: <attention-lab> as served from the built folder. The engine runs in a
// worker started from worker.js beside this file, or on the page when no worker can start here
// (this script loaded from another origin, with CORS).
import { defineAttentionLab } from './element.mjs';
import { createCompute } from '../engine/compute.mjs';

defineAttentionLab(() => createCompute({
  workerUrl: new URL('./worker.js', import.meta.url),
  loadEngine: async () => (await import('./lib/attention.mjs')).loadAttention,
  models: () => import('../models/open.mjs'),
}));
