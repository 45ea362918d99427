// attention-lab.html: the whole page in one file that works opened from disk, with no server and
// no network. Both engine builds and their WebAssembly travel inside it; the engine runs on the
// page (a page opened from file:// cannot start a worker from a file).
import { createApp } from './app.mjs';
import { createCompute } from './compute.mjs';
import { stateFromFragment, stateToFragment } from './state.mjs';
import { loadAttentionFrom } from '../lib/attention.mjs';
import createSimd from '../../build/wasm/attention-simd.mjs';
import createScalar from '../../build/wasm/attention-scalar.mjs';
import simdWasm from '../../build/wasm/attention-simd.wasm';
import scalarWasm from '../../build/wasm/attention-scalar.wasm';

const builds = {
  simd: { createModule: createSimd, wasmBinary: simdWasm },
  scalar: { createModule: createScalar, wasmBinary: scalarWasm },
};
const compute = createCompute({ workerUrl: null, loadEngine: async () => (options) => loadAttentionFrom(builds, options) });

const fromLink = stateFromFragment(location.hash);
const app = createApp(document.getElementById('lab'), {
  compute,
  initialState: fromLink.state ?? null,
  onChange: (state) => history.replaceState(null, '', stateToFragment(state)),
});
if (fromLink.problems) app.notice(fromLink.problems);

globalThis.attentionLab = app;
