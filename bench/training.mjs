// npm run bench:train: one Adam step (forward, backward, update) of one attention layer on a batch
// of 32 sentences × 12 tokens, at dModel 16 and 64 with 2 and 4 heads: the engine's trainer (both
// builds) against TensorFlow.js on its wasm backend (tf.variableGrads + tf.train.adam, the same
// model) and against plain JavaScript (bench/training-suite.mjs), in Node and then in headless
// Chromium. Every contender first trains 10 steps from the same initial weights and its losses must
// match the engine's to 1e-4; then steps are timed interleaved (contender by contender, round after
// round) and medians reported, of wall time and of CPU time (this process's in Node, the renderer's
// main thread's in Chromium, where a sample is as many steps as last 5 ms: its clock ticks in 0.1 ms).
// Then the same for issue 22's stack: one Adam step of the two-layer attention-only induction model
// (batch 32, sequence 24, dModel 32, 4 heads; bench/train-stack-suite.mjs), the engine's stack trainer
// against TF.js wasm, its 10 losses equal to 1e-4 first.
// Writes bench/training-results.json.
//   --quick: 7 rounds (writes bench/training-results-partial.json); --node-only, --browser-only;
//   --stack-only: the stack alone (partial too)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

import { ADAM, SIZES, describeRow, runTrainingSuite, timeSession } from './training-suite.mjs';
import { stackTrainingSession } from './train-stack-suite.mjs';
import { openBenchSite, tfWasmDir } from './bench-site.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const quick = process.argv.includes('--quick');
const nodeOnly = process.argv.includes('--node-only');
const browserOnly = process.argv.includes('--browser-only');
const stackOnly = process.argv.includes('--stack-only');
const ROUNDS = quick ? 7 : 31;
const log = (...args) => console.error(...args);
const esbuild = (args) => execFileSync('npx', ['esbuild', ...args, '--log-level=warning'], { cwd: root, stdio: 'inherit' });

// ---- Node

async function nodeBench() {
  const { loadAttention } = await import(path.join(root, 'dist/lib/attention.node.mjs'));
  // tfjs-core's Node bundle leaves out the ops' gradients; its ES modules register them, but import
  // paths without extensions, which Node does not resolve. One esbuild bundle of them registers into
  // the same global registry (tfjs keeps it on globalThis) as the engine imported above.
  const gradientsBundle = path.join(root, 'build/bench/tfjs-gradients.mjs');
  esbuild([require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js'), '--bundle', '--format=esm',
    '--platform=neutral', `--outfile=${gradientsBundle}`]);
  await import(gradientsBundle);
  const simd = await loadAttention({ simd: true, learning: true });
  const scalar = await loadAttention({ simd: false, learning: true });
  setWasmPaths(`${tfWasmDir}/`);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  await tf.setBackend('wasm');
  await tf.ready();
  // This process's CPU time, which leaves out the time other jobs on a shared machine hold the core.
  const cpuClock = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const rows = runTrainingSuite({ simd, scalar, tf, sizes: stackOnly ? [] : SIZES, rounds: ROUNDS, cpuClock, log: (line) => log(`node: ${line}`) });
  const stack = timeSession(stackTrainingSession({ simd, scalar, tf }), { rounds: ROUNDS, cpuClock });
  log(`node: ${describeRow(stack)}`);
  return { rows, stack };
}

// ---- Chromium: dist/ and TensorFlow.js's wasm files served on localhost, the suite bundled

async function chromiumBench() {
  const site = await openBenchSite({ entry: 'bench/training-browser-entry.mjs', name: 'train-bench', title: 'training bench' });
  const { browser } = site;
  try {
    const page = await browser.newPage();
    page.on('console', (m) => log(`chromium: ${m.text()}`));
    page.on('requestfailed', (r) => log(`chromium: ${r.url()} failed`));
    page.on('response', (r) => { if (r.status() >= 400) log(`chromium: ${r.url()}: ${r.status()}`); });
    await page.goto(site.page);
    await page.waitForFunction(() => typeof globalThis.trainingBench === 'object');
    const { tfSimd } = await page.evaluate(() => globalThis.trainingBench.init());
    // The renderer's main thread's CPU time (ms), read through the DevTools protocol around each
    // sample: it leaves out the time other jobs hold the core, like process.cpuUsage in Node. What
    // reading it and page.evaluate cost there (about 0.2 ms: the median of 31 empty samples) is
    // taken off each sample.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const threadTime = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value * 1000;
    const empty = [];
    for (let i = 0; i < 31; i++) {
      const cpu = await threadTime();
      await page.evaluate((n) => n, i);
      empty.push(await threadTime() - cpu);
    }
    const overheadMs = empty.sort((a, b) => a - b)[15];
    const rows = [];
    for (const size of [...(stackOnly ? [] : SIZES), 'stack']) {
      const { names, steps } = await page.evaluate((s) => globalThis.trainingBench.prepare(s), size);
      const times = names.map(() => []);
      const cpuTimes = names.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < names.length; k++) {
          const i = (k + round) % names.length;  // the order turns each round
          const cpu = await threadTime();
          times[i].push(await page.evaluate((contender) => globalThis.trainingBench.sample(contender), i));
          cpuTimes[i].push(Math.max(0, await threadTime() - cpu - overheadMs) / steps[i]);
        }
      }
      const row = await page.evaluate(([t, c]) => globalThis.trainingBench.finish(t, c), [times, cpuTimes]);
      log(`chromium: ${describeRow(row)}`);
      rows.push(row);
    }
    const stack = rows.pop();
    return { rows, stack, tfSimd, cpuOverheadMs: overheadMs, version: browser.version() };
  } finally {
    await site.close();
  }
}

// ---- the report

function table(rows) {
  const lines = ['| dModel | heads | engine SIMD | engine scalar | TF.js wasm | plain JS | vs TF.js wasm | vs plain JS | vs TF.js wasm, CPU time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of rows) {
    const m = r.medianMs;
    lines.push(`| ${r.dModel} | ${r.heads} | ${m['engine SIMD'].toFixed(3)} ms | ${m['engine scalar'].toFixed(3)} ms | ${m['TF.js wasm'].toFixed(3)} ms | ` +
      `${m['plain JS'].toFixed(3)} ms | ×${r.speedupOverTfWasm.toFixed(1)} | ×${r.speedupOverPlainJs.toFixed(1)} | ` +
      `${r.cpuSpeedupOverTfWasm ? `×${r.cpuSpeedupOverTfWasm.toFixed(1)}` : '–'} |`);
  }
  return lines.join('\n');
}

// The stack's row: medians, the ratio, the agreement.
function stackLine(r) {
  const m = r.medianMs;
  const cpu = r.cpuSpeedupOverTfWasm ? ` (CPU time ×${r.cpuSpeedupOverTfWasm.toFixed(2)})` : '';
  return `Induction stack (batch ${r.batch}, n ${r.tokens}, dModel ${r.dModel}, ${r.heads} heads, ${r.layers} layers): engine SIMD ${m['engine SIMD'].toFixed(3)} ms, ` +
    `engine scalar ${m['engine scalar'].toFixed(3)} ms, TF.js wasm ${m['TF.js wasm'].toFixed(3)} ms per step; ×${r.speedupOverTfWasm.toFixed(2)} TF.js wasm${cpu}; ` +
    `10 losses agree to ${Math.max(...r.agreement.map((a) => a.maxLossDifference)).toExponential(1)} (loss ${r.losses[0].toFixed(4)} → ${r.losses.at(-1).toFixed(4)})`;
}

const started = new Date();
const loadBefore = os.loadavg();
const node = browserOnly ? null : await nodeBench();
const nodeRows = node?.rows ?? null;
const chromium = nodeOnly ? null : await chromiumBench();
const out = { date: started.toISOString(), node: process.version, chromium: chromium?.version ?? null, rounds: ROUNDS, adam: ADAM,
  loadAverage: { before: loadBefore, after: os.loadavg() }, rows: nodeRows, chromiumRows: chromium?.rows ?? null,
  stack: node?.stack ?? null, chromiumStack: chromium?.stack ?? null,
  chromiumCpuOverheadMs: chromium?.cpuOverheadMs ?? null };
const partial = quick || nodeOnly || browserOnly || stackOnly;
writeFileSync(path.join(root, partial ? 'bench/training-results-partial.json' : 'bench/training-results.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`Training step, ${out.date}; load average ${loadBefore.map((l) => l.toFixed(1)).join(', ')} before, ` +
  `${out.loadAverage.after.map((l) => l.toFixed(1)).join(', ')} after; ${ROUNDS} rounds, medians`);
if (node) console.log(`\nNode ${process.version}\n\n${nodeRows.length ? `${table(nodeRows)}\n\n` : ''}${stackLine(node.stack)}`);
if (chromium) console.log(`\nChromium ${chromium.version}\n\n${chromium.rows.length ? `${table(chromium.rows)}\n\n` : ''}${stackLine(chromium.stack)}`);
