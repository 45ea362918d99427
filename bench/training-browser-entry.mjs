// The training-step benchmark in a browser page (bench/training.mjs serves it and calls
// globalThis.runTrainingBench). tfjs-core's ES modules are bundled here, with the ops' gradients.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-core/dist/register_all_gradients.js';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadAttention } from './lib/attention.mjs';
import { runTrainingSuite } from './training-suite.mjs';

globalThis.runTrainingBench = async ({ rounds }) => {
  const simd = await loadAttention({ simd: true, learning: true });
  const scalar = await loadAttention({ simd: false, learning: true });
  setWasmPaths(new URL('./tfjs/', location.href).href);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);  // one core, like the engine
  await tf.setBackend('wasm');
  await tf.ready();
  const rows = runTrainingSuite({ simd, scalar, tf, rounds, minSampleMs: 5, log: (line) => console.log(line) });
  return { rows, simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT') };
};
