// Redrawing in place (render/steps.mjs): after an edit the step table on screen is the same element,
// and every cell shows the new numbers, checked against a float64 softmax of the drawn q·k column;
// a sentence of another length rebuilds it with one row per token.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

// The step table as drawn: its rows' token, q·k, scaled and softmax cells, and the weights' shading.
const stepRows = () => tab.page.$$eval('#steps tbody tr', (rows) => rows.map((tr) => ({
  token: tr.cells[0].textContent, score: Number(tr.cells[4].textContent), scaled: Number(tr.cells[5].textContent),
  weight: Number(tr.cells[6].textContent), shade: tr.cells[6].style.backgroundColor,
})));

describe('the step table is redrawn in place, not rebuilt', () => {
  it('an edit of X keeps the table element and rewrites its numbers and shading', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await tab.page.evaluate(() => { globalThis.stepTable = document.querySelector('#steps table'); });
    const before = await stepRows();
    await lab.redrawn(() => tab.page.locator('td[data-matrix="x"][data-row="0"][data-col="0"] input').fill('3'));
    assert.ok(await tab.page.evaluate(() => document.querySelector('#steps table') === globalThis.stepTable), 'the same element');
    const after = await stepRows();
    assert.notDeepEqual(after.map((r) => r.score), before.map((r) => r.score));
    // the drawn softmax is the softmax of the drawn scaled scores (3 decimals shown, so within 2e-3)
    const exp = after.map((r) => Math.exp(r.scaled));
    const total = exp.reduce((a, b) => a + b, 0);
    after.forEach((r, j) => assert.ok(Math.abs(r.weight - exp[j] / total) < 2e-3, `row ${j}: ${r.weight} against ${exp[j] / total}`));
    // the shading follows the weights: not one colour for every row
    const shades = new Set(after.map((r) => r.shade));
    assert.ok(shades.size > 1);
  });

  it('a sentence of another length gives a table with one row per token', async () => {
    await lab.redrawn(async () => {
      await tab.page.fill('#sentence', 'one two three four five');
      await tab.page.dispatchEvent('#sentence', 'input');
    });
    assert.deepEqual((await stepRows()).map((r) => r.token), ['one', 'two', 'three', 'four', 'five']);
  });
});

describe('the token lines keep the keyboard focus when they are redrawn', () => {
  it('a query token focused in a picture off screen stays focused, its lines alone shown, when the picture is drawn at its width', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'animal-it'));
    // a phone's width: the pictures' section, far below, is skipped until something in it is used,
    // so the lines are still drawn at their old width
    await tab.page.setViewportSize({ width: 375, height: 800 });
    const before = await tab.page.$eval('#token-lines', (svg) => svg.getAttribute('width'));
    // focus brings the section on screen: its figure gets its width and the lines are drawn anew
    await tab.page.focus('#token-lines .token-node.query[data-index="5"]');
    await tab.page.waitForFunction((width) => document.getElementById('token-lines').getAttribute('width') !== width, before);
    const focused = await tab.page.evaluate(() => document.activeElement.closest?.('.token-node')?.dataset.index ?? null);
    assert.equal(focused, '5');
    const visible = await tab.page.$$eval('#token-lines line', (ls) => ls.filter((l) => l.style.display !== 'none').map((l) => l.dataset.query));
    assert.ok(visible.length > 0 && visible.every((q) => q === '5'), `visible lines of queries ${[...new Set(visible)]}`);
    await tab.page.setViewportSize({ width: 1280, height: 720 });
  });
});
