// node bench/stack-warmup.mjs [DIST] (after `bash scripts/build.sh`): engine.transformer() for the
// page's two-layer edit (12 tokens × d_model 16 × 2 heads, two post-LN full blocks, GELU MLPs of 64)
// in headless Chromium, call by call on a freshly loaded learning engine, with a pause of 50 ms
// every 20 calls as edits would leave. Prints the median call in each stretch: the first calls run on
// V8's baseline tiers (Liftoff for WebAssembly, Ignition/Sparkplug for JavaScript), later ones on
// optimised code (why engine/api.mjs warms a stack's engine up while the page is idle).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const site = await serve({ dir: path.resolve(process.argv[2] ?? path.join(root, 'dist')), port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
const load = [os.loadavg()[0]];
const runs = [];
for (let run = 0; run < 3; run++) {
  const page = await browser.newPage();
  await page.goto(`${site.url}embed.html`);
  runs.push(await page.evaluate(async () => {
    const { loadAttention } = await import('/lib/attention.mjs');
    const engine = await loadAttention({ learning: true });
    const n = 12, d = 16, hidden = 64;
    const attention = (seed) => engine.initWeights({ dModel: d, heads: 2, dK: 8, dV: 8, seed });
    const matrix = (seed, rows, cols) => engine.initWeights({ dModel: rows, heads: 1, dK: cols, dV: cols, seed }).wq;
    const norm = { kind: 'layernorm', weight: new Float32Array(d).fill(1), bias: new Float32Array(d) };
    const layers = [0, 1].map((l) => ({
      arrangement: 'post', attention: { heads: 2, dK: 8, dV: 8, ...attention(3 + l) }, norm1: norm, norm2: norm,
      mlp: { kind: 'plain', activation: 'gelu', hidden, w1: matrix(10 + l, d, hidden), w2: matrix(20 + l, hidden, d) },
    }));
    const tokens = Float32Array.from({ length: n * d }, (_, i) => Math.sin(i));
    const options = { ids: Array.from({ length: n }, (_, i) => i), vocab: n, dModel: d, tokens, positions: 'none', layers, unembedding: 'none' };
    const times = [];
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      engine.transformer(options);
      times.push(performance.now() - started);
      if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return times;
  }));
  await page.close();
}
load.push(os.loadavg()[0]);
await browser.close();
await site.close();
const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1];
const stretch = (from, to) => median(runs.flatMap((times) => times.slice(from - 1, to))).toFixed(2);
console.log(`transformer() of the two-layer edit's stack in Chromium ${browser.version()}, 3 fresh engines; load average ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)} on ${os.cpus().length} cores`);
console.log(`median ms per call: calls 1–20 ${stretch(1, 20)}, 21–60 ${stretch(21, 60)}, 61–140 ${stretch(61, 140)}, 201–300 ${stretch(201, 300)} (the clock's step is 0.1 ms)`);
