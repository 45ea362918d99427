// Practice mode in headless Chromium. For every preset, every exercise of its sequence: the true
// value and one inside the tolerance are accepted, one outside is refused, each typical mistake is
// named when typed, and the three hints come in order. True values and mistakes are computed here
// from the page's inputs and parameters with the independent float64 reference (tests/web/reference.mjs).
// Also: answers that are not numbers, an exercise link written by "Make an exercise" (page, iframe,
// component), a practice-mode component beside a normal one, and axe-core in practice mode.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openBrowser, renderEverySection } from './browser.mjs';
import { hostSite } from './host-site.mjs';
import { referenceAttention } from '../web/reference.mjs';
import { PRESETS } from '../../web/src/state/presets.mjs';
import { launchPage } from '../../web/src/practice/scorm-package.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const hosting = hostSite();
const site = hosting.dir;

let browser;
let tab;
before(async () => {
  browser = await openBrowser({ dir: site });
  tab = await browser.newPage();
  await tab.page.goto(`${browser.url}lab/index.html`);
  await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
});
after(async () => {
  if (tab) {
    assert.deepEqual(tab.problems, [], 'no console or page errors');
    assert.deepEqual(tab.foreignRequests, [], 'no request left the origin');
  }
  await browser?.close();
  hosting.remove();
});

const linkTo = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;

async function openPractice(page, hash) {
  const before = await page.evaluate(() => globalThis.attentionLab.draws);
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForFunction((n) => globalThis.attentionLab.draws > n, before);
}

// The page's inputs and parameters through the float64 reference; `labId`: the id of a component
// holding the lab, or null for the page's own lab.
async function reference(page, labId = null) {
  const v = await page.evaluate((id) => {
    const { view, state, practice } = id ? document.getElementById(id).lab : globalThis.attentionLab;
    const arr = (a) => (a ? Array.from(a) : undefined);
    return {
      n: view.tokens.length, m: view.m, dModel: view.dModel, heads: view.heads, dK: view.dK, dV: view.dV,
      x: arr(view.x), wq: arr(view.weights.wq), wk: arr(view.weights.wk), wv: arr(view.weights.wv), wo: arr(view.weights.wo ?? undefined),
      scale: state.scaleMode === 'custom' ? state.scaleDivisor : state.scaleMode, mask: state.maskMode, preset: state.preset,
      cells: practice.exercises.map((e) => e.cell),
      blanks: practice.exercises.map((e) => e.blanks.map((b) => b.cell)),
    };
  }, labId);
  return { inputs: v, expected: referenceAttention(v) };
}

const allowance = (target) => Math.max(0.01 * Math.abs(target), 0.005);
const near = (values, targets) => values.every((value, k) => Math.abs(value - targets[k]) <= allowance(targets[k]));

// What the scores are divided by.
const divisorOf = (scale, dK) => (scale === 'sqrt_dk' ? Math.sqrt(dK) : scale === 'none' ? 1 : scale);

// The notes' slip (002, ../shared/seeds/): 'sat''s weights written 0.21, 0.21, 0.53; named as such
// while the lab shows cat-sat with the notes' own numbers (X as the notes write it, W = I).
const NOTES_SLIP = { query: 2, weights: [0.21, 0.21, 0.53] };
const notesNumbers = ({ preset, x, wq, n, dModel }) => preset === 'cat-sat' && n === 3 && dModel === 4
  && JSON.stringify(x) === JSON.stringify([1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1]) && wq.every((w, k) => w === (k % 5 === 0 ? 1 : 0));
const notesSlipOf = (inputs, i, keys) => (notesNumbers(inputs) && i === NOTES_SLIP.query ? { 'mistake.notesSlip': keys.map((j) => NOTES_SLIP.weights[j]) } : {});

// The true values of an exercise's blanks and the values of its typical mistakes (one per blank),
// from the reference's traces: { truths, mistakes: [[key, values]] (those not already correct), all }.
// a score divided by d_k, or by the 000 notes' √2 whatever d_k is (review 4, finding 11)
const wrongRoots = (score, dK) => ({ 'mistake.dividedByDk': [score / dK], ...(dK === 2 ? {} : { 'mistake.rootOfTwo': [score / Math.SQRT2] }) });

// z with one word's term alone, weight × value (review 4, finding 11): each word not masked whose value is not 0
function oneTermMistakes(h, i, m, v) {
  const out = {};
  for (let j = 0; j < m; j++) if (h.scaled[i * m + j] !== -Infinity && v(j) !== 0) out[`mistake.oneTerm#${j}`] = [h.weights[i * m + j] * v(j)];
  return out;
}

function truthAndMistakes({ inputs, expected }, { matrix, head, row: i, col }, blanks) {
  const { n, m, dModel, dK, dV, x, wq, wo, heads } = inputs;
  const h = expected.heads[head];
  const sum = (count, term) => { let s = 0; for (let t = 0; t < count; t++) s += term(t); return s; };
  const divisor = divisorOf(inputs.scale, dK);
  const live = (r) => Array.from({ length: m }, (_, j) => j).filter((j) => h.scaled[r * m + j] !== -Infinity);
  const softmaxAt = (row, r, j) => Math.exp(row[j]) / live(r).reduce((a, c) => a + Math.exp(row[c]), 0);
  const columnSoftmax = (j) => Math.exp(h.scaled[i * m + j]) / sum(n, (r) => (h.scaled[r * m + j] === -Infinity ? 0 : Math.exp(h.scaled[r * m + j])));
  const mistakes = {};
  let truths;
  switch (matrix) {
    case 'q':
      truths = [h.q[i * dK + col]];
      if (dK === dModel) mistakes['mistake.rowNotColumn'] = [sum(dModel, (t) => x[i * dModel + t] * (wq ? wq[(head * dModel + col) * dK + t] : t === col ? 1 : 0))];
      break;
    case 'scores':
      truths = [h.scores[i * m + col]];
      if (col < dK && dK <= m) mistakes['mistake.kNotTransposed'] = [sum(dK, (t) => h.q[i * dK + t] * h.k[t * dK + col])];
      if (i !== col) mistakes['mistake.wrongKeyRow'] = [sum(dK, (t) => h.q[i * dK + t] * h.k[i * dK + t])];
      mistakes['mistake.swapped'] = [sum(dK, (t) => h.q[col * dK + t] * h.k[i * dK + t])];
      break;
    case 'scaled':
      truths = [h.scaled[i * m + col]];
      mistakes['mistake.noScaling'] = [h.scores[i * m + col]];
      if (inputs.scale === 'sqrt_dk') Object.assign(mistakes, wrongRoots(h.scores[i * m + col], dK));
      break;
    case 'weights':
    case 'softmax': {
      const keys = blanks.map((b) => b.col);
      truths = keys.map((j) => h.weights[i * m + j]);
      mistakes['mistake.unnormalised'] = keys.map((j) => Math.exp(h.scaled[i * m + j]));
      mistakes['mistake.wrongAxis'] = keys.map(columnSoftmax);
      if (divisor !== 1) mistakes['mistake.noScaling'] = keys.map((j) => softmaxAt(Array.from(h.scores.subarray(i * m, (i + 1) * m)), i, j));
      Object.assign(mistakes, notesSlipOf(inputs, i, keys));
      break;
    }
    case 'z': {
      truths = [h.z[i * dV + col]];
      const v = (j) => h.v[j * dV + col];
      if (n === m) mistakes['mistake.wrongAxisSum'] = [sum(m, (j) => h.weights[j * m + i] * v(j))];
      mistakes['mistake.unnormalisedSum'] = [sum(m, (j) => (h.scaled[i * m + j] === -Infinity ? 0 : Math.exp(h.scaled[i * m + j])) * v(j))];
      const raw = Array.from(h.scores.subarray(i * m, (i + 1) * m));
      if (divisor !== 1) mistakes['mistake.noScaling'] = [sum(m, (j) => (h.scaled[i * m + j] === -Infinity ? 0 : softmaxAt(raw, i, j)) * v(j))];
      Object.assign(mistakes, oneTermMistakes(h, i, m, v));
      break;
    }
    case 'concat':
      truths = [expected.concat[i * heads * dV + col]];
      // every other head's z in the same place; the same key names them all
      for (let other = 0; other < heads; other++) {
        if (other !== Math.floor(col / dV)) mistakes[`mistake.otherHead#${other}`] = [expected.heads[other].z[i * dV + (col % dV)]];
      }
      break;
    case 'output':
      truths = [expected.output[i * dModel + col]];
      if (heads * dV === dModel) mistakes['mistake.rowNotColumn'] = [sum(dModel, (t) => expected.concat[i * dModel + t] * wo[col * dModel + t])];
      break;
    default:
      throw new Error(matrix);
  }
  const all = Object.entries(mistakes).filter(([, values]) => values.every(Number.isFinite));
  // only mistakes that are not already correct can be told apart
  return { truths, all, mistakes: all.filter(([, values]) => !near(values, truths)) };
}

// How many of a cell's typical mistakes give the true value or another mistake's value.
function blindOf(ref, cell, blanks = [cell]) {
  const { truths, all } = truthAndMistakes(ref, cell, blanks);
  const base = (key) => key.split('#')[0];
  return all.filter(([key, values]) => near(values, truths) || all.some(([other, v]) => base(other) !== base(key) && !near(v, truths) && near(values, v)));
}

// The columns of head h's W_q that hold one 1 and zeros: their q entry only copies a number of X.
function copyColumns({ inputs }, h) {
  const { dModel, dK, wq } = inputs;
  return Array.from({ length: dK }, (_, c) => c).filter((c) => {
    const column = Array.from({ length: dModel }, (_, t) => wq[(h * dModel + t) * dK + c]);
    return column.filter((w) => w !== 0).length === 1 && column.includes(1);
  });
}

// The fewest blind mistakes any default sequence (any query, head, key and columns) can have,
// found by trying every choice: the generator must reach it.
function fewestBlind(ref) {
  const { n, m, heads, dK, dV, dModel, wo, scale } = ref.inputs;
  const upTo = (count) => Array.from({ length: count }, (_, t) => t);
  const least = (cells) => Math.min(...cells.map((cell) => blindOf(ref, cell).length));
  let best = Infinity;
  for (const i of upTo(n)) {
    for (const h of upTo(heads)) {
      const scaled = ref.expected.heads[h].scaled;
      const unmasked = upTo(m).filter((j) => scaled[i * m + j] !== -Infinity);
      const keys = unmasked.filter((j) => j !== i || m === 1);
      if (!keys.length) continue;
      const asked = upTo(dK).filter((col) => !copyColumns(ref, h).includes(col));  // a copy of X is never asked
      let total = asked.length ? least(asked.map((col) => ({ matrix: 'q', head: h, row: i, col }))) : 0;
      total += Math.min(...keys.map((j) => blindOf(ref, { matrix: 'scores', head: h, row: i, col: j }).length +
        (scale === 'none' ? 0 : blindOf(ref, { matrix: 'scaled', head: h, row: i, col: j }).length)));
      total += blindOf(ref, { matrix: 'softmax', head: h, row: i, col: 0 }, unmasked.map((j) => ({ col: j }))).length;
      total += least(upTo(dV).map((col) => ({ matrix: 'z', head: h, row: i, col })));
      if (heads > 1) {
        const other = h === 0 ? 1 : 0;
        total += least(upTo(dV).map((c) => ({ matrix: 'concat', head: other, row: i, col: other * dV + c })));
      }
      if (wo) total += least(upTo(dModel).map((col) => ({ matrix: 'output', head: 0, row: i, col })));
      best = Math.min(best, total);
    }
  }
  return best;
}

// The cells that would give exercise `cell` away while it is open: the brief's list, written here
// from the formulas (not from blanks.mjs): keys "matrix:head:row:col", "sum" for a weights row's Σ.
function giveAways({ inputs }, { matrix, head: h, row: i, col }) {
  const { m, dV, dModel, wo } = inputs;
  const keys = [];
  const row = (name, head, cols) => cols.forEach((c) => keys.push(`${name}:${head}:${i}:${c}`));
  const upTo = (count, from = 0) => Array.from({ length: count }, (_, t) => from + t);
  const output = (cols) => row('output', '', wo ? upTo(dModel) : cols);
  const afterWeights = () => { row('z', h, upTo(dV)); row('concat', '', upTo(dV, h * dV)); output(upTo(dV, h * dV)); };
  const weightsRow = () => { row('weights', h, upTo(m)); row('weights', h, ['sum']); };
  // q's own key row: the same numbers when W_q = W_k (the notes' W = I), in self-attention
  if (matrix === 'q') { row('k', h, upTo(inputs.dK)); row('scores', h, upTo(m)); row('scaled', h, upTo(m)); weightsRow(); afterWeights(); }
  // the key's score with the query: the same number when Q = K (W = I), in self-attention
  const mirror = (names) => { if (col !== i) names.forEach((name) => keys.push(`${name}:${h}:${col}:${i}`)); };
  if (matrix === 'scores') { row('scaled', h, [col]); mirror(['scores', 'scaled']); weightsRow(); afterWeights(); }
  if (matrix === 'scaled') { mirror(['scaled']); weightsRow(); afterWeights(); }
  if (matrix === 'weights') { weightsRow(); afterWeights(); }
  if (matrix === 'softmax') { row('weights', h, ['sum']); afterWeights(); }
  if (matrix === 'z') { row('concat', '', [h * dV + col]); output([h * dV + col]); }
  if (matrix === 'concat') output([col]);
  return keys;
}

// The head part of a cell's table: none for the concatenation and the output, shared by the heads.
const tableHead = (cell) => (cell.matrix === 'concat' || cell.matrix === 'output' ? '' : cell.head);

// Cells showing a number a blank would accept: anywhere in its own table, and where its number is
// carried on (q: its token's K and V rows; z: the concatenation, and the output without W_O, else
// its token's output row; a concatenation entry: the output likewise), written here from the
// reference, not from blanks.mjs.
// None for a blank that 0 would pass. `slack` widens (> 1) or narrows (< 1) the allowance, so that
// float32 against float64 at the edge cannot decide a test.
function lookalikeKeys({ inputs, expected }, blanks, truths, slack = 1) {
  const { n, m, dK, dV, heads } = inputs;
  const tables = [];
  expected.heads.forEach((h, head) => {
    for (const [name, rows, cols] of [['q', n, dK], ['k', m, dK], ['v', m, dV], ['scores', n, m], ['scaled', n, m], ['weights', n, m], ['z', n, dV]]) tables.push([name, String(head), rows, cols, h[name]]);
  });
  tables.push(['concat', '', n, heads * dV, expected.concat], ['output', '', n, expected.output.length / n, expected.output]);
  const keys = [];
  blanks.forEach((blank, k) => {
    const truth = truths[k];
    if (Math.abs(truth) <= allowance(truth)) return;
    const home = `${blank.matrix}:${tableHead(blank)}`;
    // q: the token's K and V rows; z: all of the concatenation, and of the output without W_O (its token's row with it)
    const whole = !inputs.wo;
    const rowsOf = { q: ['k', 'v'], z: whole ? [] : ['output'], concat: whole ? [] : ['output'] }[blank.matrix] ?? [];
    const wholesOf = { z: ['concat', ...(whole ? ['output'] : [])], concat: whole ? ['output'] : [] }[blank.matrix] ?? [];
    for (const [name, head, rows, cols, values] of tables) {
      const sameHead = head === '' || head === String(blank.head);
      const own = `${name}:${head}` === home || (wholesOf.includes(name) && sameHead);
      const along = rowsOf.includes(name) && sameHead;
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          if (!own && !(along && r === blank.row)) continue;
          if (Math.abs(values[r * cols + c] - truth) <= slack * allowance(truth)) keys.push(`${name}:${head}:${r}:${c}`);
        }
      }
    }
  });
  return keys;
}

// What every computed cell of the tables on screen shows: "matrix:head:row:col" → its text, or
// "input" for a blank; a weights row's Σ as "weights:head:row:sum".
function shownCells(page) {
  return page.evaluate(() => {
    const out = {};
    for (const td of document.querySelectorAll('td[data-matrix]')) {
      if (!td.getClientRects().length) continue;
      const { matrix, head = '', row, col } = td.dataset;
      out[`${matrix}:${head}:${row}:${col}`] = td.querySelector('input') ? 'input' : td.textContent;
      const sum = td.parentElement.querySelector('td.row-sum');
      if (sum) out[`${matrix}:${head}:${row}:sum`] = sum.textContent;
    }
    return out;
  });
}

// Types answers into the blanks of exercise `index` (one value, or one per blank) and presses Enter
// in the last; returns the verdict shown on its card.
async function answer(index, text, page = tab.page) {
  const texts = Array.isArray(text) ? text : [text];
  const inputs = page.locator(`.practice-input[data-exercise="${index}"]`);
  const count = await inputs.count();
  for (let k = 0; k < count; k++) await inputs.nth(k).fill(String(texts[Math.min(k, texts.length - 1)]));
  await inputs.nth(count - 1).press('Enter');
  return page.locator(`.exercise[data-index="${index}"] .feedback`).evaluate((p) => ({ verdict: p.dataset.verdict, mistakes: p.dataset.mistakes.split(' ').filter(Boolean), text: p.textContent }));
}

// As answer(), in one round trip: what Playwright's fill and press do (each blank's value set with
// an input event, Enter pressed in the last), done in the page; for the walk over every exercise,
// where typing each blank key by key made the test minutes long (answer() keeps real typing elsewhere).
function answerInPage(index, text) {
  return answersInPage([[index, text]]).then(([verdict]) => verdict);
}

// answerInPage for each [index, text] of `answers` in turn, all in one round trip; their verdicts.
function answersInPage(answers) {
  const list = answers.map(([index, text]) => ({ index, texts: (Array.isArray(text) ? text : [text]).map(String) }));
  return tab.page.evaluate((list) => list.map(({ index, texts }) => {
    const inputs = [...document.querySelectorAll(`.practice-input[data-exercise="${index}"]`)];
    inputs.forEach((input, k) => {
      input.focus();
      input.value = texts[Math.min(k, texts.length - 1)];
      input.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
    });
    const last = inputs.at(-1);
    last.focus();
    last.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true }));
    const p = document.querySelector(`.exercise[data-index="${index}"] .feedback`);
    return { verdict: p.dataset.verdict, mistakes: p.dataset.mistakes.split(' ').filter(Boolean), text: p.textContent };
  }), list);
}

// A value just outside the tolerance (1.2 × the allowance, either side), or further out where that
// would match a mistake.
function wrongValue(truth, mistakes) {
  const clear = (candidate) => mistakes.every(([, value]) => Math.abs(candidate - value) > allowance(value));
  for (const candidate of [truth + 1.2 * allowance(truth), truth - 1.2 * allowance(truth)]) if (clear(candidate)) return candidate;
  for (let k = 3; ; k += 2) {
    const candidate = truth + k * allowance(truth) + 0.37 * k;
    if (clear(candidate)) return candidate;
  }
}

describe('every preset, every exercise', () => {
  for (const preset of PRESETS) {
    it(`${preset.id}: blanks in the tables; true value and inside accepted, outside refused, mistakes named, hints in order, nothing given away`, async () => {
      await openPractice(tab.page, linkTo({ preset: preset.id, practice: {} }));
      const ref = await reference(tab.page);
      const kinds = ref.inputs.cells.map((c) => c.matrix);
      // a q entry first, unless every column of W_q only copies a number of X (W = I: issue 26, point 8)
      const copies = Array.from({ length: ref.inputs.heads }, (_, h) => copyColumns(ref, h));
      const copyOnly = copies.every((columns) => columns.length === ref.inputs.dK);
      if (copyOnly) assert.equal(kinds[0], 'scores', 'with W = I the sequence starts with a score');
      else assert.deepEqual(kinds.slice(0, 2), ['q', 'scores'], 'the sequence starts with a q entry and a score');
      if (!copyOnly) assert.ok(!copies[ref.inputs.cells[0].head].includes(ref.inputs.cells[0].col), 'the q entry asked is not a copy of X');
      assert.ok(kinds.includes('softmax') && kinds.includes('z'));
      if (preset.id === 'telescope') assert.deepEqual(kinds.slice(-2), ['concat', 'output']);
      let namedMistakes = 0;
      let blindCount = 0;
      for (const [index, cell] of ref.inputs.cells.entries()) {
        const exercise = await openExercise({ preset, ref, kinds, index, cell });
        await assertNothingGivenAway(exercise);
        blindCount += await assertMistakesOffered(exercise);
        namedMistakes += await assertVerdicts(exercise);
        await assertHintsInOrder(exercise);
        await assertAnswered(exercise);
      }
      assert.ok(namedMistakes >= 3, `${preset.id}: ${namedMistakes} mistakes named`);
      // the generator chose a query, head, key and columns where as few typical mistakes as can be
      // give the true value or another's (none, unless every choice has some: W = I makes q = k)
      assert.equal(blindCount, fewestBlind(ref), `${preset.id}: the fewest mistakes that cannot be told apart`);
      await assertResultsThenFirstTries(preset, ref, kinds);
    });
  }
});

// One exercise of the walk through a preset: open once the ones before are answered, its blanks
// in their cells; its card, inputs, name in messages, blanks, true values and typical mistakes.
async function openExercise({ preset, ref, kinds, index, cell }) {
  const card = tab.page.locator(`.exercise[data-index="${index}"]`);
  const inputs = tab.page.locator(`.practice-input[data-exercise="${index}"]`);
  const what = `${preset.id} ${cell.matrix}[${cell.head}][${cell.row}][${cell.col}]`;
  // (read in one round trip: this card's status, the next card's and its first blank's, and where the blanks are)
  const seen = await tab.page.evaluate((k) => ({
    status: document.querySelector(`.exercise[data-index="${k}"]`).dataset.status,
    next: document.querySelector(`.exercise[data-index="${k + 1}"]`)?.dataset.status,
    nextDisabled: document.querySelector(`.practice-input[data-exercise="${k + 1}"]`)?.disabled,
    places: [...document.querySelectorAll(`.practice-input[data-exercise="${k}"]`)].map((input) => {
      const td = input.closest('td[data-matrix]');
      return `${td.dataset.matrix}:${td.dataset.head ?? ''}:${td.dataset.row}:${td.dataset.col}`;
    }),
  }), index);
  assert.equal(seen.status, 'open', `${what}: open once the ones before are answered`);
  if (index + 1 < kinds.length) {
    assert.equal(seen.next, 'locked');
    assert.equal(seen.nextDisabled, true, 'the next blank waits');
  }
  // the blanks are inputs in the lab's own tables, in their cells
  const blanks = ref.inputs.blanks[index];
  const { places } = seen;
  const table = (b) => (b.matrix === 'concat' || b.matrix === 'output' ? '' : b.head);
  assert.deepEqual(places, blanks.map((b) => `${b.matrix}:${table(b)}:${b.row}:${b.col}`), `${what}: blanks in place`);
  if (cell.matrix === 'softmax') {
    const scaled = ref.expected.heads[cell.head].scaled;
    const unmasked = Array.from({ length: ref.inputs.m }, (_, j) => scaled[cell.row * ref.inputs.m + j]).filter((s) => s !== -Infinity).length;
    assert.equal(blanks.length, unmasked, `${what}: a blank for every weight of the row that is not masked`);
  }
  const { truths, mistakes } = truthAndMistakes(ref, cell, blanks);
  return { ref, cell, index, blanks, card, inputs, what, truths, mistakes };
}

async function assertNothingGivenAway({ ref, cell, index, blanks, what, truths }) {
  // nothing on screen gives it away: the cells its formulas say, and a number near a blank
  // that the blank would accept (unless the exercise is made from it)
  const shown = await shownCells(tab.page);
  for (const key of giveAways(ref, cell)) {
    if (!(key in shown)) continue;
    assert.ok(shown[key] === '?' || shown[key] === 'input', `${what}: ${key} shows '${shown[key]}' before it is answered`);
  }
  const sourceKeys = new Set(await tab.page.evaluate((k) => globalThis.attentionLab.practice.exercises[k].sourceCells
    .map(({ matrix, head, row, col }) => `${matrix}:${matrix === 'concat' || matrix === 'output' ? '' : head ?? ''}:${row}:${col}`), index));
  for (const key of lookalikeKeys(ref, blanks, truths, 0.99)) {
    if (!(key in shown) || sourceKeys.has(key)) continue;
    assert.ok(shown[key] === '?' || shown[key] === 'input', `${what}: ${key} shows '${shown[key]}', which the blank would accept`);
  }
}

// The page offers the mistakes that can be told apart, and names those that cannot; returns how many cannot.
async function assertMistakesOffered({ ref, cell, index, blanks, what, mistakes }) {
  // the page offers exactly the mistakes that can be told from the true value
  // (the mistakes offered, those listed as not told apart and the card's note: one round trip)
  const { offered, listed, blindNote } = await tab.page.evaluate((k) => {
    const exercise = globalThis.attentionLab.practice.exercises[k];
    return { offered: exercise.mistakes.map((m) => m.key), listed: exercise.blind.map((m) => m.key),
      blindNote: document.querySelector(`.exercise[data-index="${k}"] .blind`).textContent };
  }, index);
  assert.deepEqual([...offered].sort(), mistakes.map(([key]) => key.split('#')[0]).sort(), `${what}: mistakes offered`);
  // and says which cannot be told apart here (the same value as the truth or as another mistake)
  const blind = blindOf(ref, cell, blanks);
  assert.deepEqual([...new Set(listed)].sort(), [...new Set(blind.map(([key]) => key.split('#')[0]))].sort(), `${what}: mistakes that cannot be told apart`);
  assert.equal(Boolean(blindNote), blind.length > 0, `${what}: the card says so only when there are some`);
  return blind.length;
}

// Outside the tolerance refused, each typical mistake named, a row partly right counted; returns the mistakes named.
async function assertVerdicts({ index, inputs, what, truths, mistakes }) {
  let named = 0;
  const outsideValues = truths.map((truth) => wrongValue(truth, mistakes.map(([key, values]) => [key, values[0]])));
  // one weight of the row wrong: the row is not right, and the card says how many are
  const partlyValues = truths.map((truth, k) => (k === 0 ? wrongValue(truth, []) : truth));
  // typed in turn, in one round trip: outside the tolerance, each mistake, the row partly right
  const [outside, ...got] = await answersInPage([[index, outsideValues], ...mistakes.map(([, values]) => [index, values.map(String)]),
    ...(truths.length > 1 ? [[index, partlyValues]] : [])]);
  assert.equal(outside.verdict, 'wrong', `${what}: outside the tolerance`);
  assert.match(outside.text, /^Not quite/);
  for (const [k, [key, values]] of mistakes.entries()) {
    assert.equal(got[k].verdict, 'mistake', `${what}: ${key} (${values}) typed`);
    assert.ok(got[k].mistakes.includes(key.split('#')[0]), `${what}: ${key} named, got ${got[k].mistakes}`);
    named++;
  }
  if (truths.length > 1) {
    const partly = got.at(-1);
    assert.equal(partly.verdict, 'wrong');
    assert.match(partly.text, new RegExp(`${truths.length - 1} of ${truths.length} weights are right`));
    assert.deepEqual(await inputs.evaluateAll((list) => list.slice(0, 2).map((input) => input.getAttribute('aria-invalid'))), ['true', 'false']);
  }
  return named;
}

// The three hints come in order; the first lights its own source cells. The button is clicked in
// the page, three times in one round trip, each time once it is on screen and nothing covers its
// centre (what Playwright's click checks before it clicks: the walk over every exercise made 3
// clicks a round trip each, and their waits, a third of the test's time; real clicks on the hint
// button stay in "getting around").
async function assertHintsInOrder({ index, what }) {
  const seen = await tab.page.evaluate(async (k) => {
    const card = document.querySelector(`.exercise[data-index="${k}"]`);
    const button = card.querySelector('.hint-button');
    const settled = async () => {
      while (!globalThis.attentionLab.idle) await new Promise((done) => setTimeout(done, 10));
      await new Promise((done) => requestAnimationFrame(done));
    };
    const steps = [];
    for (let level = 1; level <= 3; level++) {
      button.scrollIntoView({ block: 'center' });
      const box = button.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      const clickable = box.width > 0 && !button.disabled && (hit === button || button.contains(hit));
      button.click();
      await settled();
      const levels = [...card.querySelectorAll('.hints > li')].map((li) => Number(li.dataset.level));
      const lit = level > 1 ? [] : [...document.querySelectorAll('td.practice-source')].filter((td) => td.getClientRects().length)
        .map(({ dataset: { matrix, head = '', row, col } }) => `${matrix}:${head}:${row}:${col}`);
      steps.push({ clickable, levels, lit });
    }
    return {
      steps,
      sources: globalThis.attentionLab.practice.exercises[k].sourceCells.map(({ matrix, head, row, col }) => `${matrix}:${head ?? ''}:${row}:${col}`),
      hints: [...card.querySelectorAll('.hints > li')].map((li) => li.textContent),
      arithmetic: card.querySelectorAll('.hints > li[data-level="3"] .explain-lines li').length,
    };
  }, index);
  seen.steps.forEach(({ clickable, levels }, l) => {
    assert.ok(clickable, `${what}: the hint button is on screen and not covered before hint ${l + 1}`);
    assert.deepEqual(levels, Array.from({ length: l + 1 }, (_, j) => j + 1), `${what}: hints in order`);
  });
  // hint 1 lights its own source cells in the tables themselves (a closed block of parameters aside)
  const shownSources = seen.sources.filter((key) => seen.steps[0].lit.includes(key) && !/^(wq|wo):/.test(key));
  assert.ok(shownSources.length >= 1, `${what}: hint 1 highlights its own source cells in the tables on screen (${seen.sources.slice(0, 3)}…)`);
  assert.match(seen.hints[0], /comes from the highlighted cells/);
  assert.match(seen.hints[1], /=/, `${what}: hint 2 is a formula`);
  assert.ok(seen.arithmetic >= 1, `${what}: hint 3 is the arithmetic`);
}

const SUPERSCRIPT = { '⁻': '-', '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9' };
// a shown number: plain, or "m × 10ⁿ" with a superscript exponent
function readShown(text) {
  const power = /^(-?[\d.]+)\s*×\s*10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/.exec(text.trim());
  if (!power) return Number(text);
  return Number(power[1]) * 10 ** Number([...power[2]].map((c) => SUPERSCRIPT[c]).join(''));
}

// Inside the tolerance accepted; answered, the blank keeps its value and what it hid shows its numbers.
async function assertAnswered({ ref, cell, index, card, inputs, what, truths }) {
  const inside = await answerInPage(index, truths.map((truth) => String(truth + 0.9 * allowance(truth))));
  assert.equal(inside.verdict, 'correct', `${what}: inside the tolerance (true ${truths})`);
  // answered: the value stays, with nothing left to check; a wrong value typed over it changes nothing
  // (read in one round trip; hidden as Playwright's isHidden() says: not there, no box, or visibility: hidden)
  const state = await card.evaluate((element) => {
    const hidden = (selector) => {
      const found = element.querySelector(selector);
      const box = found?.getBoundingClientRect();
      return !found || !box.width || !box.height || getComputedStyle(found).visibility === 'hidden';
    };
    return { readOnly: element.ownerDocument.querySelector(`.practice-input[data-exercise="${element.dataset.index}"]`).readOnly,
      check: hidden('[data-role="check"]'), reveal: hidden('.reveal-button'), hint: hidden('.hint-button') };
  });
  assert.equal(state.readOnly, true, `${what}: read-only once right`);
  assert.equal(state.check, true);
  assert.equal(state.reveal, true);
  assert.equal(state.hint, true, `${what}: no more hints once answered`);
  await inputs.last().press('Enter');
  const pressed = await card.evaluate((element) => ({ verdict: element.querySelector('.feedback').dataset.verdict,
    values: [...element.ownerDocument.querySelectorAll(`.practice-input[data-exercise="${element.dataset.index}"]`)].map((input) => input.value) }));
  assert.equal(pressed.verdict, 'correct', `${what}: still correct`);
  // a tiny value shows as "1.754 × 10⁻⁷" (the lab's format for numbers a student writes that way)
  const revealed = pressed.values.map(readShown);
  // at the lab's precision (4 significant digits by default, issue 26): within half a unit of the 4th digit
  const halfUnit = (v) => (v === 0 ? 1e-9 : 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(v))) - 3) * (1 + 1e-6));
  revealed.forEach((value, k) => assert.ok(Math.abs(value - truths[k]) <= halfUnit(truths[k]), `${what}: shows the true value (${value} vs ${truths[k]})`));
  // once answered, what it hid shows its numbers (unless a later exercise still hides it)
  const after = await shownCells(tab.page);
  const stillHidden = new Set(ref.inputs.cells.slice(index + 1).flatMap((later, k) => [...giveAways(ref, later),
    ...lookalikeKeys(ref, ref.inputs.blanks[index + 1 + k], truthAndMistakes(ref, later, ref.inputs.blanks[index + 1 + k]).truths, 1.01)]));
  for (const key of giveAways(ref, cell)) {
    if (key in after && !stillHidden.has(key)) assert.ok(after[key] === 'input' || /^[-−]?\d|∞/.test(after[key]), `${what}: ${key} shows its number once answered, got '${after[key]}'`);
  }
}

// The score after the walk, then the same exercises afresh, each right at the first try.
async function assertResultsThenFirstTries(preset, ref, kinds) {
  const results = await tab.page.evaluate(() => globalThis.attentionLab.practice.results);
  assert.equal(results.correct, kinds.length);
  assert.equal(results.hints, 3 * kinds.length);
  assert.equal(await tab.page.locator('[data-role="score"]').textContent(), `${kinds.length}/${kinds.length} correct, ${3 * kinds.length} hints`);
  assert.equal(await tab.page.locator('.practice progress').evaluate((p) => p.value), kinds.length);
  // the same exercises afresh (the page loaded again), each answered with its true value (to 8 digits) at the first try
  await tab.page.reload();
  await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
  const truthsOf = ref.inputs.cells.map((cell, index) => truthAndMistakes(ref, cell, ref.inputs.blanks[index]).truths);
  const exact = await answersInPage(truthsOf.map((truths, index) => [index, truths.map((truth) => truth.toPrecision(8))]));
  ref.inputs.cells.forEach((cell, index) => assert.equal(exact[index].verdict, 'correct', `${preset.id} ${cell.matrix}: the true value ${truthsOf[index]}`));
  assert.equal((await tab.page.evaluate(() => globalThis.attentionLab.practice.results)).correct, kinds.length);
}

describe('answers that are not numbers', () => {
  it('get a message about the format, never a verdict; fractions and the Unicode minus are read', async () => {
    await openPractice(tab.page, linkTo({ preset: 'cat-sat', practice: {} }));
    const ref = await reference(tab.page);
    // W = I: no q entry is asked (it would copy X); the sequence starts with a score and its scaling
    const [score] = ref.inputs.cells.map((cell, k) => truthAndMistakes(ref, cell, ref.inputs.blanks[k]).truths[0]);
    assert.deepEqual(ref.inputs.cells.slice(0, 2).map((cell) => cell.matrix), ['scores', 'scaled']);
    // with W = I and x of 0s and 1s, the score is a whole number (the notes' 002)
    assert.ok(Number.isInteger(score) && score > 0, `${score}`);
    for (const text of ['abc', '', '3e', '1,000', '42%', '1/0']) {
      const got = await answer(0, text);
      assert.equal(got.verdict, 'format', `'${text}'`);
      assert.equal(await tab.page.locator('.exercise[data-index="0"]').getAttribute('data-status'), 'open');
    }
    assert.equal((await answer(0, `−${score + 1}`)).verdict, 'wrong');
    assert.equal((await answer(0, `${2 * score},0/2`)).verdict, 'correct');
    // the scaled score divided by d_k = 4 instead of √4, as a fraction, is a named mistake
    assert.deepEqual((await answer(1, `${score}/4`)).mistakes, ['mistake.dividedByDk']);
    assert.equal((await answer(1, `+${score} / 2`)).verdict, 'correct');
    await tab.page.waitForFunction(() => /^Correct/.test(document.querySelector('[data-role="announce"]').textContent));
  });

  it('try another draws new whole-number inputs from a seed, and the exercises follow them', async () => {
    await openPractice(tab.page, linkTo({ preset: 'action', practice: {} }));
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.check('[data-role="integer"]');
    await tab.page.click('[data-role="another"]');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    const state = await tab.page.evaluate(() => globalThis.attentionLab.state);
    assert.deepEqual(state.practice, { seed: 1, integer: true });
    assert.ok(Object.values(state.xEdits).every(Number.isInteger));
    const ref = await reference(tab.page);
    assert.ok(ref.inputs.x.every(Number.isInteger) && ref.inputs.wq.every(Number.isInteger), 'whole numbers, to work by hand');
    const [truth] = truthAndMistakes(ref, ref.inputs.cells[0], ref.inputs.blanks[0]).truths;
    assert.ok(Number.isInteger(truth));
    assert.equal((await answer(0, String(truth))).verdict, 'correct');
    assert.match(await tab.page.locator('[data-role="score"]').textContent(), new RegExp(`^1/${ref.inputs.cells.length} correct, 0 hints$`));
  });
});

describe('Make an exercise', () => {
  writtenLinkTests();
  otherMakeExerciseTests();
});

// the link, iframe and component snippet written, opened
function writtenLinkTests() {
  it('writes a link, an iframe and a component snippet that open exactly that exercise', async () => {
    await openPractice(tab.page, linkTo({ preset: 'kids-lions', practice: {} }));
    await tab.page.click('[data-role="teacher"]');
    const field = (name) => tab.page.locator(`.teacher [data-field="${name}"]`);
    await field('query').selectOption('9');    // 'they'
    await field('key').selectOption('1');      // 'kids'
    await field('column').fill('3');
    await field('relative').fill('2');
    await field('absolute').fill('0,01');
    await field('hints').uncheck();
    for (const kind of ['q', 'scaled']) await tab.page.uncheck(`.teacher input[value="${kind}"]`);
    await tab.page.click('[data-role="write"]');
    const link = await tab.page.locator('.teacher code').nth(0).textContent();
    const iframe = await tab.page.locator('.teacher code').nth(1).textContent();
    const component = await tab.page.locator('.teacher code').nth(2).textContent();
    const want = [
      { matrix: 'scores', head: 0, row: 9, col: 1 },
      { matrix: 'softmax', head: 0, row: 9, col: 0 },
      { matrix: 'z', head: 0, row: 9, col: 2 },
    ];

    const opened = await browser.newPage();
    await opened.page.goto(link);
    await opened.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const read = (page) => page.evaluate(() => ({
      cells: globalThis.attentionLab.practice.exercises.map((e) => e.cell),
      practice: globalThis.attentionLab.state.practice,
      labels: globalThis.attentionLab.practice.exercises.map((e, k) => document.querySelector(`.practice-input[data-exercise="${k}"]`).getAttribute('aria-label')),
      hintButtons: [...document.querySelectorAll('.exercise .hint-button')].filter((b) => !b.hidden).length,
      tolerance: document.querySelector('.tolerance').textContent,
    }));
    const fromLink = await read(opened.page);
    assert.deepEqual(fromLink.cells, want);
    assert.deepEqual(fromLink.practice, { cells: want, relative: 0.02, absolute: 0.01, hints: false });
    assert.equal(fromLink.labels[0], "score of 'they' with 'kids', head 1");
    assert.match(fromLink.labels[1], /^attention weight of 'they' on '[^']+', head 1$/);
    assert.equal(fromLink.labels[2], "z of 'they', column 3, head 1");
    assert.equal(fromLink.hintButtons, 0);
    assert.match(fromLink.tolerance, /within 2 % of the true value or 0\.01/);
    // the link round-trips: the page writes the same state back into its address
    assert.equal(new URL(opened.page.url()).hash, new URL(link).hash);
    assert.deepEqual(opened.problems, []);
    await opened.page.close();

    const src = iframe.match(/src="([^"]+)"/)[1];
    assert.match(src, /embed\.html\?mode=practice#lab=/);
    const embed = await browser.newPage();
    await embed.page.goto(src);
    await embed.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.deepEqual((await read(embed.page)).cells, want);
    assert.equal(await embed.page.locator('.mode-switch').isHidden(), true);
    assert.equal(await embed.page.locator('[data-view="steps"]').isHidden(), true, 'no table gives the answers away');
    await embed.page.close();

    const attribute = component.match(/<attention-lab state="(lab=[^"]+)"><\/attention-lab>/)[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    assert.deepEqual(JSON.parse(decodeURIComponent(attribute.slice(4))).practice.cells, want);
    const bad = await tab.page.evaluate(() => {
      const input = document.querySelector('.teacher [data-field="relative"]');
      input.value = 'lots';
      document.querySelector('[data-role="write"]').click();
      return document.querySelector('.teacher-problem').textContent;
    });
    assert.match(bad, /Tolerance, relative \(%\) must be a number from 0 to 100; got 'lots'/);
    assert.equal(await tab.page.locator('.teacher-outputs').isHidden(), true, 'no stale link beside the message');
  });
}

// links written on another head's tab or the reader's own sentence, unknown keys, the mode switch
function otherMakeExerciseTests() {
  it("a link written while another head's tab is open opens on the tab of its blanks", async () => {
    await openPractice(tab.page, linkTo({ preset: 'telescope', practice: {} }));
    await tab.page.click('#tab-1');  // Head 2 on screen
    await tab.page.waitForFunction(() => globalThis.attentionLab.state.selectedHead === 1);
    if (await tab.page.locator('.teacher').isHidden()) await tab.page.click('[data-role="teacher"]');
    const field = (name) => tab.page.locator(`.teacher [data-field="${name}"]`);
    await field('head').selectOption('0');
    await tab.page.click('[data-role="write"]');
    const link = await tab.page.locator('.teacher code').nth(0).textContent();
    const opened = await browser.newPage();
    await opened.page.goto(link);
    await opened.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
    const seen = await opened.page.evaluate(() => ({
      head: globalThis.attentionLab.state.selectedHead,
      first: globalThis.attentionLab.practice.exercises[0].cell.head,
      visible: document.querySelector('.practice-input[data-exercise="0"]').getClientRects().length > 0,
    }));
    assert.deepEqual(seen, { head: 0, first: 0, visible: true });
    assert.deepEqual(opened.problems, []);
    await opened.page.close();
    await tab.page.click('[data-role="teacher"]');  // closed again
  });

  it('works on the reader\'s own sentence: the exercises follow it, and so does the link', async () => {
    await openPractice(tab.page, linkTo({ preset: 'money-bank-scaling', practice: {} }));
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.fill('#sentence', 'the river bank flooded');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    const labels = await tab.page.locator('.exercises .step-label').allTextContents();
    assert.match(labels[1], /score of '(the|river|bank|flooded)' with '(the|river|bank|flooded)'/);
    if (await tab.page.locator('.teacher').isHidden()) await tab.page.click('[data-role="teacher"]');
    await tab.page.locator('.teacher [data-field="query"]').selectOption('2');  // 'bank'
    await tab.page.locator('.teacher [data-field="key"]').selectOption('1');    // 'river'
    await tab.page.locator('.teacher [data-field="relative"]').fill('1');
    for (const kind of ['q', 'scaled']) await tab.page.check(`.teacher input[value="${kind}"]`);
    await tab.page.click('[data-role="write"]');
    const link = await tab.page.locator('.teacher code').first().textContent();
    const opened = await browser.newPage();
    await opened.page.goto(link);
    await opened.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const state = await opened.page.evaluate(() => globalThis.attentionLab.state);
    assert.equal(state.sentence, 'the river bank flooded');
    const heading = await opened.page.locator('.exercise[data-index="1"] h3').textContent();
    assert.equal(heading, "Step 2 of 5: score of 'bank' with 'river', head 1");
    // its true value, from the reference: q·k with W = I is x_bank · x_river
    const ref = await reference(opened.page);
    const [truth] = truthAndMistakes(ref, ref.inputs.cells[1], ref.inputs.blanks[1]).truths;
    let dot = 0;
    for (let t = 0; t < ref.inputs.dModel; t++) dot += ref.inputs.x[2 * ref.inputs.dModel + t] * ref.inputs.x[1 * ref.inputs.dModel + t];
    assert.ok(Math.abs(truth - dot) < 1e-9);
    assert.equal((await answer(0, String(ref.expected.heads[0].q[2 * ref.inputs.dK + ref.inputs.cells[0].col]), opened.page)).verdict, 'correct');
    assert.equal((await answer(1, String(dot), opened.page)).verdict, 'correct');
    assert.deepEqual(opened.problems, []);
    await opened.page.close();
  });

  it('a link with an unknown practice key is refused with a message, and the page keeps working', async () => {
    await openPractice(tab.page, linkTo({ preset: 'cat-sat', practice: {} }));
    await tab.page.evaluate(() => { location.hash = `#lab=${encodeURIComponent(JSON.stringify({ practice: { score: 6 } }))}`; });
    await tab.page.waitForFunction(() => document.getElementById('messages').textContent.includes('unknown practice setting'));
    assert.equal(await tab.page.evaluate(() => Boolean(globalThis.attentionLab.state.practice)), true, 'the last good state stays');
  });

  it('the mode switch goes to explore and back, and the link carries the mode', async () => {
    await openPractice(tab.page, linkTo({ preset: 'cat-sat', practice: {} }));
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.click('.mode-switch [data-mode="explore"]');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    assert.equal(await tab.page.locator('[data-view="practice"]').isHidden(), true);
    assert.equal(await tab.page.locator('[data-view="steps"]').isVisible(), true);
    assert.equal(await tab.page.evaluate(() => location.hash.includes('practice')), false);
    await tab.page.click('.mode-switch [data-mode="practice"]');
    await tab.page.waitForFunction(() => !document.querySelector('[data-view="practice"]').hidden);
    assert.equal(await tab.page.locator('[data-view="steps"]').isHidden(), true);
    assert.equal(await tab.page.locator('.mode-switch [data-mode="practice"]').getAttribute('aria-pressed'), 'true');
  });
}

// what the student has done: the lab's practice state and draws, and the cells lit
const state = () => tab.page.evaluate(() => ({ results: globalThis.attentionLab.practice.results, ids: globalThis.attentionLab.practice.exercises.map((e) => e.id) }));
const draws = () => tab.page.evaluate(() => globalThis.attentionLab.draws);
const drawn = (n) => tab.page.waitForFunction((k) => globalThis.attentionLab.draws > k && globalThis.attentionLab.idle, n);
const litKeys = () => tab.page.locator('td.practice-source').evaluateAll((tds) => tds.map(({ dataset: { matrix, head = '', row, col } }) => `${matrix}:${head}:${row}:${col}`));

describe('what the student has done stays, and only what helps is shown', () => {
  it('another query token chosen after an answer keeps the exercises and says so; before any, they follow it', async () => {
    await tab.page.reload();
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await openPractice(tab.page, linkTo({ preset: 'telescope', practice: {} }));
    const ref = await reference(tab.page);
    const first = await state();
    const query = ref.inputs.cells[0].row;
    const other = query === 0 ? 1 : 0;
    // nothing done yet: the exercises move to the token chosen
    let n = await draws();
    await tab.page.click(`#tokens [data-index="${other}"]`);
    await drawn(n);
    const moved = await state();
    assert.notDeepEqual(moved.ids, first.ids);
    assert.equal((await reference(tab.page)).inputs.cells[0].row, other);
    // one answer, then another token: the exercises, the answer and the score stay
    const ref2 = await reference(tab.page);
    assert.equal((await answer(0, String(truthAndMistakes(ref2, ref2.inputs.cells[0], ref2.inputs.blanks[0]).truths[0]))).verdict, 'correct');
    n = await draws();
    await tab.page.click(`#tokens [data-index="${query}"]`);
    await drawn(n);
    const kept = await state();
    assert.deepEqual(kept.ids, moved.ids);
    assert.equal(kept.results.correct, 1);
    assert.match(await tab.page.locator('.practice-notes').first().textContent(), /Your answers are kept: these exercises stay on/);
  });

  it('a visit to Explore keeps the exercises, what was typed and the score', async () => {
    const before = await state();
    await tab.page.locator('.practice-input[data-exercise="1"]').first().fill('12345');
    let n = await draws();
    await tab.page.click('.mode-switch [data-mode="explore"]');
    await drawn(n);
    n = await draws();
    await tab.page.click('.mode-switch [data-mode="practice"]');
    await drawn(n);
    const after = await state();
    assert.deepEqual(after.ids, before.ids);
    assert.equal(after.results.correct, 1);
    assert.equal(await tab.page.locator('.exercise[data-index="0"]').getAttribute('data-status'), 'correct');
    assert.equal(await tab.page.locator('.practice-input[data-exercise="1"]').first().inputValue(), '12345');
    assert.equal(await tab.page.locator('.practice-input[data-exercise="1"]').first().isVisible(), true, 'the blank is back in its table');
  });

  it("a first hint lights only its own exercise's cells, and they go dark once it is answered", async () => {
    const ref = await reference(tab.page);
    const sourcesOf = (k) => tab.page.evaluate((i) => globalThis.attentionLab.practice.exercises[i].sourceCells
      .map(({ matrix, head, row, col }) => `${matrix}:${matrix === 'concat' || matrix === 'output' ? '' : head ?? ''}:${row}:${col}`), k);
    await tab.page.locator('.exercise[data-index="1"] .hint-button').click();
    const lit1 = await litKeys();
    const sources1 = new Set(await sourcesOf(1));
    assert.ok(lit1.length > 0 && lit1.every((key) => sources1.has(key)), `only exercise 2's sources are lit: ${lit1.filter((key) => !sources1.has(key))}`);
    const truth = truthAndMistakes(ref, ref.inputs.cells[1], ref.inputs.blanks[1]).truths[0];
    assert.equal((await answer(1, String(truth))).verdict, 'correct');
    assert.deepEqual(await litKeys(), [], 'answered: nothing lit');
    await tab.page.locator('.exercise[data-index="2"] .hint-button').click();
    const sources2 = new Set(await sourcesOf(2));
    const lit2 = await litKeys();
    assert.ok(lit2.length > 0 && lit2.every((key) => sources2.has(key)), `only exercise 3's sources: ${lit2.filter((key) => !sources2.has(key))}`);
  });

  it('Export offers nothing while practising (its tables would show the answers), and everything again in Explore', async () => {
    await tab.page.click('#export-toggle');
    assert.equal(await tab.page.locator('#export-practising').isVisible(), true);
    assert.equal(await tab.page.locator('#export-preview').isHidden(), true);
    assert.equal(await tab.page.locator('#export-preview').textContent(), '');
    assert.equal(await tab.page.locator('#export-download').isHidden(), true);
    const n = await draws();
    await tab.page.click('.mode-switch [data-mode="explore"]');
    await drawn(n);
    assert.equal(await tab.page.locator('#export-practising').isHidden(), true);
    assert.match(await tab.page.locator('#export-preview').textContent(), /\d/);
    await tab.page.click('#export-toggle');  // closed again for the tests after
  });
});

describe('getting around', () => {
  openingAndFocusTests();
  explainAndOptionsTests();
});

// how practice mode opens, and where a step takes the focus
function openingAndFocusTests() {
  it('index.html?mode=practice opens practice mode, and the address keeps the mode in its fragment only', async () => {
    const opened = await browser.newPage();
    await opened.page.goto(`${browser.url}lab/index.html?mode=practice`);
    await opened.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
    assert.equal(await opened.page.evaluate(() => Boolean(globalThis.attentionLab.state.practice)), true);
    assert.equal(await opened.page.locator('[data-view="practice"]').isVisible(), true);
    const url = new URL(opened.page.url());
    assert.equal(url.search, '');
    assert.match(decodeURIComponent(url.hash), /"practice":\{/);
    await opened.page.goto(`${browser.url}lab/index.html?mode=quiz`);
    await opened.page.waitForFunction(() => document.getElementById('messages').textContent.includes('mode must be practice or explore'));
    assert.deepEqual(opened.problems, []);
    await opened.page.close();
  });

  it("a step's name takes the focus to its blank, choosing the blank's head tab; a locked one says why", async () => {
    await tab.page.reload();
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await openPractice(tab.page, linkTo({ preset: 'telescope', practice: {} }));
    const head = await tab.page.evaluate(() => globalThis.attentionLab.practice.exercises[0].cell.head);
    await tab.page.click(`#tab-${1 - head}`);
    await tab.page.waitForFunction((h) => globalThis.attentionLab.state.selectedHead === h, 1 - head);
    await tab.page.locator('.step-label').first().click();
    await tab.page.waitForFunction(() => document.activeElement?.dataset.exercise === '0');
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.state.selectedHead), head);
    await tab.page.locator('.step-label').nth(2).click();
    await tab.page.waitForFunction(() => /Answer the exercise above first/.test(document.querySelector('[data-role="announce"]').textContent));
  });

  it('hint 3 is read out with its lines apart; a softmax row names the key of each line', async () => {
    const ref = await reference(tab.page);
    const row = ref.inputs.cells.findIndex((cell) => cell.matrix === 'softmax');
    for (let k = 0; k < row; k++) {
      const { truths } = truthAndMistakes(ref, ref.inputs.cells[k], ref.inputs.blanks[k]);
      assert.equal((await answer(k, truths.map(String))).verdict, 'correct');
    }
    const hint = tab.page.locator(`.exercise[data-index="${row}"] .hint-button`);
    for (let level = 1; level <= 3; level++) await hint.click();
    await tab.page.waitForFunction(() => /^Hint 3 of 3: .+; .+/.test(document.querySelector('[data-role="announce"]').textContent));
    const lines = await tab.page.locator(`.exercise[data-index="${row}"] .hints > li[data-level="3"] .explain-lines li`).allTextContents();
    const keys = ref.inputs.blanks[row].map((blank) => blank.col);
    const tokens = await tab.page.evaluate(() => globalThis.attentionLab.view.keyTokens);
    for (const col of keys) assert.ok(lines.some((line) => line.startsWith(`'${tokens[col]}': `)), `a line for '${tokens[col]}'`);
    assert.doesNotMatch(await tab.page.locator('[data-role="announce"]').textContent(), /\.;/);
  });
}

// explain this number, the whole-number box, and answers that would be 0
function explainAndOptionsTests() {
  it("explain this number says why it will not show a hidden number, or one whose arithmetic prints it", async () => {
    await openPractice(tab.page, linkTo({ preset: 'money-bank-scaling', practice: {} }));
    const panel = () => tab.page.locator('#explain').textContent();
    // a weight of the asked key's row: its softmax prints that row's scaled scores, among them the
    // key's with the query, hidden (the same number as the one asked when Q = K)
    const ref = await reference(tab.page);
    const { head, row, col } = ref.inputs.cells.find((cell) => cell.matrix === 'scaled');
    assert.notEqual(row, col);
    const weight = tab.page.locator(`#head-panel td[data-matrix="weights"][data-head="${head}"][data-row="${col}"][data-col="0"]`);
    assert.equal(await weight.evaluate((td) => td.dataset.practice), undefined, 'the weight itself shows');
    await weight.click();
    await tab.page.waitForFunction(() => !document.getElementById('explain').hidden);
    const said = await panel();
    assert.match(said, /Hidden while you practise|Its arithmetic uses a number you are asked for/);
    assert.doesNotMatch(said, /e\^/, 'no exponent of a hidden scaled score');
    // a visible weight of another query's row, made from visible numbers, is explained as usual
    const other = tab.page.locator(`#head-panel td[data-matrix="scores"][data-head="${head}"][data-row="${col}"][data-col="${col}"]`);
    if (await other.evaluate((td) => td.dataset.practice === undefined)) {
      await other.click();
      await tab.page.waitForFunction(() => /=/.test(document.getElementById('explain-value').textContent));
    }
    // answered, the same weight is explained in full
    for (let k = 0; k < ref.inputs.cells.length; k++) {
      const { truths } = truthAndMistakes(ref, ref.inputs.cells[k], ref.inputs.blanks[k]);
      assert.equal((await answer(k, truths.map(String))).verdict, 'correct');
    }
    await weight.click();
    await tab.page.waitForFunction(() => /e\^/.test(document.getElementById('explain').textContent));
    // and so is a number made from answered blanks: a z entry of the asked query's row (its weights were the softmax row)
    const zCell = ref.inputs.cells.find((cell) => cell.matrix === 'z');
    const zOther = tab.page.locator(`#head-panel td[data-matrix="z"][data-head="${head}"][data-row="${row}"][data-col="${1 - zCell.col}"]`);
    await zOther.click();
    await tab.page.waitForFunction(() => /^= /.test(document.getElementById('explain-value').textContent));
    assert.doesNotMatch(await panel(), /asked for|Hidden while/);
  });

  it('the whole-number box stays ticked through redraws until Try another uses it', async () => {
    await openPractice(tab.page, linkTo({ preset: 'telescope', practice: {} }));
    await tab.page.check('[data-role="integer"]');
    await tab.page.waitForFunction(() => /Whole-number inputs from the next Try another/.test(document.querySelector('[data-role="announce"]').textContent));
    await tab.page.click('#tab-0');
    await tab.page.click('#tab-1');
    assert.equal(await tab.page.locator('[data-role="integer"]').isChecked(), true);
  });

  it("Make an exercise says when every answer would be 0", async () => {
    await openPractice(tab.page, linkTo({ preset: 'telescope', practice: {} }));
    if (await tab.page.locator('.teacher').isHidden()) await tab.page.click('[data-role="teacher"]');
    const field = (name) => tab.page.locator(`.teacher [data-field="${name}"]`);
    // a query and key chosen so that every blank is 0 is found by trying them against the reference
    const ref = await reference(tab.page);
    let found = null;
    for (let i = 0; i < ref.inputs.n && !found; i++) {
      for (let j = 0; j < ref.inputs.m && !found; j++) {
        const h = ref.expected.heads[0];
        const zero = (v) => Math.abs(v) < 1e-6;
        if (zero(h.scores[i * ref.inputs.m + j]) && Array.from({ length: ref.inputs.dK }, (_, c) => h.q[i * ref.inputs.dK + c]).every(zero)) found = [i, j];
      }
    }
    if (found) {
      await field('query').selectOption(String(found[0]));
      await field('key').selectOption(String(found[1]));
      await field('head').selectOption('0');
      for (const kind of ['softmax', 'weights', 'z', 'concat', 'output']) if (await tab.page.locator(`.teacher input[value="${kind}"]`).count()) await tab.page.uncheck(`.teacher input[value="${kind}"]`);
      await tab.page.click('[data-role="write"]');
      assert.match(await tab.page.locator('.teacher-problem').textContent(), /Every answer in it is 0/);
    }
    // and the page's own first exercise's query and head do not say so
    await field('query').selectOption(String(ref.inputs.cells[0].row));
    await field('head').selectOption(String(ref.inputs.cells[0].head));
    for (const kind of ['q', 'scores']) await tab.page.check(`.teacher input[value="${kind}"]`);
    await tab.page.click('[data-role="write"]');
    assert.doesNotMatch(await tab.page.locator('.teacher-problem').textContent(), /Every answer in it is 0/);
    await tab.page.click('[data-role="teacher"]');
    assert.ok(found, 'telescope has a query whose q entries and score with some key are all 0 in head 1');
  });
}

describe('components and accessibility', () => {
  keyboardAndComponentTests();
  platformAndAxeTests();
});

// by keyboard alone, and as a component beside a normal one
function keyboardAndComponentTests() {
  it('works by keyboard alone, Tab reaches the blanks in exercise order, and fits 375 px', async () => {
    const page = await browser.browser.newPage({ viewport: { width: 375, height: 800 } });
    await page.goto(`${browser.url}lab/embed.html?mode=practice`);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const ref = await reference(page);
    const truthOf = (k) => truthAndMistakes(ref, ref.inputs.cells[k], ref.inputs.blanks[k]).truths[0];
    const focused = () => page.evaluate(() => document.activeElement?.closest('.practice-input') ? Number(document.activeElement.dataset.exercise) : null);
    let steps = 0;
    while ((await focused()) === null) {
      await page.keyboard.press('Tab');
      assert.ok(++steps < 40, 'the first blank is reached with Tab');
    }
    assert.equal(await focused(), 0, 'the first blank Tab reaches is the first exercise\'s');
    await page.keyboard.type(String(truthOf(0)));
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.exercise[data-index="0"] .feedback').getAttribute('data-verdict'), 'correct');
    // right: the focus moves on to the next exercise's blank
    await page.waitForFunction(() => document.activeElement?.dataset.exercise === '1');
    // its Hint button is a few Tabs on, and Shift+Tab comes back to the blank
    const onHint = () => page.evaluate(() => document.activeElement?.classList.contains('hint-button') && document.activeElement.closest('.exercise')?.dataset.index === '1');
    while (!(await onHint())) {
      await page.keyboard.press('Tab');
      assert.ok(++steps < 80, 'the next exercise\'s Hint is reached with Tab');
    }
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.exercise[data-index="1"] .hints > li').count(), 1);
    while ((await focused()) !== 1) {
      await page.keyboard.press('Shift+Tab');
      assert.ok(++steps < 120, 'the blank is reached again with Shift+Tab');
    }
    await page.keyboard.type(String(truthOf(1)));
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.exercise[data-index="1"] .feedback').getAttribute('data-verdict'), 'correct');
    // every blank in the document (so in the Tab order) comes in the order of the exercises
    const order = await page.locator('.practice-input').evaluateAll((inputs) => inputs.map((input) => Number(input.dataset.exercise)));
    assert.deepEqual(order, [...order].sort((a, b) => a - b));
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      cards: Math.max(...[...document.querySelectorAll('.exercise')].filter((card) => card.getClientRects().length).map((card) => card.getBoundingClientRect().right)),
    }));
    assert.ok(widths.page <= 375 && widths.cards <= 375, `nothing wider than the screen: ${JSON.stringify(widths)}`);
    await page.close();
  });

  it('a practice-mode component works beside a normal one on the same page', async () => {
    const host = await browser.newPage();
    await host.page.goto(`${browser.url}practice.html`);
    await host.page.waitForFunction(() => ['exercise', 'explore'].every((id) => document.getElementById(id)?.lab?.draws > 0));
    await host.page.evaluate(() => {
      window.reports = [];
      document.getElementById('exercise').addEventListener('attention-lab:practice', (e) => window.reports.push(e.detail));
    });
    const exercise = host.page.locator('#exercise');
    const explore = host.page.locator('#explore');
    assert.equal(await exercise.locator('[data-view="practice"]').isVisible(), true);
    assert.equal(await exercise.locator('[data-view="steps"]').isHidden(), true);
    assert.equal(await exercise.locator('.mode-switch').isHidden(), true);
    assert.equal(await explore.locator('[data-view="practice"]').isHidden(), true);
    assert.equal(await explore.locator('[data-view="steps"]').isVisible(), true);
    // the blanks are in the practising lab's tables only
    assert.ok(await exercise.locator('.practice-input').count() >= 5);
    assert.equal(await explore.locator('.practice-input, td[data-practice]').count(), 0, 'the other lab keeps every number');
    const ref = await reference(host.page, 'exercise');
    const [truth] = truthAndMistakes(ref, ref.inputs.cells[0], ref.inputs.blanks[0]).truths;
    await exercise.locator('.practice-input[data-exercise="0"]').fill(String(truth));
    await exercise.locator('.practice-input[data-exercise="0"]').press('Enter');
    assert.equal(await exercise.locator('.exercise[data-index="0"] .feedback').getAttribute('data-verdict'), 'correct');
    const reports = await host.page.evaluate(() => window.reports);
    const total = ref.inputs.cells.length;
    assert.deepEqual(reports.map(({ correct, total: all, hints }) => ({ correct, total: all, hints })), [{ correct: 1, total, hints: 0 }]);
    assert.equal(reports[0].summary, `1/${total} correct, 0 hints`);
    assert.equal(await host.page.evaluate(() => document.getElementById('explore').lab.state.practice), null);
    assert.deepEqual(host.problems, []);
    await host.page.close();
  });
}

// in a platform's SCORM launch page, and axe-core in practice mode
function platformAndAxeTests() {
  it('in the SCORM launch page, practice results reach the platform as a score out of 100', async () => {
    // the launch page as `npm run pack` writes it (the single file with scorm-api.js), in a stand-in platform
    writeFileSync(path.join(site, 'lab/launch.html'), launchPage(readFileSync(path.join(root, 'dist/attention-lab.html'), 'utf8')));
    writeFileSync(path.join(site, 'lab/exercise.js'), '');
    cpSync(path.join(root, 'web/scorm-api.js'), path.join(site, 'lab/scorm-api.js'));
    writeFileSync(path.join(site, 'lms.html'), `<!doctype html><html lang="en"><title>LMS</title><body><script>
  window.data = {};
  window.API = {
    LMSInitialize: () => 'true', LMSGetValue: (k) => window.data[k] ?? '', LMSSetValue: (k, v) => { window.data[k] = v; return 'true'; },
    LMSCommit: () => 'true', LMSFinish: () => 'true', LMSGetLastError: () => '0', LMSGetErrorString: () => '', LMSGetDiagnostic: () => '',
  };
</script><iframe title="Attention Lab" src="lab/launch.html${linkTo({ preset: 'cat-sat', practice: {} })}" style="width: 100%; height: 600px"></iframe></body></html>`);
    const host = await browser.newPage();
    await host.page.goto(`${browser.url}lms.html`);
    const frame = host.page.frame({ url: /launch\.html/ });
    await frame.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLabScorm?.available);
    // the first two exercises right, from the reference: two of four (W = I: no q entry, issue 26 point 8)
    const ref = await reference(frame);
    assert.equal(ref.inputs.cells.length, 4);
    for (const index of [0, 1]) {
      const [truth] = truthAndMistakes(ref, ref.inputs.cells[index], ref.inputs.blanks[index]).truths;
      await frame.locator(`.practice-input[data-exercise="${index}"]`).fill(String(truth));
      await frame.locator(`.practice-input[data-exercise="${index}"]`).press('Enter');
    }
    const data = await host.page.evaluate(() => window.data);
    assert.equal(data['cmi.core.score.raw'], '50');
    assert.equal(data['cmi.core.score.max'], '100');
    assert.deepEqual(host.problems, []);
    await host.page.close();
  });

  for (const [name, pathname, ready, act] of [
    ['the page in practice mode, with a hint, a verdict and the teacher panel open', `lab/index.html${linkTo({ preset: 'telescope', practice: {} })}`,
      () => globalThis.attentionLab?.draws > 0,
      async (page) => {
        await page.fill('.practice-input >> nth=0', 'abc');
        await page.press('.practice-input >> nth=0', 'Enter');
        await page.click('.exercise .hint-button >> nth=0');
        await page.click('[data-role="teacher"]');
      }],
    ['the embed page in practice mode', 'lab/embed.html?mode=practice', () => globalThis.attentionLab?.draws > 0, null],
    ['a page with a practice-mode component', 'practice.html', () => document.getElementById('exercise')?.lab?.draws > 0, null],
  ]) {
    it(`axe-core finds no serious or critical violation on ${name}`, async () => {
      const page = (await browser.newPage()).page;
      await page.goto(`${browser.url}${pathname}`);
      await page.waitForFunction(ready);
      if (act) await act(page);
      await renderEverySection(page);
      await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
      const violations = await page.evaluate(async () => {
        const result = await globalThis.axe.run(document, { resultTypes: ['violations'] });
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      });
      assert.deepEqual(violations, []);
      await page.close();
    });
  }
}
