// Practice mode in headless Chromium. For every preset, every exercise of its sequence: the true
// value and one inside the tolerance are accepted, one outside is refused, each typical mistake is
// named when typed, and the three hints come in order. True values and mistakes are computed here
// from the page's inputs and parameters with the independent float64 reference (tests/web/reference.mjs).
// Also: answers that are not numbers, an exercise link written by "Make an exercise" (page, iframe,
// component), a practice-mode component beside a normal one, and axe-core in practice mode.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openBrowser, renderEverySection } from './browser.mjs';
import { referenceAttention } from '../web/reference.mjs';
import { PRESETS } from '../../web/src/presets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const site = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-practice-'));
cpSync(path.join(root, 'dist'), path.join(site, 'lab'), { recursive: true });
cpSync(path.join(root, 'tests/e2e/fixtures'), site, { recursive: true });

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
  rmSync(site, { recursive: true, force: true });
});

const linkTo = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;

async function openPractice(page, hash) {
  const before = await page.evaluate(() => globalThis.attentionLab.draws);
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForFunction((n) => globalThis.attentionLab.draws > n, before);
}

// The page's inputs and parameters through the float64 reference.
async function reference(page) {
  const v = await page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const arr = (a) => (a ? Array.from(a) : undefined);
    return {
      n: view.tokens.length, m: view.m, dModel: view.dModel, heads: view.heads, dK: view.dK, dV: view.dV,
      x: arr(view.x), wq: arr(view.weights.wq), wk: arr(view.weights.wk), wv: arr(view.weights.wv), wo: arr(view.weights.wo ?? undefined),
      scale: state.scaleMode === 'custom' ? state.scaleDivisor : state.scaleMode, mask: state.maskMode,
      cells: globalThis.attentionLab.practice.exercises.map((e) => e.cell),
    };
  });
  return { inputs: v, expected: referenceAttention(v) };
}

const allowance = (target) => Math.max(0.01 * Math.abs(target), 0.005);

// The true value of a cell and the values of its typical mistakes, from the reference's traces.
function truthAndMistakes({ inputs, expected }, { matrix, head, row: i, col }) {
  const { n, m, dModel, dK, dV, x, wq, wo, heads } = inputs;
  const h = expected.heads[head];
  const sum = (count, term) => { let s = 0; for (let t = 0; t < count; t++) s += term(t); return s; };
  const divisor = inputs.scale === 'sqrt_dk' ? Math.sqrt(dK) : inputs.scale === 'none' ? 1 : inputs.scale;
  const softmaxAt = (row, j) => Math.exp(row[j]) / row.reduce((a, s) => a + Math.exp(s), 0);
  const mistakes = {};
  let truth;
  switch (matrix) {
    case 'q':
      truth = h.q[i * dK + col];
      if (dK === dModel) mistakes['mistake.rowNotColumn'] = sum(dModel, (t) => x[i * dModel + t] * (wq ? wq[(head * dModel + col) * dK + t] : t === col ? 1 : 0));
      break;
    case 'scores':
      truth = h.scores[i * m + col];
      if (col < dK && dK <= m) mistakes['mistake.kNotTransposed'] = sum(dK, (t) => h.q[i * dK + t] * h.k[t * dK + col]);
      if (i !== col) mistakes['mistake.wrongKeyRow'] = sum(dK, (t) => h.q[i * dK + t] * h.k[i * dK + t]);
      mistakes['mistake.swapped'] = sum(dK, (t) => h.q[col * dK + t] * h.k[i * dK + t]);
      break;
    case 'scaled':
      truth = h.scaled[i * m + col];
      mistakes['mistake.noScaling'] = h.scores[i * m + col];
      if (inputs.scale === 'sqrt_dk') mistakes['mistake.dividedByDk'] = h.scores[i * m + col] / dK;
      break;
    case 'weights': {
      truth = h.weights[i * m + col];
      mistakes['mistake.unnormalised'] = Math.exp(h.scaled[i * m + col]);
      mistakes['mistake.wrongAxis'] = Math.exp(h.scaled[i * m + col]) / sum(n, (r) => Math.exp(h.scaled[r * m + col]));
      if (divisor !== 1) mistakes['mistake.noScaling'] = softmaxAt(Array.from(h.scores.subarray(i * m, (i + 1) * m)), col);
      break;
    }
    case 'z': {
      truth = h.z[i * dV + col];
      const v = (j) => h.v[j * dV + col];
      if (n === m) mistakes['mistake.wrongAxisSum'] = sum(m, (j) => h.weights[j * m + i] * v(j));
      mistakes['mistake.unnormalisedSum'] = sum(m, (j) => Math.exp(h.scaled[i * m + j]) * v(j));
      const raw = Array.from(h.scores.subarray(i * m, (i + 1) * m));
      if (divisor !== 1) mistakes['mistake.noScaling'] = sum(m, (j) => softmaxAt(raw, j) * v(j));
      break;
    }
    case 'concat':
      truth = expected.concat[i * heads * dV + col];
      // every other head's z in the same place; the same key names them all
      for (let other = 0; other < heads; other++) {
        if (other !== Math.floor(col / dV)) mistakes[`mistake.otherHead#${other}`] = expected.heads[other].z[i * dV + (col % dV)];
      }
      break;
    case 'output':
      truth = expected.output[i * dModel + col];
      if (heads * dV === dModel) mistakes['mistake.rowNotColumn'] = sum(dModel, (t) => expected.concat[i * dModel + t] * wo[col * dModel + t]);
      break;
    default:
      throw new Error(matrix);
  }
  // only mistakes that are not already correct can be told apart
  const distinct = Object.entries(mistakes).filter(([, value]) => Number.isFinite(value) && Math.abs(value - truth) > allowance(truth));
  return { truth, mistakes: distinct };
}

// Types an answer into card `index` and presses Enter; returns the verdict shown.
async function answer(index, text) {
  const card = tab.page.locator('.exercise').nth(index);
  await card.locator('input').fill(text);
  await card.locator('input').press('Enter');
  return card.locator('.feedback').evaluate((p) => ({ verdict: p.dataset.verdict, mistakes: p.dataset.mistakes.split(' ').filter(Boolean), text: p.textContent }));
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
    it(`${preset.id}: true value and inside accepted, outside refused, mistakes named, three hints in order`, async () => {
      await openPractice(tab.page, linkTo({ preset: preset.id, practice: {} }));
      const ref = await reference(tab.page);
      const kinds = ref.inputs.cells.map((c) => c.matrix);
      assert.deepEqual(kinds.slice(0, 2), ['q', 'scores'], 'the sequence starts with a q entry and a score');
      assert.ok(kinds.includes('weights') && kinds.includes('z'));
      if (preset.id === 'telescope') assert.deepEqual(kinds.slice(-2), ['concat', 'output']);
      let namedMistakes = 0;
      for (const [index, cell] of ref.inputs.cells.entries()) {
        const card = tab.page.locator('.exercise').nth(index);
        assert.equal(await card.getAttribute('data-status'), 'open', `card ${index + 1} is open once the ones before are answered`);
        if (index + 1 < kinds.length) assert.equal(await tab.page.locator('.exercise').nth(index + 1).getAttribute('data-status'), 'locked');
        const { truth, mistakes } = truthAndMistakes(ref, cell);
        const what = `${preset.id} ${cell.matrix}[${cell.head}][${cell.row}][${cell.col}]`;
        // the page offers exactly the mistakes that can be told apart
        const offered = await tab.page.evaluate((k) => globalThis.attentionLab.practice.exercises[k].mistakes.map((m) => m.key), index);
        assert.deepEqual([...offered].sort(), mistakes.map(([key]) => key.split('#')[0]).sort(), `${what}: mistakes offered`);

        const outside = await answer(index, String(wrongValue(truth, mistakes)));
        assert.equal(outside.verdict, 'wrong', `${what}: outside the tolerance`);
        assert.match(outside.text, /^Not quite/);
        for (const [key, value] of mistakes) {
          const got = await answer(index, String(value));
          assert.equal(got.verdict, 'mistake', `${what}: ${key} (${value}) typed`);
          assert.ok(got.mistakes.includes(key.split('#')[0]), `${what}: ${key} named, got ${got.mistakes}`);
          namedMistakes++;
        }

        const hintButton = card.locator('.hint-button');
        for (let level = 1; level <= 3; level++) {
          await hintButton.click();
          const levels = await card.locator('.hints > li').evaluateAll((items) => items.map((li) => Number(li.dataset.level)));
          assert.deepEqual(levels, Array.from({ length: level }, (_, l) => l + 1), `${what}: hints in order`);
        }
        const hints = await card.locator('.hints > li').allTextContents();
        assert.match(hints[0], /comes from the highlighted cells/);
        assert.ok(await card.locator('td.source').count() >= 1, `${what}: hint 1 highlights its sources`);
        assert.match(hints[1], /=/, `${what}: hint 2 is a formula`);
        assert.ok(await card.locator('.hints > li[data-level="3"] .explain-lines li').count() >= 1, `${what}: hint 3 is the arithmetic`);

        const inside = await answer(index, String(truth + 0.9 * allowance(truth)));
        assert.equal(inside.verdict, 'correct', `${what}: inside the tolerance (true ${truth})`);
        const exact = await answer(index, truth.toPrecision(8));
        assert.equal(exact.verdict, 'correct', `${what}: the true value`);
        const shown = Number(exact.text.match(/The value is (\S+)\.$/)[1]);
        assert.ok(Math.abs(shown - truth) <= 1e-5 * Math.max(1, Math.abs(truth)), `${what}: reveals the true value (${shown} vs ${truth})`);
      }
      assert.ok(namedMistakes >= 3, `${preset.id}: ${namedMistakes} mistakes named`);
      const results = await tab.page.evaluate(() => globalThis.attentionLab.practice.results);
      assert.equal(results.correct, kinds.length);
      assert.equal(results.hints, 3 * kinds.length);
      assert.equal(await tab.page.locator('[data-role="score"]').textContent(), `${kinds.length}/${kinds.length} correct, ${3 * kinds.length} hints`);
      assert.equal(await tab.page.locator('.practice progress').evaluate((p) => p.value), kinds.length);
    });
  }
});

describe('answers that are not numbers', () => {
  it('get a message about the format, never a verdict; fractions and the Unicode minus are read', async () => {
    await openPractice(tab.page, linkTo({ preset: 'cat-sat', practice: {} }));
    // q of 'The', column e1: x = [1, 0, 1, 0], W_q = I, so 1
    for (const text of ['abc', '', '3e', '1,000', '42%', '1/0']) {
      const got = await answer(0, text);
      assert.equal(got.verdict, 'format', `'${text}'`);
      assert.equal(await tab.page.locator('.exercise').first().getAttribute('data-status'), 'open');
    }
    assert.equal((await answer(0, '−1')).verdict, 'wrong');
    assert.equal((await answer(0, '2/2')).verdict, 'correct');
    assert.equal((await answer(0, '1,0')).verdict, 'correct');
    // the score of 'The' with 'sat' is 2; '½' is read as 0.5 and is a named mistake (divided by d_k) for the scaled score
    assert.equal((await answer(1, '4/2')).verdict, 'correct');
    assert.deepEqual((await answer(2, '½')).mistakes, ['mistake.dividedByDk']);
    assert.equal((await answer(2, '+1')).verdict, 'correct');
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
    const { truth } = truthAndMistakes(ref, ref.inputs.cells[0]);
    assert.ok(Number.isInteger(truth));
    assert.equal((await answer(0, String(truth))).verdict, 'correct');
    assert.match(await tab.page.locator('[data-role="score"]').textContent(), /^1\/5 correct, 0 hints$/);
  });
});

describe('Make an exercise', () => {
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
      { matrix: 'weights', head: 0, row: 9, col: 1 },
      { matrix: 'z', head: 0, row: 9, col: 2 },
    ];

    const opened = await browser.newPage();
    await opened.page.goto(link);
    await opened.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const read = (page) => page.evaluate(() => ({
      cells: globalThis.attentionLab.practice.exercises.map((e) => e.cell),
      practice: globalThis.attentionLab.state.practice,
      labels: [...document.querySelectorAll('.exercise label')].map((l) => l.textContent),
      hintButtons: [...document.querySelectorAll('.exercise .hint-button')].filter((b) => !b.hidden).length,
      tolerance: document.querySelector('.tolerance').textContent,
    }));
    const fromLink = await read(opened.page);
    assert.deepEqual(fromLink.cells, want);
    assert.deepEqual(fromLink.practice, { cells: want, relative: 0.02, absolute: 0.01, hints: false });
    assert.deepEqual(fromLink.labels, ["score of 'they' with 'kids', head 1", "attention weight of 'they' on 'kids', head 1", "z of 'they', column 3, head 1"]);
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

  it('works on the reader\'s own sentence: the exercises follow it, and so does the link', async () => {
    await openPractice(tab.page, linkTo({ preset: 'money-bank-scaling', practice: {} }));
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.fill('#sentence', 'the river bank flooded');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    const labels = await tab.page.locator('.exercise h3').allTextContents();
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
    const heading = await opened.page.locator('.exercise h3').nth(1).textContent();
    assert.equal(heading, "Step 2 of 5: score of 'bank' with 'river', head 1");
    // its true value, from the reference: q·k with W = I is x_bank · x_river
    const ref = await reference(opened.page);
    const { truth } = truthAndMistakes(ref, ref.inputs.cells[1]);
    let dot = 0;
    for (let t = 0; t < ref.inputs.dModel; t++) dot += ref.inputs.x[2 * ref.inputs.dModel + t] * ref.inputs.x[1 * ref.inputs.dModel + t];
    assert.ok(Math.abs(truth - dot) < 1e-9);
    await opened.page.locator('.exercise input').first().fill(String(ref.expected.heads[0].q[2 * ref.inputs.dK + ref.inputs.cells[0].col]));
    await opened.page.locator('.exercise input').first().press('Enter');
    await opened.page.locator('.exercise input').nth(1).fill(String(dot));
    await opened.page.locator('.exercise input').nth(1).press('Enter');
    assert.equal(await opened.page.locator('.exercise .feedback').nth(1).getAttribute('data-verdict'), 'correct');
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
});

describe('components and accessibility', () => {
  it('works by keyboard alone and fits 375 px', async () => {
    const page = await browser.browser.newPage({ viewport: { width: 375, height: 800 } });
    await page.goto(`${browser.url}lab/embed.html?mode=practice`);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    let steps = 0;
    while (!(await page.evaluate(() => document.activeElement?.matches('.exercise input')))) {
      await page.keyboard.press('Tab');
      assert.ok(++steps < 30, 'the first blank is reached with Tab');
    }
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.exercise .feedback').first().getAttribute('data-verdict'), 'correct');
    await page.keyboard.press('Tab');  // Check
    await page.keyboard.press('Tab');  // Hint
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.exercise').first().locator('.hints > li').count(), 1);
    // the next blank is open and reachable
    while (!(await page.evaluate(() => document.activeElement === document.querySelectorAll('.exercise input')[1]))) {
      await page.keyboard.press('Tab');
      assert.ok(++steps < 60, 'the second blank is reached with Tab');
    }
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.exercise .feedback').nth(1).getAttribute('data-verdict'), 'correct');
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      cards: Math.max(...[...document.querySelectorAll('.exercise')].map((card) => card.getBoundingClientRect().right)),
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
    // q of 'The', column e1 is 1 (x = [1, 0, 1, 0], W_q = I)
    await exercise.locator('.exercise input').first().fill('1');
    await exercise.locator('.exercise input').first().press('Enter');
    assert.equal(await exercise.locator('.feedback').first().getAttribute('data-verdict'), 'correct');
    const reports = await host.page.evaluate(() => window.reports);
    assert.deepEqual(reports.map(({ correct, total, hints }) => ({ correct, total, hints })), [{ correct: 1, total: 5, hints: 0 }]);
    assert.equal(reports[0].summary, '1/5 correct, 0 hints');
    assert.equal(await host.page.evaluate(() => document.getElementById('explore').lab.state.practice), null);
    assert.deepEqual(host.problems, []);
    await host.page.close();
  });

  it('in the SCORM launch page, practice results reach the platform as a score out of 100', async () => {
    // the launch page as `npm run pack` writes it (the single file with scorm-api.js), in a stand-in platform
    const page = readFileSync(path.join(root, 'dist/attention-lab.html'), 'utf8');
    const head = page.indexOf('</head>');
    writeFileSync(path.join(site, 'lab/launch.html'), `${page.slice(0, head)}  <script src="scorm-api.js"></script>\n${page.slice(head)}`);
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
    // q of 'The', column e1 = 1; the score of 'The' with 'sat' = 2: two of five right
    for (const [index, text] of [[0, '1'], [1, '2']]) {
      await frame.locator('.exercise input').nth(index).fill(text);
      await frame.locator('.exercise input').nth(index).press('Enter');
    }
    const data = await host.page.evaluate(() => window.data);
    assert.equal(data['cmi.core.score.raw'], '40');
    assert.equal(data['cmi.core.score.max'], '100');
    assert.deepEqual(host.problems, []);
    await host.page.close();
  });

  for (const [name, pathname, ready, act] of [
    ['the page in practice mode, with a hint, a verdict and the teacher panel open', `lab/index.html${linkTo({ preset: 'telescope', practice: {} })}`,
      () => globalThis.attentionLab?.draws > 0,
      async (page) => {
        await page.fill('.exercise input >> nth=0', 'abc');
        await page.press('.exercise input >> nth=0', 'Enter');
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
});
