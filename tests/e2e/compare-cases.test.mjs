// The compare view's cases of issue 23 beyond two sentences (tests/e2e/compare.test.mjs) and before
// and after training (training-compare.test.mjs): two heads and two layers of one state. Lab A shows
// head 1 (layer 1), lab B head 2 (layer 2) of the same state; the difference tables must equal the
// difference of the two heads' (layers') numbers read from ONE lab's result, lab A's.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useChapterPage } from './browser.mjs';
import { stateToFragment } from '../../web/src/state/link.mjs';
import { presetState } from '../../web/src/state/model.mjs';

let browser;
let tab;
useChapterPage({ before, after, assert, onReady: (t, b) => { tab = t; browser = b; } });

async function open(a, b) {
  await tab.page.goto('about:blank');
  await tab.page.goto(`${browser.url}?view=compare${stateToFragment(a)}&${stateToFragment(b).slice(1)}`);
  await tab.page.waitForFunction(() => {
    const c = globalThis.attentionCompare;
    return c?.a.lab?.view && c.b.lab?.view && c.a.lab.idle && c.b.lab.idle && document.querySelector('.compare-weights table');
  });
  await tab.page.evaluate(() => globalThis.attentionCompare.update());
  return tab.page.evaluate(() => {
    const cells = (selector) => [...document.querySelectorAll(`${selector} tbody td`)].map((td) => Number(td.textContent));
    const { a: labA, b: labB } = globalThis.attentionCompare;
    const result = labA.lab.result;
    return {
      weights: cells('.compare-weights'), output: cells('.compare-output'), caption: document.querySelector('.compare-weights caption').textContent,
      heads: result.heads.map((h) => Array.from(h.weights)),
      layers: result.layers?.map((layer) => ({ heads: layer.heads.map((h) => Array.from(h.weights)), attention: Array.from(layer.attention) })) ?? null,
      states: [labA.lab.state, labB.lab.state],
    };
  });
}

// every cell of `cells` is minuend − subtrahend (both read from lab A), to the table's 4 digits
function equalsDifference(cells, minuend, subtrahend, what) {
  assert.equal(cells.length, minuend.length, `${what}: one cell per value`);
  cells.forEach((value, i) => {
    const expected = minuend[i] - subtrahend[i];
    assert.ok(Math.abs(value - expected) <= Math.max(5e-4 * Math.abs(expected), 1e-6), `${what}[${i}]: ${value} vs ${expected}`);
  });
  assert.ok(cells.some((v) => v !== 0), `${what}: not all 0`);
}

describe('the compare view: two heads, two layers', () => {
  it("two heads of one state (telescope): the table is head 2 − head 1 of lab A's own result", async () => {
    const state = { ...presetState('telescope'), selectedHead: 0 };
    const shown = await open(state, { ...state, selectedHead: 1 });
    assert.equal(shown.heads.length, 2);
    assert.match(shown.caption, /B \(head 2\) − A \(head 1\)/);
    equalsDifference(shown.weights, shown.heads[1], shown.heads[0], 'head 2 − head 1');
    // the same layer's output in both: 0 throughout
    assert.ok(shown.output.every((v) => v === 0), 'the output is one and the same');
  });

  it("two layers of one stack (cat sat, 2 full blocks): the tables are layer 2 − layer 1 of lab A's own result", async () => {
    const state = { ...presetState('cat-sat'), layers: 2, block: 'full', selectedLayer: 0 };
    const shown = await open(state, { ...state, selectedLayer: 1 });
    assert.deepEqual(shown.states.map((s) => s.selectedLayer), [0, 1]);
    assert.equal(shown.layers.length, 2);
    equalsDifference(shown.weights, shown.layers[1].heads[0], shown.layers[0].heads[0], 'layer 2 − layer 1 weights');
    equalsDifference(shown.output, shown.layers[1].attention, shown.layers[0].attention, 'layer 2 − layer 1 attention output');
  });

  it('at 375 px, in Hindi, the tables scroll sideways and their captions stay whole on the screen', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    const state = { ...presetState('cat-sat'), layers: 2, block: 'full', selectedLayer: 0 };
    await tab.page.goto('about:blank');
    await tab.page.goto(`${browser.url}?view=compare&lang=hi${stateToFragment(state)}&${stateToFragment({ ...state, selectedLayer: 1 }).slice(1)}`);
    await tab.page.waitForFunction(() => document.querySelectorAll('.compare-difference caption').length === 3);
    const seen = await tab.page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      captions: [...document.querySelectorAll('.compare-difference caption')].map((c) => ({ text: c.textContent, right: c.getBoundingClientRect().right })),
    }));
    assert.equal(seen.page, 375, 'nothing wider than the screen but the scrolling tables');
    for (const { text, right } of seen.captions) assert.ok(right <= 375, `caption "${text}" ends at ${right} px`);
    assert.match(seen.captions[0].text, /[\u0900-\u097F]/);
  });
});
