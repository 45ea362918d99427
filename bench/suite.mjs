// The benchmark itself, the same in Node and in the browser: the multi-head attention forward
// (projections, scores, scaling, softmax, weighted sum, W_O) at each size, for every contender,
// each output checked against the engine's before any timing.
//   letters: n tokens, d = d_model, h heads, d_k = d / h
import { mulberry32 } from '../web/src/shared/stats.mjs';

export const SIZES = [[8, 64, 2], [64, 256, 4], [256, 512, 8], [1024, 512, 8]];
export const QUICK_SIZES = [[8, 64, 2], [64, 256, 4], [256, 512, 8]];

/** Flops of one forward: 8·n·d² (four projections) + 4·n²·d (scores and weighted sum). */
export const flops = (n, d) => 8 * n * d * d + 4 * n * n * d;

/**
 * Median, min and max time of one call over `runs` timed samples, after at least `warmup` untimed
 * calls and, for quick calls, at least 300 ms of them: V8 first runs WebAssembly and JavaScript in a
 * baseline tier and optimises hot functions later, and the figures are of the optimised code.
 * A sample is a batch of calls lasting at least 5 ms, so that a browser's coarse clock (0.1 ms in
 * Chromium without cross-origin isolation) still resolves calls of a few microseconds.
 */
export function timeIt(fn, { runs = 20, warmup = 5 } = {}) {
  const warmStart = performance.now();
  let calls = 0;
  while (calls < warmup || (warmup > 1 && performance.now() - warmStart < 300)) {
    fn();
    calls++;
  }
  const perCall = (performance.now() - warmStart) / calls;
  const batch = Math.max(1, Math.ceil(5 / Math.max(perCall, 1e-3)));
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    for (let b = 0; b < batch; b++) fn();
    times.push((performance.now() - start) / batch);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  return { median: times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2, min: times[0], max: times.at(-1), runs, batch };
}

// Seeded inputs: x uniform in [-1, 1), weights from the engine's Xavier initialisation.
export function makeProblem(engine, [n, d, h], seed = 1) {
  const draw = mulberry32(seed);
  const next = () => draw() / 4294967296;
  const x = Float32Array.from({ length: n * d }, () => next() * 2 - 1);
  return { n, d, h, dK: d / h, x, ...engine.initWeights({ dModel: d, heads: h, seed }) };
}

/** The SIMD ceiling: the best of 8 to 16 independent f32x4 mul+add chains, in GFLOP/s. */
export function measurePeak(peakModule, chainsFunction = '_peak_chains') {
  const chainCounts = [8, 10, 12, 14, 16];
  const run = (chains, iterations) => peakModule[chainsFunction](chains, iterations);
  for (const chains of chainCounts) for (let i = 0; i < 200; i++) run(chains, 20_000);  // tier up
  const results = chainCounts.map((chains) => {
    const iterations = 5_000_000;
    let best = 0;
    for (let r = 0; r < 5; r++) {
      const start = performance.now();
      run(chains, iterations);
      best = Math.max(best, (iterations * chains * 8) / (performance.now() - start) / 1e6);
    }
    return { chains, gflops: best };
  });
  const best = results.reduce((a, b) => (b.gflops > a.gflops ? b : a));
  return { gflops: best.gflops, chains: best.chains, all: results };
}

function maxRelativeDifference(got, want) {
  let scale = 0;
  for (const v of want) scale = Math.max(scale, Math.abs(v));
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  return worst / Math.max(scale, 1e-12);
}

/**
 * contenders: [{ name, traces: [true, false] or [false], prepare(problem) → handle, run(handle, trace) → Float32Array
 *               (n × d output; `async: true` when it returns a promise), release?(handle) }]
 * At each size every contender's output is checked first; then each warms up, and the timed
 * samples are taken round by round: in round r every contender takes its r-th sample (in an order
 * that rotates), so a slow minute of a shared machine falls on all of them alike and the ratios
 * between contenders come from the same moments.
 * Returns rows { size, contender, trace, median, min, max, runs, batch, gflops, check }.
 */
export async function runSuite({ engine, contenders, sizes, runs, log = () => {} }) {
  const rows = [];
  for (const size of sizes) {
    const [n, d, h] = size;
    const problem = makeProblem(engine, size);
    const reference = engine.attention({ x: problem.x, n, dModel: d, heads: h, wq: problem.wq, wk: problem.wk, wv: problem.wv, wo: problem.wo, trace: false }).output;
    const entries = await checkedEntries(contenders, size, problem, reference);
    await warmUp(entries, size);
    await timeInRounds(entries, runs);
    for (const row of rowsOf(entries, size, runs)) {
      rows.push(row);
      log(row);
    }
    for (const contender of contenders) if (!contender.skip?.(size)) contender.release?.(entries.find((e) => e.contender === contender)?.handle);
  }
  return rows;
}

// One entry per contender and trace at `size`, each output checked against the engine's first.
async function checkedEntries(contenders, size, problem, reference) {
  const entries = [];
  for (const contender of contenders) {
    if (contender.skip?.(size)) continue;
    const handle = await contender.prepare(problem);
    for (const trace of contender.traces) {
      const output = await contender.run(handle, trace);
      const difference = maxRelativeDifference(output, reference);
      if (!(difference < 1e-3)) throw new Error(`${contender.name} at (${size}) differs from the engine by ${difference} (relative to the largest output)`);
      const call = contender.async ? () => contender.run(handle, trace) : null;
      const syncCall = contender.async ? null : () => contender.run(handle, trace);
      entries.push({ contender, handle, trace, difference, call, syncCall, times: [] });
    }
  }
  return entries;
}

// Warm-up (V8 tiers hot code up to its optimising compiler) and a batch size per entry.
async function warmUp(entries, size) {
  for (const entry of entries) {
    const slow = entry.contender.slow?.(size);
    const warmStart = performance.now();
    let calls = 0;
    while (calls < (slow ? 1 : 5) || (!slow && performance.now() - warmStart < 300)) {
      await sample(entry, 1);
      calls++;
    }
    entry.batch = Math.max(1, Math.ceil(5 / Math.max((performance.now() - warmStart) / calls, 1e-3)));
  }
}

// The timed samples, round by round, each round starting at the next entry.
async function timeInRounds(entries, runs) {
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[(i + round) % entries.length];
      const cpuBefore = cpuMs();
      entry.times.push(await sample(entry, entry.batch) / entry.batch);
      if (cpuBefore !== null) (entry.cpuTimes ??= []).push((cpuMs() - cpuBefore) / entry.batch);
    }
  }
}

function rowsOf(entries, size, runs) {
  const [n, d] = size;
  return entries.map((entry) => {
    const times = entry.times.slice().sort((a, b) => a - b);
    const median = medianOf(times);
    const row = { size, contender: entry.contender.name, trace: entry.trace, median, min: times[0], max: times.at(-1), runs, batch: entry.batch,
      gflops: flops(n, d) / median / 1e6, check: entry.difference, path: entry.contender.path };
    // Node: the process's CPU time per call as well, which leaves out the time other jobs of a
    // shared machine hold the core (the wall-clock median counts it)
    if (entry.cpuTimes) row.cpuMedian = medianOf(entry.cpuTimes.slice().sort((a, b) => a - b));
    return row;
  });
}

function medianOf(sorted) {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// The process's CPU time in ms (user + system), or null where there is no such clock (a browser).
function cpuMs() {
  if (typeof process === 'undefined' || typeof process.cpuUsage !== 'function') return null;
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

// ms for `batch` calls of one entry
async function sample(entry, batch) {
  const start = performance.now();
  if (entry.syncCall) for (let b = 0; b < batch; b++) entry.syncCall();
  else for (let b = 0; b < batch; b++) await entry.call();
  return performance.now() - start;
}
