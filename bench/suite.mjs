// The benchmark itself, the same in Node and in the browser: the multi-head attention forward
// (projections, scores, scaling, softmax, weighted sum, W_O) at each size, for every contender,
// each output checked against the engine's before any timing.
//   letters: n tokens, d = d_model, h heads, d_k = d / h
import { mulberry32 } from '../web/src/stats.mjs';

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
export function measurePeak(peakModule) {
  const chainCounts = [8, 10, 12, 14, 16];
  for (const chains of chainCounts) for (let i = 0; i < 200; i++) peakModule._peak_chains(chains, 20_000);  // tier up
  const results = chainCounts.map((chains) => {
    const iterations = 5_000_000;
    let best = 0;
    for (let r = 0; r < 5; r++) {
      const start = performance.now();
      peakModule._peak_chains(chains, iterations);
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
 *               (n × d output; may be async for a final read-back), release?(handle) }]
 * Returns rows { size, contender, trace, median, min, max, runs, gflops, check }.
 */
export async function runSuite({ engine, contenders, sizes, runs, log = () => {} }) {
  const rows = [];
  for (const size of sizes) {
    const [n, d, h] = size;
    const problem = makeProblem(engine, size);
    const reference = engine.attention({ x: problem.x, n, dModel: d, heads: h, wq: problem.wq, wk: problem.wk, wv: problem.wv, wo: problem.wo, trace: false }).output;
    for (const contender of contenders) {
      if (contender.skip?.(size)) continue;
      const handle = await contender.prepare(problem);
      for (const trace of contender.traces) {
        const output = await contender.run(handle, trace);
        const difference = maxRelativeDifference(output, reference);
        if (!(difference < 1e-3)) throw new Error(`${contender.name} at (${size}) differs from the engine by ${difference} (relative to the largest output)`);
        const slow = contender.slow?.(size);
        const timing = timeIt(() => contender.run(handle, trace), { runs, warmup: slow ? 1 : 5 });
        const row = { size, contender: contender.name, trace, ...timing, gflops: flops(n, d) / timing.median / 1e6, check: difference };
        rows.push(row);
        log(row);
      }
      contender.release?.(handle);
    }
  }
  return rows;
}
