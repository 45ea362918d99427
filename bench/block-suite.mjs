// The block benchmark's shared part (Node: bench/block.mjs; Chromium: bench/block-browser-entry.mjs):
// the problem (seeded random weights), the check against the engine's output, round-robin timing.
import { sideBySide } from './onnx-model.mjs';
import { engineBlock, enginePreparedBlock, ortBlocks, tfBlock } from './block-contenders.mjs';
import { plainBlock } from './block-plain.mjs';

const TOLERANCE = 1e-4;
const WARMUP = 2;
const defaultRounds = (n) => (n <= 16 ? 21 : n <= 128 ? 9 : 5);
// plain JS takes seconds a run from n = 128 on: no warm-up rounds (its check run warms it), 3 counted
const SLOW_ROUNDS = 3;

export function problem(n, seed = 7) {
  let state = seed;
  const random = () => {  // mulberry32
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const values = (count, scale, offset = 0) => Float32Array.from({ length: count }, () => offset + scale * (2 * random() - 1));
  const d = 768, h = 12, dK = 64, f = 3072;
  return { n, d, h, dK, f, x: values(n * d, 1),
    ln1g: values(d, 0.2, 1), ln1b: values(d, 0.1), ln2g: values(d, 0.2, 1), ln2b: values(d, 0.1),
    wq: values(d * d, 0.06), wk: values(d * d, 0.06), wv: values(d * d, 0.06), bq: values(d, 0.1), bk: values(d, 0.1), bv: values(d, 0.1),
    wo: values(d * d, 0.04), bo: values(d, 0.1), w1: values(d * f, 0.04), b1: values(f, 0.1), w2: values(f * d, 0.02), b2: values(d, 0.1) };
}

const plainJs = {
  name: 'plain JS',
  slow: (n) => n >= 128,
  prepare: (p) => ({ p, wqkv: [[p.wq, p.bq], [p.wk, p.bk], [p.wv, p.bv]].map(([w, b]) => ({ w: sideBySide(p, w), b })) }),
  run: ({ p, wqkv }) => plainBlock(p, wqkv),
};

function maxRelative(got, want) {
  let scale = 0, worst = 0;
  for (let i = 0; i < want.length; i++) {
    scale = Math.max(scale, Math.abs(want[i]));
    worst = Math.max(worst, Math.abs(got[i] - want[i]));
  }
  return worst / scale;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// Matrix-product FLOPs of the block: q, k, v, W_O, the MLP's two, and Q·Kᵀ and weights·V over the causal half.
const productFlops = ({ n, d, f }) => 2 * n * d * (4 * d + 2 * f) + 2 * 2 * d * (n * (n + 1)) / 2;

/** Prepares every contender, checks it against the engine's output, drops (and says why) any that fail. */
async function checked(contenders, p, log) {
  const ready = [];
  let reference = null;
  for (const c of contenders) {
    try {
      const state = await c.prepare(p);
      const out = await c.run(state);
      if (!reference) reference = Float32Array.from(out);
      const error = maxRelative(out, reference);
      log(`  n=${p.n} ${c.name}: max relative difference to the engine ${error.toExponential(2)}`);
      if (!(error <= TOLERANCE)) throw new Error(`differs from the engine by ${error.toExponential(2)} (> ${TOLERANCE})`);
      ready.push({ c, state, times: [], cpu: [] });
    } catch (error) {
      log(`  n=${p.n} ${c.name}: NOT TIMED: ${error.message.split('\n')[0]}`);
      if (c === contenders[0]) return [];
    }
  }
  return ready;
}

// The block's matrix products replayed alone (bench/peak.cpp's block_products: the prepared stack's
// product calls on the same shapes, nothing else), timed in the same round-robin: its time over the
// prepared stack's is the products' share of the block, its GFLOP/s their own fraction of the ceiling.
const PRODUCTS = 'products alone (bench/peak.cpp)';
const PRODUCTS_FMA = 'products alone, FMA';
const RELAXED = 'engine relaxed prepared stack';
const RELAXED_BEFORE = 'engine relaxed prepared stack, before';
function productsEntry(peakModule, n, name = PRODUCTS) {
  if (!peakModule?._block_products) return [];
  peakModule._block_products(n, 0, 1);  // sizes its buffers, tiers up
  return [{ c: { name, run: () => peakModule._block_products(n, 0, 1) }, times: [], cpu: [] }];
}

// the products alone against their build's prepared stack and ceiling: SIMD (mul + add), and relaxed (FMA)
function logProducts(ready, p, peak, fmaPeak, log) {
  for (const [name, stack, ceiling, what] of [[PRODUCTS, 'engine SIMD prepared stack', peak, 'SIMD'], [PRODUCTS_FMA, RELAXED, fmaPeak, 'FMA']]) {
    const products = ready.find((e) => e.c.name === name);
    const prepared = ready.find((e) => e.c.name === stack);
    if (!products || !prepared || !ceiling) continue;
    const time = median(products.times), gflops = productFlops(p) / time / 1e6;
    log(`  ${name}: ${time.toFixed(2)} ms = ${(100 * time / median(prepared.times)).toFixed(0)} % of ${stack}'s time; ${gflops.toFixed(2)} GFLOP/s = ${(100 * gflops / ceiling.gflops).toFixed(0)} % of the ${what} ceiling`);
  }
}

// Node only: each run's CPU time of the process as well (user + system), which the waits for a core on a
// loaded machine do not lengthen, and the prepared stack's ratio by it
const cpuUsage = globalThis.process?.cpuUsage;
const cpuMs = ({ user, system }) => (user + system) / 1000;
// --before: the earlier build's prepared stacks by CPU time, and the relaxed one's after / before
function logBefore(ready, ortBest, relaxed, log) {
  const earlier = ready.find((e) => e.c.name === 'engine SIMD prepared stack, before');
  if (earlier?.cpu.length) log(`  by CPU time: prepared stack, before ${median(earlier.cpu).toFixed(2)}: ${(ortBest / median(earlier.cpu)).toFixed(2)}× the fastest ORT-web`);
  const relaxedBefore = ready.find((e) => e.c.name === RELAXED_BEFORE);
  if (relaxedBefore?.cpu.length && relaxed?.cpu.length) {
    log(`  by CPU time: ${RELAXED_BEFORE} ${median(relaxedBefore.cpu).toFixed(2)}: ${(ortBest / median(relaxedBefore.cpu)).toFixed(2)}× the fastest ORT-web; after / before ${(median(relaxed.cpu) / median(relaxedBefore.cpu)).toFixed(3)}`);
  }
}

function logCpu(ready, p, peakCpu, fmaPeak, log) {
  const prepared = ready.find((e) => e.c.name === 'engine SIMD prepared stack');
  const orts = ready.filter((e) => e.c.name.startsWith('ORT') && e.cpu.length);
  if (!prepared?.cpu.length || !orts.length) return;
  const ortBest = Math.min(...orts.map((e) => median(e.cpu)));
  const products = ready.find((e) => e.c.name === PRODUCTS);
  log(`  by CPU time (median ms): prepared stack ${median(prepared.cpu).toFixed(2)}, fastest ORT-web ${ortBest.toFixed(2)}: ${(ortBest / median(prepared.cpu)).toFixed(2)}×`);
  const relaxed = ready.find((e) => e.c.name === RELAXED);
  if (relaxed?.cpu.length) log(`  by CPU time: ${RELAXED} ${median(relaxed.cpu).toFixed(2)}: ${(ortBest / median(relaxed.cpu)).toFixed(2)}× the fastest ORT-web`);
  const fused = ready.find((e) => e.c.name === PRODUCTS_FMA);
  if (relaxed?.cpu.length && fused?.cpu.length && fmaPeak?.cpu) {
    const time = median(fused.cpu), gflops = productFlops(p) / time / 1e6;
    log(`  by CPU time: ${PRODUCTS_FMA} ${time.toFixed(2)} ms = ${(100 * time / median(relaxed.cpu)).toFixed(0)} % of the relaxed stack's; ${gflops.toFixed(2)} GFLOP/s = ${(100 * gflops / fmaPeak.cpu).toFixed(0)} % of the FMA ceiling by CPU time (${fmaPeak.cpu.toFixed(2)} GFLOP/s)`);
  }
  logBefore(ready, ortBest, relaxed, log);
  if (!products?.cpu.length) return;
  const time = median(products.cpu), gflops = productFlops(p) / time / 1e6;
  log(`  by CPU time: products alone ${time.toFixed(2)} ms = ${(100 * time / median(prepared.cpu)).toFixed(0)} % of the prepared stack's; ${gflops.toFixed(2)} GFLOP/s${peakCpu ? ` = ${(100 * gflops / peakCpu).toFixed(0)} % of the ceiling by CPU time (${peakCpu.toFixed(2)} GFLOP/s)` : ''}`);
}

async function measureSize(n, contenders, { peak, peakCpu, peakModule, fmaPeak, fmaPeakModule, roundCount, log }) {
  const p = problem(n);
  const ready = await checked(contenders, p, log);
  if (!ready.length) return;
  ready.push(...productsEntry(peakModule, n), ...productsEntry(fmaPeakModule, n, PRODUCTS_FMA));
  const rounds = roundCount ?? defaultRounds(n);
  for (let round = -WARMUP; round < rounds; round++) {  // the first WARMUP rounds are not counted
    for (const entry of round % 2 ? [...ready].reverse() : ready) {
      if (entry.c.slow?.(n) && (round < 0 || round >= SLOW_ROUNDS)) continue;  // its check run warmed it
      const start = performance.now(), cpuStart = cpuUsage?.();
      await entry.c.run(entry.state);
      if (round < 0) continue;
      entry.times.push(performance.now() - start);
      if (cpuStart) entry.cpu.push(cpuMs(cpuUsage(cpuStart)));
    }
  }
  const ortBest = Math.min(...ready.filter((e) => e.c.name.startsWith('ORT')).map((e) => median(e.times)));
  const ours = median(ready[0].times);
  log(`n=${n} (${rounds} rounds after ${WARMUP} warm-up, round-robin; median ms, ratio = contender / engine)`);
  for (const e of ready) log(`  ${e.c.name.padEnd(28)} ${median(e.times).toFixed(2).padStart(9)} ms  ×${(median(e.times) / ours).toFixed(2)}  (${e.times.length} runs)`);
  for (const e of ready.filter((entry) => entry.c.name.startsWith('engine'))) {
    const time = median(e.times);
    log(`  ${e.c.name} vs fastest ORT-web: ${(ortBest / time).toFixed(2)}× (target ≥ 1.5×)`);
    const gflops = productFlops(p) / time / 1e6;
    if (peak) log(`  ${e.c.name}: ${gflops.toFixed(2)} GFLOP/s of matrix products over the whole block = ${(100 * gflops / peak.gflops).toFixed(0)} % of the SIMD ceiling${fmaPeak ? `, ${(100 * gflops / fmaPeak.gflops).toFixed(0)} % of the FMA ceiling` : ''} (a lower bound for the products alone)`);
  }
  logProducts(ready, p, peak, fmaPeak, log);
  logCpu(ready, p, peakCpu, fmaPeak, log);
  ready.forEach((e) => e.c.release?.(e.state));
}

/**
 * Every size in turn; `engine` a learning engine, `ort` and `tf` (on its wasm backend) the peers' modules,
 * `peakModule` (build/wasm/peak.mjs) for the products replayed alone, `peakCpu` the ceiling by CPU time (Node);
 * `plain: false` leaves plain JS out; `before`, an engine of an earlier build, adds its prepared stack (and
 * `beforeRelaxed`, that build's relaxed engine, its relaxed one);
 * `relaxed`, the relaxed (FMA) learning engine, adds its prepared stack, with `fmaPeak` (the FMA chains'
 * ceiling) and `fmaPeakModule` (build/wasm/peak-relaxed.mjs: the products alone with FMA).
 */
export async function runBlockBench({ engine, ort, tf, sizes, rounds = null, peak = null, peakCpu = null, peakModule = null, plain = true,
  before = null, beforeRelaxed = null, relaxed = null, fmaPeak = null, fmaPeakModule = null, log }) {
  const earlier = [[before, 'engine SIMD prepared stack, before'], [beforeRelaxed, RELAXED_BEFORE]]
    .filter(([build]) => build).map(([build, name]) => ({ ...enginePreparedBlock(build), name }));
  const fused = relaxed ? [{ ...enginePreparedBlock(relaxed), name: RELAXED }] : [];
  const contenders = [engineBlock(engine), enginePreparedBlock(engine), ...fused, ...earlier, ...ortBlocks(ort), tfBlock(tf), ...(plain ? [plainJs] : [])];
  for (const n of sizes) await measureSize(n, contenders, { peak, peakCpu, peakModule, fmaPeak, fmaPeakModule, roundCount: rounds, log });
}
