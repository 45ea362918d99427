// A full block's MLP and norm weights, editable per layer (issue 23, blocks/params.mjs): cells typed
// into w1 of layer 1 and into γ and β of layer 2's norms change the stack as the float64 stack of
// stack64.mjs says (the typed values applied here, by the test, to the seeded weights); the link
// carries them; bad input is named; the cells explain themselves; Hindi.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { stack64, assertClose } from './stack64.mjs';
import { D, N, ROWS, SIZES, labOf, setLab as setLabOf } from './two-layer-lab.mjs';
import { stateToFragment } from '../../web/src/state/link.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const setLab = (change) => setLabOf(lab, tab, change);

// The page's stack and the weights it used; the seeded attention and MLP weights are the inputs of
// the float64 stack, the norms' γ and β are written by the test
const shown = () => tab.page.evaluate(() => {
  const { result, view, state } = globalThis.attentionLab;
  const arr = (a) => Array.from(a);
  return {
    outputs: result.layers.map((l) => arr(l.output)), state,
    used: view.layerWeights.map((w) => Object.fromEntries(['wq', 'wk', 'wv', 'wo', 'w1', 'w2'].map((k) => [k, arr(w[k])]))),
  };
});
const normTable = (edits = {}) => {
  const table = [1, 1, 1, 1, 0, 0, 0, 0];
  for (const [index, value] of Object.entries(edits)) table[index] = value;
  return table;
};
const cellInput = (table, row, col) => `.blocks-params td[data-matrix="${table}"][data-row="${row}"][data-col="${col}"] input`;

describe('a full block\'s MLP and norm weights, typed per layer', () => {
  it('w1 of layer 1 and γ, β of layer 2 typed: the stack equals the float64 one with those values', async () => {
    await setLab(labOf('pre'));
    const before = await shown();
    await tab.page.evaluate(() => { document.querySelector('.blocks-params').open = true; });
    await lab.redrawn(() => tab.page.fill(cellInput('w1', 1, 2), '0.75'));
    await lab.redrawn(() => tab.page.selectOption('.blocks-settings [data-field="layer"] select', '1'));
    assert.match(await tab.page.textContent('.blocks-params summary'), /of layer 2/);
    await lab.redrawn(() => tab.page.fill(cellInput('ln1', 0, 3), '1.5'));
    await lab.redrawn(() => tab.page.fill(cellInput('ln1', 1, 0), '-0.25'));
    await lab.redrawn(() => tab.page.fill(cellInput('ln2', 0, 1), '0.5'));
    const page = await shown();
    assert.deepEqual(page.state.blockEdits, { '0:w1:18': 0.75, '1:ln1:3': 1.5, '1:ln1:4': -0.25, '1:ln2:1': 0.5 });
    // the float64 stack: the seeded weights as before the edits, with the typed values put in here
    const weights = before.used.map((w) => ({ ...w, w1: [...w.w1], ln1: normTable(), ln2: normTable() }));
    weights[0].w1[1 * 16 + 2] = 0.75;
    weights[1].ln1 = normTable({ 3: 1.5, 4: -0.25 });
    weights[1].ln2 = normTable({ 1: 0.5 });
    const expected = stack64(ROWS.flat(), N, D, weights, { arrangement: 'pre', ...SIZES });
    expected.forEach((layer, l) => assertClose(page.outputs[l], layer.output, `layer ${l + 1} output after the edits`));
    assert.ok(page.outputs[1].some((v, i) => Math.abs(v - before.outputs[1][i]) > 1e-3), 'the edits changed layer 2\'s output');
    assert.deepEqual(page.used[1].w2, before.used[1].w2, 'an untyped table stays seeded');

    // the cell explains itself as a parameter of layer 2's norm
    await tab.page.focus(cellInput('ln1', 0, 3));
    assert.match(await tab.page.textContent('#explain-lines'), /A parameter of LN₁ in layer 2: γ = 1 and β = 0 unless you typed it/);
    assert.equal(await tab.page.textContent('#explain-value'), '= 1.5');
    await tab.page.keyboard.press('Escape');

    // a link carries them
    const base = tab.page.url().replace(/[?#].*$/, '');
    await tab.page.goto(`${base}${stateToFragment(page.state)}`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle && globalThis.attentionLab.result.layers);
    const reopened = await shown();
    assert.deepEqual(reopened.state.blockEdits, page.state.blockEdits);
    reopened.outputs.forEach((output, l) => assert.deepEqual(output, page.outputs[l], `layer ${l + 1} output after the link`));
    await tab.page.goto(base);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
  });

  it('post-LN: LN₂\'s γ and β set the output; bad input and bad links are named; Hindi', async () => {
    await setLab(labOf('post', { blockEdits: { '0:ln2:0': 2, '0:ln2:5': 0.5, '1:w2:7': -1 } }));
    const page = await shown();
    const weights = page.used.map((w) => ({ ...w, ln1: normTable(), ln2: normTable() }));
    weights[0].ln2 = normTable({ 0: 2, 5: 0.5 });
    // w2 as used has the typed value in it; the test checks it is the one typed
    assert.equal(page.used[1].w2[7], -1);
    const expected = stack64(ROWS.flat(), N, D, weights, { arrangement: 'post', ...SIZES });
    expected.forEach((layer, l) => assertClose(page.outputs[l], layer.output, `post-LN layer ${l + 1} output`));

    await tab.page.evaluate(() => { document.querySelector('.blocks-params').open = true; });
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.fill(cellInput('w2', 3, 1), 'abc');
    assert.equal(await tab.page.getAttribute(cellInput('w2', 3, 1), 'aria-invalid'), 'true');
    assert.match(await tab.page.textContent('.blocks-params-problem'), /w2 of layer 1 \(16 × d_model\), row 'h4', column 'e2': 'abc' is not a number/);
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.draws), draws, 'nothing recomputed');
    await tab.page.evaluate(() => {
      const l = globalThis.attentionLab;
      l.setState({ ...l.state, blockEdits: { '0:w1:999': 1 } });
    });
    await tab.page.waitForFunction(() => globalThis.attentionLab.idle);
    assert.match(await tab.page.textContent('#messages'), /the typed cell "0:w1:999" is not in a table of a block with d_model 4/);
    await setLab(labOf('post'));
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi')));
    assert.match(await tab.page.textContent('.blocks-params summary'), /Layer 1 का MLP और norms/);
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en')));
  });
});
