// The lecturer's review 6 (2026-11-27), its findings on layers (briefs: review6/findings.md, owner
// layers-review): the explain panel readable at 375 px with the walk open (finding 2); the Hindi walk
// caption's layer (4); a stack's explain title names the layer (5); the Layers section's way to its
// controls (7); layer 2's X says where to type it (10); the walk's and the panel's words with one head,
// no scaling and pre-LN (11); the layer-2 step table within its box at 1280 px (12).
// Expected words come from the catalogues (web/src/i18n), the layer and head numbers from the address
// typed here; the numbers from the float64 stack of stack64.mjs.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { stack64 } from './stack64.mjs';
import { message } from '../../web/src/i18n/index.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const page = () => tab.page;

// index.html with `query` (money bank, 2 full pre-LN layers, as the reviewer opened it), drawn
async function open(query, { width = 1280, dark = false } = {}) {
  await page().setViewportSize({ width, height: 800 });
  await page().emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
  await page().goto(new URL(`?${query}`, page().url()).href);
  await page().waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
}
const MONEY_BANK = 'layers=2&block=full&preset=money-bank';

const cell = (matrix, row, col, where = '') => `${where} td[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]`;
const panel = () => page().evaluate(() => ({
  title: document.getElementById('explain-cell').textContent,
  lines: [...document.querySelectorAll('#explain-lines li')].map((li) => li.textContent),
  value: document.getElementById('explain-value').textContent,
}));

async function walkStart() {
  await page().click('#walk-start');
  await page().waitForFunction(() => document.querySelector('.walk-position').textContent !== '');
}

describe('review 6: the explain panel at 375 px shows every step (finding 2)', () => {
  for (const lang of ['hi', 'en']) {
    it(`${lang}, dark, walk open: layer 2's X at (money, finance) shows its 5 steps above its value, below the walk`, async () => {
      await open(`${MONEY_BANK}&layer=2&lang=${lang}`, { width: 375, dark: true });
      await walkStart();
      await page().click(cell('x', 0, 0, '#x-table'));
      await page().waitForFunction(() => !document.getElementById('explain').hidden);
      const box = await page().evaluate(() => {
        const rect = (el) => el.getBoundingClientRect();
        const lines = document.getElementById('explain-lines');
        return {
          count: lines.children.length, scrollHeight: lines.scrollHeight, clientHeight: lines.clientHeight,
          items: [...lines.children].map((li) => rect(li).bottom), listBottom: rect(lines).bottom,
          value: rect(document.getElementById('explain-value')), panel: rect(document.getElementById('explain')),
          walk: rect(document.getElementById('walk')), height: innerHeight,
          title: rect(document.getElementById('explain-cell')), close: rect(document.getElementById('explain-close')),
        };
      });
      assert.ok(box.title.top >= box.close.bottom - 1, 'the title below Close, not under it');
      assert.equal(box.count, 5, 'the sum, its value, the norm\'s words and its arithmetic');
      assert.ok(box.scrollHeight <= box.clientHeight + 1, `every step shows: list ${box.clientHeight} px of ${box.scrollHeight}`);
      for (const bottom of box.items) assert.ok(bottom <= box.listBottom + 1 && bottom <= box.value.top + 1, 'each step above "= value"');
      assert.ok(box.value.bottom <= box.height, 'the value on screen');
      assert.ok(box.panel.top >= box.walk.bottom - 1, `the walk (to ${box.walk.bottom}) does not cover the panel (from ${box.panel.top})`);
    });
  }
});

describe('review 6: the Hindi walk caption (finding 4)', () => {
  it('layer 2 of 2 reads "2 में से layer 2" in Hindi and "Layer 2 of 2" in English', async () => {
    await open(`${MONEY_BANK}&layer=2&lang=hi`);
    await walkStart();
    const hi = await page().textContent('.walk-position');
    assert.match(hi, /^2 में से layer 2: (\d+) में से चरण 1$/);
    await open(`${MONEY_BANK}&layer=2`);
    await walkStart();
    assert.match(await page().textContent('.walk-position'), /^Layer 2 of 2: step 1 of \d+$/);
  });
});

describe('review 6: a stack\'s explanation names its layer (finding 5)', () => {
  it('the weight of (bank, money), head 1, in layer 2 and in layer 1; a lab of one layer says none', async () => {
    await open(`${MONEY_BANK}&layer=2`);
    const weight = cell('weights', 1, 0, '#head-panel');
    await page().click(weight);
    assert.equal((await panel()).title, "Layer 2, Weights, head 1: row 'bank', column 'money'");
    await page().click(cell('x', 0, 0, '#x-table'));
    assert.equal((await panel()).title, "Layer 2, X: row 'money', column 'finance'");
    await open(`${MONEY_BANK}&layer=2&lang=hi`);
    await page().click(weight);
    assert.equal((await panel()).title, "Layer 2, Weights, head 1: पंक्ति 'bank', स्तंभ 'money'");
    await open(`${MONEY_BANK}&layer=1`);
    await page().click(weight);
    assert.equal((await panel()).title, "Layer 1, Weights, head 1: row 'bank', column 'money'");
    await open('preset=money-bank');
    await page().click(weight);
    assert.equal((await panel()).title, "Weights, head 1: row 'bank', column 'money'");
  });
});

describe('review 6: the Layers section leads to its controls (finding 7)', () => {
  for (const lang of ['en', 'hi']) {
    it(`${lang}: its button unfolds the settings at Layers and blocks, the layer picker focused`, async () => {
      await open(`${MONEY_BANK}&lang=${lang}`);
      assert.equal(await page().evaluate(() => document.getElementById('settings').open), false, 'the settings start folded');
      const button = page().locator('section[data-view="blocks"] #blocks-open-settings');
      assert.equal(await button.textContent(), message('blocks.openSettings', {}, lang));
      await button.click();
      const after = await page().evaluate(() => {
        const group = document.querySelector('#settings .blocks-settings').getBoundingClientRect();
        return { open: document.getElementById('settings').open, focus: document.activeElement?.id, top: group.top, bottom: group.bottom, height: innerHeight };
      });
      assert.equal(after.open, true);
      assert.equal(after.focus, 'blocks-layer', 'with 2 layers: Show layer');
      assert.ok(after.top >= 0 && after.bottom <= after.height, `the controls on screen (${after.top}–${after.bottom})`);
    });
  }
});

describe('review 6: layer 2\'s X is not typed, and says so (finding 10)', () => {
  const hint = () => page().textContent('#inputs-hint');
  const showLayer = (selectedLayer) => lab.redrawn(() => page().evaluate((l) => globalThis.attentionLab.setState({ ...globalThis.attentionLab.state, selectedLayer: l }), selectedLayer));
  for (const lang of ['en', 'hi']) {
    it(`${lang}: the hint says where X is typed; a key typed in layer 2's X gives a message and changes nothing`, async () => {
      // pre-LN, as the reviewer had it: X is LN₁ of the stream in every layer
      await open(`${MONEY_BANK}&layer=2&lang=${lang}`);
      assert.equal(await hint(), message('section.inputsHintNorm', {}, lang));
      const before = await page().evaluate(() => Array.from(globalThis.attentionLab.view.x));
      // a click selects the cell (a double click's second click lands elsewhere: the first one
      // scrolls the cell up above the explanation panel)
      await page().click(cell('x', 0, 0, '#x-table'));
      await page().keyboard.type('5');
      await page().keyboard.press('Enter');
      assert.ok(await page().isVisible('#x-computed'));
      const seen = await page().evaluate(() => ({ said: document.getElementById('x-computed').getBoundingClientRect(), panel: document.getElementById('explain').getBoundingClientRect() }));
      assert.ok(seen.said.top >= 0 && seen.said.bottom <= seen.panel.top, 'the message on screen, above the explanation panel');
      assert.equal(await page().textContent('#x-computed'), message('section.xComputed', { layer: 2 }, lang));
      assert.deepEqual(await page().evaluate(() => Array.from(globalThis.attentionLab.view.x)), before, 'X unchanged');
      await showLayer(0);
      assert.equal(await hint(), message('section.inputsHintNorm', {}, lang), 'pre-LN layer 1 reads LN₁ too');
      // post-LN: layer 1's X is the sentence's vectors, typed; layer 2's comes from layer 1
      await open(`layers=2&block=full&norm=post&preset=money-bank&layer=2&lang=${lang}`);
      assert.equal(await hint(), message('section.inputsHintComputed', {}, lang));
      await showLayer(0);
      assert.equal(await hint(), message('section.inputsHint', {}, lang), 'layer 1: every cell can be edited');
      assert.ok(await page().isHidden('#x-computed'));
    });
  }
});

describe('review 6: the walk\'s and the panel\'s words, one head, no scaling, pre-LN (finding 11)', () => {
  it('money bank, 2 pre-LN layers: q = LN₁(x) · W_q; the concatenation of one head is Z; no scaling divides by nothing', async () => {
    await open(`${MONEY_BANK}&layer=1`);
    await walkStart();
    await page().click('#walk-next');
    await page().waitForFunction(() => /^q = /.test(document.querySelector('.walk-text').textContent));
    assert.match(await page().textContent('.walk-text'), /^q = LN₁\(x\) · W_q for '\w+', head 1/);
    await page().click('#walk-stop');
    // one head: column 2 of the concatenation is column 2 of Z
    await page().click(cell('concat', 1, 1, '#concat-table'));
    const concat = await panel();
    assert.equal(concat.lines.length, 1);
    assert.match(concat.lines[0], /^With one head the concatenation is Z itself: its column '[^']+' is column '[^']+' of Z, head 1\.$/);
    assert.doesNotMatch(concat.lines.join(), /Z_1 \| … \| Z_1/);
    // scaling off: the scaled score is the score, with no division by 1
    await page().click(cell('scaled', 1, 0, '#head-panel'));
    const scaled = await panel();
    assert.deepEqual(scaled.lines, [message('explain.scaledNone', {}, 'en')]);
    const score = await page().textContent(cell('scores', 1, 0, '#head-panel'));
    assert.equal(scaled.value, `= ${score.trim()}`);
  });
});

describe('review 6: the layer-2 step table fits its box at 1280 px (finding 12)', () => {
  it('money bank, 2 pre-LN layers, layer 2: caption and last column within the scroller, the caption whole', async () => {
    await open(`${MONEY_BANK}&layer=2`);
    const fit = await page().evaluate(() => {
      const box = document.getElementById('steps');
      const table = box.querySelector('table.steps');
      const caption = table.caption;
      const right = box.getBoundingClientRect().right;
      return {
        scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, captionRight: caption.getBoundingClientRect().right,
        captionCut: caption.scrollWidth > caption.clientWidth + 1, right, text: caption.textContent,
      };
    });
    assert.match(fit.text, /^Layer 2 of 2: query '\w+' \(row \d\), head 1: pre-LN, so q = LN₁\(x\) · W_q = \[/);
    assert.ok(fit.scrollWidth <= fit.clientWidth + 1, `the table within its box: ${fit.scrollWidth} of ${fit.clientWidth} px`);
    assert.ok(fit.captionRight <= fit.right + 1 && !fit.captionCut, 'the caption whole');
  });
});

// the page's layer-2 numbers are the float64 stack's: the explanation at 375 px is the same one
describe('review 6: the numbers the 375 px panel shows', () => {
  it('layer 2\'s X at (money, finance) is LN₁ of the float64 stream', async () => {
    await open(`${MONEY_BANK}&layer=2`, { width: 375 });
    const got = await page().evaluate(() => {
      const { view } = globalThis.attentionLab;
      return { x: Array.from(view.result.layers[0].input), n: view.tokens.length, d: view.dModel,
        weights: view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)]))) };
    });
    const identity = Array.from({ length: got.d * got.d }, (_, i) => (i % (got.d + 1) === 0 ? 1 : 0));
    const weights = got.weights.map((w) => ({ ...w, wq: w.wq.map((v) => v * Math.sqrt(got.d)), wo: w.wo ?? identity }));
    const layers = stack64(got.x, got.n, got.d, weights, { arrangement: 'pre', heads: 1, dK: got.d, dV: got.d, causal: false });
    const row = layers[1].input.slice(0, got.d);
    const mean = row.reduce((a, b) => a + b, 0) / got.d;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / got.d;
    const expected = (row[0] - mean) / Math.sqrt(variance + 1e-5);
    await page().click(cell('x', 0, 0, '#x-table'));
    const shown = Number((await panel()).value.replace(/^= /, ''));
    assert.ok(Math.abs(shown - expected) <= 5e-4 * Math.max(1, Math.abs(expected)), `shown ${shown}, float64 ${expected}`);
  });
});
