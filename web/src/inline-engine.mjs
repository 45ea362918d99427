// The engine with its WebAssembly builds inside the bundle, for hosts that carry everything in
// themselves: the single-file page and the npm package's component. It runs on the page. The
// learning builds (backward pass and trainer) travel too, for the Train section; they are compiled
// only when training is first asked for (loadAttentionFrom with { learning: true }).
import { loadAttentionFrom } from '../lib/attention.mjs';
import createSimd from '../../build/wasm/attention-simd.mjs';
import createScalar from '../../build/wasm/attention-scalar.mjs';
import createLearnSimd from '../../build/wasm/attention-learn-simd.mjs';
import createLearnScalar from '../../build/wasm/attention-learn-scalar.mjs';
import simdWasm from '../../build/wasm/attention-simd.wasm';
import scalarWasm from '../../build/wasm/attention-scalar.wasm';
import learnSimdWasm from '../../build/wasm/attention-learn-simd.wasm';
import learnScalarWasm from '../../build/wasm/attention-learn-scalar.wasm';

const builds = {
  simd: { createModule: createSimd, wasmBinary: simdWasm },
  scalar: { createModule: createScalar, wasmBinary: scalarWasm },
  'learn-simd': { createModule: createLearnSimd, wasmBinary: learnSimdWasm },
  'learn-scalar': { createModule: createLearnScalar, wasmBinary: learnScalarWasm },
};

/** loadAttention's counterpart for compute.mjs's loadEngine: ({ simd, learning }) → engine. */
export const loadInlineAttention = (options) => loadAttentionFrom(builds, options);
