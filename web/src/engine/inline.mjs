// The engine with its WebAssembly inside the bundle, for hosts that carry everything in themselves:
// the single-file page and the npm package's component. It runs on the page. These carry only the
// learning builds (attention-learn-*): they run the forward pass with the same bits as the small
// builds (tests/web/engine.test.mjs) and train too, in one file no larger than before the split, where
// carrying both pairs would add the small builds' 150 KB for nothing (the file is downloaded whole).
import { loadAttentionFrom } from '../../lib/attention.mjs';
import createSimd from '../../../build/wasm/attention-learn-simd.mjs';
import createScalar from '../../../build/wasm/attention-learn-scalar.mjs';
import simdWasm from '../../../build/wasm/attention-learn-simd.wasm';
import scalarWasm from '../../../build/wasm/attention-learn-scalar.wasm';

const simd = { createModule: createSimd, wasmBinary: simdWasm };
const scalar = { createModule: createScalar, wasmBinary: scalarWasm };
const builds = { simd, scalar, 'learn-simd': simd, 'learn-scalar': scalar };

/**
 * loadAttention's counterpart for compute.mjs's loadEngine: ({ simd, learning }) → engine. The engine
 * is a learning one either way (info.learning), so engine-api.mjs trains on it without a second load.
 */
export const loadInlineAttention = (options) => loadAttentionFrom(builds, { ...options, learning: true });
