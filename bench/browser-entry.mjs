// The benchmark in a browser page (bench/run.mjs serves it and reads window.benchResults).
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web/wasm';
import { loadAttention } from './lib/attention.mjs';
import createPeakModule from '../build/wasm/peak.mjs';
import { runSuite, measurePeak } from './suite.mjs';
import { contendersFor } from './contenders.mjs';
import { measureKernels } from './kernels.mjs';

globalThis.runBench = async ({ sizes, runs }) => {
  const peakModule = await createPeakModule();
  const peak = measurePeak(peakModule);
  const kernels = measureKernels(peakModule);
  const simd = await loadAttention({ simd: true });
  const scalar = await loadAttention({ simd: false });
  const relaxed = await loadAttention({ simd: 'relaxed' }).catch(() => null);  // Chromium has relaxed SIMD on
  setWasmPaths(new URL('./tfjs/', location.href).href);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);  // one core, like the engine
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = new URL('./ort/', location.href).href;
  const rows = [];
  for (const backend of ['wasm', 'cpu']) {
    await tf.setBackend(backend);
    await tf.ready();
    const contenders = contendersFor(backend, { simd, scalar, relaxed, tf, ort });
    rows.push(...await runSuite({ engine: simd, contenders, sizes, runs }));
  }
  return { peak, kernels, rows, simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT') };
};
