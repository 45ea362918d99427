// Issue 26, point 5: one naming rule per kind of axis. Model dimensions are the input's features
// (the vocabulary's names, or e1 … e_d); head dimensions are numbered 1 … d_k (or d_v) in W_q, W_k,
// W_v, Q, K, V and Z alike; and the names stay after an edit of a weight.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

// the column headers of the table holding cells of `matrix` (head 1), the corner left out
const headers = (matrix) => tab.page.evaluate((matrix) => {
  const cell = document.querySelector(`td[data-matrix="${matrix}"]:not(.steps td)${matrix === 'x' || matrix === 'output' || matrix === 'wo' ? '' : '[data-head="0"]'}`);
  const table = cell.closest('table');
  return Array.from(table.tHead.rows[0].cells).slice(1).map((th) => th.textContent);
}, matrix);
const rowHeaders = (matrix) => tab.page.evaluate((matrix) => {
  const table = document.querySelector(`td[data-matrix="${matrix}"][data-head="0"]`).closest('table');
  return Array.from(table.tBodies[0].rows, (tr) => tr.cells[0].textContent);
}, matrix);

async function openParameters() {
  await tab.page.evaluate(() => { for (const d of document.querySelectorAll('#weights details')) d.open = true; });
  await tab.page.waitForFunction(() => document.querySelector('td[data-matrix="wq"]'));
}

const FEATURES = ['finance', 'nature', 'animal', 'person', 'action', 'pronoun', 'plural', 'feeling', 'object', 'science'];
const numbered = (n) => Array.from({ length: n }, (_, i) => i + 1);

describe('one name per axis (issue 26, point 5)', () => {
  for (const preset of ['cat-sat', 'money-bank', 'action', 'telescope']) {
    it(`${preset}: W_q, Q and K share their column names; W_v, V and Z theirs; model dimensions are features or e1…`, async () => {
      await lab.redrawn(() => tab.page.selectOption('#preset', preset));
      await openParameters();
      const view = await tab.page.evaluate(() => ({ dK: globalThis.attentionLab.view.dK, dV: globalThis.attentionLab.view.dV }));
      const q = await headers('q');
      assert.deepEqual(await headers('wq'), q, 'W_q and Q');
      assert.deepEqual(await headers('k'), q, 'K and Q');
      const v = await headers('v');
      assert.deepEqual(await headers('wv'), v, 'W_v and V');
      assert.deepEqual(await headers('z'), v, 'Z and V');
      // head dimensions: numbered (a feature's name may follow in brackets while W = I)
      assert.deepEqual(q.map((c) => Number.parseInt(c, 10)), numbered(view.dK));
      const model = await headers('x');
      assert.deepEqual(await rowHeaders('wq'), model, 'W_q\'s rows are X\'s columns');
      for (const name of model) assert.ok(FEATURES.includes(name) || /^e\d+$/.test(name), `${preset}: model dimension '${name}'`);
    });
  }

  it('the names stay after a weight is edited', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await openParameters();
    const before = await headers('q');
    const input = tab.page.locator('td[data-matrix="wq"][data-row="0"][data-col="1"] input');
    await lab.redrawn(async () => { await input.fill('0.5'); await input.press('Enter'); });
    await openParameters();
    assert.deepEqual(await headers('q'), before);
    assert.deepEqual(await headers('wq'), before);
  });
});
