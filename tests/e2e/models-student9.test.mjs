// "Real models" after a first-time student's review 9 (2026-11-29), in headless Chromium with the shared
// gpt2 folder through the page's own file input: a tapped heatmap cell says its query, key and weight
// under the heatmap (a phone cannot rest a pointer for the tooltip); "as a table" wider than its box
// says that it scrolls; a byte piece's token chip names the character it is part of; the walk's
// keyboard keys are not said on a touch screen. And the reader and learning engine load when the
// pointer reaches the drop zone, not with the page.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { byteLevelText, cellPoint, haveModels as have, openAndRun, runText } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const LONG = 'The cat sat on the mat and the dog sat on the log by the door.';  // 30 tokens
const strip = (text) => text.replace(/[\u2066-\u2069]/gu, '');
const head = (l, h) => `#models-layers figure.model-head[data-layer="${l}"][data-head="${h}"]`;

describe('the reader and engine loaded when a model is about to be given', () => {
  it('nothing is loaded for a model until the pointer reaches the drop zone; then both load, once', async () => {
    assert.equal(await page().evaluate(() => globalThis.attentionLab.models.warming), null);
    await page().hover('#models-drop');
    assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.warming), { ready: true });
    await page().hover('#models-files + span, #models-drop label');
    assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.warming), { ready: true });
  });
});

describe('student review 9: a heatmap cell on a phone', { skip: !have && 'no ../shared/models' }, () => {
  it('at 375 px a tapped cell writes its query, key and exact weight under the heatmap (the tooltip\'s words), another tap another cell', async () => {
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      await openAndRun(page(), 'gpt2');
      await runText(page(), 'The cat sat on the mat because it was tired.');
      const { n, tokens, weights } = await page().evaluate(() => {
        const { n, tokens, layers } = globalThis.attentionLab.models.result;
        return { n, tokens, weights: [...layers[0].heads[2].weights] };
      });
      const canvas = page().locator(`${head(0, 2)} canvas`);
      const line = page().locator(`${head(0, 2)} .model-cell-tip`);
      assert.equal(await line.isVisible(), false, 'no line before a tap');
      await canvas.scrollIntoViewIfNeeded();
      for (const [r, c] of [[n - 1, 2], [4, 4], [1, 5]]) {
        const at = await cellPoint(canvas, r, c);
        await page().mouse.click(at.x, at.y);
        await page().waitForFunction((selector) => !document.querySelector(selector).hidden, `${head(0, 2)} .model-cell-tip`);
        const text = strip(await line.textContent());
        const match = text.match(/^query (.*), key (.*): (.*)$/u);
        assert.ok(match, text);
        assert.deepEqual(match.slice(1, 3), [tokens[r], tokens[c]].map((token) => token.replace(/Ġ/gu, '·')), `row ${r}, column ${c}`);
        if (c > r) assert.equal(match[3], 'masked');
        else assert.ok(Math.abs(Number(match[3]) - weights[r * n + c]) <= 1e-6, `${match[3]} vs ${weights[r * n + c]}`);
        // the pointer's tooltip says the same
        assert.equal(await canvas.getAttribute('title'), text);
      }
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
  });
});

describe('student review 9: "as a table", token chips and the walk\'s keys', { skip: !have && 'no ../shared/models' }, () => {
  it('"as a table" of a long sentence says that it scrolls sideways and fades its cut edge; a short one\'s fits: neither', async () => {
    await page().waitForFunction(() => document.documentElement.clientWidth === 1280);
    await openAndRun(page(), 'gpt2');
    // the table opened, its cue read once it is set (a mutation and a resize observer, after the rows are drawn)
    const table = async () => {
      await page().evaluate((selector) => {
        const details = document.querySelector(`${selector} details`);
        details.open = true;
        details.dispatchEvent(new Event('toggle'));
      }, head(0, 0));
      await page().waitForFunction((selector) => document.querySelector(`${selector} details .model-scroll`)?.dataset.more !== undefined, head(0, 0));
      return page().evaluate((selector) => {
        const box = document.querySelector(`${selector} details .model-scroll`);
        const line = box.previousElementSibling;
        return { overflows: box.scrollWidth > box.clientWidth, more: box.dataset.more, line: line.checkVisibility() ? line.textContent : null };
      }, head(0, 0));
    };
    await runText(page(), LONG);
    assert.deepEqual(await table(), { overflows: true, more: 'right', line: 'Scroll sideways for more columns →' });
    await runText(page(), 'The cat sat.');
    assert.deepEqual(await table(), { overflows: false, more: '', line: null });
  });

  it('a byte piece\'s chip says in its tooltip which character it is part of; a whole token\'s says its id only', async () => {
    await runText(page(), 'बिल्ली बैठी।');
    const chips = await page().evaluate(() => [...document.querySelectorAll('#models-tokens .model-token')].map((chip) => ({ token: chip.dataset.token, title: chip.title })));
    const pieces = chips.filter(({ token }) => byteLevelText(token).includes('\uFFFD'));
    assert.equal(pieces.length, 33);
    const ids = await page().evaluate(() => globalThis.attentionLab.models.result.ids);
    assert.match(strip(chips[0].title), new RegExp(`^token id ${ids[0]}: piece 1 of 3 of ‘ब’ \\(‘.’\\)$`, 'u'));
    assert.match(strip(chips[2].title), /piece 3 of 3 of ‘ब’ \(‘.’\)$/u);
    assert.equal(chips[18].title, `token id ${ids[18]}`, 'the space, a whole token');
  });

  it('the walk\'s keyboard keys are said with a mouse, not on a touch screen (pointer: coarse, hover: none)', async () => {
    const shown = () => page().evaluate(() => [...document.querySelectorAll('.walk-keys')].map((p) => getComputedStyle(p).display !== 'none'));
    const before = await shown();
    assert.ok(before.some(Boolean), `${before}`);
    const cdp = await page().context().newCDPSession(page());
    try {
      // a touch screen: (pointer: coarse) and (hover: none) match
      await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
      assert.equal(await page().evaluate(() => matchMedia('(pointer: coarse) and (hover: none)').matches), true);
      const touch = await shown();
      assert.ok(touch.length === before.length && touch.every((s) => !s), `${touch}`);
    } finally {
      await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
      await cdp.detach();
    }
  });
});
