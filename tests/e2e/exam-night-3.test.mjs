// Issue 26, third night: the points the two earlier nights left (see /work/notes/i26.md).
// Point 8: the notes' own slip recognised (002 writes 'sat''s weights as 0.21, 0.21, 0.53: the
// values come from the notes, ../shared/seeds/002, never from the engine), the whole-number box
// says when it applies, and an exercise that only copies a number of X (q with W = I) is not asked.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { useLabPage } from './browser.mjs';
import { message } from '../../web/src/i18n/index.mjs';

let tab;
useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const linkTo = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;
const SEED_002 = readFileSync(new URL('../../../shared/seeds/002_042da22eb111699f.txt', import.meta.url), 'utf8');

async function openLab(state) {
  // the same link again draws nothing: go through another example first
  if (await tab.page.evaluate((h) => decodeURIComponent(location.hash) === h, decodeURIComponent(linkTo(state)))) await openLab({ preset: state.preset === 'money-bank' ? 'cat-sat' : 'money-bank' });
  const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
  await tab.page.evaluate((h) => { location.hash = h; }, linkTo(state));
  await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n && globalThis.attentionLab.idle, before);
}

async function openPractice(state) {
  const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
  await tab.page.evaluate((h) => { location.hash = h; }, linkTo(state));
  await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n && globalThis.attentionLab.practice?.exercises.length > 0, before);
  return tab.page.evaluate(() => globalThis.attentionLab.practice.exercises.map((e) => ({ id: e.id, cell: e.cell, truths: e.blanks.map((b) => b.truth) })));
}

describe('practice feedback that teaches, the rest (issue 26, point 8)', () => {
  it("cat-sat: typing the notes' 0.21, 0.21, 0.53 for 'sat' is named the notes' slip", async () => {
    // the notes' numbers, read from the notes themselves
    assert.match(SEED_002, /0\.21[^\n]*0\.21[^\n]*0\.53/);
    const exercises = await openPractice({ preset: 'cat-sat', practice: {} });
    const row = exercises.findIndex((e) => e.id.startsWith('softmax:'));
    assert.ok(row >= 0);
    const sat = await tab.page.evaluate(() => globalThis.attentionLab.view.tokens.indexOf('sat'));
    assert.equal(exercises[row].cell.row, sat, "the row practised is 'sat''s");
    for (let k = 0; k < row; k++) {
      const input = tab.page.locator(`.practice-input[data-exercise="${k}"]`).first();
      await input.fill(String(exercises[k].truths[0]));
      await input.press('Enter');
      await tab.page.waitForFunction((k) => document.querySelector(`.exercise[data-index="${k}"]`).dataset.status === 'correct', k);
    }
    const boxes = tab.page.locator(`.practice-input[data-exercise="${row}"]`);
    for (const [k, value] of ['0.21', '0.21', '0.53'].entries()) await boxes.nth(k).fill(value);
    await boxes.nth(2).press('Enter');
    const said = await tab.page.locator(`.exercise[data-index="${row}"] .feedback`).textContent();
    assert.match(said, /the notes' slip: for 'sat' they write 0\.21, 0\.21, 0\.53, which add to 0\.95, not 1/);
    assert.equal(said.match(/0\.95/g).length, 1, 'the sum said once');
  });

  it("the notes' slip is said in Hindi too, with the same numbers", () => {
    const params = { query: 'sat', values: '0.21, 0.21, 0.53', sum: '0.95' };
    const hindi = message('practice.mistake.notesSlip', params, 'hi');
    for (const value of Object.values(params)) assert.ok(hindi.includes(value), value);
    assert.notEqual(hindi, message('practice.mistake.notesSlip', params, 'en'));
  });

  it('the whole-number box says that it applies from the next Try another', async () => {
    await openPractice({ preset: 'cat-sat', practice: {} });
    const label = await tab.page.locator('[data-role="integer"]').evaluate((input) => input.closest('label').textContent);
    assert.ok(label.includes(message('practice.tryAnother', {}, 'en')), label);
  });

  it('with W = I no exercise asks for a q entry (it would only copy a number of X); with a real W_q one does', async () => {
    for (const preset of ['cat-sat', 'money-bank', 'animal-it']) {
      const exercises = await openPractice({ preset, practice: {} });
      const wq = await tab.page.evaluate(() => Array.from(globalThis.attentionLab.view.weights.wq));
      const { dModel, dK } = await tab.page.evaluate(() => ({ dModel: globalThis.attentionLab.view.dModel, dK: globalThis.attentionLab.view.dK }));
      // every column of W_q one 1 and zeros: checked here on the weights, not taken from the code
      for (let c = 0; c < dK; c++) assert.deepEqual(Array.from({ length: dModel }, (_, t) => wq[t * dK + c]).filter((w) => w !== 0), [1], `${preset} W_q column ${c}`);
      assert.notEqual(exercises[0].cell.matrix, 'q', `${preset}: first exercise ${exercises[0].id}`);
      assert.equal(exercises[0].cell.matrix, 'scores');
    }
    const action = await openPractice({ preset: 'action', practice: {} });
    assert.equal(action[0].cell.matrix, 'q', "action's W_q is random: its q entry is a real exercise");
  });
});

describe('one precision, exported and carried by the link (issue 26, point 6)', () => {
  // cat-sat's row of 'The': scaled scores [1, 0, 1] (the notes' 002), so weights e/(2e+1), 1/(2e+1), e/(2e+1)
  const e = Math.E;
  const row = (digits) => ['The', ...[e, 1, e].map((w) => String(Number((w / (2 * e + 1)).toPrecision(digits))))].join(',');

  async function exportedWeights(page) {
    if (await page.locator('#export-panel').isHidden()) await page.click('#export-toggle');
    await page.selectOption('#export-format', 'csv');
    await page.selectOption('#export-precision', 'display');
    await page.selectOption('#export-table', 'weights-0');
    return page.locator('#export-preview').textContent();
  }

  it('Digits 6: export "as shown" writes 6 significant digits, the link carries them, and a new tab opens with them', async () => {
    await openLab({ preset: 'cat-sat' });
    assert.ok((await exportedWeights(tab.page)).includes(`\n${row(4)}\n`), 'as shown: 4 significant digits by default');
    const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.selectOption('#precision', '6');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, before);
    const text = await exportedWeights(tab.page);
    assert.ok(text.includes(`\n${row(6)}\n`), `as shown at 6 digits: ${row(6)} in\n${text}`);
    const link = await tab.page.evaluate(() => location.href);
    assert.equal(JSON.parse(decodeURIComponent(new URL(link).hash.slice('#lab='.length))).digits, 6);
    // the link opened afresh (a new page load): the same precision, in the control, the step table and the export
    const other = tab.page;
    await other.goto('about:blank');
    await other.goto(link);
    await other.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
    assert.equal(await other.locator('#precision').inputValue(), '6');
    const cells = await other.locator('#steps td, #steps th').allTextContents();
    assert.ok(cells.some((cell) => cell.includes(String(Number((e / (2 * e + 1)).toPrecision(6))))), 'the step table at 6 digits');
    assert.ok((await exportedWeights(other)).includes(`\n${row(6)}\n`));
    // another example keeps the reader's precision
    await other.selectOption('#preset', 'money-bank');
    await other.waitForFunction(() => globalThis.attentionLab.state.preset === 'money-bank' && globalThis.attentionLab.idle);
    assert.equal(await other.evaluate(() => globalThis.attentionLab.state.digits), 6);
    await tab.page.selectOption('#precision', '4');
  });
});

describe('one naming rule, said where both kinds meet (issue 26, point 5)', () => {
  // the column headers of the table holding `matrix`'s cells (the corner left out), and its row headers
  const headersOf = (matrix) => tab.page.evaluate((matrix) => {
    const table = document.querySelector(`td[data-matrix="${matrix}"]:not(.steps td)`).closest('table');
    return { columns: Array.from(table.tHead.rows[0].cells).slice(1).map((th) => th.textContent), rows: Array.from(table.tBodies[0].rows, (tr) => tr.cells[0].textContent) };
  }, matrix);
  const openParameters = async () => {
    await tab.page.evaluate(() => { for (const d of document.querySelectorAll('#weights details')) d.open = true; });
    await tab.page.waitForFunction(() => document.querySelector('td[data-matrix="wq"]'));
  };

  it("a loaded layer's hidden states (given rows) name their model dimensions e1 … e_d, as every X does: X's columns, W_q's rows", async () => {
    const rows = [[0.5, -1, 2], [1, 0.25, 0], [0, 1, -0.5]];
    await openLab({ preset: null, inputs: { tokens: ['the', 'cat', 'sat'], rows }, dModel: 3, dK: 3, dV: 3, heads: 1, weightsMode: 'identity' });
    assert.deepEqual(await tab.page.evaluate(() => globalThis.attentionLab.state.inputs.tokens), ['the', 'cat', 'sat']);
    const e = ['e1', 'e2', 'e3'];
    assert.deepEqual((await headersOf('x')).columns, e);
    await openParameters();
    assert.deepEqual((await headersOf('wq')).rows, e, "W_q's rows: X's model dimensions");
    assert.deepEqual((await headersOf('wq')).columns, ['1', '2', '3'], "W_q's columns: the head's dimensions");
  });

  it('the parameters and the matrices say once what e1 … and 1 … name, in English and Hindi', async () => {
    await openLab({ preset: 'cat-sat' });
    await openParameters();
    const x = (await headersOf('x')).columns;
    const q = (await headersOf('q')).columns;
    assert.equal(x[0], 'e1');
    assert.equal(q[0], '1');
    const notes = await tab.page.locator('section[data-view="parameters"] .axis-names, section[data-view="matrices"] .axis-names').allTextContents();
    assert.equal(notes.length, 2);
    for (const lang of ['en', 'hi']) {
      const text = message('section.axisNames', {}, lang);
      // the names the tables use, quoted in the note
      for (const name of [`${x[0]}, ${x[1]}`, `${q[0]}, ${q[1]}`, 'W_q', 'd_model', 'd_k']) assert.ok(text.includes(name), `${lang}: ${name}`);
    }
    for (const note of notes) assert.equal(note, message('section.axisNames', {}, 'en'));
  });
});

describe('the walk panel never covers the headers it points at (issue 26, point 4)', () => {
  // where the panel, and the table the step points at (the weights it reads, else its result's table), are
  const boxes = () => tab.page.evaluate(() => {
    const panel = document.getElementById('walk').getBoundingClientRect();
    const read = document.querySelector('td.walk-in:is([data-matrix="wq"], [data-matrix="wk"], [data-matrix="wv"], [data-matrix="wo"])');
    const out = [...document.querySelectorAll('td.walk-out')].find((td) => !td.closest('.steps')) ?? document.querySelector('td.walk-out');
    const table = (read ?? out)?.closest('table');
    const head = (table?.tHead ?? table?.rows[0])?.getBoundingClientRect();
    return { panel: { top: panel.top, bottom: panel.bottom }, head: head && { top: head.top, bottom: head.bottom }, matrix: (read ?? out)?.dataset.matrix, height: innerHeight };
  });

  for (const [width, preset] of [[1280, 'telescope'], [375, 'telescope'], [375, 'cat-sat']]) {
    it(`${preset} at ${width} px: W_q at step 1, and every step's table, shown whole-headed below the panel`, async () => {
      await tab.page.setViewportSize({ width, height: 800 });
      await openLab({ preset });
      if (await tab.page.isVisible('#walk-stop')) await tab.page.click('#walk-stop');
      await tab.page.click('#walk-start');
      await tab.page.waitForFunction(() => document.querySelectorAll('td[data-matrix="wq"].walk-in').length > 0);
      await tab.page.waitForTimeout(100);
      const covered = [];
      for (let i = 0; i < 40; i++) {
        const at = await boxes();
        if (i === 0) assert.equal(at.matrix, 'wq', 'step 1 points at W_q');
        if (!at.head) break;
        const fine = at.head.top >= at.panel.bottom - 1 && at.head.bottom <= at.height;
        if (!fine) covered.push(`step ${i + 1} ${at.matrix}: headers ${Math.round(at.head.top)}–${Math.round(at.head.bottom)}, panel ends ${Math.round(at.panel.bottom)}`);
        if (await tab.page.getAttribute('#walk-next', 'aria-disabled') === 'true') break;
        await tab.page.click('#walk-next');
        await tab.page.waitForTimeout(50);
      }
      await tab.page.click('#walk-stop');
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      assert.deepEqual(covered, []);
    });
  }
});

describe("the scaling lab's plots on a phone (issue 26, point 11)", () => {
  for (const lang of ['en', 'hi']) {
    it(`at 375 px (${lang}): every label of the variance plot and the softmax bars ≥ 12 px as shown, none overlapping`, async () => {
      await tab.page.setViewportSize({ width: 375, height: 800 });
      if (lang === 'hi') await tab.page.selectOption('#language', 'hi');
      await openLab({ preset: lang === 'hi' ? 'money-bank' : 'cat-sat' });  // drawn at the phone's width
      await tab.page.locator('section[data-view="lab"]').scrollIntoViewIfNeeded();
      await tab.page.waitForFunction(() => document.querySelectorAll('#variance-plot text').length > 8);
      await tab.page.waitForTimeout(300);
      const svgs = await tab.page.$$eval('section[data-view="lab"] svg', (list) => list.map((svg) => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return { id: svg.id, labels: [...svg.querySelectorAll('text')].map((text) => {
          const box = text.getBoundingClientRect();
          return { text: text.textContent, size: parseFloat(getComputedStyle(text).fontSize) * scale, box: [box.left, box.top, box.right, box.bottom] };
        }) };
      }));
      if (lang === 'hi') await tab.page.selectOption('#language', 'en');
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      assert.deepEqual(svgs.map((svg) => svg.id), ['variance-plot', 'softmax-64', 'softmax-32', 'softmax-slider']);
      const small = [];
      const overlaps = [];
      const overlap = (a, b) => a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && a[1] < b[3] - 0.5 && b[1] < a[3] - 0.5;
      for (const { id, labels } of svgs) {
        assert.ok(labels.length >= 4, id);
        for (const label of labels) if (label.size < 12 - 1e-6) small.push(`${id} '${label.text}' ${label.size.toFixed(1)} px`);
        for (let i = 0; i < labels.length; i++) {
          for (let j = i + 1; j < labels.length; j++) if (overlap(labels[i].box, labels[j].box)) overlaps.push(`${id}: '${labels[i].text}' / '${labels[j].text}'`);
        }
      }
      assert.deepEqual(small, []);
      assert.deepEqual(overlaps, []);
    });
  }
});
