// The compare view (index.html?view=compare, issue 23): two labs side by side; the difference tables
// equal B − A of the two labs' own results, cell by cell, coloured by sign; the link carries both
// labs (a stack in B included); different token counts are said, not drawn; axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useChapterPage, compareReady as ready, renderEverySection, checkDifference } from './browser.mjs';
import { stateToFragment } from '../../web/src/state/link.mjs';
import { presetState } from '../../web/src/state/model.mjs';

const require = createRequire(import.meta.url);
let browser;
let tab;
useChapterPage({ before, after, assert, onReady: (t, b) => { tab = t; browser = b; } });

async function open(hash = '') {
  await tab.page.goto('about:blank');  // a new document each time, not a change of fragment
  await tab.page.goto(`${browser.url}?view=compare${hash}`);
  await tab.page.waitForFunction(ready);
  await tab.page.evaluate(() => globalThis.attentionCompare.update());
}

// the tables' cells as numbers and their sign classes, and both labs' weights and outputs
const read = () => tab.page.evaluate(() => {
  const { a, b } = globalThis.attentionCompare;
  const cells = (selector) => [...document.querySelectorAll(`${selector} tbody td`)].map((td) => ({
    value: Number(td.textContent), sign: td.classList.contains('diff-pos') ? 1 : td.classList.contains('diff-neg') ? -1 : 0,
  }));
  const lab = (l) => ({ weights: Array.from(l.result.heads[0].weights), output: Array.from(l.result.output), state: l.state });
  return { weights: cells('.compare-weights'), output: cells('.compare-output'), a: lab(a.lab), b: lab(b.lab) };
});

describe('the compare view', () => {
  it('money bank (A) against river bank (B): the differences are B − A, coloured by sign', async () => {
    await open();
    const shown = await read();
    assert.equal(shown.a.state.preset, 'money-bank');
    assert.equal(shown.b.state.preset, 'river-bank');
    // the page's contents bar is not repeated inside the two labs
    const bars = await tab.page.evaluate(() => [...document.querySelectorAll('attention-lab')].map((lab) => {
      const bar = lab.shadowRoot?.querySelector('nav.contents');
      return Boolean(bar && !bar.hidden && bar.getClientRects().length);
    }));
    assert.deepEqual(bars, [false, false], 'no contents bar inside a compared lab');
    checkDifference(shown.weights, shown.a.weights, shown.b.weights, 'weights');
    checkDifference(shown.output, shown.a.output, shown.b.output, 'output');
    assert.ok(shown.weights.some((c) => c.sign === 1) && shown.weights.some((c) => c.sign === -1), 'both signs occur');
    // the rows whose weights are the same in A and B are named, and only they (a reader expects every row to change)
    const tokens = await tab.page.evaluate(() => globalThis.attentionCompare.a.lab.view.tokens);
    const n = tokens.length;
    const same = tokens.filter((_, r) => shown.a.weights.slice(r * n, (r + 1) * n).every((w, j) => w === shown.b.weights[r * n + j]));
    const note = await tab.page.textContent('.compare p.hint, section p.hint');
    if (same.length) assert.match(note, new RegExp(`Rows? ${same.map((t) => `‘\\W?${t}\\W?’`).join(', ')} (is|are) 0 throughout`));
    else assert.doesNotMatch(note, /0 throughout/);
  });

  it('the link carries both labs, a two-layer B included, and the differences follow B', async () => {
    const a = presetState('cat-sat');
    const b = { ...presetState('cat-sat'), layers: 2, block: 'full', selectedLayer: 1 };
    await open(`${stateToFragment(a)}&${stateToFragment(b).slice(1)}`);
    let shown = await read();
    assert.equal(shown.b.state.layers, 2);
    assert.equal(shown.b.state.selectedLayer, 1);
    assert.equal(shown.a.state.layers, 1);
    checkDifference(shown.weights, shown.a.weights, shown.b.weights, 'weights, B at layer 2');
    // the address now holds both, and opening it again gives the same pair
    const hash = await tab.page.evaluate(() => location.hash);
    await open(hash);
    shown = await read();
    assert.equal(shown.b.state.layers, 2);
    assert.equal(shown.a.state.preset, 'cat-sat');
  });

  it('a different number of tokens is said, and no difference is drawn', async () => {
    const a = presetState('money-bank');
    const b = { ...presetState('money-bank'), preset: null, sentence: 'the river bank flows' };
    // typed over the open page: the fragment changes, both labs follow
    await tab.page.evaluate((hash) => { location.hash = hash; }, `${stateToFragment(a)}&${stateToFragment(b).slice(1)}`);
    await tab.page.waitForFunction(() => /A has 3 tokens and B has 4/.test(document.querySelector('.compare-difference')?.textContent ?? ''));
    assert.equal(await tab.page.locator('.compare-weights table').count(), 0);
  });

  it('its language menu reloads both labs and the differences in Hindi, the labs kept', async () => {
    await open();
    const before = await read();
    await Promise.all([tab.page.waitForURL(/[?&]lang=hi/), tab.page.selectOption('#compare-language', 'hi')]);
    await tab.page.waitForFunction(ready);
    await tab.page.evaluate(() => globalThis.attentionCompare.update());
    assert.match(await tab.page.textContent('#compare-title'), /[\u0900-\u097F]|B − A/);
    assert.equal(await tab.page.$eval('attention-lab', (lab) => lab.getAttribute('lang')), 'hi');
    assert.match(await tab.page.textContent('.compare-difference p.hint'), /[\u0900-\u097F]/);
    const after = await read();
    assert.equal(after.a.state.preset, before.a.state.preset);
    assert.equal(after.b.state.preset, before.b.state.preset);
    checkDifference(after.weights, after.a.weights, after.b.weights, 'weights in Hindi');
    // and back: English, without ?lang
    await Promise.all([tab.page.waitForURL((url) => !url.search.includes('lang=')), tab.page.selectOption('#compare-language', 'en')]);
    await tab.page.waitForFunction(ready);
  });

  it('axe-core finds no serious or critical violation', async () => {
    await open();
    await renderEverySection(tab.page);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document, { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    });
    assert.deepEqual(violations, []);
  });
});
