// The engine with both WebAssembly builds inside the bundle, for hosts that carry everything in
// themselves: the single-file page and the npm package's component. It runs on the page.
import { loadAttentionFrom } from '../lib/attention.mjs';
import createSimd from '../../build/wasm/attention-simd.mjs';
import createScalar from '../../build/wasm/attention-scalar.mjs';
import simdWasm from '../../build/wasm/attention-simd.wasm';
import scalarWasm from '../../build/wasm/attention-scalar.wasm';

const builds = {
  simd: { createModule: createSimd, wasmBinary: simdWasm },
  scalar: { createModule: createScalar, wasmBinary: scalarWasm },
};

/** loadAttention's counterpart for compute.mjs's loadEngine: ({ simd }) → engine. */
export const loadInlineAttention = (options) => loadAttentionFrom(builds, options);
