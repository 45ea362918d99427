// Where the page computes (compute.mjs): beside the worker, the page loads its own copy of the same
// engine build and answers small requests itself, sparing an edit the worker's round trip; large
// ones stay in the worker. Both must give the same numbers to the bit, read here from the lab as
// drawn, and the engine's line must say where the numbers came from.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { openBrowser } from './browser.mjs';

const words = 'the quick brown fox jumps over the lazy dog by the river bank'.split(' ');
const labLink = (tokens, dModel, heads = 8, dK = dModel / heads) => `index.html#lab=${encodeURIComponent(JSON.stringify({
  preset: null, sentence: Array.from({ length: tokens }, (_, i) => words[i % words.length]).join(' '),
  dModel, heads, dK, dV: dK, weightsMode: 'random', seed: 3, useWo: true,
}))}`;
const ON_THE_PAGE = /on the page: an example this small/;
const IN_THE_WORKER = /^Computed in [\d.]+ ms by the (SIMD \+ FMA|SIMD|scalar) WebAssembly engine\.$/;

let browser;
before(async () => {
  browser = await openBrowser();
});
after(async () => browser?.close());

// The lab's last result with every float32 as its bits, so that equal means equal to the bit
// (−0, ∞ and NaN included).
const resultBits = (page) => page.evaluate(() => {
  const bits = (value) => {
    if (value instanceof Float32Array) return Array.from(new Uint32Array(value.buffer, value.byteOffset, value.length));
    if (Array.isArray(value)) return value.map(bits);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, bits(v)]));
    return value;
  };
  return bits(globalThis.attentionLab.result);
});

const engineLine = (page) => page.textContent('#engine-status');

// The same state again, until the page's own engine has loaded and answers it (it loads after the worker).
async function recomputeUntilOnThePage(page) {
  for (let attempt = 0; attempt < 100; attempt++) {
    await page.evaluate(() => {
      document.getElementById('engine-status').textContent = '';
      globalThis.attentionLab.setState(globalThis.attentionLab.state);
    });
    await page.waitForFunction(() => document.getElementById('engine-status').textContent !== '');
    if (ON_THE_PAGE.test(await engineLine(page))) return;
    await page.waitForTimeout(100);
  }
  assert.fail(`the page never computed on its own; the engine line says: ${await engineLine(page)}`);
}

describe('small requests on the page, large ones in the worker', () => {
  it('12 tokens × d_model 64 × 8 heads: the worker answers first, then the page, with the same bits', async () => {
    const { page, problems } = await browser.newPage();
    await page.goto(`${browser.url}${labLink(12, 64)}`);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await page.waitForFunction(() => document.getElementById('engine-status').textContent !== '');
    // asked before the page's copy of the engine is there: the worker computed it
    assert.match(await engineLine(page), IN_THE_WORKER);
    const fromWorker = await resultBits(page);
    await recomputeUntilOnThePage(page);
    const fromPage = await resultBits(page);
    assert.equal(fromPage.heads.length, 8);
    assert.equal(fromPage.output.length, 12 * 64);
    assert.deepEqual(fromPage, fromWorker);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('64 tokens × d_model 128 × 16 heads of d_k 32 (21 M multiply-adds) stays in the worker once the page has its engine', async () => {
    const { page, problems } = await browser.newPage();
    await page.goto(`${browser.url}${labLink(12, 64)}`);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await recomputeUntilOnThePage(page);
    const draws = await page.evaluate(() => globalThis.attentionLab.draws);
    await page.evaluate((link) => { location.hash = link.slice(link.indexOf('#')); }, labLink(64, 128, 16, 32));
    await page.waitForFunction((n) => globalThis.attentionLab.draws > n && globalThis.attentionLab.view.tokens.length === 64, draws);
    await page.waitForFunction((pattern) => new RegExp(pattern).test(document.getElementById('engine-status').textContent), IN_THE_WORKER.source);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
