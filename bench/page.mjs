// npm run bench:page [-- --against=DIR] [--rounds=N]: the page's figures for dist/ and, interleaved
// with it round by round, for another build's dist folder (main's, say: `git worktree add` it and
// `npm run build` there), so that both are measured in the same minutes of a shared machine.
// Per build and round: a cold navigation to the opening example (first table: when the tables in view
// are drawn), then edits of one cell of X at 12 tokens × d_model 64 × 8 heads and at 64 × 128 × 8,
// each timed from the input event to the end of the first frame that begins after the tables in view
// are redrawn (as bench/run.mjs --page-only). Prints medians and quartiles, and the load average.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { serve } from '../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const builds = [['this build', path.join(root, 'dist')], ...(option('against') ? [[`against ${option('against')}`, path.resolve(option('against'))]] : [])];
const rounds = Number(option('rounds', 6));
const EDITS = 10;  // per page, after 2 that warm it up
const words = 'the quick brown fox jumps over the lazy dog by the river bank'.split(' ');

const servers = await Promise.all(builds.map(([, dir]) => serve({ dir, port: 0 })));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

async function firstTable(url) {
  const page = await browser.newPage();
  await page.goto(`${url}index.html`);
  await page.waitForFunction(() => performance.getEntriesByName('attention-lab:visible').length > 0);
  const ms = await page.evaluate(() => {
    const drawn = performance.getEntriesByName('attention-lab:visible')[0];
    return drawn.startTime + drawn.duration;
  });
  await page.close();
  return ms;
}

async function edits(url, tokens, dModel) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const sentence = Array.from({ length: tokens }, (_, i) => words[i % words.length]).join(' ');
  const state = { preset: null, sentence, dModel, heads: 8, dK: dModel / 8, dV: dModel / 8, weightsMode: 'random', seed: 3, useWo: true };
  await page.goto(`${url}index.html#lab=${encodeURIComponent(JSON.stringify(state))}`);
  await page.waitForFunction(() => globalThis.attentionLab?.view?.heads === 8);
  await page.waitForTimeout(300);
  const times = await page.evaluate(async (count) => {
    const out = [];
    for (let i = 0; i < count + 2; i++) {
      const input = document.querySelector('#x-table td[data-row="3"][data-col="5"] input');
      const before = performance.getEntriesByName('attention-lab:visible').length;
      const drawsBefore = globalThis.attentionLab.draws;
      const start = performance.now();
      input.value = String(0.1 + i / 100);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((resolve) => {
        const frame = () => {
          if (performance.getEntriesByName('attention-lab:visible').length === before) requestAnimationFrame(frame);
          else setTimeout(resolve, 0);
        };
        requestAnimationFrame(frame);
      });
      out.push(performance.now() - start);
      while (globalThis.attentionLab.draws === drawsBefore) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 30));
    }
    return out.slice(2);
  }, EDITS);
  await page.close();
  return times;
}

const figures = builds.map(() => ({ firstTable: [], small: [], large: [] }));
const loads = [];
for (let round = 0; round < rounds; round++) {
  loads.push(os.loadavg()[0]);
  for (let j = 0; j < builds.length; j++) {
    const k = (j + round) % builds.length;  // the order rotates
    const { url } = servers[k];
    figures[k].firstTable.push(await firstTable(url));
    figures[k].small.push(...await edits(url, 12, 64));
    figures[k].large.push(...await edits(url, 64, 128));
  }
  console.error(`round ${round + 1} of ${rounds}`);
}
await browser.close();
await Promise.all(servers.map((s) => s.close()));

const quantile = (values, q) => values.slice().sort((a, b) => a - b)[Math.floor(q * (values.length - 1))];
const line = (values) => `${quantile(values, 0.5).toFixed(1)} ms (quartiles ${quantile(values, 0.25).toFixed(1)}–${quantile(values, 0.75).toFixed(1)}, n ${values.length})`;
console.log(`Page, Chromium ${browser.version()}, ${rounds} interleaved rounds; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${os.cpus().length} cores`);
builds.forEach(([name], k) => {
  const f = figures[k];
  console.log(`${name}: first table ${line(f.firstTable)}; an edit at 12 × 64 × 8 ${line(f.small)}; at 64 × 128 × 8 ${line(f.large)}`);
});
