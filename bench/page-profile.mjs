// npm run bench:profile: where an edit's time goes on the page. The page is built again without
// minifying (names kept) into a temporary copy of dist/, opened at 64 tokens × d_model 128 × 8 heads,
// and 12 edits of one cell of X are made (2 to warm up) while Chromium's sampling profiler runs
// (0.1 ms). Prints the self time per function (the 15 largest, in ms per edit), Chromium's own
// script, style and layout times per edit (Performance.getMetrics), and writes a trace of one edit
// for DevTools' Performance panel to build/page-edit-trace.json. With --stack, the edit of issue 23
// instead: X in layer 1 of a two-layer full block (post-LN) at 12 tokens × d_model 16 × 2 heads.
import { rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';
import { unminifiedSite } from './unminified-site.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EDITS = 10;
const WARMUP = 2;

// One edit of X's cell (3, 5), resolved when the tables in view are redrawn and the rest are drawn.
async function edit(page, value) {
  await page.evaluate(async (v) => {
    const drawsBefore = globalThis.attentionLab.draws;
    const input = document.querySelector('#x-table td[data-row="3"][data-col="5"] input');
    input.value = String(v);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    while (globalThis.attentionLab.draws === drawsBefore) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 30));
  }, value);
}

// Self time per function (ms), from a CPU profile's samples.
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map();
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const name = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''}`.trim();
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

const metricsOf = async (cdp) => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));

const STACK = process.argv.includes('--stack');
const SIZES = STACK
  ? { tokens: 12, dModel: 16, heads: 2, extra: { layers: 2, block: 'full', norm: 'post' }, name: 'An edit in layer 1 of a two-layer full block at 12 tokens × d_model 16 × 2 heads' }
  : { tokens: 64, dModel: 128, heads: 8, extra: {}, name: 'An edit at 64 tokens × d_model 128 × 8 heads' };

async function profileEdits(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const words = 'the quick brown fox jumps over the lazy dog by the river bank'.split(' ');
  const { tokens, dModel, heads, extra } = SIZES;
  const state = { preset: null, sentence: Array.from({ length: tokens }, (_, i) => words[i % words.length]).join(' '), dModel, heads, dK: dModel / heads, dV: dModel / heads, weightsMode: 'random', seed: 3, useWo: true, ...extra };
  await page.goto(`${url}index.html#lab=${encodeURIComponent(JSON.stringify(state))}`);
  await page.waitForFunction((h) => globalThis.attentionLab?.view?.heads === h, heads);
  await page.waitForTimeout(500);
  for (let i = 0; i < WARMUP; i++) await edit(page, 0.5 + i / 100);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  const before = await metricsOf(cdp);
  await cdp.send('Profiler.start');
  for (let i = 0; i < EDITS; i++) await edit(page, 0.1 + i / 100);
  const { profile } = await cdp.send('Profiler.stop');
  const after = await metricsOf(cdp);
  mkdirSync(path.join(root, 'build'), { recursive: true });
  await browser.startTracing(page, { path: path.join(root, 'build/page-edit-trace.json'), screenshots: false });
  await edit(page, 0.9);
  await browser.stopTracing();
  await page.close();
  const per = (name) => ((after[name] - before[name]) * 1000) / EDITS;
  return { selfTimes: selfTimes(profile), script: per('ScriptDuration'), style: per('RecalcStyleDuration'), layout: per('LayoutDuration'), task: per('TaskDuration') };
}

const dir = unminifiedSite('attention-lab-profile-');
const site = await serve({ dir, port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const result = await profileEdits(browser, site.url);
await browser.close();
await site.close();
rmSync(dir, { recursive: true, force: true });
console.log(`${SIZES.name}, ${EDITS} edits; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
console.log(`per edit: main-thread tasks ${result.task.toFixed(1)} ms, of which script ${result.script.toFixed(1)} ms, style ${result.style.toFixed(1)} ms, layout ${result.layout.toFixed(1)} ms`);
console.log('self time per edit, the 15 largest:');
for (const [name, ms] of result.selfTimes.slice(0, 15)) console.log(`  ${(ms / EDITS).toFixed(2).padStart(7)} ms  ${name}`);
console.log('trace of one edit: build/page-edit-trace.json (DevTools, Performance panel, Load profile)');
