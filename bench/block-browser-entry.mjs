// The block benchmark in a browser page (bench/block.mjs serves it and calls runBlockBench; the
// lines go to the console, which bench/block.mjs prints).
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web/wasm';
import { loadAttention } from './lib/attention.mjs';
import createPeakModule from '../build/wasm/peak.mjs';
import createRelaxedPeakModule from '../build/wasm/peak-relaxed.mjs';
import { measurePeak } from './suite.mjs';
import { runBlockBench } from './block-suite.mjs';

globalThis.runBlockBench = async ({ sizes, rounds, plain }) => {
  const log = (...args) => console.log(...args);
  const peakModule = await createPeakModule();
  const peak = measurePeak(peakModule);
  log(`SIMD ceiling: ${peak.gflops.toFixed(2)} GFLOP/s (${peak.chains} chains)`);
  const engine = await loadAttention({ learning: true, simd: true });
  // the relaxed build (Chromium has relaxed SIMD on), and the FMA ceiling when bench-site copied its module
  const relaxed = await loadAttention({ learning: true, simd: 'relaxed' }).catch((error) => log(`relaxed engine: ${error.message}; skipped`));
  let fmaPeak = null, fmaPeakModule = null;
  const fmaBytes = await fetch('./peak-relaxed.wasm').then((r) => (r.ok ? r.arrayBuffer() : null), () => null);
  if (relaxed && fmaBytes) {
    fmaPeakModule = await createRelaxedPeakModule({ wasmBinary: fmaBytes });
    fmaPeak = measurePeak(fmaPeakModule, '_peak_fma_chains');
    log(`FMA ceiling (f32x4.relaxed_madd chains): ${fmaPeak.gflops.toFixed(2)} GFLOP/s (${fmaPeak.chains} chains)`);
  }
  setWasmPaths(new URL('./tfjs/', location.href).href);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  await tf.setBackend('wasm');
  await tf.ready();
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = new URL('./ort/', location.href).href;
  await runBlockBench({ engine, ort, tf, sizes, rounds, peak, peakModule, plain, relaxed, fmaPeak, fmaPeakModule, log });
};
