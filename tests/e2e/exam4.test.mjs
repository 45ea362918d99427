// Issue 26, fourth night: what /work/notes/i26b.md left.
// Point 5: one naming rule per kind of axis over EVERY preset: model dimensions are the
// vocabulary's features or e1 … e_d (X, C, W_O's columns, the rows of W_q, W_k, W_v, Z_f with W_O),
// head dimensions are numbered 1 … d (a feature in brackets while W = I) in W_q, W_k, W_v, Q, K, V,
// Z; tokens are named by their word. The rule is the test's own, written here, not read from the code.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { readFileSync } from 'node:fs';

import { openBrowser, useLabPage } from './browser.mjs';

let tab;
const shared = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const lab2 = (action) => shared.redrawn(action);
const linkTo = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;

// the vocabulary's features, and 003's own two (the notes' Word2Vec vector for 'Apple': fruit, tech)
const FEATURES = ['finance', 'nature', 'animal', 'person', 'action', 'pronoun', 'plural', 'feeling', 'object', 'science', 'fruit', 'tech'];
const MODEL = new Set(['x', 'context']);
const HEAD = new Set(['q', 'k', 'v', 'z']);
const WEIGHTS = new Set(['wq', 'wk', 'wv']);
const SQUARE = new Set(['scores', 'scaled', 'weights']);

async function openLab(state, page = tab.page) {
  // the same state again draws nothing: go through another example first
  const now = await page.evaluate(() => globalThis.attentionLab.state?.preset ?? document.getElementById('preset').value);
  if (now === state.preset) await openLab({ preset: state.preset === 'money-bank' ? 'cat-sat' : 'money-bank' }, page);
  const before = await page.evaluate(() => globalThis.attentionLab.draws);
  await page.evaluate((h) => { location.hash = h; }, linkTo(state));
  await page.waitForFunction((n) => globalThis.attentionLab.draws > n && globalThis.attentionLab.idle, before);
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
    const presets = await tab.page.evaluate(() => Array.from(document.querySelectorAll('#preset option:not([disabled])'), (o) => o.value).filter(Boolean));
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

// Runs in the page: walks every step of the preset shown (as a reader clicking Next, each step
// measured once the lab is idle and the page still); the steps' problems (the rule below) and count.
async function walkPresetInPage(preset) {
  // the step shown: the cells it points at, their table's header, the panel and the scroller
  function measure() {
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
  }
  function problemOf(a) {
    if (!a) return 'points at no cell';
    if (!a.marked) return 'points at a cell it does not mark';
    const headShown = (a.head[0] >= a.panel - 1 && a.head[1] <= a.height) || (a.repeat && a.repeat[0] >= a.panel - 1 && a.repeat[1] <= a.top + 1);
    if (!headShown) return `${a.what}: header ${a.head.map(Math.round)} not below the panel (${Math.round(a.panel)}), none repeated`;
    if (a.top < a.panel - 1 || a.bottom > a.height + 1) return `${a.what}: cells ${Math.round(a.top)}–${Math.round(a.bottom)} not between the panel ${Math.round(a.panel)} and the foot ${a.height}`;
    if (a.left < a.from - 1 || a.right > a.to + 1) return `${a.what}: cells ${Math.round(a.left)}–${Math.round(a.right)} not within ${Math.round(a.from)}–${Math.round(a.to)}`;
    return '';
  }
  // the lab idle and the page still (the walk may scroll smoothly): three frames alike
  const settled = async () => {
    while (!globalThis.attentionLab.idle) await new Promise((done) => setTimeout(done, 10));
    const frame = () => new Promise((done) => requestAnimationFrame(done));
    const where = () => JSON.stringify([scrollY, document.querySelector('table.walk-header')?.getBoundingClientRect().top, document.querySelector('td.walk-focus')?.getBoundingClientRect()]);
    let last = where();
    for (let alike = 0; alike < 3;) {
      await frame();
      const now = where();
      alike = now === last ? alike + 1 : 0;
      last = now;
    }
  };
  const $ = (id) => document.getElementById(id);
  if ($('walk-stop').checkVisibility()) { $('walk-stop').click(); await settled(); }
  $('walk-start').click();
  await settled();
  const bad = [];
  let steps = 0;
  for (let i = 0; i < 80; i++) {
    steps++;
    const why = problemOf(measure());
    if (why) bad.push(`${preset} step ${i + 1}: ${why}`);
    if ($('walk-next').getAttribute('aria-disabled') === 'true') break;
    $('walk-next').click();
    await settled();
  }
  $('walk-stop').click();
  return { bad, steps };
}

// Point 4's rest: on a table taller than the screen the walk's marked cell could be below the fold,
// and at 375 px the step table's marked column cut at the right or scrolled off at the left.
// Every step of every preset at 1280 × 800 and 375 × 800: the cells the step points at (.walk-focus,
// each one a cell the step marks) lie on screen below the sticky panel, clear of the sticky token
// column, and their table's header row is on screen below the panel, or repeated just above them.
// The two widths at once, each in a tab of its own (the walk waits on frames far more than it computes):
// the file's tab at 1280 px, a second one, opened as useLabPage opens its own, at 375 px.
describe('the walk shows the cells it points at with their headers (issue 26, point 4)', { concurrency: 2 }, () => {
  let second;
  let narrow;
  before(async () => {
    second = await openBrowser();
    narrow = await second.newPage();
    await narrow.page.goto(second.url);
    await narrow.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await narrow.page.evaluate(() => { document.getElementById('settings').open = true; });
  });
  after(async () => {
    if (narrow) {
      assert.deepEqual(narrow.problems, [], 'no console or page errors');
      assert.deepEqual(narrow.foreignRequests, [], 'no request left the origin');
    }
    await second?.close();
  });

  for (const [width, tabOf] of [[1280, () => tab], [375, () => narrow]]) {
    it(`every step of every preset at ${width} × 800`, async () => {
      const { page } = tabOf();
      await page.setViewportSize({ width, height: 800 });
      const presets = await page.evaluate(() => Array.from(document.querySelectorAll('#preset option:not([disabled])'), (o) => o.value).filter(Boolean));
      const bad = [];
      let steps = 0;
      for (const preset of presets) {
        await openLab({ preset }, page);
        const walked = await page.evaluate(walkPresetInPage, preset);
        bad.push(...walked.bad);
        steps += walked.steps;
      }
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.ok(steps >= 180, `${steps} steps`);
      assert.deepEqual(bad, []);
    });
  }
});

// Wish (a): 003's "Apple … apple" as an example. The notes' numbers and sentence are read from the
// notes (../shared/seeds/003); the outputs from a float64 attention written here (W = I, no scaling:
// y_i = Σ_j softmax_j(x_i · x_j) x_j), the page's from the engine; the notes' sentences quote the engine.
describe("003's 'Apple … apple' example (issue 26, a wish)", () => {
  const SEED_003 = readFileSync(new URL('../../../shared/seeds/003_de08049c1f6dff4f.txt', import.meta.url), 'utf8');
  const attention64 = (rows, mask) => rows.map((xi, i) => {
    const scores = rows.map((xj, j) => (mask && j > i ? -Infinity : xi[0] * xj[0] + xi[1] * xj[1]));
    const top = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - top));
    const sum = e.reduce((a, b) => a + b, 0);
    return [0, 1].map((c) => rows.reduce((acc, xj, j) => acc + (e[j] / sum) * xj[c], 0));
  });
  const shown = () => tab.page.evaluate(() => {
    const v = globalThis.attentionLab.view;
    const table = (m) => document.querySelector(`td[data-matrix="${m}"]`).closest('table');
    const rows = (m) => Array.from(table(m).tBodies[0].rows, (tr) => [tr.cells[0].textContent.trim(), Array.from(tr.querySelectorAll('td[data-matrix]'), (td) => Number(td.querySelector('input')?.value ?? td.textContent))]);
    return { tokens: v.tokens, x: Array.from({ length: v.tokens.length }, (_, i) => Array.from(v.x.slice(i * 2, i * 2 + 2))),
      output: Array.from({ length: v.tokens.length }, (_, i) => Array.from(v.result.output.slice(i * 2, i * 2 + 2))),
      xTable: rows('x'), notes: document.getElementById('notes').textContent };
  });
  const fmt = (row) => `[${row.map((v) => Number(v.toPrecision(4))).join(', ')}]`;

  it("the notes' sentence and static vector [0.8, 0.2] for both occurrences; both outputs the same without positions, as the note says with the engine's numbers", async () => {
    const sentence = /\*\*"(Apple launched[^"]*)"\*\*/.exec(SEED_003)[1];
    const vector = /\*Apple\*, say\s+\$\[([\d.]+), ([\d.]+)\]\$/.exec(SEED_003).slice(1).map(Number);
    assert.deepEqual(vector, [0.8, 0.2]);
    await openLab({ preset: 'apple' });
    const page = await shown();
    assert.equal(page.tokens.join(' ').replace(' .', '.'), sentence);
    const first = page.tokens.indexOf('Apple');
    const last = page.tokens.lastIndexOf('apple');
    assert.ok(first >= 0 && last > first);
    for (const i of [first, last]) assert.deepEqual(page.x[i].map((v) => Math.fround(v)), vector.map(Math.fround), `x of ${page.tokens[i]}`);
    assert.deepEqual(page.xTable[last], ['apple', vector], 'X shows the static vector on the row of \'apple\'');
    const y = attention64(page.x, false);
    for (const i of [first, last]) for (const c of [0, 1]) assert.ok(Math.abs(page.output[i][c] - y[i][c]) < 1e-6, `output ${page.tokens[i]} ${c}`);
    assert.equal(fmt(y[first]), fmt(y[last]));
    assert.ok(page.notes.includes(`'Apple' becomes ${fmt(y[first])} and 'apple' becomes ${fmt(y[last])}`), page.notes);
    assert.ok(Math.abs(y[first][0] - 0.8) > 0.1, 'the contextual vector is not the static one');
  });

  it('the experiment the third note proposes (the causal mask) keeps the notes and says what to see: the two rows differ', async () => {
    await openLab({ preset: 'apple' });
    await lab2(() => tab.page.selectOption('#maskMode', 'causal'));
    const page = await shown();
    const y = attention64(page.x, true);
    const first = page.tokens.indexOf('Apple');
    const last = page.tokens.lastIndexOf('apple');
    for (const i of [first, last]) for (const c of [0, 1]) assert.ok(Math.abs(page.output[i][c] - y[i][c]) < 1e-6, `causal output ${page.tokens[i]} ${c}`);
    assert.deepEqual(y[first].map(Math.fround), [0.8, 0.2].map(Math.fround), 'the first sees only itself');
    assert.notEqual(fmt(y[first]), fmt(y[last]));
    const line = await tab.page.locator('#notes .experiment').textContent();
    assert.ok(line.includes(`stays ${fmt(y[first])}`) && line.includes(`becomes ${fmt(y[last])}`), line);
    assert.equal(await tab.page.locator('#notes li.stale').count(), 0, 'no note dimmed');
  });
});

// The fourth review's findings in this area (/work/briefs/review4/findings.md): 1, 9, 12, 14.
describe('review 4: what a first-time student read wrong', () => {
  it("finding 1: 000's third note blames no number on the notes that the notes do not write", async () => {
    const seed = readFileSync(new URL('../../../shared/seeds/000_5974fc8f6535fe8e.txt', import.meta.url), 'utf8');
    await openLab({ preset: 'money-bank-scaling' });
    const note = await tab.page.locator('#notes li').nth(2).textContent();
    for (const claimed of ['15.6', '1.8 × 10⁻⁷', '1.8e-7']) {
      assert.ok(!seed.includes(claimed), `the notes do not write ${claimed}`);
      assert.ok(!note.includes(claimed), `the note does not say they do: ${note}`);
    }
    for (const written of ['0.2', '0.8']) assert.ok(seed.includes(written) && note.includes(written), written);
  });

  it("finding 9: an unscaled step table says 'q·k (not scaled)', not 'q·k / 1' (en and hi)", async () => {
    await openLab({ preset: 'animal-it' });
    const header = () => tab.page.$$eval('#steps thead th', (ths) => ths[5].textContent);
    assert.equal(await header(), 'q·k (not scaled)');
    await tab.page.selectOption('#language', 'hi');
    await tab.page.waitForFunction(() => document.querySelectorAll('#steps thead th')[5].textContent !== 'q·k (not scaled)');
    assert.equal(await header(), 'q·k (scaling नहीं)');
    await tab.page.selectOption('#language', 'en');
    await tab.page.waitForFunction(() => document.querySelectorAll('#steps thead th')[5].textContent === 'q·k (not scaled)');
    await openLab({ preset: 'cat-sat' });
    assert.equal(await header(), 'q·k / √d_k = 2');
  });

  it('finding 12: where the digits are explained, trailing zeros are said to be left out', async () => {
    const text = await tab.page.evaluate(() => document.querySelector('[data-text="precision.float32"]')?.textContent ?? document.body.textContent);
    assert.match(text, /trailing zeros left out \(0\.0624 is 0\.06240/);
  });

  for (const width of [1280, 375]) {
    it(`finding 15 at ${width} × 800: the first screen points to the example's notes, one click away`, async () => {
      await tab.page.setViewportSize({ width, height: 800 });
      await openLab({ preset: 'money-bank-scaling' });
      await tab.page.evaluate(() => window.scrollTo(0, 0));
      const button = await tab.page.locator('#to-notes').boundingBox();
      assert.ok(button && button.y >= 0 && button.y + button.height <= 800 && button.x + button.width <= width, JSON.stringify(button));
      assert.equal(await tab.page.locator('#to-notes').textContent(), 'About this example ↓');
      await tab.page.click('#to-notes');
      await tab.page.waitForFunction(() => Math.abs(document.getElementById('notes-title').getBoundingClientRect().top) < 120);
      const note = await tab.page.locator('#notes li').first().boundingBox();
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      assert.ok(note.y > 0 && note.y < 800, 'the first note on screen');
    });
  }

  it("finding 10: the weights heatmap prints 0.4223 as the tables do, not '.4223'", async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await openLab({ preset: 'money-bank' });
    await tab.page.evaluate(() => {
      globalThis.canvasTexts = [];
      const fill = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) { globalThis.canvasTexts.push(String(text)); return fill.call(this, text, ...rest); };
    });
    await openLab({ preset: 'cat-sat' });
    await tab.page.locator('canvas').first().scrollIntoViewIfNeeded();
    await tab.page.waitForFunction(() => globalThis.canvasTexts.includes('0.4223'), null, { timeout: 10_000 });
    const texts = await tab.page.evaluate(() => globalThis.canvasTexts);
    await tab.page.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual(texts.filter((text) => /^-?\.\d/.test(text)), []);
  });

  it("finding 14: in Hindi the query-token heading and the step table's token header are Hindi", async () => {
    await tab.page.selectOption('#language', 'hi');
    await tab.page.waitForFunction(() => /[\u0900-\u097F]/.test(document.querySelector('#steps thead th').textContent));
    const [heading, token] = await tab.page.evaluate(() => [document.querySelector('[data-text="section.tokens"]')?.textContent, document.querySelector('#steps thead th').textContent]);
    await tab.page.selectOption('#language', 'en');
    await tab.page.waitForFunction(() => document.querySelector('#steps thead th').textContent === 'token');
    for (const text of [heading, token]) assert.match(text, /[\u0900-\u097F]/, text);
  });
});

// Wish (c): the gradient of one chosen weight in the Train section, from the engine's backward pass,
// checked against a central finite difference (L(w + h) − L(w − h)) / 2h computed here from the
// losses the engine's forward pass gives at w ± h; the sign sentence follows that difference's sign.
describe("one weight's gradient in Train (issue 26, a wish)", () => {
  it("W_q, head 1, row 'pronoun', column 1 of the first task: dLoss/dw agrees with the central difference, and the text says which way the weight goes", async () => {
    await tab.page.setViewportSize({ width: 1280, height: 800 });
    await openLab({ preset: 'cat-sat' });
    await tab.page.locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 30_000 });
    await tab.page.evaluate(() => { const d = document.getElementById('train-gradient'); d.open = false; d.open = true; });
    await tab.page.waitForFunction(() => document.querySelectorAll('#train-gradient-matrix option').length > 0);
    await tab.page.selectOption('#train-gradient-matrix', 'wq:0');
    await tab.page.selectOption('#train-gradient-row', { label: 'pronoun' });
    await tab.page.selectOption('#train-gradient-col', '0');
    await tab.page.click('#train-gradient-go');
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.gradient !== null, null, { timeout: 30_000 });
    const g = await tab.page.evaluate(() => globalThis.attentionLab.training.gradient);
    const difference = (g.plus - g.minus) / (2 * g.h);
    assert.ok(Math.abs(difference) > 1e-3, `a weight that matters: ${difference}`);
    assert.ok(Math.abs(g.gradient - difference) <= 2e-3 + 0.02 * Math.abs(difference), `backward ${g.gradient} vs central difference ${difference}`);
    const text = await tab.page.locator('#train-gradient-out').textContent();
    const four = (v) => String(Number(v.toPrecision(4)));
    const seven = (v) => String(Number(v.toPrecision(7)));  // the two losses: at 4 digits they would read the same
    assert.ok(text.includes(`dLoss/dw = ${four(g.gradient)}`), text);
    assert.ok(text.includes(`(${seven(g.plus)} − ${seven(g.minus)}) / 0.02 = ${four(difference)}`), text);
    assert.ok(text.includes(difference < 0 ? 'makes this weight larger' : 'makes this weight smaller'), text);
    assert.ok(text.includes("W_q, head 1, row pronoun, column 1"), text);
  });
});

// Wish (b): what to remember, one short panel per example on top of its notes: it fits one screen at
// 375 and 1280 px, and its only numbers are the engine's (the chosen token's largest weight, found
// here from the view's weights row; the names of the token and key beside it).
describe('what to remember, per example (issue 26, a wish)', () => {
  for (const width of [1280, 375]) {
    it(`every preset at ${width} × 800: one screen, numbers from the engine`, async () => {
      await tab.page.setViewportSize({ width, height: 800 });
      const presets = await tab.page.evaluate(() => Array.from(document.querySelectorAll('#preset option:not([disabled])'), (o) => o.value).filter(Boolean));
      const bad = [];
      for (const preset of presets) {
        await openLab({ preset });
        const got = await tab.page.evaluate(() => {
          const { view, state } = globalThis.attentionLab;
          const box = document.querySelector('#notes .remember');
          const i = state.selectedToken;
          const head = state.selectedHead === 'all' ? 0 : state.selectedHead;
          const row = Array.from(view.result.heads[head].weights.slice(i * view.m, (i + 1) * view.m));
          const top = Math.max(...row);
          return box && { text: box.textContent, height: box.getBoundingClientRect().height, top, token: view.tokens[i], key: view.keyTokens[row.indexOf(top)] };
        });
        if (!got) { bad.push(`${preset}: no panel`); continue; }
        if (got.height > 800) bad.push(`${preset}: ${Math.round(got.height)} px tall`);
        const weight = String(Number(got.top.toPrecision(4)));
        const numbers = got.text.replace(/W_[a-zA-Z]|d_k|√d_k/g, '').match(/\d+(?:\.\d+)?(?: × 10[⁻⁰-⁹]+)?/g) ?? [];
        const foreign = numbers.filter((n) => n !== weight);
        if (foreign.length) bad.push(`${preset}: numbers not from the engine: ${foreign.join(', ')}`);
        if (preset !== 'apple' && !(got.text.includes(weight) && got.text.includes(`'${got.token}'`) && got.text.includes(`'${got.key}'`))) bad.push(`${preset}: ${got.text} lacks '${got.token}' → '${got.key}' ${weight}`);
      }
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      assert.deepEqual(bad, []);
    });
  }
});
