// Layers on the page (issue 23, web/src/blocks/): stacks of attention-only and full blocks against a
// float64 stack written here (its own attention, LayerNorm, GELU with its own erf, residuals), the
// layer picker, edits in layer 1 reaching layer 2, per-layer weights, the residual stream's additions,
// links and settings, bad settings named, Hindi, keyboard and axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useLabPage, drawnSince, renderEverySection } from './browser.mjs';
import { stateToFragment } from '../../web/src/state/link.mjs';
import { stack64, layerNorm, assertClose } from './stack64.mjs';

const require = createRequire(import.meta.url);
let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

// ---- the lab --------------------------------------------------------------------------------------

const TOKENS = ['the', 'bank', 'by', 'the', 'river'];
const D = 4;
// hand-set vectors and weights (no lab code makes them): X 5 × 4; W_q, W_k, W_v 2 heads × 4 × 2; W_O 4 × 4
const ROWS = TOKENS.map((_, i) => Array.from({ length: D }, (__, c) => Math.round(100 * Math.sin(1 + 3 * i + c)) / 100));
const handSet = (seed) => ({
  wq: Array.from({ length: 16 }, (_, i) => Math.round(100 * Math.cos(seed + i)) / 100),
  wk: Array.from({ length: 16 }, (_, i) => Math.round(100 * Math.sin(2 * seed + i)) / 100),
  wv: Array.from({ length: 16 }, (_, i) => Math.round(100 * Math.cos(3 * seed + 2 * i)) / 100),
  wo: Array.from({ length: 16 }, (_, i) => (i % 5 === 0 ? 1 : 0) + Math.round(50 * Math.sin(seed * i)) / 100),
});
const SIZES = { heads: 2, dK: 2, dV: 2, causal: true };

async function setLab(change) {
  await lab.redrawn(() => tab.page.evaluate((c) => {
    const l = globalThis.attentionLab;
    l.setState({ ...l.state, ...c });
  }, change));
}

const handLab = (extra) => ({
  preset: null, sentence: TOKENS.join(' '), inputs: { tokens: TOKENS, rows: ROWS }, xEdits: {},
  dModel: D, heads: 2, dK: 2, dV: 2, useWo: true, maskMode: 'causal', scaleMode: 'sqrt_dk', positions: 'none',
  weightsMode: 'custom', custom: handSet(1), layerWeights: [handSet(2)], selectedLayer: 0, selectedToken: 4, ...extra,
});

// What the lab shows, as plain arrays: every layer's trace and the weights it used.
const shown = () => tab.page.evaluate(() => {
  const { result, view, state } = globalThis.attentionLab;
  const arr = (a) => (a ? Array.from(a) : null);
  const layer = (l) => ({
    input: arr(l.input), attention: arr(l.attention), attended: arr(l.attended), middle: arr(l.middle),
    hidden: arr(l.mlpHidden), output: arr(l.output), weights: l.heads.map((h) => arr(h.weights)),
  });
  const weights = (w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, arr(v)]));
  return {
    layers: result.layers?.map(layer) ?? null, heads: result.heads.map((h) => arr(h.weights)), output: arr(result.output),
    x: arr(view.x), layerWeights: view.layerWeights?.map(weights) ?? null, weights: weights(view.weights), state,
  };
});

function checkAgainst64(lab64, page, arrangement) {
  const expected = stack64(ROWS.flat(), TOKENS.length, D, lab64.layerWeights, { arrangement, ...SIZES });
  expected.forEach((layer, l) => {
    for (const name of ['input', 'attention', 'attended', 'output', ...(arrangement === 'attention-only' ? [] : ['middle', 'hidden'])]) {
      assertClose(page.layers[l][name], layer[name], `${arrangement} layer ${l + 1} ${name}`);
    }
    layer.weights.forEach((w, h) => assertClose(page.layers[l].weights[h], w, `${arrangement} layer ${l + 1} head ${h + 1} weights`));
  });
  return expected;
}

describe('layers on the page against the float64 stack', () => {
  it('a two-layer attention-only lab with hand-set weights equals the float64 stack', async () => {
    await setLab(handLab({ layers: 2, block: 'attention' }));
    const page = await shown();
    assert.equal(page.layers.length, 2);
    // the weights the engine used are the hand-set ones, layer by layer
    assertClose(page.layerWeights[0].wq, handSet(1).wq, 'layer 1 W_q', 1e-7);
    assertClose(page.layerWeights[1].wk, handSet(2).wk, 'layer 2 W_k', 1e-7);
    const expected = checkAgainst64({ layerWeights: [handSet(1), handSet(2)] }, page, 'attention-only');
    // layer 2 reads what layer 1 wrote: x + attention(x)
    assertClose(page.layers[1].input, expected[0].attended, 'layer 2 input');
    // with layer 1 chosen, result.heads and result.output are layer 1's attention
    page.heads.forEach((w, h) => assertClose(w, expected[0].weights[h], `result.heads[${h}]`));
    assertClose(page.output, expected[0].attention, 'result.output');
  });

  for (const norm of ['pre', 'post']) {
    it(`a two-layer full block (${norm}-LN, seeded weights and MLP) equals the float64 stack`, async () => {
      await setLab(handLab({ layers: 2, block: 'full', norm, weightsMode: 'random', seed: 5, custom: null, layerWeights: null }));
      const page = await shown();
      assert.equal(page.layerWeights[0].w1.length, D * 4 * D, 'the MLP is 4 × d_model wide');
      const expected = checkAgainst64(page, page, norm);
      // pre-LN: the tables' X is LN₁ of the stream; post-LN: the stream itself
      assertClose(page.x, norm === 'pre' ? layerNorm(expected[0].input, TOKENS.length, D) : expected[0].input, 'X shown');
    });
  }

});

describe('the layer picker, edits per layer and the residual stream', () => {
  it('the layer picker shows layer 2 in every table, and a layer-1 edit changes layer 2', async () => {
    await setLab(handLab({ layers: 2, block: 'attention' }));
    await lab.redrawn(() => tab.page.selectOption('.blocks-settings [data-field="layer"] select', '1'));
    let page = await shown();
    assert.equal(page.state.selectedLayer, 1);
    // the step table above the picker says which layer it now shows
    assert.match(await tab.page.textContent('#steps table caption'), /^Layer 2 of 2: query /);
    const expected = checkAgainst64({ layerWeights: [handSet(1), handSet(2)] }, page, 'attention-only');
    page.heads.forEach((w, h) => assertClose(w, expected[1].weights[h], `layer 2 chosen: result.heads[${h}]`));
    assertClose(page.x, expected[0].attended, 'layer 2 chosen: X is the stream entering layer 2');
    assertClose(page.weights.wq, handSet(2).wq, 'layer 2 chosen: the W tables hold layer 2', 1e-7);
    // the W_q table's first cell on the page is layer 2's (head 1's weights, unfolded)
    if (!await tab.page.$eval('#weights details[data-block="head-0"]', (d) => d.open)) await tab.page.click('#weights details[data-block="head-0"] > summary');
    const cell = await tab.page.inputValue('#weights td[data-matrix="wq"] input');
    assert.equal(Number(cell), handSet(2).wq[0]);
    assert.equal(await tab.page.locator('#x-table input').count(), 0, 'layer 2\'s X is computed, not typed');
    // its cells explain themselves as the stream, not as a word's embedding
    await tab.page.click('#x-table td[data-matrix="x"][data-row="1"][data-col="2"]');
    assert.match(await tab.page.textContent('#explain-lines'), /The stream entering layer 2 for 'bank', column/);
    await tab.page.keyboard.press('Escape');
    const stepsBefore = await tab.page.textContent('#steps');

    // back to layer 1; type into its W_q: layer 2's tables follow
    await lab.redrawn(() => tab.page.selectOption('.blocks-settings [data-field="layer"] select', '0'));
    await lab.redrawn(() => tab.page.fill('#weights td[data-matrix="wq"] input', '2.5'));
    page = await shown();
    assert.equal(page.state.custom.wq[0], 2.5);
    assert.deepEqual(page.state.layerWeights[0].wq, handSet(2).wq, 'layer 2\'s weights stay');
    const edited = { ...handSet(1), wq: [2.5, ...handSet(1).wq.slice(1)] };
    const after64 = checkAgainst64({ layerWeights: [edited, handSet(2)] }, page, 'attention-only');
    assert.ok(after64[1].weights[0].some((w, i) => Math.abs(w - expected[1].weights[0][i]) > 1e-3), 'the edit reaches layer 2');
    await lab.redrawn(() => tab.page.selectOption('.blocks-settings [data-field="layer"] select', '1'));
    assert.notEqual(await tab.page.textContent('#steps'), stepsBefore, 'layer 2\'s step table changed');

    // a weight of layer 2 typed goes to layer 2 alone
    await lab.redrawn(() => tab.page.fill('#weights td[data-matrix="wk"] input', '-1.5'));
    page = await shown();
    assert.equal(page.state.layerWeights[0].wk[0], -1.5);
    assert.equal(page.state.custom.wq[0], 2.5);
    checkAgainst64({ layerWeights: [edited, { ...handSet(2), wk: [-1.5, ...handSet(2).wk.slice(1)] }] }, page, 'attention-only');
  });

  it('the walk goes on through the block: the residual, LN₁, the MLP, the residual, LN₂, then layer 2', async () => {
    await setLab(handLab({ layers: 2, block: 'full', norm: 'post', weightsMode: 'random', seed: 3, custom: null, layerWeights: null, selectedToken: 1 }));
    const page = await shown();
    const expected = stack64(ROWS.flat(), TOKENS.length, D, page.layerWeights, { arrangement: 'post', ...SIZES });
    await tab.page.click('#walk-start');
    await tab.page.keyboard.press('End');
    // the last six steps, read from the last one back
    const texts = [];
    for (let back = 0; back < 6; back++) {
      texts.unshift([await tab.page.textContent('.walk-text'), await tab.page.$$eval('.walk-arithmetic li', (li) => li.map((x) => x.textContent))]);
      await tab.page.keyboard.press('ArrowLeft');
    }
    await tab.page.keyboard.press('Escape');
    const [add, norm1, mlp, addMlp, norm2, next] = texts;
    assert.match(add[0], /The residual: 'bank' adds/);
    assert.match(norm1[0], /LN₁/);
    assert.match(mlp[0], /^The MLP reads u and gives m = /);
    assert.match(addMlp[0], /The residual again/);
    assert.match(norm2[0], /what leaves layer 1/);
    assert.match(next[0], /layer 2 reads it/);
    // the sum's arithmetic gives the float64 x + attention(x) of 'bank'
    const numbers = (line) => line.replace(/^= /, '').replace(/[[\]]/g, '').split(', ').map(Number);
    numbers(add[1][1]).forEach((v, c) => assert.ok(Math.abs(v - expected[0].attended[D + c]) <= 5e-4 * Math.max(1, Math.abs(v)), `x + attention col ${c}`));
    numbers(norm2[1][1]).forEach((v, c) => assert.ok(Math.abs(v - expected[0].output[D + c]) <= 5e-4 * Math.max(1, Math.abs(v)), `output col ${c}`));
  });

});

describe('the residual stream', () => {
  it('the residual stream shows x + attention(x) = … for the chosen token, as the float64 stack', async () => {
    await setLab(handLab({ layers: 2, block: 'full', norm: 'post', weightsMode: 'random', seed: 3, custom: null, layerWeights: null }));
    const page = await shown();
    const expected = stack64(ROWS.flat(), TOKENS.length, D, page.layerWeights, { arrangement: 'post', ...SIZES });
    const rows = await tab.page.$$eval('.blocks-stream tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.equal(rows.length, 14, 'seven rows per post-LN layer');
    const token = 4;
    const at = (m) => m.slice(token * D, (token + 1) * D);
    const check = (row, values, what) => row.slice(1).forEach((text, c) => {
      assert.ok(Math.abs(Number(text) - values[c]) <= Math.max(5e-4, 5e-4 * Math.abs(values[c])), `${what} col ${c + 1}: ${text} vs ${values[c]}`);
    });
    expected.forEach((layer, l) => {
      const r = rows.slice(7 * l);
      assert.match(r[0][0], new RegExp(`enters layer ${l + 1}`));
      check(r[0], at(layer.input), `layer ${l + 1} x`);
      check(r[1], at(layer.attention), `layer ${l + 1} attention`);
      assert.match(r[2][0], /^= x \+ a, layer/);  // one notation with Real models (review 7): a = attention's output
      check(r[2], at(layer.attended), `layer ${l + 1} x + attention`);
      check(r[3], at(layer.middle), `layer ${l + 1} LN₁`);
      check(r[6], at(layer.output), `layer ${l + 1} output`);
    });
    assert.match(await tab.page.textContent('.blocks-stream caption'), /'river'/);
  });

});

describe('layers in links, bad settings, Hindi, keyboard and axe-core', () => {
  it('links and settings carry layers, block, norms, the chosen layer and per-layer weights', async () => {
    await setLab(handLab({ layers: 3, block: 'attention', layerWeights: [handSet(2), handSet(3)], selectedLayer: 2 }));
    const state = (await shown()).state;
    const page = await shown();
    const base = tab.page.url().replace(/[?#].*$/, '');
    const open = async (address) => {
      await tab.page.goto(address);
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
    };
    await open(`${base}${stateToFragment(state)}`);
    const read = await tab.page.evaluate(() => globalThis.attentionLab.state);
    for (const field of ['layers', 'block', 'norm', 'layerWeights', 'selectedLayer', 'custom']) assert.deepEqual(read[field], state[field], field);
    const reopened = await shown();
    reopened.layers.forEach((layer, l) => assert.deepEqual(layer.output, page.layers[l].output, `layer ${l + 1} output after the link`));
    await open(`${base}?layers=2&block=full&norm=post&layer=2`);
    const fromSettings = await tab.page.evaluate(() => { const { state: s, result: r } = globalThis.attentionLab; return [s.layers, s.block, s.norm, s.selectedLayer, r.layers.length]; });
    assert.deepEqual(fromSettings, [2, 'full', 'post', 1, 2]);
    await open(base);
  });

  it('bad settings name their field, and a good one after them works', async () => {
    await setLab(handLab({ layers: 2, block: 'attention' }));
    const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    const messages = async (change) => {
      await tab.page.evaluate((c) => { const l = globalThis.attentionLab; l.setState({ ...l.state, ...c }); }, change);
      await tab.page.waitForFunction(() => globalThis.attentionLab.idle);
      return tab.page.textContent('#messages');
    };
    assert.match(await messages({ layers: 9 }), /layers must be a whole number from 1 to 6, got 9/);
    assert.match(await messages({ layers: 2, maskMode: 'padding' }), /layers: a stack of layers masks nothing or the future/);
    assert.match(await messages({ maskMode: 'causal', useWo: false, dV: 1, custom: null, weightsMode: 'random', layerWeights: null }), /heads × d_v is 2 × 1, not 4/);
    assert.match(await messages({ dV: 2, useWo: true, weightsMode: 'custom', custom: handSet(1), layerWeights: [{ ...handSet(2), wq: [1, 2] }] }), /layer 2's wq has 2 values; it needs 16/);
    await setLab(handLab({ layers: 2, block: 'attention' }));
    assert.equal(await tab.page.textContent('#messages'), '');
    assert.ok(await tab.page.evaluate((n) => globalThis.attentionLab.draws > n, before));
    checkAgainst64({ layerWeights: [handSet(1), handSet(2)] }, await shown(), 'attention-only');
  });

  it('in Hindi, the same numbers; by keyboard, the layer picker', async () => {
    await setLab(handLab({ layers: 2, block: 'full', norm: 'pre', weightsMode: 'random', seed: 5, custom: null, layerWeights: null }));
    const english = await shown();
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi')));
    assert.match(await tab.page.textContent('#blocks-title'), /^परतें \(layers\) और blocks$/);
    assert.match(await tab.page.textContent('.blocks-stream tbody tr:nth-child(2) th'), /layer 1 में/);
    assert.deepEqual((await shown()).layers, english.layers);
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en')));
    // the picker is in the settings (review 5, finding 12), which a new language draws folded
    await tab.page.evaluate(() => { document.getElementById('settings').open = true; });
    await tab.page.focus('.blocks-settings [data-field="layer"] select');
    const drawn = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.keyboard.press('ArrowDown');
    await drawnSince(tab.page, drawn);
    assert.equal((await shown()).state.selectedLayer, 1);
  });

  it('axe-core finds no serious or critical violation with layers shown', async () => {
    await setLab(handLab({ layers: 2, block: 'full', norm: 'pre', weightsMode: 'random', seed: 5, custom: null, layerWeights: null }));
    await renderEverySection(tab.page);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('section.blocks'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    });
    assert.deepEqual(violations, []);
  });
});
