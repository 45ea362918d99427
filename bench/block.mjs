// npm run bench:block [-- --sizes=16,128 --rounds=N --node-only --browser-only --no-plain --dist=DIR --before=DIR (an earlier dist/: its SIMD and relaxed prepared stacks too, Node)]: one GPT-2-small-sized pre-LN block (d_model 768,
// 12 heads, MLP 3072, LayerNorm, GELU tanh, biases, causal mask), forward only, in Node then headless
// Chromium: this engine's
// transformer() against ONNX Runtime Web (plain ops and contrib ops), TF.js-wasm and plain JS.
// Same random weights for all; every output checked against the engine's (1e-4 relative) before timing;
// then round-robin rounds, medians and ratios. With build/wasm/peak.mjs present (npm run bench builds
// it), also the block's matrix-product GFLOP/s as a fraction of the measured SIMD ceiling, and the
// products replayed alone (bench/peak.cpp's block_products) in the same round-robin: their share of the
// prepared stack's time and their own fraction of the ceiling.
// The relaxed build (fused multiply-adds, loadAttention({ simd: 'relaxed' })) runs as one more
// contender: Node 20 has relaxed SIMD behind --experimental-wasm-relaxed-simd only, which this script
// sets (v8.setFlagsFromString) before compiling any module; with build/wasm/peak-relaxed.mjs present,
// the FMA chains' ceiling and the products alone with FMA too. Chromium has relaxed SIMD on.
import { existsSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web';

import { runBlockBench } from './block-suite.mjs';
import { measurePeak } from './suite.mjs';
import { openBenchSite, tfWasmDir } from './bench-site.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argument = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const sizes = argument('sizes', '16,128,512').split(',').map(Number);
const roundsArgument = argument('rounds', null);
const rounds = roundsArgument === null ? null : Number(roundsArgument);
const log = (...args) => console.log(...args);
setFlagsFromString('--experimental-wasm-relaxed-simd');
const plain = !process.argv.includes('--no-plain');  // plain JS takes 20–80 s a run at n = 512

// The ceiling's best chain count timed by the process's CPU time (best of 5), for the CPU-time figures
function cpuCeiling(peakModule, chains, chainsFunction = '_peak_chains') {
  const iterations = 5_000_000;
  let best = 0;
  for (let r = 0; r < 5; r++) {
    const start = process.cpuUsage();
    peakModule[chainsFunction](chains, iterations);
    const { user, system } = process.cpuUsage(start);
    best = Math.max(best, (iterations * chains * 8) / ((user + system) / 1000) / 1e6);
  }
  return best;
}

async function main() {
  // --dist=DIR: the engine of an earlier build (a copy of its dist/), for a before/after in Node
  const { loadAttention } = await import(path.join(path.resolve(argument('dist', path.join(root, 'dist'))), 'lib/attention.node.mjs'));
  const engine = await loadAttention({ learning: true, simd: true });
  log(`engine ${JSON.stringify(engine.info)}; node ${process.version}`);
  setWasmPaths(`${tfWasmDir}/`);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  await tf.setBackend('wasm');
  await tf.ready();
  ort.env.wasm.numThreads = 1;
  let peak = null, peakCpu = null, peakModule = null;
  const peakPath = path.join(root, 'build/wasm/peak.mjs');
  if (existsSync(peakPath)) {
    peakModule = await (await import(peakPath)).default();
    peak = measurePeak(peakModule);
    log(`SIMD ceiling: ${peak.gflops.toFixed(2)} GFLOP/s (${peak.chains} chains)`);
    peakCpu = cpuCeiling(peakModule, peak.chains);
    log(`SIMD ceiling by CPU time: ${peakCpu.toFixed(2)} GFLOP/s (${peak.chains} chains)`);
  } else log('SIMD ceiling: build/wasm/peak.mjs not built (cmake --build build/wasm --target bench_peak); skipped');
  // --before=DIR: the prepared stack of an earlier build (a copy of its dist/) as one more contender
  const beforeDir = argument('before', null);
  const beforeApi = beforeDir && await import(path.join(path.resolve(beforeDir), 'lib/attention.node.mjs'));
  const before = beforeApi && await beforeApi.loadAttention({ learning: true, simd: true });
  // and its relaxed (FMA) build, when it has one: the before/after of a fused kernel
  const beforeRelaxed = beforeApi && await beforeApi.loadAttention({ learning: true, simd: 'relaxed' }).catch(() => null);
  const relaxed = await loadAttention({ learning: true, simd: 'relaxed' }).catch((error) => log(`relaxed engine: ${error.message}; skipped`));
  if (relaxed) log(`relaxed engine ${JSON.stringify(relaxed.info)} (node --experimental-wasm-relaxed-simd, set by this script)`);
  const { fmaPeak, fmaPeakModule } = await fmaCeiling();
  await runBlockBench({ engine, ort, tf, sizes, rounds, peak, peakCpu, peakModule, plain, before, beforeRelaxed, relaxed, fmaPeak, fmaPeakModule, log });
}

// build/wasm/peak-relaxed.mjs (its .wasm beside it, handed over as bytes): the FMA chains' ceiling
async function fmaCeiling() {
  const glue = path.join(root, 'build/wasm/peak-relaxed.mjs');
  if (!existsSync(glue)) {
    log('FMA ceiling: build/wasm/peak-relaxed.mjs not built (cmake --build build/wasm --target bench_peak_relaxed); skipped');
    return {};
  }
  const fmaPeakModule = await (await import(glue)).default({ wasmBinary: readFileSync(path.join(root, 'build/wasm/peak-relaxed.wasm')) });
  const fmaPeak = measurePeak(fmaPeakModule, '_peak_fma_chains');
  log(`FMA ceiling (f32x4.relaxed_madd chains): ${fmaPeak.gflops.toFixed(2)} GFLOP/s (${fmaPeak.chains} chains)`);
  fmaPeak.cpu = cpuCeiling(fmaPeakModule, fmaPeak.chains, '_peak_fma_chains');
  log(`FMA ceiling by CPU time: ${fmaPeak.cpu.toFixed(2)} GFLOP/s (${fmaPeak.chains} chains)`);
  return { fmaPeak, fmaPeakModule };
}

// The same suite in headless Chromium (bench/block-browser-entry.mjs), its lines printed as they come.
async function browser() {
  const site = await openBenchSite({ entry: 'bench/block-browser-entry.mjs', name: 'block', title: 'block bench', ort: true });
  try {
    const page = await site.browser.newPage();
    page.on('console', (message) => log(`chromium: ${message.text()}`));
    await page.goto(site.page);
    await page.waitForFunction(() => typeof globalThis.runBlockBench === 'function');
    log(`Chromium ${site.browser.version()}`);
    await page.evaluate((options) => globalThis.runBlockBench(options), { sizes, rounds, plain });
  } finally {
    await site.close();
  }
}

if (!process.argv.includes('--browser-only')) await main();
if (!process.argv.includes('--node-only')) await browser();
