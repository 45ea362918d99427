// The exported heatmap as a lecturer pastes it on a slide (review 10, finding A): a real model's layer
// (Llama, whose every row and column starts with '<|begin_of_text|>', 17 characters) keeps every label
// inside the picture, says what it shows (the head, the model's layer) and carries its colour legend;
// the cells are the page's weights. Drawn by Chromium itself: the SVG file is put in a page and every
// text's box measured against the picture's.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage, downloadBy, downloadedBytes } from './browser.mjs';
import { haveModels as have, openAndRun } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;

async function exportedSvg() {
  if (await page().isHidden('#export-panel')) await page().click('#export-toggle');
  await page().selectOption('#export-picture', 'heatmap');
  const file = await downloadBy(page(), '#export-svg');
  return (await downloadedBytes(file)).toString('utf8');
}

// every text of the SVG, drawn alone in a blank page of its own (the lab's styles cannot reach it):
// { text, inside } (its box within the picture's)
const measured = async (svg) => {
  const blank = await page().context().browser().newPage();
  try {
    return await blank.evaluate(drawnTexts, svg);
  } finally {
    await blank.close();
  }
};

function drawnTexts(markup) {
  const holder = document.createElement('div');
  holder.style.cssText = 'position: absolute; left: 0; top: 0;';
  const picture = new DOMParser().parseFromString(markup, 'image/svg+xml').documentElement;
  holder.append(document.importNode(picture, true));
  document.body.append(holder);
  const drawn = holder.firstElementChild;
  const frame = drawn.getBoundingClientRect();
  const texts = [...drawn.querySelectorAll('text')].map((text) => {
    const box = text.getBoundingClientRect();
    return { text: text.textContent, inside: box.left >= frame.left - 0.5 && box.top >= frame.top - 0.5 && box.right <= frame.right + 0.5 && box.bottom <= frame.bottom + 0.5 };
  });
  holder.remove();
  return texts;
}

describe('the exported heatmap of a real model\'s layer', { skip: !have && 'no ../shared/models' }, () => {
  for (const lang of ['en', 'hi']) {
    it(`llama layer 2, head 1 (${lang}): every label inside the picture, a title with the model's layer, a legend, the page's weights`, async () => {
      const reference = await openAndRun(page(), 'llama');
      await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
      await page().evaluate((lang) => globalThis.attentionLab.setLanguage(lang), lang);
      const svg = await exportedSvg();
      const texts = await measured(svg);
      const outside = texts.filter((t) => !t.inside).map((t) => t.text);
      assert.deepEqual(outside, [], 'labels cut off at the picture\'s edge');
      assert.ok(texts.filter((t) => t.text === '<|begin_of_text|>').length >= 2, 'the first row\'s and the first column\'s label, whole');
      assert.match(texts[0].text, lang === 'en' ? /^Attention weights of head 1/ : /^head 1 के attention weights/);
      assert.match(texts[1].text, lang === 'en' ? /the llama model's layer 2 of 2/ : /llama मॉडल की 2 में से layer 2/);
      assert.ok(texts.some((t) => t.text === '0') && texts.some((t) => t.text === '1'), 'the legend\'s ends');
      // the cells: transformers' own weights for layer 2, head 1 (reference.json's layers[1].probs)
      const cells = [...svg.matchAll(/data-weight="([^"]+)"/g)].map((m) => m[1]);
      const n = reference.ids.length;
      assert.equal(cells.length, n * n);
      const probs = reference.layers[1].probs.slice(0, n * n);
      cells.forEach((cell, i) => {
        if (cell === 'masked') return assert.ok(i % n > Math.floor(i / n), `cell ${i} masked but not a future key`);
        assert.ok(Math.abs(Number(cell) - probs[i]) <= 1e-4 * Math.max(1, probs[i]) + 1e-6, `cell ${i}: ${cell} vs ${probs[i]}`);
      });
      await page().evaluate(() => globalThis.attentionLab.setLanguage('en'));
    });
  }
});
