// Issue 26, points 7 and 8: practice messages in plain words (the catalogue's slips and verdicts
// listed in docs/practice.md, no jargon), and feedback that teaches: a softmax row that does not add
// to 1 is told its sum, Enter in a box of a row moves to the next box, and an answer box holds
// "18/12.826". Truths come from the exercise's own blanks (checked against float64 in practice.test.mjs).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { useLabPage } from './browser.mjs';
import { EN } from '../../web/src/i18n/en.mjs';
import { HI } from '../../web/src/i18n/hi.mjs';

let tab;
useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const linkTo = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;
const FEEDBACK = /^practice\.(exercise\.blind|mistake\.|name\.|verdict\.|answer\.)/;
const texts = (v) => (typeof v === 'string' ? [v] : [v.one, v.other]);

describe('practice messages in plain words (issue 26, point 7)', () => {
  it('every slip, verdict and answer message is listed in docs/practice.md as the catalogue says it', () => {
    const doc = readFileSync(new URL('../../docs/practice.md', import.meta.url), 'utf8');
    const keys = Object.keys(EN).filter((k) => FEEDBACK.test(k));
    assert.ok(keys.length > 30);
    for (const key of keys) assert.ok(doc.includes(`| \`${key}\` | ${texts(EN[key]).join(' / ').replace(/\|/g, '\\|')} |`), key);
  });

  it('no jargon a first-year student cannot parse, and sentences short enough to read at once', () => {
    const JARGON = /\b(reveal|unnormalised|normalises?|i\.e\.)\b|instead of a column: it gives/i;
    for (const [key, value] of Object.entries(EN).filter(([k]) => FEEDBACK.test(k))) {
      for (const text of texts(value)) {
        assert.doesNotMatch(text, JARGON, key);
        for (const sentence of text.split(/[.;:]\s/)) assert.ok(sentence.split(/\s+/).length <= 26, `${key}: "${sentence}"`);
      }
    }
    for (const key of Object.keys(EN).filter((k) => FEEDBACK.test(k))) assert.doesNotMatch(texts(HI[key]).join(' '), /normalise/, key);
  });
});

describe('feedback that teaches (issue 26, point 8)', () => {
  it('cat-sat: Enter moves along a softmax row, a row adding to 1.08 is told so, and a box holds 18/12.826', async () => {
    const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.evaluate((h) => { location.hash = h; }, linkTo({ preset: 'cat-sat', practice: {} }));
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, before);
    const exercises = await tab.page.evaluate(() => globalThis.attentionLab.practice.exercises.map((e) => ({ id: e.id, truths: e.blanks.map((b) => b.truth) })));
    const row = exercises.findIndex((e) => e.id.startsWith('softmax:'));
    assert.ok(row > 0);
    for (let k = 0; k < row; k++) {
      const inputs = tab.page.locator(`.practice-input[data-exercise="${k}"]`);
      await inputs.first().fill(String(exercises[k].truths[0]));
      await inputs.first().press('Enter');
      await tab.page.waitForFunction((k) => document.querySelector(`.exercise[data-index="${k}"]`).dataset.status === 'correct', k);
    }
    const boxes = tab.page.locator(`.practice-input[data-exercise="${row}"]`);
    assert.equal(await boxes.count(), 3);
    await boxes.nth(0).fill('0.3');
    await boxes.nth(0).press('Enter');
    assert.equal(await boxes.nth(1).evaluate((input) => input === input.getRootNode().activeElement), true, 'Enter went on to the next box');
    assert.equal(await tab.page.locator(`.exercise[data-index="${row}"] .feedback`).textContent(), '', 'no "Type a number first"');
    await boxes.nth(1).fill('0.3');
    await boxes.nth(2).fill('0.48');
    await boxes.nth(2).press('Enter');
    const said = await tab.page.locator(`.exercise[data-index="${row}"] .feedback`).textContent();
    assert.match(said, new RegExp(`add to ${(0.3 + 0.3 + 0.48).toPrecision(3).replace('.', '\\.')}; softmax weights always add to 1`));
    const fits = await boxes.nth(0).evaluate((input) => {
      const probe = document.createElement('span');
      probe.style.font = getComputedStyle(input).font;
      probe.style.fontVariantNumeric = 'tabular-nums';
      probe.textContent = '18/12.826';
      input.getRootNode().body?.append(probe) ?? document.body.append(probe);
      const needed = probe.getBoundingClientRect().width;
      probe.remove();
      const style = getComputedStyle(input);
      return { inner: input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), needed };
    });
    assert.ok(fits.inner >= fits.needed, `box ${fits.inner} px for ${fits.needed} px`);
  });
});
