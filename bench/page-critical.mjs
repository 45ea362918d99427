// node bench/page-critical.mjs (after `bash scripts/build.sh`): where the time of an edit goes before
// its frame, for the edit of issue 23 (X in layer 1 of a two-layer full block, post-LN, 12 tokens ×
// d_model 16 × 2 heads). The page's bundles are built again unminified (names kept) into a copy of
// dist/; 16 edits (2 before them to warm up) are each profiled by Chromium's sampling profiler (50 µs)
// from the input event to the first animation frame after the tables in view are drawn. Prints the
// call tree below the input handler, the draw (onView) and the stack's computation (runStack), in ms
// per edit. The profiler's own cost inflates every figure; compare them with one another.
// --before=DIR: a checkout of an earlier commit with its own dist/ (and node_modules): its page is
// profiled too, edit by edit in turn with this one, and both trees are printed.
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';
import { unminifiedSite } from './unminified-site.mjs';

const EDITS = 16;
const WARMUP = 2;
const ROOTS = process.env.ROOTS ? process.env.ROOTS.split(',') : ['onInput', 'onView', 'runStack'];

// One edit of X's cell (3, 5), resolved at the first frame after the tables in view are drawn.
const edit = (page, value) => page.evaluate(async (v) => {
  const input = document.querySelector('#x-table td[data-row="3"][data-col="5"] input');
  const before = performance.getEntriesByName('attention-lab:visible').length;
  input.value = String(v);
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await new Promise((resolve) => {
    const frame = () => {
      if (performance.getEntriesByName('attention-lab:visible').length === before) requestAnimationFrame(frame);
      else setTimeout(resolve, 0);
    };
    requestAnimationFrame(frame);
  });
}, value);

// Adds a profile's samples to `tree`: ms per call path (names joined by ' > ') from a root, 7 deep.
function addTree(profile, tree) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  profile.samples.forEach((id, k) => {
    const names = [];
    for (let x = id; x !== undefined; x = parent.get(x)) names.push(byId.get(x).callFrame.functionName || '(anonymous)');
    names.reverse();
    const start = names.findIndex((name) => ROOTS.includes(name));
    if (start < 0) return;
    for (let depth = start; depth < Math.min(names.length, start + 7); depth++) {
      const key = names.slice(start, depth + 1).join(' > ');
      tree.set(key, (tree.get(key) ?? 0) + (profile.timeDeltas[k] ?? 0) / 1000);
    }
  });
}

const before = process.argv.find((a) => a.startsWith('--before='))?.slice('--before='.length);
const sites = [['this build', undefined], ...(before ? [[`before (${before})`, path.resolve(before)]] : [])];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const words = 'the quick brown fox jumps over the lazy dog by the river bank'.split(' ');
const state = { preset: null, sentence: words.slice(0, 12).join(' '), dModel: 16, heads: 2, dK: 8, dV: 8, weightsMode: 'random', seed: 3, useWo: true, layers: 2, block: 'full', norm: 'post' };
const opened = [];
for (const [name, source] of sites) {
  const dir = unminifiedSite('attention-lab-critical-', source);
  const site = await serve({ dir, port: 0 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${site.url}index.html#lab=${encodeURIComponent(JSON.stringify(state))}`);
  await page.waitForFunction(() => globalThis.attentionLab?.view?.heads === 2);
  await page.waitForTimeout(500);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
  opened.push({ name, dir, site, page, cdp, tree: new Map() });
}
const loads = [os.loadavg()[0]];
// the pages in turn, edit by edit, so that both see the same minutes of a shared machine
for (let i = 0; i < WARMUP + EDITS; i++) {
  for (const { page, cdp, tree } of i % 2 ? [...opened].reverse() : opened) {
    if (i >= WARMUP) await cdp.send('Profiler.start');
    await edit(page, 0.1 + i / 100);
    if (i >= WARMUP) addTree((await cdp.send('Profiler.stop')).profile, tree);
    await page.waitForTimeout(400);  // the sections out of view are drawn after the frame
  }
}
loads.push(os.loadavg()[0]);
await browser.close();
for (const { dir, site } of opened) {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`An edit in layer 1 of a two-layer full block (12 × 16 × 2), to its frame: ${EDITS} edits per page; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${os.cpus().length} cores`);
for (const { name, tree } of opened) {
  console.log(`-- ${name}`);
  for (const [key, ms] of [...tree].filter(([, ms]) => ms / EDITS >= 0.15).sort((a, b) => a[0].localeCompare(b[0]))) {
    console.log(`${(ms / EDITS).toFixed(2).padStart(7)} ms  ${key}`);
  }
}
