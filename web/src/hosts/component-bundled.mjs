// The npm package's `attention-lab/component`: <attention-lab> in one module with nothing beside
// it, so that any bundler can take it in: the engine and both WebAssembly builds are inside, and
// the engine runs on the page (no worker file or WebAssembly file for a bundler to lose).
import { defineAttentionLab } from './element.mjs';
import { createCompute } from '../engine/compute.mjs';
import { loadInlineAttention } from '../engine/inline.mjs';

defineAttentionLab(() => createCompute({ workerUrl: null, loadEngine: async () => loadInlineAttention, models: () => import('../models/open.mjs') }));
