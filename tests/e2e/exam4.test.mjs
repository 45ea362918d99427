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

// Point 4's rest: on a table taller than the screen the walk's marked cell could be below the fold,
// and at 375 px the step table's marked column cut at the right or scrolled off at the left.
// Every step of every preset at 1280 × 800 and 375 × 800: the cells the step points at (.walk-focus,
// each one a cell the step marks) lie on screen below the sticky panel, clear of the sticky token
// column, and their table's header row is on screen below the panel, or repeated just above them.
describe('the walk shows the cells it points at with their headers (issue 26, point 4)', () => {
  const measure = () => tab.page.evaluate(() => {
    const panel = document.getElementById('walk').getBoundingClientRect();
    const focus = [...document.querySelectorAll('td.walk-focus')];
    if (!focus.length) return null;
    const table = focus[0].closest('table');
    const head = table.tHead.getBoundingClientRect();
    const repeat = document.querySelector('table.walk-header')?.getBoundingClientRect();
    const boxes = focus.map((c) => c.getBoundingClientRect());
    const scroller = table.parentElement.closest('.scroll')?.getBoundingClientRect();
    const sticky = focus[0].closest('tr').querySelector('th[scope="row"]')?.getBoundingClientRect();
    return {
      marked: focus.every((c) => c.matches('.walk-in, .walk-out')), what: focus[0].dataset.matrix ?? focus[0].dataset.part,
      panel: panel.bottom, height: innerHeight, head: [head.top, head.bottom], repeat: repeat && [repeat.top, repeat.bottom],
      top: Math.min(...boxes.map((b) => b.top)), bottom: Math.max(...boxes.map((b) => b.bottom)),
      left: Math.min(...boxes.map((b) => b.left)), right: Math.max(...boxes.map((b) => b.right)),
      from: Math.max(scroller?.left ?? 0, sticky?.right ?? 0), to: Math.min(scroller?.right ?? innerWidth, innerWidth),
    };
  });
  const problem = (a) => {
    if (!a) return 'points at no cell';
    if (!a.marked) return 'points at a cell it does not mark';
    const headShown = (a.head[0] >= a.panel - 1 && a.head[1] <= a.height) || (a.repeat && a.repeat[0] >= a.panel - 1 && a.repeat[1] <= a.top + 1);
    if (!headShown) return `${a.what}: header ${a.head.map(Math.round)} not below the panel (${Math.round(a.panel)}), none repeated`;
    if (a.top < a.panel - 1 || a.bottom > a.height + 1) return `${a.what}: cells ${Math.round(a.top)}–${Math.round(a.bottom)} not between the panel ${Math.round(a.panel)} and the foot ${a.height}`;
    if (a.left < a.from - 1 || a.right > a.to + 1) return `${a.what}: cells ${Math.round(a.left)}–${Math.round(a.right)} not within ${Math.round(a.from)}–${Math.round(a.to)}`;
    return '';
  };

  for (const width of [1280, 375]) {
    it(`every step of every preset at ${width} × 800`, async () => {
      await tab.page.setViewportSize({ width, height: 800 });
      const presets = await tab.page.evaluate(() => Array.from(document.querySelectorAll('#preset option'), (o) => o.value).filter(Boolean));
      const bad = [];
      let steps = 0;
      for (const preset of presets) {
        await openLab({ preset });
        if (await tab.page.isVisible('#walk-stop')) await tab.page.click('#walk-stop');
        await tab.page.click('#walk-start');
        await tab.page.waitForTimeout(150);
        for (let i = 0; i < 80; i++) {
          steps++;
          const why = problem(await measure());
          if (why) bad.push(`${preset} step ${i + 1}: ${why}`);
          if (await tab.page.getAttribute('#walk-next', 'aria-disabled') === 'true') break;
          await tab.page.click('#walk-next');
          await tab.page.waitForTimeout(60);
        }
        await tab.page.click('#walk-stop');
      }
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      assert.ok(steps >= 180, `${steps} steps`);
      assert.deepEqual(bad, []);
    });
  }
});
