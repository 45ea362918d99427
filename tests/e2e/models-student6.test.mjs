// "Real models" after a first-time student's review 6 (2026-11-29), in headless Chromium with the shared
// gpt2 folder through the page's own file input: above 34 tokens a layer's heatmaps are drawn without
// token labels, which is said once under the layer's heading (en, hi), and pointing at a cell of such a
// heatmap still tells its query, key and exact weight; at 375 px a wide heatmap scrolls in its own box,
// its figure's buttons staying in place.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { cellPoint, haveModels as have, openAndRun, runText } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const LONG = 'The cat sat on the mat and the dog sat on the log by the door, and then it ran away.';

// every layer's notes that its heatmaps have no labels, as { layer, open, notes: [text], after: the element before the first }
const notes = () => page().evaluate(() => [...document.querySelectorAll('#models-layers details.model-layer')].map((details) => ({
  layer: Number(details.dataset.layer), open: details.open,
  notes: [...details.querySelectorAll('.model-no-labels')].map((note) => note.textContent),
  after: details.querySelector('.model-no-labels')?.previousElementSibling?.tagName ?? null,
})));

describe('student review 6: heatmaps without token labels', { skip: !have && 'no ../shared/models' }, () => {
  it('at 375 px, above 34 tokens: said once under each layer\'s heading, in English and Hindi; 34 tokens or fewer: not said', async () => {
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      await openAndRun(page(), 'gpt2');
      const short = await page().evaluate(() => globalThis.attentionLab.models.result.n);
      assert.ok(short <= 34, `${short} tokens`);
      assert.ok((await notes()).every((layer) => layer.notes.length === 0));
      await runText(page(), LONG);
      const n = await page().evaluate(() => globalThis.attentionLab.models.result.n);
      assert.ok(n > 34 && n <= 64, `${n} tokens`);
      // the heatmaps have no labels (the canvases' font left as set by no label drawing: cells under 12 px)
      assert.ok(Number(await page().getAttribute('#models-layers figure.model-head canvas', 'data-cell')) < 12);
      const english = `Token labels are left out above 34 tokens on a screen this wide (this sentence has ${n}): point at or tap a cell to see its query, key and weight, or open “as a table”.`;
      const seen = await notes();
      assert.deepEqual(seen.map((layer) => layer.layer), [0, 1]);
      for (const layer of seen) assert.deepEqual([layer.notes, layer.after], [[english], 'SUMMARY'], JSON.stringify(layer));
      assert.ok(await page().locator('#models-layers details[data-layer="0"] .model-no-labels').isVisible());
      await lab.redrawn(() => page().selectOption('#language', 'hi'));
      try {
        for (const layer of await notes()) {
          assert.deepEqual(layer.notes, [`इतनी चौड़ी स्क्रीन पर 34 से ज़्यादा tokens होने पर token के नाम नहीं लिखे जाते (इस वाक्य में ${n} हैं): किसी खाने पर पॉइंटर रखकर या उसे छूकर उसकी query, key और weight देखें, या “तालिका के रूप में” खोलें।`]);
        }
      } finally {
        await lab.redrawn(() => page().selectOption('#language', 'en'));
      }
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
  });

  for (const width of [1280, 375]) {
    it(`at ${width} px, pointing at cells of an unlabelled heatmap tells each one's query, key and weight`, async () => {
      await page().setViewportSize({ width, height: 800 });
      try {
        await page().waitForFunction((w) => document.documentElement.clientWidth === w, width);
        await openAndRun(page(), 'gpt2');
        await runText(page(), LONG);
        const { n, tokens, weights } = await page().evaluate(() => {
          const { n, tokens, layers } = globalThis.attentionLab.models.result;
          return { n, tokens, weights: [...layers[0].heads[1].weights] };
        });
        const canvas = page().locator('#models-layers figure.model-head[data-layer="0"][data-head="1"] canvas');
        await canvas.scrollIntoViewIfNeeded();
        for (const [r, c] of [[n - 1, 0], [n - 1, n - 1], [20, 7], [36, 35]]) {
          const at = await cellPoint(canvas, r, c);
          await page().mouse.move(at.x, at.y);
          const title = await canvas.getAttribute('title');
          const readable = (token) => token.replace(/[Ġ▁]/gu, '·');
          const match = title.match(/^query (.*), key (.*): (.*)$/u);
          assert.ok(match, `${title}`);
          assert.deepEqual(match.slice(1, 3), [readable(tokens[r]), readable(tokens[c])], `row ${r}, column ${c}`);
          if (c > r) assert.equal(match[3], 'masked');
          else assert.ok(Math.abs(Number(match[3]) - weights[r * n + c]) <= 1e-6 * Math.max(1, weights[r * n + c]), `${match[3]} vs ${weights[r * n + c]}`);
        }
      } finally {
        await page().setViewportSize({ width: 1280, height: 800 });
      }
    });
  }
});

describe('student review 9: a wide screen names up to 64 tokens', { skip: !have && 'no ../shared/models' }, () => {
  it('at 1280 px the same sentence (35 to 64 tokens) keeps its labels at 12 px cells, without scrolling, and no line says otherwise', async () => {
    await page().waitForFunction(() => document.documentElement.clientWidth === 1280);
    await openAndRun(page(), 'gpt2');
    await runText(page(), LONG);
    const { n, tokens } = await page().evaluate(() => globalThis.attentionLab.models.result);
    const heat = await page().evaluate(() => {
      const canvas = document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"] canvas');
      const box = canvas.parentElement;
      return { cell: Number(canvas.dataset.cell), columns: canvas.dataset.columns.split(' ').filter(Boolean).length, scrolls: box.scrollWidth > box.clientWidth };
    });
    assert.ok(n > 34, `${n} tokens`);
    assert.deepEqual({ cell: heat.cell, scrolls: heat.scrolls }, { cell: 12, scrolls: false });
    assert.ok(heat.columns > 1 && heat.columns <= tokens.length, `${heat.columns} columns named`);
    assert.equal(await page().locator('#models-layers details[data-layer="0"] .model-no-labels').isVisible(), false);
  });

  it('a 2× screen keeps each canvas within 1200 device px: 50 tokens labelled at 1×, not at 2× (the line says 42 there)', async () => {
    const FIFTY = 'The cat sat on the mat and the dog sat on the log by the door, and then they both ran away to the park.';
    const cell = () => page().evaluate(() => Number(document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"] canvas').dataset.cell));
    await runText(page(), FIFTY);
    assert.equal(await page().evaluate(() => globalThis.attentionLab.models.result.n), 50);
    assert.equal(await cell(), 12);
    const cdp = await page().context().newCDPSession(page());
    try {
      await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 800, deviceScaleFactor: 2, mobile: false });
      await page().waitForFunction(() => devicePixelRatio === 2);
      await runText(page(), FIFTY);
      assert.ok(await cell() < 12, 'no labels at 2×');
      const line = await page().textContent('#models-layers details[data-layer="0"] .model-no-labels');
      assert.match(line, /^Token labels are left out above 42 tokens on a screen this wide \(this sentence has 50\)/u);
      const width = await page().evaluate(() => document.querySelector('#models-layers figure.model-head canvas').width);
      assert.ok(width <= 1200, `${width} device px`);
    } finally {
      await cdp.send('Emulation.clearDeviceMetricsOverride');
      await cdp.detach();
      await page().setViewportSize({ width: 1280, height: 800 });
    }
  });
});

describe('student review 6: a wide heatmap scrolls in its own box', { skip: !have && 'no ../shared/models' }, () => {
  it('at 375 px a 30-token heatmap scrolls sideways in its own box; "as a table" and "Open this layer in the lab" stay in place and on screen', async () => {
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      await openAndRun(page(), 'gpt2');
      await runText(page(), 'The cat sat on the mat and the dog sat on the log by the door.');
      assert.equal(await page().evaluate(() => globalThis.attentionLab.models.result.n), 30);
      const figure = page().locator('#models-layers figure.model-head[data-layer="0"][data-head="0"]');
      await figure.scrollIntoViewIfNeeded();
      const place = () => figure.evaluate((node) => {
        const box = node.querySelector(':scope > .model-scroll');
        const at = (element) => Math.round(element.getBoundingClientRect().left) + '–' + Math.round(element.getBoundingClientRect().right);
        return { scrolled: box.scrollLeft, room: box.scrollWidth - box.clientWidth, table: at(node.querySelector(':scope > details > summary')),
          open: at(node.querySelector(':scope > button.model-open')), canvas: Math.round(node.querySelector('canvas').getBoundingClientRect().left),
          figure: node.scrollWidth - node.clientWidth, page: document.documentElement.scrollWidth };
      });
      const start = await place();
      assert.ok(start.room > 30 && start.scrolled === 0 && start.figure === 0, JSON.stringify(start));
      // scrolled to its end (as a finger or a wheel would): the canvas moves, the buttons do not
      await figure.locator('.model-scroll').first().evaluate((box) => { box.scrollLeft = box.scrollWidth; });
      const end = await place();
      assert.equal(end.scrolled, start.room);
      assert.equal(end.canvas, start.canvas - start.room);
      assert.deepEqual([end.table, end.open, end.figure, end.page], [start.table, start.open, 0, 375]);
      for (const span of [end.table, end.open]) assert.ok(Number(span.split('–')[1]) <= 375, span);
      // its table opened: wider than the screen, it scrolls in a box of its own too; the page does not
      await figure.locator(':scope > details > summary').click();
      await page().waitForFunction(() => document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"] > details table'));
      const table = await figure.evaluate((node) => {
        const box = node.querySelector(':scope > details .model-scroll');
        return { wider: box.scrollWidth > box.clientWidth, overflow: getComputedStyle(box).overflowX, figure: node.scrollWidth - node.clientWidth, page: document.documentElement.scrollWidth };
      });
      assert.deepEqual(table, { wider: true, overflow: 'auto', figure: 0, page: 375 });
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
  });
});

// the walk's texts, step by step, without the bidi isolation around the token
const walkTexts = () => page().evaluate(() => {
  const panel = document.querySelector('.model-stream-walk');
  panel.querySelector('button[data-walk="start"]').click();
  const texts = [];
  for (;;) {
    texts.push(panel.querySelector('.walk-text').textContent.replace(/[\u2066-\u2069]/gu, ''));
    const next = panel.querySelector('button[data-walk="next"]');
    if (next.disabled) break;
    next.click();
  }
  panel.querySelector('button[data-walk="stop"]').click();
  return texts;
});

describe('student review 6: the walk quotes its token', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2, token 8 (·the, an English word): ‘·the’ at every step, and ‘.’ for the last token, in English and Hindi', async () => {
    await openAndRun(page(), 'gpt2');
    await page().selectOption('#models-stream-token', { value: '7' });
    const english = await walkTexts();
    assert.equal(english.length, 6);
    assert.match(english[0], /^Hidden state 0: the embedding of ‘·the’, the token's row/);
    assert.match(english[1], /the stream of ‘·the’ normalised \(‖x‖ = /);
    assert.match(english[2], / ‘·the’ leaves layer 1 with norm /);
    assert.match(english[4], / ‘·the’ leaves layer 2, before the final norm, with norm /);
    assert.match(english[5], /to score the token after ‘·the’; .* the last token's row \(‘\.’\), not this one\.$/);
    for (const text of english) assert.doesNotMatch(text, /[^‘]·the|·the[^’]/u, text);
    await lab.redrawn(() => page().selectOption('#language', 'hi'));
    try {
      // the language's redraw starts the stream's choice again at token 1
      await page().selectOption('#models-stream-token', { value: '7' });
      const hindi = await walkTexts();
      assert.match(hindi[0], /^hidden state 0: ‘·the’ का embedding/);
      assert.match(hindi[1], /यानी ‘·the’ का normalise किया हुआ stream/);
      for (const text of hindi) assert.doesNotMatch(text, /[^‘]·the|·the[^’]/u, text);
    } finally {
      await lab.redrawn(() => page().selectOption('#language', 'en'));
    }
  });
});
