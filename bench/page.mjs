// npm run bench:page [-- --against=DIR] [--rounds=N] [--stack-only]: the page's figures for dist/ and, interleaved
// with it round by round, for another build's dist folder (main's, say: `git worktree add` it and
// `npm run build` there), so that both are measured in the same minutes of a shared machine.
// Per build and round: a cold navigation to the opening example (first table: when the tables in view
// are drawn), then edits of one cell of X at 12 tokens × d_model 64 × 8 heads and at 64 × 128 × 8,
// each timed from the input event to the end of the first frame that begins after the tables in view
// are redrawn (as bench/run.mjs --page-only); and an edit of X in layer 1 of a two-layer full block
// (post-LN, so that X is layer 1's typed input) at 12 tokens × d_model 16 × 2 heads, computed through
// the stack on the learning engine (issue 23). Prints medians and quartiles, and the load average.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { serve } from '../scripts/serve.mjs';
import { firstTableMs, editTimes } from './page-timing.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const builds = [['this build', path.join(root, 'dist')], ...(option('against') ? [[`against ${option('against')}`, path.resolve(option('against'))]] : [])];
const rounds = Number(option('rounds', 6));
const EDITS = 10;  // per page, after 2 that warm it up
// --stack-only: the two-layer edit alone (the other figures take most of a round)
const stackOnly = process.argv.includes('--stack-only');

const servers = await Promise.all(builds.map(([, dir]) => serve({ dir, port: 0 })));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

const figures = builds.map(() => ({ firstTable: [], small: [], large: [], stack: [] }));
const STACK = { layers: 2, block: 'full', norm: 'post' };
const loads = [];
for (let round = 0; round < rounds; round++) {
  loads.push(os.loadavg()[0]);
  for (let j = 0; j < builds.length; j++) {
    const k = (j + round) % builds.length;  // the order rotates
    const { url } = servers[k];
    if (!stackOnly) {
      figures[k].firstTable.push(await firstTableMs(browser, url));
      figures[k].small.push(...await editTimes(browser, url, { tokens: 12, dModel: 64, edits: EDITS, warmup: 2 }));
      figures[k].large.push(...await editTimes(browser, url, { tokens: 64, dModel: 128, edits: EDITS, warmup: 2 }));
    }
    figures[k].stack.push(...await editTimes(browser, url, { tokens: 12, dModel: 16, heads: 2, stack: STACK, edits: EDITS, warmup: 2 }));
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
  if (!stackOnly) console.log(`${name}: first table ${line(f.firstTable)}; an edit at 12 × 64 × 8 ${line(f.small)}; at 64 × 128 × 8 ${line(f.large)}`);
  console.log(`${name}: an edit in layer 1 of a two-layer full block at 12 × 16 × 2 ${line(f.stack)}`);
});
