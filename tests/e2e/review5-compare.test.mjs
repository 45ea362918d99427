// The lecturer's review 5, findings 8 and 9 on the compare view (index.html?view=compare): "Copy link"
// and "Embed" for both labs, saying the link carries both, each opening the same pair again; and each
// difference table naming the layer of A and of B it shows, its numbers B − A of those layers.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useChapterPage, compareReady as ready } from './browser.mjs';
import { stateToFragment } from '../../web/src/state/link.mjs';
import { presetState } from '../../web/src/state/model.mjs';

let browser;
let tab;
useChapterPage({ before, after, assert, onReady: (t, b) => { tab = t; browser = b; } });

async function open(address) {
  await tab.page.goto('about:blank');  // a new document each time, not a change of fragment
  await tab.page.goto(address);
  await tab.page.waitForFunction(ready);
  await tab.page.evaluate(() => globalThis.attentionCompare.update());
}
// two full pre-LN layers of the notes' money bank (A) and river bank (B), each showing layer `shown` (0-based)
const twoLayers = (id, shown) => ({ ...presetState(id), layers: 2, block: 'full', norm: 'pre', selectedLayer: shown });
const pairHash = (a, b) => `${stateToFragment(a)}&${stateToFragment(b).slice(1)}`;

const labs = () => tab.page.evaluate(() => {
  const { a, b } = globalThis.attentionCompare;
  const one = (l) => ({ preset: l.state.preset, layers: l.state.layers, block: l.state.block, selectedLayer: l.state.selectedLayer,
    weights: Array.from(l.view.result.layers[l.view.layer].heads[0].weights), output: Array.from(l.view.result.layers[l.view.layer].attention) });
  return { a: one(a.lab), b: one(b.lab) };
});
const tableOf = (selector) => tab.page.evaluate((selector) => ({
  caption: document.querySelector(`${selector} caption`).textContent,
  values: [...document.querySelectorAll(`${selector} tbody td`)].map((td) => Number(td.textContent)),
}), selector);
function checkDifference(values, a, b, what) {
  assert.equal(values.length, a.length, what);
  values.forEach((v, i) => assert.ok(Math.abs(v - (b[i] - a[i])) <= Math.max(5e-4 * Math.abs(b[i] - a[i]), 1e-6), `${what}[${i}]: ${v} vs ${b[i] - a[i]}`));
}

describe('review 5: the compare view names its layers (finding 9)', () => {
  it('A on layer 1 and B on layer 2: each caption names them, and the tables are B − A of those layers', async () => {
    await open(`${browser.url}?view=compare${pairHash(twoLayers('money-bank', 0), twoLayers('river-bank', 1))}`);
    const weights = await tableOf('.compare-weights');
    const output = await tableOf('.compare-output');
    assert.match(weights.caption, /^Attention weights, B \(layer 2, head 1\) − A \(layer 1, head 1\)$/);
    assert.match(output.caption, /^Output of the attention, B \(layer 2\) − A \(layer 1\)$/);
    const shown = await labs();
    checkDifference(weights.values, shown.a.weights, shown.b.weights, 'weights, layer 2 of B − layer 1 of A');
    checkDifference(output.values, shown.a.output, shown.b.output, 'attention output, layer 2 of B − layer 1 of A');
    assert.match(await tab.page.textContent('.compare-difference > p.hint'), /choose it for both below, or with “Show layer” in that lab’s settings/);
  });

  it('"Show layer in both labs" sets both labs\' layer; it says when they differ, and is hidden with one layer', async () => {
    await open(`${browser.url}?view=compare${pairHash(twoLayers('money-bank', 0), twoLayers('river-bank', 1))}`);
    assert.equal(await tab.page.inputValue('#compare-layer'), '');
    assert.match(await tab.page.textContent('#compare-layer option:checked'), /^A and B show different layers$/);
    await tab.page.selectOption('#compare-layer', '1');
    await tab.page.waitForFunction(() => {
      const { a, b } = globalThis.attentionCompare;
      return a.lab.view.layer === 1 && b.lab.view.layer === 1 && a.lab.idle && b.lab.idle &&
        /B \(layer 2, head 1\) − A \(layer 2, head 1\)/.test(document.querySelector('.compare-weights caption').textContent);
    });
    const shown = await labs();
    assert.equal(shown.a.selectedLayer, 1);
    assert.equal(shown.b.selectedLayer, 1);
    checkDifference((await tableOf('.compare-weights')).values, shown.a.weights, shown.b.weights, 'weights, layer 2 of both');
    assert.equal(await tab.page.inputValue('#compare-layer'), '1');
    await open(`${browser.url}?view=compare`);
    assert.ok(await tab.page.isHidden('#compare-layer'), 'no picker for one layer');
  });

  it('one layer on each side: the captions as before, no layer named', async () => {
    await open(`${browser.url}?view=compare`);
    assert.match((await tableOf('.compare-weights')).caption, /^Attention weights, B \(head 1\) − A \(head 1\)$/);
    assert.doesNotMatch(await tab.page.textContent('.compare-difference'), /layer 1/i);
  });

  it('in Hindi the captions name the layers too', async () => {
    await open(`${browser.url}?view=compare&lang=hi${pairHash(twoLayers('money-bank', 1), twoLayers('river-bank', 1))}`);
    assert.match((await tableOf('.compare-weights')).caption, /B \(layer 2, head 1\) − A \(layer 2, head 1\)/);
    assert.match((await tableOf('.compare-output')).caption, /^Attention का परिणाम, B \(layer 2\) − A \(layer 2\)$/);
  });
});

describe('review 5: Copy link and Embed for both labs (finding 8)', () => {
  it('"Copy link" copies the page with both labs; opened, it shows the same pair, layers and all', async () => {
    await open(`${browser.url}?view=compare${pairHash(twoLayers('money-bank', 1), twoLayers('river-bank', 0))}`);
    assert.match(await tab.page.textContent('#compare-link-note'), /carries both labs, A and B/);
    await tab.page.evaluate(() => {
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text) => { globalThis.copied = text; } } });
    });
    const before = await labs();
    await tab.page.click('#compare-copy-link');
    await tab.page.waitForFunction(() => typeof globalThis.copied === 'string');
    const link = await tab.page.evaluate(() => globalThis.copied);
    assert.match(await tab.page.textContent('#compare-share-status'), /The link copied/);
    assert.match(link, /\?view=compare#lab=.*&lab=/);
    await open(link);
    const after = await labs();
    for (const side of ['a', 'b']) {
      for (const key of ['preset', 'layers', 'block', 'selectedLayer']) assert.equal(after[side][key], before[side][key], `${side}.${key}`);
      assert.deepEqual(after[side].weights, before[side].weights, `${side}: the same weights`);
    }
  });

  it('no clipboard: the link is shown to copy by hand', async () => {
    await open(`${browser.url}?view=compare`);
    await tab.page.evaluate(() => {
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async () => { throw new Error('denied'); } } });
    });
    await tab.page.click('#compare-copy-link');
    await tab.page.waitForFunction(() => !document.getElementById('compare-share-text').hidden);
    assert.match(await tab.page.inputValue('#compare-share-text'), /\?view=compare#lab=.*&lab=/);
    assert.match(await tab.page.textContent('#compare-share-status'), /select it and copy/);
  });

  it('"Embed" gives an iframe of embed.html?view=compare with both labs; that embed shows the same pair', async () => {
    await open(`${browser.url}?view=compare&lang=hi${pairHash(twoLayers('money-bank', 1), presetState('river-bank'))}`);
    assert.equal(await tab.page.textContent('#compare-copy-link'), 'लिंक कॉपी करें');
    await tab.page.click('#compare-embed');
    assert.equal(await tab.page.getAttribute('#compare-embed', 'aria-expanded'), 'true');
    const snippet = await tab.page.inputValue('#compare-share-text');
    const src = /<iframe src="([^"]+)"/.exec(snippet)?.[1];
    assert.match(src ?? '', /embed\.html\?view=compare&lang=hi#lab=.*&lab=/);
    await open(src);
    const states = await tab.page.evaluate(() => [globalThis.attentionCompare.a.lab.state, globalThis.attentionCompare.b.lab.state]
      .map((s) => ({ preset: s.preset, layers: s.layers, selectedLayer: s.selectedLayer })));
    assert.deepEqual(states, [{ preset: 'money-bank', layers: 2, selectedLayer: 1 }, { preset: 'river-bank', layers: 1, selectedLayer: 0 }]);
    assert.equal(await tab.page.$('#compare-embed'), null, 'the embed carries no share bar');
  });
});
