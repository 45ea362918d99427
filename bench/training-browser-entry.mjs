// The training-step benchmark in a browser page. bench/training.mjs serves it and drives it: init()
// once, then per size prepare([d, h]) (and prepare('stack')), sample(i) for each contender in each round (so that it can read
// the renderer's CPU time around every sample), and finish(times, cpuTimes). tfjs-core's ES modules
// are bundled here, with the ops' gradients.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-core/dist/register_all_gradients.js';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadAttention } from './lib/attention.mjs';
import { trainingSession } from './training-suite.mjs';
import { stackTrainingSession } from './train-stack-suite.mjs';

let engines = null;
let session = null;

globalThis.trainingBench = {
  async init() {
    engines = { simd: await loadAttention({ simd: true, learning: true }), scalar: await loadAttention({ simd: false, learning: true }) };
    setWasmPaths(new URL('./tfjs/', location.href).href);
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);  // one core, like the engine
    await tf.setBackend('wasm');
    await tf.ready();
    return { tfSimd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT') };
  },
  // size: [dModel, heads] for one attention layer, or 'stack' for the induction stack
  prepare(size) {
    session = size === 'stack' ? stackTrainingSession({ ...engines, tf, minSampleMs: 5 })
      : trainingSession({ ...engines, tf, d: size[0], h: size[1], minSampleMs: 5 });
    return { names: session.names, steps: session.steps };
  },
  sample: (i) => session.sample(i),
  finish: (times, cpuTimes) => session.row(times, cpuTimes),
};
