// "Real models" after a first-time student's review (2026-11-29, four findings), in headless Chromium
// with the shared gpt2 folder through the page's own file input: at 375 px a heatmap's token labels are
// drawn at 11 px or more (a wider heatmap scrolls in its figure) and drawn again when the screen widens;
// a test-size model says so (with its vocabulary's size) as soon as it is opened, above its guesses (en, hi); Real models is the page's last chapter, so
// FlashAttention and the KV cache are not under its Run button; the example in the box is Hindi on the
// Hindi page, runs through GPT-2's byte-level tokenizer, and follows the language menu.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { haveModels as have, openAndRun, runText, byteLevelText, referenceOf, filesOf, dirOf, opened } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const HINDI = 'बिल्ली बैठी।';

// Every drawn heatmap of the open layers: the font its labels were drawn in (the canvas context's, as
// the drawing code set it), its size as drawn on screen (that font × shown width / own width), and its
// scrolling box (the canvas's own since review 6, finding 3: `figure` here)
const heatmaps = () => page().evaluate(() => [...document.querySelectorAll('#models-layers figure.model-head > .model-scroll > canvas')].map((canvas) => {
  const figure = canvas.parentElement;
  const shown = canvas.getBoundingClientRect().width, own = parseFloat(canvas.style.width);
  const font = canvas.getContext('2d').font;
  return { font, own, shown, px: parseFloat(font) * shown / own, figure: figure.clientWidth, scrolls: figure.scrollWidth > figure.clientWidth,
    overflow: getComputedStyle(figure).overflowX, right: figure.getBoundingClientRect().right };
}));

describe('student review 5: heatmap labels at 375 px', { skip: !have && 'no ../shared/models' }, () => {
  it('11, 22 and 30 tokens: every label drawn at ≥ 11 px, a heatmap wider than that scrolls in its figure; at 1280 px drawn again at its full size', async () => {
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      await openAndRun(page(), 'gpt2');
      const sizes = {};
      for (const text of ['', 'The cat sat on the mat because it was tired', 'The cat sat on the mat and the dog sat on the log by the door.']) {
        if (text) await runText(page(), text);
        // layer 2 drawn at this width too (each run draws it folded)
        assert.equal(await page().$eval('#models-layers details[data-layer="1"]', (details) => details.open), false);
        await page().click('#models-layers details[data-layer="1"] > summary');
        await page().waitForFunction(() => document.querySelectorAll('#models-layers figure.model-head canvas').length === 8);
        const n = await page().evaluate(() => globalThis.attentionLab.models.result.n);
        const seen = await heatmaps();
        assert.equal(seen.length, 8, `${n} tokens: 2 layers × 4 heads drawn`);
        for (const map of seen) {
          assert.equal(map.font, '12px system-ui, sans-serif', `${n} tokens: labels drawn`);
          assert.ok(map.px >= 11 - 1e-9, `${n} tokens: labels drawn at ${map.px.toFixed(2)} px (${map.own} px canvas shown ${map.shown} px wide)`);
          assert.equal(map.overflow, 'auto');
          assert.equal(map.scrolls, map.shown > map.figure + 0.5, `${n} tokens: scrolls only when wider than its figure`);
          assert.ok(map.right <= 375, `${n} tokens: the figure ends on screen (${map.right})`);
        }
        sizes[n] = seen;
      }
      assert.deepEqual(Object.keys(sizes).map(Number), [11, 22, 30]);
      // 30 tokens do not fit a phone at 11 px labels: they scroll; 22 fit at 12 px, their cells narrower than 18
      assert.ok(sizes[30].every((map) => map.scrolls && map.px < 12), JSON.stringify(sizes[30][0]));
      assert.ok(sizes[22].every((map) => !map.scrolls && map.px === 12 && map.own <= map.figure), JSON.stringify(sizes[22][0]));
      assert.equal(await page().evaluate(() => document.documentElement.scrollWidth), 375);
      // wider, the 30-token heatmaps are drawn again with their cells at the most (13 px: 416 / 30), no longer scaled
      await page().setViewportSize({ width: 1280, height: 800 });
      await page().waitForFunction((narrow) => [...document.querySelectorAll('#models-layers figure.model-head canvas')].every((c) => parseFloat(c.style.width) > narrow), sizes[30][0].own);
      for (const map of await heatmaps()) assert.ok(map.px === 12 && !map.scrolls, JSON.stringify(map));
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
  });
});

describe('student review 5: a test-size model says so', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2 (39,424 parameters, 400 tokens in its vocabulary): a note as soon as it is opened, still above its next tokens after Run, in English and in Hindi', async () => {
    // shown between the tokens and the next tokens
    const note = () => page().evaluate(() => {
      const note = document.querySelector('#models-tokens + p#models-size.model-small + #models-next')?.previousElementSibling;
      return note && note.checkVisibility() ? note.textContent : null;
    });
    const english = 'A very small model: about 39,000 parameters (GPT-2 small has 124 million), and a vocabulary of only 400 tokens (GPT-2 small has 50,257), which is why words split into small pieces. A model this small is a test model, often with random weights: its guesses are not expected to make sense. The numbers are still exactly what it computes.';
    // opened, not run (review 6, finding 1: it was said only after Run): no tokens yet, the note under the Run button
    await page().setInputFiles('#models-files', filesOf(dirOf('gpt2')));
    await opened(page());
    assert.equal(await page().evaluate(() => globalThis.attentionLab.models.result), null);
    assert.equal(await page().evaluate(() => globalThis.attentionLab.models.report.vocab), 400);
    assert.equal(await note(), english);
    const below = await page().evaluate(() => document.querySelector('#models-size').getBoundingClientRect().top - document.querySelector('#models-run').getBoundingClientRect().bottom);
    assert.ok(below >= 0 && below < 100, `${below} px under Run`);
    await lab.redrawn(() => page().selectOption('#language', 'hi'));
    try {
      assert.match(await note(), /^बहुत छोटा मॉडल: लगभग 39,000 parameters \(GPT-2 के सबसे छोटे मॉडल में 12.4 करोड़ हैं\), और इसकी शब्दावली में केवल 400 token हैं \(GPT-2 के सबसे छोटे मॉडल में 50,257\), इसीलिए शब्द छोटे-छोटे टुकड़ों में बँटते हैं।/);
    } finally {
      await lab.redrawn(() => page().selectOption('#language', 'en'));
    }
    await openAndRun(page(), 'gpt2');
    assert.equal(await note(), english);
  });
});

describe('student review 5: nothing between Run and the results', { skip: !have && 'no ../shared/models' }, () => {
  it('Real models is the last chapter: FlashAttention and the KV cache come before it, only the settings after it', async () => {
    const order = await page().evaluate(() => {
      const models = document.querySelector('section[data-view="models"]');
      const views = [...document.querySelectorAll('[data-view]')].filter((part) => part.parentElement === models.parentElement);
      const at = views.indexOf(models);
      return { before: views.slice(0, at).map((part) => part.dataset.view), after: views.slice(at + 1).map((part) => part.dataset.view) };
    });
    for (const view of ['flash', 'kv-cache', 'window', 'sinks', 'rope', 'gqa', 'train', 'layers']) assert.ok(order.before.includes(view), `${view} before Real models: ${order.before}`);
    assert.deepEqual(order.after, ['controls']);
    // opened, not run yet (the results of the run before cleared): the first part of the page under the
    // Run button is the settings ("About the engine"), no chapter (main: FlashAttention)
    await page().setInputFiles('#models-files', filesOf(dirOf('gpt2')));
    await opened(page());
    assert.equal(await page().evaluate(() => document.querySelector('#models-layers').childElementCount), 0);
    const below = await page().evaluate(() => {
      const run = document.querySelector('#models-run').getBoundingClientRect().bottom;
      const parts = [...document.querySelectorAll('[data-view]')].filter((part) => part.checkVisibility() && part.getBoundingClientRect().top >= run);
      return parts.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).map((part) => part.dataset.view);
    });
    assert.deepEqual(below, ['controls']);
  });
});

describe('student review 5: the example sentence in the page\'s language', { skip: !have && 'no ../shared/models' }, () => {
  it('Hindi: the box shows a Hindi example, an empty box runs it (GPT-2\'s byte-level pieces are its bytes); English again with the menu', async () => {
    const reference = referenceOf('gpt2');
    await openAndRun(page(), 'gpt2');
    assert.equal(await page().getAttribute('#models-text', 'placeholder'), reference.text);
    // the English sentence's tokens are whole characters: none marked, no byte note
    assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.result.pieces), []);
    assert.equal(await page().locator('#models-tokens .model-token-byte').count(), 0);
    await lab.redrawn(() => page().selectOption('#language', 'hi'));
    try {
      assert.equal(await page().getAttribute('#models-text', 'placeholder'), HINDI);
      await page().fill('#models-text', '');
      await page().press('#models-text', 'Enter');
      await page().waitForFunction((text) => globalThis.attentionLab.models.result?.text === text && !globalThis.attentionLab.models.result.partial, HINDI);
      assert.equal(await page().inputValue('#models-text'), HINDI);
      const { tokens, ids, n } = await page().evaluate(() => {
        const { tokens, ids, n } = globalThis.attentionLab.models.result;
        return { tokens, ids, n };
      });
      // 34 bytes of UTF-8 (11 Devanagari characters of 3 bytes, 1 space); the folder's 400-token
      // vocabulary has no merge for them: a token a byte, which put back together are the sentence
      assert.equal(Buffer.byteLength(HINDI), 34);
      assert.ok(n === 34 && ids.length === n, `${n} tokens`);
      assert.equal(byteLevelText(tokens.join('')), HINDI);
      // each token is one byte of a 3-byte letter (or the space): every one but the space is marked, and said so
      const pieces = tokens.flatMap((token, i) => (/^[\x21-\x7e]*$/.test(byteLevelText(token)) || byteLevelText(token) === ' ' ? [] : [i]));
      assert.equal(pieces.length, 33);
      assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.result.pieces), pieces);
      assert.deepEqual(await page().$$eval('#models-tokens .model-token', (chips) => chips.flatMap((chip, i) => (chip.classList.contains('model-token-byte') ? [i] : []))), pieces);
      assert.match(await page().textContent('#models-tokens'), /34 tokens में से 33 \(बिंदीदार\)/);
      assert.equal(await page().evaluate(() => document.querySelectorAll('#models-tokens .model-token').length), n);
    } finally {
      await lab.redrawn(() => page().selectOption('#language', 'en'));
    }
    assert.equal(await page().getAttribute('#models-text', 'placeholder'), reference.text);
    // the sentence that ran stays in the box in either language
    assert.equal(await page().inputValue('#models-text'), HINDI);
  });
});
