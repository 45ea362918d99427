// "Explain this number" across layers (issue 23, shared/explain-layers.mjs): a cell of layer 2 is
// explained from layer 2's inputs, and its input X (the stream entering layer 2) links back to the
// layer-1 cells it came from; following a link selects and explains that cell in layer 1. Every
// number read from the panel is checked against the float64 stack of stack64.mjs.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useLabPage, renderEverySection } from './browser.mjs';
import { stack64, layerNorm } from './stack64.mjs';

const require = createRequire(import.meta.url);
let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const TOKENS = ['the', 'bank', 'by', 'the', 'river'];
const D = 4;
const N = TOKENS.length;
// hand-set vectors and weights (as blocks.test.mjs): X 5 × 4; W_q, W_k, W_v 2 heads × 4 × 2; W_O 4 × 4
const ROWS = TOKENS.map((_, i) => Array.from({ length: D }, (__, c) => Math.round(100 * Math.sin(1 + 3 * i + c)) / 100));
const handSet = (seed) => ({
  wq: Array.from({ length: 16 }, (_, i) => Math.round(100 * Math.cos(seed + i)) / 100),
  wk: Array.from({ length: 16 }, (_, i) => Math.round(100 * Math.sin(2 * seed + i)) / 100),
  wv: Array.from({ length: 16 }, (_, i) => Math.round(100 * Math.cos(3 * seed + 2 * i)) / 100),
  wo: Array.from({ length: 16 }, (_, i) => (i % 5 === 0 ? 1 : 0) + Math.round(50 * Math.sin(seed * i)) / 100),
});
const SIZES = { heads: 2, dK: 2, dV: 2, causal: true };
const RIVER = 4;

const handLab = (extra) => ({
  preset: null, sentence: TOKENS.join(' '), inputs: { tokens: TOKENS, rows: ROWS }, xEdits: {},
  dModel: D, heads: 2, dK: 2, dV: 2, useWo: true, maskMode: 'causal', scaleMode: 'sqrt_dk', positions: 'none',
  weightsMode: 'custom', custom: handSet(1), layerWeights: [handSet(2)], selectedToken: RIVER, selectedHead: 0, ...extra,
});

async function setLab(change) {
  await lab.redrawn(() => tab.page.evaluate((c) => {
    const l = globalThis.attentionLab;
    l.setState({ ...l.state, ...c });
  }, change));
}

// The panel as text: title, lines, value, links
const panel = () => tab.page.evaluate(() => ({
  title: document.getElementById('explain-cell').textContent,
  lines: [...document.querySelectorAll('#explain-lines li')].map((li) => li.textContent),
  value: Number(document.getElementById('explain-value').textContent.replace(/^= /, '')),
  links: [...document.querySelectorAll('#explain-links button')].map((b) => b.textContent),
  hidden: document.getElementById('explain').hidden,
}));

// 4 significant digits, as the lab prints them
function near(shown, expected, what) {
  assert.ok(Math.abs(shown - expected) <= 5e-4 * Math.max(1, Math.abs(expected)), `${what}: shown ${shown}, float64 ${expected}`);
}
// a "+ b" or "− b" term, its sign folded into the operator ("3.97 − 0.02035" adds −0.02035), read back signed
const numbersOf = (line) => line.replace(/ − (?=\d)/g, ' + -').split(/×| [+−/] |[()√]/).map((s) => s.trim()).filter((s) => s !== '' && Number.isFinite(Number(s))).map(Number);

const cell = (matrix, row, col, where = '') => `${where} td[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]`;

// Follows the explanation's link whose text matches, and waits for the lab (and its panel) to show it
async function followLink(pattern, { keyboard = false } = {}) {
  const index = (await panel()).links.findIndex((text) => pattern.test(text));
  assert.ok(index >= 0, `a link matching ${pattern} in ${JSON.stringify((await panel()).links)}`);
  const button = `#explain-links button[data-link="${index}"]`;
  if (keyboard) {
    await tab.page.focus(button);
    await tab.page.keyboard.press('Enter');
  } else {
    await tab.page.click(button);
  }
  await tab.page.waitForFunction(() => globalThis.attentionLab.idle && document.activeElement?.closest?.('td.selected'));
}

describe('explain this number across layers: attention only', () => {
  it('attention only: from a layer-2 weight to its X, back to layer 1\'s X and output, to its z', async () => {
    await setLab(handLab({ layers: 2, block: 'attention', selectedLayer: 1 }));
    const expected = stack64(ROWS.flat(), N, D, [handSet(1), handSet(2)], { arrangement: 'attention-only', ...SIZES });
    // a weight of layer 2, 'river' → 'bank', head 1: explained from layer 2's scaled scores
    await tab.page.click(cell('weights', RIVER, 1, '#steps'));
    let shown = await panel();
    near(shown.value, expected[1].weights[0][RIVER * N + 1], 'layer 2 weight river → bank');
    assert.deepEqual(shown.links, [], 'a weight has no link across layers');
    // its X in layer 2: what layer 1 gave out, x + attention(x), both terms linked to layer 1
    await tab.page.click(cell('x', RIVER, 2, '#x-table'));
    shown = await panel();
    assert.match(shown.lines[0], /stream entering layer 2 for 'river'.*what layer 1 gave out: its X plus its attention output/);
    const [a, b] = numbersOf(shown.lines[1]);
    near(a, expected[0].input[RIVER * D + 2], 'layer 1 X');
    near(b, expected[0].attention[RIVER * D + 2], 'layer 1 attention output');
    near(shown.value, expected[1].input[RIVER * D + 2], 'layer 2 X');
    assert.equal(shown.links.length, 2);
    assert.match(shown.links[0], /^Layer 1: X, row 'river', column /);
    assert.match(shown.links[1], /^Layer 1: Output, row 'river', column /);

    // the output's link: layer 1 shown, its Output cell selected, focused and explained (concat · W_O)
    await followLink(/^Layer 1: Output/);
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.state.selectedLayer), 0);
    assert.ok(await tab.page.evaluate((s) => document.querySelector(s).contains(document.activeElement), cell('output', RIVER, 2, '#output-table')));
    shown = await panel();
    assert.match(shown.title, /^Layer 1, Output: row 'river'/);  // a stack's title names the layer (review 6, finding 5)
    near(shown.value, expected[0].attention[RIVER * D + 2], 'layer 1 output (followed)');
    // concat · W_O's terms: the float64 concatenation of 'river' times W_O's column
    const terms = numbersOf(shown.lines[1]);
    const concat = Array.from(expected[0].concat.slice(RIVER * 4, RIVER * 4 + 4));
    // (four terms: all written out, as the notes write a short sum)
    const pairs = concat.map((z, i) => [z, handSet(1).wo[i * D + 2]]);
    assert.equal(terms.length, 2 * pairs.length);
    pairs.forEach(([z, w], i) => { near(terms[2 * i], z, `concat term ${i}`); near(terms[2 * i + 1], w, `W_O term ${i}`); });
    // and on to layer 1's z: the concatenation's column 'h2:1' is head 2's z
    await tab.page.click(cell('concat', RIVER, 2, '#concat-table'));
    shown = await panel();
    assert.match(shown.lines[0], /head 2/);
    near(shown.value, expected[0].concat[RIVER * 4 + 2], 'layer 1 z, head 2');
  });

  it('by keyboard: Enter on a link selects and focuses layer 1\'s X cell; Hindi names the same cells', async () => {
    await setLab(handLab({ layers: 2, block: 'attention', selectedLayer: 1 }));
    const expected = stack64(ROWS.flat(), N, D, [handSet(1), handSet(2)], { arrangement: 'attention-only', ...SIZES });
    await tab.page.focus(cell('x', 1, 0, '#x-table'));
    let shown = await panel();
    near(shown.value, expected[1].input[D], 'layer 2 X of bank (focused)');
    await followLink(/^Layer 1: X/, { keyboard: true });
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.state.selectedLayer), 0);
    // layer 1's X is typed: the focus is in the cell's input
    assert.ok(await tab.page.evaluate((s) => document.querySelector(s).contains(document.activeElement), cell('x', 1, 0, '#x-table')));
    near((await panel()).value, ROWS[1][0], 'layer 1 X of bank: the typed vector');
    // arrow keys go on from the cell reached
    await tab.page.keyboard.press('ArrowDown');
    near((await panel()).value, ROWS[2][0], 'the cell below, by arrow key');

    await setLab({ selectedLayer: 1 });
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi')));
    await tab.page.click(cell('x', 1, 0, '#x-table'));
    shown = await panel();
    assert.match(shown.lines[0], /layer 1 ने दिया/);
    assert.match(shown.links[1], /^Layer 1: आउटपुट, पंक्ति 'bank'/);
    const [a, b] = numbersOf(shown.lines[1]);
    near(a, expected[0].input[D], 'Hindi: layer 1 X');
    near(b, expected[0].attention[D], 'Hindi: layer 1 output');
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en')));
    await tab.page.keyboard.press('Escape');
  });

});

describe('explain this number across layers: full blocks', () => {
  it('pre-LN: layer 2\'s X is LN₁ of the residual sum, linked to layer 1\'s x + attention and MLP in the stream', async () => {
    await setLab(handLab({ layers: 2, block: 'full', norm: 'pre', weightsMode: 'random', seed: 5, custom: null, layerWeights: null, selectedLayer: 1 }));
    const used = await tab.page.evaluate(() => globalThis.attentionLab.view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)]))));
    const expected = stack64(ROWS.flat(), N, D, used, { arrangement: 'pre', ...SIZES });
    const stream = Array.from(expected[1].input.slice(RIVER * D, RIVER * D + D));
    const mean = stream.reduce((s, v) => s + v, 0) / D;
    const variance = stream.reduce((s, v) => s + (v - mean) ** 2, 0) / D;  // by n: a divide by n − 1 would fail
    await tab.page.click(cell('x', RIVER, 3, '#x-table'));
    let shown = await panel();
    // in reading order (review 5, finding 3): where the stream came from, its sum, then the norm of that sum
    assert.match(shown.lines[0], /stream entering layer 2 is what layer 1 gave out/);
    assert.match(shown.lines[3], /LN₁ in layer 2: the row has mean/);
    const [m, v] = numbersOf(shown.lines[3].replace(/^.*mean /, '').replace(/ and variance /, ' + ').replace(/ over.*$/, ''));
    near(m, mean, 'mean of the stream entering layer 2');
    near(v, variance, 'variance of the stream entering layer 2');
    near(shown.value, layerNorm(expected[1].input, N, D)[RIVER * D + 3], 'layer 2 X = LN₁');
    const [attended, mlp] = numbersOf(shown.lines[1]);
    near(attended, expected[0].attended[RIVER * D + 3], 'layer 1 x + attention');
    near(mlp, expected[0].mlpOut[RIVER * D + 3], 'layer 1 MLP');
    near(Number(shown.lines[2].replace(/^= /, '')), stream[3], 'the sum, = the stream entering layer 2');
    near(numbersOf(shown.lines[4])[0], stream[3], 'the norm reads that sum');
    assert.doesNotMatch(shown.lines.join('\n'), /[−+] -/, 'no "− -0.03" or "+ -0.03"');
    assert.match(shown.links[0], /Residual stream of 'river': = x \+ a, layer 1, column/);
    assert.match(shown.links[2], /Residual stream of 'river': x: enters layer 2, column/);

    // the residual sum of layer 1 in the stream's table, then its attention term, in layer 1's tables
    await followLink(/= x \+ a, layer 1/);
    shown = await panel();
    assert.match(shown.title, /^Residual stream of 'river': = x \+ a, layer 1/);
    near(shown.value, expected[0].attended[RIVER * D + 3], 'layer 1 x + attention (stream cell)');
    const [x, attention] = numbersOf(shown.lines[1]);
    near(x, expected[0].input[RIVER * D + 3], 'layer 1 x');
    near(attention, expected[0].attention[RIVER * D + 3], 'layer 1 attention');
    await followLink(/a = attention\(LN₁\(x\)\), layer 1/);
    shown = await panel();
    assert.match(shown.lines[0], /attention of layer 1 gives 'river'/);
    await followLink(/^Layer 1: Output/);
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.state.selectedLayer), 0);
    near((await panel()).value, expected[0].attention[RIVER * D + 3], 'layer 1 attention output (table)');
  });

  it('post-LN: layer 2\'s X is LN₂ of layer 1\'s u + m; axe finds nothing serious in the panel', async () => {
    await setLab(handLab({ layers: 2, block: 'full', norm: 'post', weightsMode: 'random', seed: 3, custom: null, layerWeights: null, selectedLayer: 1, selectedToken: 2 }));
    const used = await tab.page.evaluate(() => globalThis.attentionLab.view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)]))));
    const expected = stack64(ROWS.flat(), N, D, used, { arrangement: 'post', ...SIZES });
    await tab.page.click(cell('x', 2, 0, '#x-table'));
    let shown = await panel();
    assert.match(shown.lines[0], /LN₂ of its u \+ m/);
    near(shown.value, expected[1].input[2 * D], 'layer 2 X');
    await followLink(/= u \+ m, layer 1/);
    shown = await panel();
    const summed = add64(expected[0].middle, expected[0].mlpOut);
    near(shown.value, summed[2 * D], 'layer 1 u + m');
    const [a, mlp] = numbersOf(shown.lines[1]);
    near(a, expected[0].middle[2 * D], 'layer 1 a');
    near(mlp, expected[0].mlpOut[2 * D], 'layer 1 MLP(a)');
    await renderEverySection(tab.page);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.getElementById('explain'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
    });
    assert.deepEqual(violations, []);
    await tab.page.keyboard.press('Escape');
  });
});

const add64 = (a, b) => a.map((value, i) => value + b[i]);
