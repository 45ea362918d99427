// The page in headless Chromium: every preset shows the notes' numbers and agrees with an
// independent float64 reference; edits recompute; explanations show the arithmetic; bad input is
// marked while the last result stays; hostile text stays text; nothing leaves the origin.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { referenceAttention } from '../web/reference.mjs';
import { PRESETS } from '../../web/src/state/presets.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const redrawn = (action) => lab.redrawn(action);

async function choosePreset(id) {
  const current = await tab.page.evaluate(() => globalThis.attentionLab.state.preset);
  if (current === id) return;
  await redrawn(() => tab.page.selectOption('#preset', id));
}

// The text of a <table>: { caption, columns, rows: [{ label, cells }] }.
function readTable(selector) {
  return tab.page.$eval(selector, (table) => ({
    caption: table.caption?.textContent ?? '',
    columns: Array.from(table.tHead.rows[0].cells).slice(1).map((c) => c.textContent),
    rows: Array.from(table.tBodies[0].rows).map((tr) => ({
      label: tr.cells[0].textContent,
      cells: Array.from(tr.cells).slice(1).map((c) => c.querySelector('input')?.value ?? c.textContent),
    })),
  }));
}

// "1.754 × 10⁻⁷" is 1.754e-7 (tiny and huge numbers as a student writes them, issue 26)
const SUPER = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const number = (text) => (text === '−∞' ? -Infinity : Number(text.replace(/ × 10([⁻]?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)/, (_, sign, digits) => `e${sign ? '-' : ''}${[...digits].map((d) => SUPER.indexOf(d)).join('')}`)));

// The page's inputs and weights, run through the float64 reference.
async function reference() {
  const v = await tab.page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const arr = (a) => (a ? Array.from(a) : undefined);
    return {
      tokens: view.tokens, n: view.tokens.length, m: view.m, dModel: view.dModel, heads: view.heads, dK: view.dK, dV: view.dV,
      x: arr(view.x), context: arr(view.context ?? undefined), self: view.self,
      wq: arr(view.weights.wq), wk: arr(view.weights.wk), wv: arr(view.weights.wv), wo: arr(view.weights.wo ?? undefined),
      scale: state.scaleMode === 'custom' ? state.scaleDivisor : state.scaleMode, mask: state.maskMode,
    };
  });
  return { inputs: v, expected: referenceAttention({ ...v, context: v.self ? undefined : v.context, mask: v.mask === 'padding' ? 'none' : v.mask }) };
}

function assertTableMatches(table, values, cols, what) {
  table.rows.forEach((row, r) => row.cells.forEach((text, c) => {
    if (c >= cols) return;  // the Σ column
    const want = values[r * cols + c];
    const got = number(text);
    // 4 significant digits (issue 26, point 6): within half a unit of the 4th digit, or 0.0006
    assert.ok(want === -Infinity ? got === -Infinity : Math.abs(got - want) <= Math.max(0.0006, 0.0005 * Math.abs(want)),
      `${what} [${row.label}][${table.columns[c]}]: page ${text}, reference ${want}`);
  }));
}

describe('presets', () => {
  notesNumbersTests();
  otherPresetTests();
});

// every preset against the reference; the notes' numbers of cat-sat and animal-it
function notesNumbersTests() {
  for (const preset of PRESETS) {
    it(`${preset.id}: every head's tables and the output match the float64 reference`, async () => {
      await choosePreset(preset.id);
      const { inputs, expected } = await reference();
      for (let h = 0; h < inputs.heads; h++) {
        if (inputs.heads > 1) await redrawn(() => tab.page.click(`#tab-${h}`));
        for (const [name, cols] of [['q', inputs.dK], ['scores', inputs.m], ['scaled', inputs.m], ['weights', inputs.m], ['z', inputs.dV]]) {
          const table = await readTable(`[data-slot="head-${h}-${name}"] table`);
          assertTableMatches(table, expected.heads[h][name], cols, `${preset.id} head ${h + 1} ${name}`);
        }
      }
      const width = inputs.wo ? inputs.dModel : inputs.heads * inputs.dV;
      assertTableMatches(await readTable('#output-table table'), expected.output, width, `${preset.id} output`);
      if (inputs.heads > 1) await redrawn(() => tab.page.click('#tab-0'));
    });
  }

  it("cat-sat: the notes' weights and outputs (002)", async () => {
    await choosePreset('cat-sat');
    const weights = await readTable('[data-slot="head-0-weights"] table');
    // 4 significant digits, as the notes' corrections write them (issue 26, point 6)
    assert.deepEqual(weights.rows[0].cells, ['0.4223', '0.1554', '0.4223', '1']);
    const output = await readTable('#output-table table');
    assert.deepEqual(output.rows.map((r) => r.cells.map((c) => c.replace(/ \(.*\)$/, ''))), [
      ['0.8446', '0.5777', '0.8446', '0.5777'], ['0.5777', '0.8446', '0.5777', '0.8446'], ['0.7881', '0.7881', '0.7881', '0.7881']]);
    const notes = await tab.page.textContent('#notes');
    assert.match(notes, /0\.5761/);
    assert.match(notes, /\[0\.8808, 0\.1192\]/);
  });

  it("animal-it: the notes' full sentence; the scores of 'it' are the notes' 0.17 … 1.22, and the page says where the weights differ (003)", async () => {
    await choosePreset('animal-it');
    const scores = await readTable('[data-slot="head-0-scores"] table');
    assert.deepEqual(scores.columns, ['The', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired', '.']);
    const it = scores.rows.find((r) => r.label === 'it');
    // the notes' eight scores; 'the' shares the row of 'The'; 'because', 'too' and '.' have no q or k in the notes
    assert.deepEqual(it.cells, ['0.17', '0.77', '0.2', '0.29', '0.17', '0.62', '0', '0.92', '0.14', '0', '1.22', '0']);
    const steps = await tab.page.textContent('#steps caption');
    assert.match(steps, /Query 'it'/);
    const weights = await readTable('[data-slot="head-0-weights"] table');
    const row = weights.rows.find((r) => r.label === 'it').cells.slice(0, 12).map(Number);
    assert.equal(weights.columns[row.indexOf(Math.max(...row))], 'tired');
    assert.match(await tab.page.textContent('#notes'), /True softmax favours 'tired'/);
  });
}

// the notes' points of the other presets
function otherPresetTests() {
  for (const [id, wins, loses] of [['money-bank', 'finance', 'nature'], ['river-bank', 'nature', 'finance']]) {
    it(`${id}: 'bank' moves toward ${wins} (001)`, async () => {
      await choosePreset(id);
      const output = await readTable('#output-table table');
      const bank = output.rows.find((r) => r.label === 'bank').cells.map(Number);
      const x = await readTable('#x-table table');
      const before = x.rows.find((r) => r.label === 'bank').cells.map(Number);
      const col = (name) => x.columns.indexOf(name);
      // head dimensions are numbered; with W = I each names its feature in brackets (issue 26, point 5)
      assert.deepEqual(output.columns, x.columns.map((name, c) => `${c + 1} (${name})`), 'with W = I the output columns are the features');
      assert.equal(before[col(wins)], before[col(loses)], 'both senses start equal');
      assert.ok(bank[col(wins)] > bank[col(loses)] + 0.05, `${wins} ${bank[col(wins)]} vs ${loses} ${bank[col(loses)]}`);
    });
  }

  it('action: d_k = 64 divides the scores by 8 (004)', async () => {
    await choosePreset('action');
    const header = await tab.page.$$eval('#steps thead th', (ths) => ths.map((th) => th.textContent));
    assert.ok(header.includes('q·k / √d_k = 8'), header.join(' | '));
    const steps = await tab.page.$$eval('#steps tbody tr', (rows) => rows.map((tr) => [tr.cells[4].textContent, tr.cells[5].textContent]));
    for (const [score, scaled] of steps) assert.ok(Math.abs(Number(score) / 8 - Number(scaled)) < 0.001);
  });

  it("kids-lions: 'they' weighs 'kids' highest (004)", async () => {
    await choosePreset('kids-lions');
    const weights = await readTable('[data-slot="head-0-weights"] table');
    const row = weights.rows.find((r) => r.label === 'they').cells.slice(0, -1).map(Number);
    assert.equal(weights.columns[row.indexOf(Math.max(...row))], 'kids');
  });

  it("telescope: head 1 links 'telescope' to 'saw', head 2 to 'astronomer' (000)", async () => {
    await choosePreset('telescope');
    for (const [head, word] of [[0, 'saw'], [1, 'astronomer']]) {
      await redrawn(() => tab.page.click(`#tab-${head}`));
      const weights = await readTable(`[data-slot="head-${head}-weights"] table`);
      const row = weights.rows.find((r) => r.label === 'telescope').cells.slice(0, -1).map(Number);
      assert.equal(weights.columns[row.indexOf(Math.max(...row))], word);
    }
    await redrawn(() => tab.page.click('#tab-all'));
    assert.equal(await tab.page.locator('#head-panel table').count(), 2, 'the overview shows both heads');
    await redrawn(() => tab.page.click('#tab-0'));
  });
}

describe('editing and explaining', () => {
  it('editing a cell of X recomputes every table downstream', async () => {
    await choosePreset('cat-sat');
    const input = tab.page.getByRole('textbox', { name: 'X, row The, column e1', exact: true });
    await redrawn(() => input.fill('2'));
    const { expected } = await reference();
    assertTableMatches(await readTable('[data-slot="head-0-weights"] table'), expected.heads[0].weights, 3, 'weights after the edit');
    assertTableMatches(await readTable('#output-table table'), expected.output, 4, 'output after the edit');
    const weights = await readTable('[data-slot="head-0-weights"] table');
    assert.notDeepEqual(weights.rows[0].cells, ['0.422', '0.155', '0.422', '1.000']);
  });

  it('editing a weight switches to hand-edited weights and recomputes', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'money-bank'));
    await tab.page.click('#weights summary');
    const cell = tab.page.getByRole('textbox', { name: 'W_q, head 1, row finance, column 1 (finance)', exact: true });
    await redrawn(() => cell.fill('3'));
    assert.equal(await tab.page.inputValue('#weightsMode'), 'custom');
    const { inputs, expected } = await reference();
    assert.equal(inputs.wq[0], 3);
    assertTableMatches(await readTable('#output-table table'), expected.output, 10, 'output after a weight edit');
  });

  it("explains a score with the notes' arithmetic: 0.6×0.2 + 0.5×0.1 + 0.4×0 = 0.17", async () => {
    await choosePreset('animal-it');
    await tab.page.click('[data-slot="head-0-scores"] td[data-row="7"][data-col="0"]');
    assert.equal(await tab.page.isVisible('#explain'), true);
    assert.equal(await tab.page.textContent('#explain-cell'), "Scores, head 1: row 'it', column 'The'");
    // three terms: written out whole, the zero too, as the notes do (issue 26, point 4)
    assert.match(await tab.page.textContent('#explain-lines'), /0\.6×0\.2 \+ 0\.5×0\.1 \+ 0\.4×0/);
    assert.equal(await tab.page.textContent('#explain-value'), '= 0.17');
  });

  it('explains a weight as e^x / Σ e^x and a z as the weighted sum', async () => {
    await choosePreset('cat-sat');
    await tab.page.click('[data-slot="head-0-weights"] td[data-row="0"][data-col="1"]');
    const lines = await tab.page.textContent('#explain-lines');
    assert.match(lines, /e\^0 \/ \(e\^1 \+ e\^0 \+ e\^1\)/);
    assert.match(await tab.page.textContent('#explain-value'), /= 0\.1554$/);
    await tab.page.click('[data-slot="head-0-z"] td[data-row="2"][data-col="0"]');
    // 1/(2+e) and e/(2+e) at 4 significant digits (issue 26, point 6)
    assert.match(await tab.page.textContent('#explain-lines'), /0\.2119×1 \+ 0\.2119×0 \+ 0\.5761×1/);
    // every float32 digit on request: the nearest float32 (0.5761169 was the old exp's neighbour, 1 ulp off)
    await redrawn(() => tab.page.selectOption('#precision', '0'));
    await tab.page.click('[data-slot="head-0-z"] td[data-row="2"][data-col="0"]');
    assert.match(await tab.page.textContent('#explain-lines'), /0\.21194157×1 \+ 0\.21194157×0 \+ 0\.57611686×1/);
    await redrawn(() => tab.page.selectOption('#precision', '4'));
  });

  it('keyboard: arrow keys move between cells and focus explains', async () => {
    await tab.page.focus('[data-slot="head-0-weights"] td[data-row="0"][data-col="0"]');
    await tab.page.keyboard.press('ArrowRight');
    assert.equal(await tab.page.textContent('#explain-cell'), "Weights, head 1: row 'The', column 'cat'");
    await tab.page.click('#explain-close');
    assert.equal(await tab.page.isVisible('#explain'), false);
  });
});

describe('bad input', () => {
  it('a cell that is not a number is marked, explained, and the last good result stays', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    const before = await readTable('#output-table table');
    const input = tab.page.getByRole('textbox', { name: 'X, row cat, column e1', exact: true });
    await input.fill('abc');
    await tab.page.waitForSelector('#messages p');
    assert.match(await tab.page.textContent('#messages'), /'abc' is not a number/);
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await readTable('#output-table table'), before);
    await redrawn(() => input.fill('0.5'));
    assert.equal(await tab.page.textContent('#messages'), '');
  });

  it('a size the page cannot take is marked and named', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    const before = await readTable('#output-table table');
    await tab.page.fill('#dModel', '0');
    await tab.page.waitForSelector('.field[data-field="dModel"].invalid');
    const said = await tab.page.textContent('#messages');
    assert.match(said, /^d_model must be a whole number of at least 1, got 0/, "named by the control's label");
    assert.doesNotMatch(said, /dModel/);
    assert.deepEqual(await readTable('#output-table table'), before);
    await tab.page.fill('#dModel', '4');
  });

  it('too many tokens gives a message, not a freeze', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await tab.page.fill('#sentence', 'word '.repeat(400));
    await tab.page.waitForSelector('#messages p');
    assert.match(await tab.page.textContent('#messages'), /more than 64 tokens/);
    assert.equal((await readTable('#output-table table')).rows.length, 3, 'the last good result stays');
  });

  it('identity weights with two heads explain what to change', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'money-bank'));
    await tab.page.fill('#heads', '2');
    await tab.page.waitForSelector('.field[data-field="weightsMode"].invalid');
    assert.match(await tab.page.textContent('#messages'), /Identity weights need heads = 1/);
    await redrawn(() => tab.page.selectOption('#weightsMode', 'random'));
    assert.equal(await tab.page.locator('#head-tabs [role="tab"]').count(), 3);
  });

  it('hostile text shows as tokens and runs nothing', async () => {
    let dialogs = 0;
    tab.page.on('dialog', (dialog) => { dialogs++; dialog.dismiss(); });
    await redrawn(() => tab.page.selectOption('#preset', 'money-bank'));
    await redrawn(() => tab.page.fill('#sentence', '<img src=x onerror=alert(1)> <b>bold</b>'));
    const tokens = await tab.page.$$eval('#tokens button', (buttons) => buttons.map((b) => b.textContent));
    assert.deepEqual(tokens.slice(0, 4), ['<', 'img', 'src', '=']);
    assert.equal(await tab.page.locator('main img, main b').count(), 0);
    assert.equal(dialogs, 0);
  });
});
