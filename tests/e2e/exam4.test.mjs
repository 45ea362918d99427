// Issue 26, fourth night: what /work/notes/i26b.md left.
// Point 5: one naming rule per kind of axis over EVERY preset: model dimensions are the
// vocabulary's features or e1 … e_d (X, C, W_O's columns, the rows of W_q, W_k, W_v, Z_f with W_O),
// head dimensions are numbered 1 … d (a feature in brackets while W = I) in W_q, W_k, W_v, Q, K, V,
// Z; tokens are named by their word. The rule is the test's own, written here, not read from the code.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const linkTo = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;

const FEATURES = ['finance', 'nature', 'animal', 'person', 'action', 'pronoun', 'plural', 'feeling', 'object', 'science'];
const MODEL = new Set(['x', 'context']);
const HEAD = new Set(['q', 'k', 'v', 'z']);
const WEIGHTS = new Set(['wq', 'wk', 'wv']);
const SQUARE = new Set(['scores', 'scaled', 'weights']);

async function openLab(state) {
  // the same state again draws nothing: go through another example first
  const now = await tab.page.evaluate(() => globalThis.attentionLab.state?.preset ?? document.getElementById('preset').value);
  if (now === state.preset) await openLab({ preset: state.preset === 'money-bank' ? 'cat-sat' : 'money-bank' });
  const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
  await tab.page.evaluate((h) => { location.hash = h; }, linkTo(state));
  await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n && globalThis.attentionLab.idle, before);
}

// every table of the page holding a matrix's cells (the step table left out): its matrix, head,
// column headers (as many as it has cells in a row) and row headers
const matrixTables = () => tab.page.evaluate(() => Array.from(document.querySelectorAll('table'), (table) => {
  const cell = table.querySelector('td[data-matrix]');
  if (!cell || table.closest('.steps') || !table.tHead || !table.tBodies[0]) return null;
  const body = table.tBodies[0].rows[0];
  const width = body.querySelectorAll('td[data-matrix]').length;
  return {
    matrix: cell.dataset.matrix, head: cell.dataset.head ?? null,
    columns: Array.from(table.tHead.rows[table.tHead.rows.length - 1].cells).slice(1, 1 + width).map((th) => th.textContent.trim()),
    rows: Array.from(table.tBodies[0].rows, (tr) => tr.cells[0].textContent.trim()),
  };
}).filter(Boolean));

/** Why `names` break the head-dimension rule (1 … count, a feature in brackets allowed), or ''. */
function headRule(names, count) {
  if (names.length !== count) return `${names.length} names for ${count} dimensions`;
  const bad = names.filter((name, i) => {
    const m = /^(\d+)(?: \(([^)]+)\))?$/.exec(name);
    return !m || Number(m[1]) !== i + 1 || (m[2] !== undefined && !FEATURES.includes(m[2]));
  });
  return bad.length ? `not 1 … ${count}: ${bad.slice(0, 3).join(', ')}` : '';
}

/** Why `names` break the model-dimension rule (features, or e1 … e_d in order), or ''. */
function modelRule(names, dModel) {
  if (names.length !== dModel) return `${names.length} names for d_model ${dModel}`;
  const bad = names.filter((name, i) => !(FEATURES.includes(name) || name === `e${i + 1}`));
  return bad.length ? `neither a feature nor e${'<i>'}: ${bad.slice(0, 3).join(', ')}` : '';
}

describe('one name per column, over every preset (issue 26, point 5)', () => {
  it('every matrix table of every preset names its model dimensions, head dimensions and tokens by one rule each', async () => {
    const presets = await tab.page.evaluate(() => Array.from(document.querySelectorAll('#preset option'), (o) => o.value).filter(Boolean));
    assert.ok(presets.length >= 9, presets.join());
    const broken = [];
    for (const preset of presets) {
      await openLab({ preset });
      await tab.page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
      await tab.page.waitForFunction(() => ['wq', 'q', 'z', 'weights'].every((m) => document.querySelector(`td[data-matrix="${m}"]:not(.steps td)`)));
      const view = await tab.page.evaluate(() => {
        const v = globalThis.attentionLab.view;
        return { tokens: v.tokens, keyTokens: v.keyTokens, dModel: v.dModel, dK: v.dK, dV: v.dV, heads: v.heads, wo: Boolean(v.weights.wo) };
      });
      const tables = await matrixTables();
      const x = tables.find((t) => t.matrix === 'x');
      assert.ok(x, `${preset}: X is shown`);
      const say = (table, axis, why) => why && broken.push(`${preset} ${table.matrix}${table.head ? ` head ${Number(table.head) + 1}` : ''} ${axis}: ${why}`);
      const same = (names, expected) => (names.join('|') === expected.join('|') ? '' : `${names.slice(0, 4).join(', ')} … ≠ ${expected.slice(0, 4).join(', ')} …`);
      const seen = new Set();
      for (const table of tables) {
        seen.add(table.matrix);
        if (MODEL.has(table.matrix)) say(table, 'columns', modelRule(table.columns, view.dModel) || same(table.columns, x.columns));
        if (WEIGHTS.has(table.matrix)) {
          say(table, 'rows', same(table.rows, x.columns));
          say(table, 'columns', headRule(table.columns, table.matrix === 'wv' ? view.dV : view.dK));
        }
        if (HEAD.has(table.matrix)) say(table, 'columns', headRule(table.columns, 'vz'.includes(table.matrix) ? view.dV : view.dK));
        if (SQUARE.has(table.matrix)) say(table, 'columns', same(table.columns, view.keyTokens));
        if (['x', 'q', 'z', 'concat', 'output', ...SQUARE].includes(table.matrix)) say(table, 'rows', same(table.rows, view.tokens));
        if (['k', 'v', 'context'].includes(table.matrix)) say(table, 'rows', same(table.rows, view.keyTokens));
        if (table.matrix === 'wo') say(table, 'columns', same(table.columns, x.columns));
        if (table.matrix === 'output') say(table, 'columns', view.wo ? same(table.columns, x.columns) : view.heads === 1 ? headRule(table.columns, view.dV) : '');
      }
      for (const matrix of ['wq', 'wk', 'wv', 'q', 'k', 'v', 'z', 'weights']) assert.ok(seen.has(matrix), `${preset}: ${matrix} is shown`);
    }
    assert.deepEqual(broken, []);
  });
});
