// npm run bench:products [-- --sizes=16,128,512 --reps=9 --after-contenders]: issue 22's "where do the
// block's products lose speed in Node". Each product of bench/peak.cpp's block_products (its `part`:
// 1 q, k, v of 12 heads; 2 the causal scores and weights·v; 3 W_O; 4 the MLP's two, k-blocked) against
// the same shape through ppmm_repeat (which also packs x and the weights on every call), and the 16-chain
// ceiling, interleaved, by the process's CPU time (the machine is shared: waits for a core do not count).
// Prints the best and the median of each as GFLOP/s and as a share of the ceiling's best. With
// --after-contenders, the products alone are timed again right after each other contender of the block
// bench (the engine's transformer() and prepared stack, ORT-web, TF.js-wasm) and back to back: does what ran before matter?
// With --before=FILE (a copy of an earlier build's build/wasm/peak.mjs), each part of both builds'
// block_products, interleaved in one process, by CPU time: the before/after of a driver change.
// --relaxed: the relaxed build's module (build/wasm/peak-relaxed.mjs: fused multiply-adds, cmake --build
// build/wasm --target bench_peak_relaxed), against the FMA chains' ceiling (12 chains; 8 and 10 shown too).
// Both also time the dispatched ppmm micro-kernel alone on one strip and panel in L1 (kc 256, no packing),
// and the memory's pace: the block's 28 MB of weights read one float per 64-byte line (GB/s), what a few
// rows' products (n = 16), which read every weight once per run, cannot go below.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argument = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const sizes = argument('sizes', '16,128,512').split(',').map(Number);
const reps = Number(argument('reps', 9));
const D = 768, F = 3072, WEIGHTS = 4 * D * D + 2 * D * F;
const relaxed = process.argv.includes('--relaxed');
if (relaxed) setFlagsFromString('--experimental-wasm-relaxed-simd');

const cpuMs = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000; };
const timed = (fn) => { const start = cpuMs(); fn(); return cpuMs() - start; };
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// [name, flop, run] for every product of the block at n and its ppmm_repeat twin, then the ceiling
function products(m, n) {
  const ppmm = m._ppmm_kernel_count() - 1;
  const mr = Number(/_(\d)x8_/.exec(m.UTF8ToString(m._ppmm_kernel_name(ppmm)))?.[1] ?? 4);
  return [
    ['q, k, v (36 × n×768 · 768×64)', 2 * n * D * 3 * D, () => m._block_products(n, 1, 1)],
    ['  ppmm_repeat, same shape ×36', 2 * n * D * 3 * D, () => m._ppmm_repeat(ppmm, n, D, 64, 0, 36)],
    ['scores and weights·v (causal)', 2 * 2 * D * n * (n + 1) / 2, () => m._block_products(n, 2, 1)],
    ['W_O (n×768 · 768×768)', 2 * n * D * D, () => m._block_products(n, 3, 1)],
    ['  ppmm_repeat, same shape', 2 * n * D * D, () => m._ppmm_repeat(ppmm, n, D, D, 0, 1)],
    ['MLP (n×768 · 768×3072, n×3072 · 3072×768)', 2 * n * D * 2 * F, () => m._block_products(n, 4, 1)],
    ['  ppmm_repeat, same shapes', 2 * n * D * 2 * F, () => { m._ppmm_repeat(ppmm, n, D, F, 0, 1); m._ppmm_repeat(ppmm, n, F, D, 0, 1); }],
    ['all the block\'s products', 2 * n * D * (4 * D + 2 * F) + 2 * D * n * (n + 1), () => m._block_products(n, 0, 1)],
    ...(m._ppmm_kernel_alone ? [[`the micro-kernel alone (kc 256, in L1, mr ${mr})`, 2 * mr * 8 * 256 * 20000, () => m._ppmm_kernel_alone(ppmm, 256, 20000)]] : []),
    // the memory's pace: the block's 7.1 M weights read one float per line (the "GFLOP/s" column is GB/s)
    ...(m._lines_read ? [['weights\' 28 MB read a line at a time (GB/s)', WEIGHTS * 4, () => m._lines_read(WEIGHTS, 1)]] : []),
    // with --relaxed, 8 and 10 FMA chains too: does a kernel with 8 accumulators wait on FMA latency?
    ...(relaxed ? [8, 10].map((c) => [`${c} FMA chains`, c * 8 * 2e6, () => m._peak_fma_chains(c, 2e6)]) : []),
    relaxed ? ['ceiling (12 FMA chains)', 12 * 8 * 2e6, () => m._peak_fma_chains(12, 2e6)] : ['ceiling (16 chains)', 16 * 8 * 2e6, () => m._peak_chains(16, 2e6)],
  ];
}

function measureSize(m, n) {
  const list = products(m, n);
  const times = list.map(() => []);
  for (const [, , run] of list) run();  // sizes the buffers, tiers up
  for (let r = 0; r < reps; r++) list.forEach(([, , run], i) => times[i].push(timed(run)));
  const ceiling = list.at(-1)[1] / Math.min(...times.at(-1)) / 1e6;
  console.log(`n = ${n} (${reps} interleaved rounds; CPU time; ceiling ${ceiling.toFixed(2)} GFLOP/s)`);
  list.forEach(([name, flop], i) => {
    const best = flop / Math.min(...times[i]) / 1e6, typical = flop / median(times[i]) / 1e6;
    if (name.endsWith('(GB/s)')) return console.log(`  ${name.padEnd(44)} best ${Math.min(...times[i]).toFixed(2).padStart(8)} ms ${best.toFixed(1).padStart(5)} GB/s | median ${typical.toFixed(1)} GB/s`);
    console.log(`  ${name.padEnd(44)} best ${Math.min(...times[i]).toFixed(2).padStart(8)} ms ${best.toFixed(1).padStart(5)} GFLOP/s ${(100 * best / ceiling).toFixed(0).padStart(4)} % | median ${(100 * typical / ceiling).toFixed(0).padStart(4)} %`);
  });
}

// the products alone right after each contender of the block bench, and back to back
async function afterContenders(m, n) {
  const [tf, { setWasmPaths }, ort] = await Promise.all([import('@tensorflow/tfjs-core'), import('@tensorflow/tfjs-backend-wasm'), import('onnxruntime-web')]);
  const { problem } = await import('./block-suite.mjs');
  const { engineBlock, enginePreparedBlock, ortBlocks, tfBlock } = await import('./block-contenders.mjs');
  const { tfWasmDir } = await import('./bench-site.mjs');
  const { loadAttention } = await import(path.join(root, 'dist/lib/attention.node.mjs'));
  const engine = await loadAttention({ learning: true, simd: true });
  setWasmPaths(`${tfWasmDir}/`);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  await tf.setBackend('wasm');
  await tf.ready();
  ort.env.wasm.numThreads = 1;
  const contenders = [engineBlock(engine), enginePreparedBlock(engine), ...ortBlocks(ort), tfBlock(tf)];
  const states = [];
  for (const c of contenders) states.push(await c.prepare(problem(n)));
  const modes = [['back to back', async () => {}], ...contenders.map((c, i) => [`after ${c.name}`, () => c.run(states[i])])];
  const times = modes.map(() => []);
  m._block_products(n, 0, 1);
  for (let r = 0; r < reps; r++) {
    for (const [k, [, before]] of modes.entries()) {
      await before();
      times[k].push(timed(() => m._block_products(n, 0, 1)));
    }
  }
  console.log(`n = ${n}: all the block's products, CPU time ms (${reps} interleaved rounds)`);
  modes.forEach(([name], k) => console.log(`  ${name.padEnd(40)} median ${median(times[k]).toFixed(2).padStart(8)}  best ${Math.min(...times[k]).toFixed(2).padStart(8)}`));
}

// each part of block_products in this build and in an earlier one (its peak.mjs), interleaved
function beforeAfter(m, earlier, n) {
  const parts = ['all', 'q, k, v', 'scores, weights·v', 'W_O', 'MLP'];
  const builds = [['before', earlier], ['after', m]];
  const times = parts.map(() => builds.map(() => []));
  for (const [, module] of builds) for (let part = 0; part < parts.length; part++) module._block_products(n, part, 1);
  for (let r = 0; r < reps; r++) {
    parts.forEach((_, part) => builds.forEach(([, module], b) => times[part][b].push(timed(() => module._block_products(n, part, 1)))));
  }
  console.log(`n = ${n}: block_products by part, CPU time ms (${reps} interleaved rounds), before → after`);
  parts.forEach((name, part) => {
    const [before, after] = times[part];
    console.log(`  ${name.padEnd(18)} best ${Math.min(...before).toFixed(2).padStart(8)} → ${Math.min(...after).toFixed(2).padStart(8)} (${(Math.min(...before) / Math.min(...after)).toFixed(2)}×) | median ${median(before).toFixed(2).padStart(8)} → ${median(after).toFixed(2).padStart(8)} (${(median(before) / median(after)).toFixed(2)}×)`);
  });
}

const wasmBinary = relaxed ? readFileSync(path.join(root, 'build/wasm/peak-relaxed.wasm')) : undefined;
const m = await (await import(path.join(root, `build/wasm/${relaxed ? 'peak-relaxed' : 'peak'}.mjs`))).default({ wasmBinary });
if (relaxed) console.log(`relaxed build: ${m.UTF8ToString(m._ppmm_kernel_name(m._ppmm_kernel_count() - 1))}`);
const beforeFile = argument('before', null);
if (beforeFile) {
  const earlier = await (await import(path.resolve(beforeFile))).default({ wasmBinary: relaxed ? readFileSync(path.resolve(beforeFile).replace(/\.mjs$/, '.wasm')) : undefined });
  console.log(`node ${process.version}; ${execSync('uptime').toString().trim()}`);
  for (const n of sizes) beforeAfter(m, earlier, n);
  console.log(execSync('uptime').toString().trim());
  process.exit(0);
}
console.log(`node ${process.version}; ${execSync('uptime').toString().trim()}`);
for (const n of sizes) measureSize(m, n);
if (process.argv.includes('--after-contenders')) for (const n of sizes) await afterContenders(m, n);
console.log(execSync('uptime').toString().trim());
