// npm run bench:train-layers [-- --rounds=N] (also the last part of npm run bench:train): the Train
// section's stack tasks in headless Chromium, with their default settings (slow start on, the task's
// steps per second), the engine in the worker: the time from the Train click to the first frame whose
// held-out accuracy is ≥ 95 %, and the step it came at, for "'tired' or 'wide'? With layers" (two layers)
// and "Induction heads". A fresh page load per task and round. Prints medians and ranges and the load average.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { serve } from '../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option('rounds', 5));
const TASKS = ['tired-or-wide-layers', 'induction'];

// one page load: the task chosen, Train pressed, the time (ms, the page's clock) and step at 95 %
async function timeTo95(browser, url, task) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
  await page.locator('section[data-view="train"]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 60_000 });
  await page.selectOption('#train-task', task);
  await page.waitForFunction((id) => globalThis.attentionLab.training.run?.snapshot.steps === 0 &&
    document.querySelector('#train-task').value === id, task);
  await page.evaluate(() => { globalThis.trainClicked = performance.now(); });
  await page.click('#train-run');
  const result = await page.waitForFunction(() => {
    const run = globalThis.attentionLab.training.run;
    return run.snapshot.heldOut.accuracy >= 0.95 && { ms: performance.now() - globalThis.trainClicked, step: run.snapshot.steps };
  }, null, { timeout: 120_000, polling: 'raf' }).then((handle) => handle.jsonValue());
  await page.close();
  return result;
}

const server = await serve({ dir: path.join(root, 'dist'), port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const figures = Object.fromEntries(TASKS.map((task) => [task, []]));
const loads = [];
for (let round = 0; round < rounds; round++) {
  loads.push(os.loadavg()[0]);
  for (const task of TASKS) figures[task].push(await timeTo95(browser, server.url, task));
  console.error(`round ${round + 1} of ${rounds}`);
}
await browser.close();
await server.close();

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
console.log(`Train section with layers, Chromium ${browser.version()}, ${rounds} page loads per task; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${os.cpus().length} cores`);
for (const task of TASKS) {
  const ms = figures[task].map((f) => f.ms);
  const steps = figures[task].map((f) => f.step);
  console.log(`${task}: 95 % held out ${(median(ms) / 1000).toFixed(2)} s after Train (median; ${(Math.min(...ms) / 1000).toFixed(2)}–${(Math.max(...ms) / 1000).toFixed(2)} s), at step ${median(steps)} (${Math.min(...steps)}–${Math.max(...steps)})`);
}
