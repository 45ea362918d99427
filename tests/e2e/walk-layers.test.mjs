// The guided walk through a stack (issue 23): from layer 1's norm, attention, residual, norm, MLP and
// residual on into layer 2's, by Next alone (the reader never picks the layer), and back by Back;
// each step's numbers against the float64 stack of stack64.mjs.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { stack64, layerNorm } from './stack64.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const TOKENS = ['the', 'bank', 'by', 'the', 'river'];
const D = 4;
const N = TOKENS.length;
const ROWS = TOKENS.map((_, i) => Array.from({ length: D }, (__, c) => Math.round(100 * Math.sin(1 + 3 * i + c)) / 100));
const SIZES = { heads: 2, dK: 2, dV: 2, causal: true };
const BANK = 1;

async function setLab(change) {
  await lab.redrawn(() => tab.page.evaluate((c) => {
    const l = globalThis.attentionLab;
    l.setState({ ...l.state, ...c });
  }, change));
}

const labOf = (norm) => ({
  preset: null, sentence: TOKENS.join(' '), inputs: { tokens: TOKENS, rows: ROWS }, xEdits: {},
  dModel: D, heads: 2, dK: 2, dV: 2, useWo: true, maskMode: 'causal', scaleMode: 'sqrt_dk', positions: 'none',
  weightsMode: 'random', seed: 5, custom: null, layerWeights: null, layers: 2, block: 'full', norm,
  selectedLayer: 0, selectedToken: BANK, selectedHead: 0,
});

// The walk's step now: its position, sentence, arithmetic, and the layer the lab shows
const step = () => tab.page.evaluate(() => ({
  position: document.querySelector('.walk-position').textContent,
  text: document.querySelector('.walk-text').textContent,
  lines: [...document.querySelectorAll('.walk-arithmetic li')].map((li) => li.textContent),
  layer: globalThis.attentionLab.state.selectedLayer,
  next: document.getElementById('walk-next').getAttribute('aria-disabled'),
}));

// Presses a key in the walk's panel and waits for the step to change (a new layer: a new view first)
async function press(key) {
  const before = await step();
  await tab.page.keyboard.press(key);
  await tab.page.waitForFunction((b) => {
    const now = document.querySelector('.walk-position').textContent + document.querySelector('.walk-text').textContent;
    return globalThis.attentionLab.idle && now !== b;
  }, before.position + before.text);
  return step();
}

const rowOf = (values) => Array.from(values.slice(BANK * D, (BANK + 1) * D));
const vectorOf = (line) => line.replace(/^= /, '').replace(/^[^[]*\[|\].*$/g, '').split(', ').map(Number);
function nearRow(shown, expected, what) {
  assert.equal(shown.length, expected.length, `${what}: length`);
  shown.forEach((v, c) => assert.ok(Math.abs(v - expected[c]) <= 5e-4 * Math.max(1, Math.abs(expected[c])), `${what} col ${c + 1}: shown ${v}, float64 ${expected[c]}`));
}

// The pre-LN walk of one layer, in order: LN₁, q k v, 5 scores, scale, softmax, 5 weighted values,
// z, concat, W_O, the residual, LN₂, the MLP, the residual again, where the stream goes
const PRE_ORDER = [/^Pre-LN: layer \d first normalises/, /^q = LN₁\(x\) · W_q/, /^K = /, /^V = /, ...Array(5).fill(/^Score of/), /^Scaling/, /^softmax/,
  ...Array(5).fill(/^Weighted value/), /^z of 'bank'/, /^The concatenation/, /^Z_f = concat · W_O/, /^The residual: /,
  /^Pre-LN: the MLP reads the sum x \+ a normalised again/, /^Pre-LN: the MLP reads/, /^The residual again/, /leaving (layer 1|the last layer, 2)/];

describe('the walk through a stack', () => {
  it('pre-LN: Next walks layer 1 (norm, attention, add, norm, MLP, add) and on into layer 2, each number the float64 one', async () => {
    await setLab(labOf('pre'));
    const used = await tab.page.evaluate(() => globalThis.attentionLab.view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)]))));
    const expected = stack64(ROWS.flat(), N, D, used, { arrangement: 'pre', ...SIZES });
    await tab.page.click('#walk-start');
    const steps = [await step()];
    for (let i = 1; i < 2 * PRE_ORDER.length; i++) steps.push(await press('ArrowRight'));
    assert.equal(steps.at(-1).next, 'true', 'Next stops at the last layer\'s last step');
    const count = PRE_ORDER.length;
    steps.forEach((s, i) => {
      const layer = Math.floor(i / count);
      assert.equal(s.layer, layer, `step ${i + 1}: the lab shows layer ${layer + 1}`);
      assert.equal(s.position, `Layer ${layer + 1} of 2: step ${(i % count) + 1} of ${count}`);
      assert.match(s.text, PRE_ORDER[i % count], `step ${i + 1}`);
    });
    for (const l of [0, 1]) {
      const at = (k) => steps[l * count + k];
      nearRow(vectorOf(at(0).lines[0]), rowOf(expected[l].input), `layer ${l + 1} LN₁'s input`);
      nearRow(vectorOf(at(0).lines[1]), rowOf(layerNorm(expected[l].input, N, D)), `layer ${l + 1} LN₁`);
      // softmax: the explained weight (bank → the key it weighs most) is the float64 weight
      const bankRow = Array.from(expected[l].weights[0].slice(BANK * N, (BANK + 1) * N));
      const strongest = bankRow.indexOf(Math.max(...bankRow));
      const value = Number(at(10).lines.at(-1).replace(/^= /, ''));
      assert.ok(Math.abs(value - bankRow[strongest]) <= 5e-4, `layer ${l + 1} softmax: ${value} vs ${bankRow[strongest]}`);
      nearRow(vectorOf(at(19).lines[1]), rowOf(expected[l].attended), `layer ${l + 1} x + attention`);
      nearRow(vectorOf(at(20).lines[1]), rowOf(layerNorm(expected[l].attended, N, D)), `layer ${l + 1} LN₂`);
      nearRow(vectorOf(at(21).lines[1]), rowOf(expected[l].mlpOut), `layer ${l + 1} MLP`);
      nearRow(vectorOf(at(22).lines[1]), rowOf(expected[l].output), `layer ${l + 1} a + MLP`);
      nearRow(vectorOf(at(23).lines[0]), rowOf(expected[l].output), `layer ${l + 1} leaves`);
    }
    // Back from layer 2's first step goes to layer 1's last
    await press('Home');
    const back = await press('ArrowLeft');
    assert.equal(back.layer, 0);
    assert.equal(back.position, `Layer 1 of 2: step ${count} of ${count}`);
    assert.match(back.text, /leaving layer 1: layer 2 reads it/);
    await tab.page.keyboard.press('Escape');
  });

  it('post-LN in Hindi: the same order of sums and norms, into layer 2', async () => {
    await setLab(labOf('post'));
    const used = await tab.page.evaluate(() => globalThis.attentionLab.view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)]))));
    const expected = stack64(ROWS.flat(), N, D, used, { arrangement: 'post', ...SIZES });
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi')));
    await tab.page.click('#walk-start');
    await press('End');
    const last = await step();
    assert.match(last.position, /^2 में से layer 1: 24 में से चरण 24$/);  // as 'blocks.shown' words it (review 6, finding 4)
    const first2 = await press('ArrowRight');
    assert.equal(first2.layer, 1, 'Next went on into layer 2');
    assert.match(first2.text, /q = x · W_q, head 1/);
    // back in layer 1's end: LN₂ (what leaves layer 1) against float64
    const end1 = await press('ArrowLeft');
    assert.equal(end1.layer, 0);
    const norm2 = await press('ArrowLeft');
    nearRow(vectorOf(norm2.lines[1]), rowOf(expected[0].output), 'layer 1 LN₂ (post)');
    await tab.page.keyboard.press('Escape');
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en')));
  });
});
