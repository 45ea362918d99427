// npm run bench [-- --quick]: the engine against the alternatives in Node and in headless Chromium
// (both V8), the machine's SIMD ceiling measured in the same run, and the page's own figures.
// Prints one report and writes bench/results.json (bench/results-partial.json for --quick,
// --node-only or --browser-only runs). The relaxed-SIMD build (fused multiply-adds) is a contender
// too: in Node through --experimental-wasm-relaxed-simd, which this script sets before compiling any
// module (Node 20 has relaxed SIMD behind that flag only); Chromium has it on.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web';

import { SIZES, QUICK_SIZES, runSuite, measurePeak, flops } from './suite.mjs';
import { contendersFor } from './contenders.mjs';
import { measureKernels } from './kernels.mjs';
import { firstTableMs, editTimes } from './page-timing.mjs';
import { openBenchSite, tfWasmDir } from './bench-site.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
// --sizes=8,64,2;64,256,4 (a smoke test of the harness; written as a partial result)
const sizesArgument = process.argv.find((a) => a.startsWith('--sizes='));
const sizes = sizesArgument ? sizesArgument.slice(8).split(';').map((s) => s.split(',').map(Number)) : quick ? QUICK_SIZES : SIZES;
const runs = quick || sizesArgument ? 5 : 20;
const log = (...args) => console.error(...args);
setFlagsFromString('--experimental-wasm-relaxed-simd');

const { loadAttention } = await import(path.join(root, 'dist/lib/attention.node.mjs'));
const { default: createPeakModule } = await import(path.join(root, 'build/wasm/peak.mjs'));

// ---- Node

async function nodeBench() {
  log('node: measuring the SIMD ceiling and the gemm kernels');
  const peakModule = await createPeakModule();
  const peak = measurePeak(peakModule);
  const kernels = measureKernels(peakModule);
  const simd = await loadAttention({ simd: true });
  const scalar = await loadAttention({ simd: false });
  const relaxed = await loadAttention({ simd: 'relaxed' });
  setWasmPaths(`${tfWasmDir}/`);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  ort.env.wasm.numThreads = 1;  // one core, like the engine; Node loads ORT's .wasm from node_modules
  const rows = [];
  for (const backend of ['wasm', 'cpu']) {
    await tf.setBackend(backend);
    await tf.ready();
    const contenders = contendersFor(backend, { simd, scalar, relaxed, tf, ort });
    rows.push(...await runSuite({ engine: simd, contenders, sizes, runs, log: (row) => log(`node: ${describe(row)}`) }));
  }
  return { peak, kernels, rows, memory: memoryFigures(await loadAttention({ simd: true })) };
}

// On a fresh engine (a heap only grows): the heap after a trace-free run at the largest size, then
// the trace's arrays and the heap after a traced run.
function memoryFigures(engine) {
  const [n, d, h] = SIZES.at(-1);
  const weights = engine.initWeights({ dModel: d, heads: h });
  const x = new Float32Array(n * d).fill(0.01);
  const fresh = engine.memory().heapBytes;
  engine.attention({ x, n, dModel: d, heads: h, ...weights, trace: false });
  const traceFree = engine.memory().heapBytes;
  const result = engine.attention({ x, n, dModel: d, heads: h, ...weights, trace: true });
  const traceBytes = [result.output, result.concat, ...result.heads.flatMap((hd) => Object.values(hd))].reduce((sum, a) => sum + a.byteLength, 0);
  return { size: [n, d, h], heapBeforeBytes: fresh, heapAfterTraceFreeBytes: traceFree, allHeadsScoresBytes: h * n * n * 4, traceResultBytes: traceBytes, heapAfterTraceBytes: engine.memory().heapBytes };
}

// ---- Chromium

async function chromiumBench() {
  const site = await openBenchSite({ entry: 'bench/browser-entry.mjs', name: 'bench', title: 'bench', ort: true });
  try {
    const page = await site.browser.newPage();
    page.on('console', (m) => { if (m.type() === 'error') log(`chromium console: ${m.text()}`); });
    await page.goto(site.page);
    await page.waitForFunction(() => typeof globalThis.runBench === 'function');
    log('chromium: running the suite (this takes a while)');
    const result = await page.evaluate((options) => globalThis.runBench(options), { sizes, runs });
    for (const row of result.rows) log(`chromium: ${describe(row)}`);
    result.page = await pageFigures(site.browser, site.url);
    result.version = site.browser.version();
    return result;
  } finally {
    await site.close();
  }
}

const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1];

// The page's figures. First table: when the tables in view of the opening example are drawn
// (the 'attention-lab:visible' measure), after a cold navigation. An edit: from the input event
// to the end of the first frame that begins after the tables in view are redrawn (an
// animation-frame callback at each frame's start looks for the redraw; a task it queues runs once
// that frame is rendered), at 12 tokens, d_model 64, 8 heads (W_O on) and at 64 tokens, d_model
// 128, 8 heads. (Before, a timer polled for the redraw, every 4 ms once nested, and then waited for
// the next frame: when a frame began between the redraw and the timer, the edit was timed to the
// frame after it.)
async function pageFigures(browser, url) {
  const firstTable = [];
  for (let i = 0; i < 5; i++) firstTable.push(await firstTableMs(browser, url));
  const edit = async (tokens, dModel) => {
    const times = await editTimes(browser, url, { tokens, dModel, edits: 20, warmup: 5 });
    return { median: median(times), max: Math.max(...times) };
  };
  const small = await edit(12, 64);
  const large = await edit(64, 128);
  return { firstTableMs: median(firstTable), editMs: small.median, editMaxMs: small.max, largeEditMs: large.median, largeEditMaxMs: large.max, ...transferSizes() };
}

function pageLine(p) {
  return `first table ${p.firstTableMs.toFixed(0)} ms after navigation; an edit reaches the screen in ${p.editMs.toFixed(1)} ms at 12 tokens, d_model 64, 8 heads ` +
    `(median; max ${p.editMaxMs.toFixed(1)}) and ${p.largeEditMs.toFixed(1)} ms at 64 tokens, d_model 128, 8 heads (max ${p.largeEditMaxMs.toFixed(1)}); ` +
    `page ${(p.pageGzipBytes / 1024).toFixed(1)} KB gzipped, engine ${(p.engineGzipBytes / 1024).toFixed(1)} KB`;
}

function transferSizes() {
  const dist = (name) => readFileSync(path.join(root, 'dist', name));
  const gz = (names) => names.reduce((sum, name) => sum + gzipSync(dist(name), { level: 9 }).length, 0);
  const chunks = readdirSync(path.join(root, 'dist/chunks')).filter((f) => f.endsWith('.js')).map((f) => `chunks/${f}`);
  const engine = ['lib/attention.mjs', 'lib/attention-simd.mjs', 'lib/attention-simd.wasm'];
  return { pageGzipBytes: gz(['index.html', 'styles.css', 'main.js', 'worker.js', ...chunks, ...engine]), engineGzipBytes: gz(engine) };
}

// ---- report

function describe(row) {
  return `(${row.size.join(', ')}) ${row.contender}${row.trace ? ' +trace' : ''}: ${row.median.toFixed(3)} ms [${row.min.toFixed(3)}–${row.max.toFixed(3)}] ${row.gflops.toFixed(2)} GFLOP/s` +
    (row.cpuMedian ? `, CPU ${row.cpuMedian.toFixed(3)} ms` : '');
}

function table(title, { rows, peak }) {
  const cpu = rows.some((r) => r.cpuMedian);  // Node: the process's CPU time per call too
  const lines = [`${title}: SIMD ceiling ${peak.gflops.toFixed(1)} GFLOP/s (${peak.chains} chains)`,
    `| n, d_model, heads | contender | trace | median ms | min–max ms |${cpu ? ' CPU ms |' : ''} calls per sample | GFLOP/s | % of ceiling |`,
    `| --- | --- | --- | ---: | ---: |${cpu ? ' ---: |' : ''} ---: | ---: | ---: |`];
  for (const r of rows) {
    lines.push(`| ${r.size.join(', ')} | ${r.contender} | ${r.trace ? 'on' : 'off'} | ${r.median.toFixed(3)} | ${r.min.toFixed(3)}–${r.max.toFixed(3)} |` +
      `${cpu ? ` ${r.cpuMedian?.toFixed(3) ?? ''} |` : ''} ${r.batch} | ${r.gflops.toFixed(2)} | ${(100 * r.gflops / peak.gflops).toFixed(0)} % |`);
  }
  return lines.join('\n');
}

function targets(name, { rows, peak }) {
  const get = (size, contender, trace = false) => rows.find((r) => r.size.join() === size.join() && r.contender === contender && r.trace === trace);
  const best = (size, names) => names.map((c) => get(size, c)).filter(Boolean).sort((a, b) => a.median - b.median)[0];
  const lines = [`${name} targets (ratios of medians from the same interleaved rounds):`];
  for (const size of sizes) {
    const simd = get(size, 'engine SIMD');
    const prepared = get(size, 'engine SIMD prepared');
    const relaxed = get(size, 'engine relaxed prepared');
    const given = get(size, 'engine SIMD prepared, output given');
    const relaxedGiven = get(size, 'engine relaxed prepared, output given');
    const tfBest = best(size, ['TF.js wasm batched', 'TF.js wasm per head']);
    const ortBest = best(size, ['ORT-web batched', 'ORT-web per head', 'ORT-web MultiHeadAttention', 'ORT-web Attention op']);
    const plain = get(size, 'plain JS');
    const scalar = get(size, 'engine scalar');
    const vs = (engine) => `${(ortBest.median / engine.median).toFixed(2)}× ORT-web (${ortBest.contender}), ${(tfBest.median / engine.median).toFixed(2)}× TF.js-wasm (${tfBest.contender})`;
    lines.push(`  (${size.join(', ')}): attention() ${vs(simd)}, ${(100 * simd.gflops / peak.gflops).toFixed(0)} % of the ceiling; ` +
      (prepared ? `prepared ${vs(prepared)}, ${(100 * prepared.gflops / peak.gflops).toFixed(0)} % of the ceiling; ` : '') +
      (given ? `with the output array given ${vs(given)}; ` : '') +
      (relaxed ? `relaxed (FMA) prepared ${vs(relaxed)}; ` : '') +
      (relaxedGiven ? `relaxed with the output array given ${vs(relaxedGiven)}; ` : '') +
      `${(plain.median / simd.median).toFixed(1)}× plain JS; scalar ${(plain.median / scalar.median).toFixed(1)}× plain JS`);
    // Node: the same ratios on the process's CPU time (steadier while other jobs share the cores)
    const cpuBest = (names) => names.map((c) => get(size, c)).filter((r) => r?.cpuMedian).sort((a, b) => a.cpuMedian - b.cpuMedian)[0];
    const ortCpu = cpuBest(['ORT-web batched', 'ORT-web per head', 'ORT-web MultiHeadAttention', 'ORT-web Attention op']);
    if (ortCpu && simd.cpuMedian) {
      lines.push(`    CPU time: attention() ${simd.cpuMedian.toFixed(3)} ms, ${(ortCpu.cpuMedian / simd.cpuMedian).toFixed(2)}× ORT-web (${ortCpu.contender} ${ortCpu.cpuMedian.toFixed(3)} ms)` +
        (prepared?.cpuMedian ? `; prepared ${prepared.cpuMedian.toFixed(3)} ms, ${(ortCpu.cpuMedian / prepared.cpuMedian).toFixed(2)}× ORT-web` : '') +
        (relaxed?.cpuMedian ? `; relaxed prepared ${relaxed.cpuMedian.toFixed(3)} ms, ${(ortCpu.cpuMedian / relaxed.cpuMedian).toFixed(2)}× ORT-web` : ''));
    }
  }
  return lines.join('\n');
}

function kernelTable(title, { kernels, peak }) {
  const lines = [`${title}: the gemm driver with each SIMD micro-kernel (best of 5), share of the ceiling ${peak.gflops.toFixed(1)} GFLOP/s`,
    '| product | kernel | GFLOP/s | % of ceiling |', '| --- | --- | ---: | ---: |'];
  for (const k of kernels) lines.push(`| ${k.shape} | ${k.kernel} | ${k.gflops.toFixed(1)} | ${(100 * k.gflops / peak.gflops).toFixed(0)} % |`);
  return lines.join('\n');
}

const started = new Date();
if (process.argv.includes('--asm')) {
  // V8's machine code for each gemm kernel's main loop (TurboFan, this machine's x64)
  const { asmReport } = await import('./asm.mjs');
  const report = await asmReport();
  console.log('| kernel | instructions | mulps | addps | shuffles | broadcast loads | vector loads | stack spills and reloads |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const k of report) console.log(`| ${k.kernel} | ${k.instructions} | ${k.mul} | ${k.add} | ${k.shuffles} | ${k.broadcastLoads} | ${k.vectorLoads} | ${k.spills} |`);
  process.exit(0);
}
if (process.argv.includes('--page-only')) {
  // only the page's figures, written into the last full results beside the date they were taken
  const { chromium } = await import('playwright-core');
  const { serve } = await import(path.join(root, 'scripts/serve.mjs'));
  const server = await serve({ dir: path.join(root, 'dist'), port: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await pageFigures(browser, server.url);
  await browser.close();
  await server.close();
  const file = path.join(root, 'bench/results.json');
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  saved.chromiumResults.page = { ...page, measured: started.toISOString(), command: 'npm run bench -- --page-only' };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`);
  console.log(`Page (Chromium ${browser.version()}, localhost): ${pageLine(page)}`);
  process.exit(0);
}
const nodeResults = process.argv.includes('--browser-only') ? null : await nodeBench();
const chromiumResults = process.argv.includes('--node-only') ? null : await chromiumBench();
const results = {
  date: started.toISOString(),
  command: `npm run bench${quick ? ' -- --quick' : ''}`,
  machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 30) },
  node: process.version,
  chromium: chromiumResults?.version ?? null,
  samplesPerFigure: runs,
  flops: Object.fromEntries(sizes.map((s) => [s.join(','), flops(s[0], s[1])])),
  nodeResults,
  chromiumResults,
};
// only a full run replaces the committed results; a quick or one-sided run writes beside them
const partial = quick || Boolean(sizesArgument) || process.argv.includes('--node-only') || process.argv.includes('--browser-only');
const resultsFile = partial ? 'bench/results-partial.json' : 'bench/results.json';
writeFileSync(path.join(root, resultsFile), `${JSON.stringify(results, null, 2)}\n`);

console.log(`Attention Lab benchmark, ${results.date}; ${results.machine.cpu}, ${results.machine.cores} cores; Node ${results.node}; Chromium ${results.chromium}; ${runs} samples per figure (median; a sample is one call, or a batch of calls lasting ≥ 5 ms), after warm-up`);
if (nodeResults) console.log(`\n${kernelTable('Node', nodeResults)}\n\n${table('Node', nodeResults)}\n\n${targets('Node', nodeResults)}`);
if (nodeResults) {
  const m = nodeResults.memory;
  console.log(`\nMemory at (${m.size.join(', ')}): the trace's arrays ${(m.traceResultBytes / 2 ** 20).toFixed(1)} MiB (heap ${(m.heapAfterTraceBytes / 2 ** 20).toFixed(0)} MiB after it); ` +
    `trace off: heap ${(m.heapAfterTraceFreeBytes / 2 ** 20).toFixed(0)} MiB, while all heads' n × m scores would be ${(m.allHeadsScoresBytes / 2 ** 20).toFixed(0)} MiB`);
}
if (chromiumResults) {
  console.log(`\n${kernelTable('Chromium', chromiumResults)}\n\n${table('Chromium', chromiumResults)}\n\n${targets('Chromium', chromiumResults)}`);
  const p = chromiumResults.page;
  console.log(`\nPage (Chromium, localhost): ${pageLine(p)}`);
}
console.log(`\nwritten: ${resultsFile}`);
