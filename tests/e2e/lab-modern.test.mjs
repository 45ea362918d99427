// The lab with attention as real models have it (issues 23, 24; state/modern.mjs): key/value heads
// (grouped-query attention), rotary positions and a sliding window, in one layer and in a stack,
// against a float64 reference written for the tests (modern64.mjs); the tables show q and k before
// and after the rotation and which key/value head each query head reads; links and settings carry
// the fields; every kind of bad value is refused naming its field, and a good state after them works.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { createRequire } from 'node:module';

import { useLabPage, downloadBy, downloadedBytes, renderEverySection } from './browser.mjs';
import { stateToFragment } from '../../web/src/state/link.mjs';
import { attention64, stackModern64, largest } from './modern64.mjs';

const require = createRequire(import.meta.url);
let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const TOKENS = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
const D = 4;
// hand-set numbers (no lab code makes them): X 6 × 4; W_q 2 heads × 4 × 4; W_k, W_v kvHeads × 4 × 4; W_O 8 × 4
const ROWS = TOKENS.map((_, i) => Array.from({ length: D }, (__, c) => Math.round(100 * Math.sin(1 + 3 * i + c)) / 100));
const values = (count, seed, f = Math.cos) => Array.from({ length: count }, (_, i) => Math.round(100 * f(seed + 1.3 * i)) / 100);
const handSet = (seed, kvHeads) => ({
  wq: values(2 * D * D, seed), wk: values(kvHeads * D * D, 2 * seed, Math.sin), wv: values(kvHeads * D * D, 3 * seed),
  wo: values(2 * D * D, 5 * seed, Math.sin),
});

const handLab = (extra) => ({
  preset: null, sentence: TOKENS.join(' '), inputs: { tokens: TOKENS, rows: ROWS }, xEdits: {}, attention: 'self',
  dModel: D, heads: 2, dK: D, dV: D, useWo: true, maskMode: 'causal', scaleMode: 'sqrt_dk', positions: 'none',
  weightsMode: 'custom', custom: handSet(1, 1), layerWeights: null, layers: 1, block: 'attention', selectedLayer: 0,
  selectedToken: 5, selectedHead: 0, kvHeads: 1, rotary: true, rotaryTheta: 100, rotaryDims: null, window: 3, ...extra,
});

async function setLab(change) {
  await lab.redrawn(() => tab.page.evaluate((c) => {
    const l = globalThis.attentionLab;
    l.setState({ ...l.state, ...c });
  }, change));
}

// rows of n × width as arrays
const rowsOf = (flat, width) => Array.from({ length: flat.length / width }, (_, i) => flat.slice(i * width, (i + 1) * width));

// The lab's result as plain arrays: shape, each head's traced tables, the output, every layer's.
const shown = () => tab.page.evaluate(() => {
  const { result, state } = globalThis.attentionLab;
  const arr = (a) => (a ? Array.from(a) : null);
  const head = (h) => ({ q: arr(h.q), k: arr(h.k), qUnrotated: arr(h.qUnrotated), kUnrotated: arr(h.kUnrotated), v: arr(h.v), weights: arr(h.weights), z: arr(h.z) });
  return {
    state, shape: result.shape, heads: result.heads.map(head), output: arr(result.output),
    layers: result.layers?.map((l) => ({ heads: l.heads.map(head), output: arr(l.output) })) ?? null,
  };
});

function checkHeads(got, want, label) {
  want.forEach((head, h) => {
    for (const name of ['qUnrotated', 'kUnrotated', 'q', 'k', 'v', 'weights', 'z']) {
      const width = got[h][name].length / TOKENS.length;
      const difference = largest(rowsOf(got[h][name], width), head[name]);
      assert.ok(difference < 1e-5, `${label}, head ${h + 1}, ${name}: largest difference ${difference}`);
    }
  });
}

describe('the lab with key/value heads, rotary positions and a sliding window', () => {
  const cases = [
    { label: 'kvHeads 1 (multi-query), RoPE θ = 100 on all 4 features, causal, window 3', extra: {} },
    { label: 'kvHeads 2, RoPE on 2 of 4 features (one pair: its angle is the position, whatever θ), no mask, no window', extra: { kvHeads: 2, custom: handSet(2, 2), rotaryTheta: 10000, rotaryDims: 2, window: 0, maskMode: 'none' } },
    { label: 'kvHeads 1, no rotary, causal, window 2', extra: { custom: handSet(3, 1), rotary: false, window: 2 } },
  ];
  for (const { label, extra } of cases) {
    it(`one layer, ${label}: every head's q and k before and after rotation, weights and z, and the output equal the float64 reference`, async () => {
      const state = handLab(extra);
      await setLab(state);
      const page = await shown();
      assert.equal(await tab.page.textContent('#messages'), '');
      assert.equal(page.shape.kvHeads, state.kvHeads);
      const want = attention64(ROWS, state.custom, {
        heads: 2, kvHeads: state.kvHeads, dK: D, causal: state.maskMode === 'causal', window: state.window,
        rotary: state.rotary ? { dims: state.rotaryDims ?? D, theta: state.rotaryTheta } : null,
      });
      if (!state.rotary) {
        // without rotary the trace keeps no unrotated copy: q and k are the projections
        for (const head of page.heads) Object.assign(head, { qUnrotated: head.q, kUnrotated: head.k });
      }
      checkHeads(page.heads, want.heads, label);
      const difference = largest(rowsOf(page.output, D), want.output);
      assert.ok(difference < 1e-5, `output: largest difference ${difference}`);
      // the reference is not trivially met: the window and the rotation change the weights
      const plain = attention64(ROWS, state.custom, { heads: 2, kvHeads: state.kvHeads, dK: D, causal: state.maskMode === 'causal' });
      assert.ok(largest(want.heads[0].weights, plain.heads[0].weights) > 1e-3, 'rotary or window changes the weights');
    });
  }

  it('two layers (attention only, W_O, residuals) with kvHeads 1, RoPE and a window equal the float64 stack', async () => {
    const state = handLab({ layers: 2, layerWeights: [handSet(4, 1)], selectedLayer: 1 });
    await setLab(state);
    const page = await shown();
    assert.equal(await tab.page.textContent('#messages'), '');
    const want = stackModern64(ROWS, [state.custom, state.layerWeights[0]], { heads: 2, kvHeads: 1, dK: D, causal: true, window: 3, rotary: { dims: D, theta: 100 } });
    page.layers.forEach((layer, l) => {
      checkHeads(layer.heads, want[l].heads, `layer ${l + 1}`);
      const difference = largest(rowsOf(layer.output, D), want[l].output);
      assert.ok(difference < 1e-5, `layer ${l + 1} output: largest difference ${difference}`);
    });
    // the tables show the chosen layer (2)
    checkHeads(page.heads, want[1].heads, 'layer 2 in the tables');
  });

});

describe('the tables, explanations, links, bad values and Hindi with key/value heads and rotary positions', () => {
  it('the tables: Q and K before and after rotation named as Q is, each query head naming its key/value head, W_k held once per key/value head', async () => {
    await setLab(handLab({ selectedHead: 1 }));
    await tab.page.evaluate(() => { for (const d of document.querySelectorAll('#weights details')) d.open = true; });
    await lab.redrawn(() => tab.page.evaluate(() => { const l = globalThis.attentionLab; l.setState({ ...l.state }); }));
    const tables = await tab.page.evaluate(() => {
      const headers = (matrix) => Array.from(document.querySelector(`#head-panel td[data-matrix="${matrix}"]`).closest('table').tHead.rows[0].cells).slice(1).map((th) => th.textContent);
      const caption = (matrix) => document.querySelector(`#head-panel td[data-matrix="${matrix}"]`).closest('table').caption.textContent;
      const block = (h) => document.querySelector(`#weights details[data-block="head-${h}"]`);
      const shownIn = (h, matrix) => Boolean(block(h).querySelector(`td[data-matrix="${matrix}"]`)?.getClientRects().length);
      return {
        q: headers('q'), qUnrotated: headers('qUnrotated'), k: headers('k'), kUnrotated: headers('kUnrotated'),
        captions: ['qUnrotated', 'q', 'kUnrotated', 'k'].map(caption), uses: document.querySelector('#head-panel p.uses-kv').textContent,
        wk: [shownIn(0, 'wk'), shownIn(1, 'wk'), shownIn(1, 'wq')], wkCaption: block(0).querySelector('td[data-matrix="wk"]').closest('table').caption.textContent,
        blockUses: block(1).querySelector('p.uses-kv').textContent,
      };
    });
    assert.deepEqual(tables.qUnrotated, tables.q);
    assert.deepEqual(tables.kUnrotated, tables.q);
    assert.deepEqual(tables.k, tables.q);
    assert.deepEqual(tables.captions, ['Q before rotation, head 2', 'Q (rotated), head 2', 'K before rotation, head 2', 'K (rotated), head 2']);
    assert.equal(tables.uses, 'Query head 2 reads key/value head 1 (K, V and W_k, W_v of that head).');
    assert.deepEqual(tables.wk, [true, false, true]);
    assert.match(tables.wkCaption, /^W_k, key\/value head 1 \(query heads 1–2\)/);
    assert.match(tables.blockUses, /^Query head 2 reads key\/value head 1/);
    // a cell of W_k typed: the key/value head's own weight changes, and both query heads read it
    const input = tab.page.locator('#weights details[data-block="head-0"] td[data-matrix="wk"][data-row="1"][data-col="2"] input');
    await lab.redrawn(async () => { await input.fill('0.75'); await input.press('Enter'); });
    const after = await shown();
    assert.equal(after.state.custom.wk.length, D * D);
    assert.equal(after.state.custom.wk[1 * D + 2], 0.75);
    const want = attention64(ROWS, after.state.custom, { heads: 2, kvHeads: 1, dK: D, causal: true, window: 3, rotary: { dims: D, theta: 100 } });
    checkHeads(after.heads, want.heads, 'after the edit of W_k');
  });

  it('the explanation of a rotated q cell gives the projection before rotation and says it is turned', async () => {
    await setLab(handLab({ selectedHead: 0 }));
    await tab.page.locator('#head-panel td[data-matrix="q"][data-row="3"][data-col="1"]').click();
    const text = await tab.page.textContent('#explain');
    assert.match(text, /Rotary positions are on: the sum above is Q before rotation/);
  });

});

describe('links, settings, bad values and Hindi for key/value heads, rotary positions and the window', () => {
  it('links and page settings carry kvHeads, rotary, θ, rotated features and the window', async () => {
    const state = handLab({ rotaryTheta: 500, rotaryDims: 2 });
    await setLab(state);
    const before = await shown();
    const base = tab.page.url().replace(/[?#].*$/, '');
    const open = async (address) => {
      await tab.page.goto(address);
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
    };
    await open(`${base}${stateToFragment(before.state)}`);
    const read = await shown();
    for (const field of ['kvHeads', 'rotary', 'rotaryTheta', 'rotaryDims', 'window', 'custom']) assert.deepEqual(read.state[field], state[field], field);
    assert.deepEqual(read.heads, before.heads);
    await open(`${base}?d-model=4&heads=2&d-k=2&d-v=2&weights=random&seed=3&mask=causal&kv-heads=1&rotary=500&rotary-dims=2&window=3`);
    const fromSettings = await shown();
    assert.deepEqual(['kvHeads', 'rotary', 'rotaryTheta', 'rotaryDims', 'window'].map((f) => fromSettings.state[f]), [1, true, 500, 2, 3]);
    assert.equal(fromSettings.shape.kvHeads, 1);
    assert.ok(fromSettings.heads[0].qUnrotated, 'q before rotation in the result');
    // the controls show them
    const controls = await tab.page.evaluate(() => ['kvHeads', 'rotaryTheta', 'rotaryDims', 'window'].map((id) => document.getElementById(id).value).concat(document.getElementById('rotary').checked));
    assert.deepEqual(controls, ['1', '500', '2', '3', true]);
    await open(`${base}?rotary=off`);
    assert.equal((await shown()).state.rotary, false);
    await open(base);
  });

  it('bad values are refused naming the field, every kind; a good state after them works', async () => {
    await setLab(handLab());
    const messages = async (change) => {
      await tab.page.evaluate((c) => { const l = globalThis.attentionLab; l.setState({ ...l.state, ...c }); }, change);
      await tab.page.waitForFunction(() => globalThis.attentionLab.idle);
      return tab.page.textContent('#messages');
    };
    assert.match(await messages({ kvHeads: 'two' }), /key\/value heads must be a whole number of at least 1, got "two"/);
    assert.match(await messages({ kvHeads: 0 }), /key\/value heads must be a whole number of at least 1, got 0/);
    assert.match(await messages({ kvHeads: 3 }), /key\/value heads \(3\) must divide heads \(2\)/);
    assert.match(await messages({ kvHeads: 1, rotaryTheta: 'abc' }), /RoPE base θ must be a number above 1, got "abc"/);
    assert.match(await messages({ rotaryTheta: 1 }), /RoPE base θ must be a number above 1, got 1/);
    assert.match(await messages({ rotaryTheta: 100, rotaryDims: 3 }), /rotated features must be even \(they turn in pairs\), got 3/);
    assert.match(await messages({ rotaryDims: 'x' }), /rotated features must be a whole number of at least 0, got "x"/);
    assert.match(await messages({ rotaryDims: 6 }), /rotated features \(6\) must be at most d_k \(4\)/);
    assert.match(await messages({ rotaryDims: null, window: -1 }), /sliding window must be a whole number of at least 0, got -1/);
    assert.match(await messages({ window: 'wide' }), /sliding window must be a whole number of at least 0, got "wide"/);
    // W_k sized for the heads, not the key/value heads
    assert.match(await messages({ window: 3, custom: handSet(1, 2) }), /wk has 32 values; it needs 16|wk/);
    await setLab(handLab());
    assert.equal(await tab.page.textContent('#messages'), '');
    const page = await shown();
    const want = attention64(ROWS, handSet(1, 1), { heads: 2, kvHeads: 1, dK: D, causal: true, window: 3, rotary: { dims: D, theta: 100 } });
    checkHeads(page.heads, want.heads, 'after the bad values');
  });

});

describe('the lab\'s own file with key/value heads, rotary positions and a window', () => {
  it('Save as .safetensors writes W_k, W_v as kvHeads heads and the settings; loaded back, the same numbers', async () => {
    const state = handLab({ rotaryTheta: 500, rotaryDims: 2 });
    await setLab(state);
    const before = await shown();
    const download = await downloadBy(tab.page, '#layers-save-safetensors');
    const bytes = await downloadedBytes(download);
    const length = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + length).toString());
    assert.deepEqual([header.wq.shape, header.wk.shape, header.wv.shape], [[2, D, D], [1, D, D], [1, D, D]]);
    assert.deepEqual([header.__metadata__.kvHeads, header.__metadata__.rotaryTheta, header.__metadata__.rotaryDims, header.__metadata__.window], ['1', '500', '2', '3']);
    // a plain lab, then the file: its key/value heads, rotation and window come back
    await setLab(handLab({ kvHeads: null, custom: handSet(1, 2), rotary: false, window: 0 }));
    await tab.page.setInputFiles('#layers-file', { name: 'modern.safetensors', mimeType: 'application/octet-stream', buffer: bytes });
    await tab.page.waitForFunction(() => /found this lab's export/.test(document.querySelector('#layers-status').textContent));
    await lab.redrawn(() => tab.page.click('#layers-load'));
    const loaded = await shown();
    assert.deepEqual(['kvHeads', 'rotary', 'rotaryTheta', 'rotaryDims', 'window'].map((f) => loaded.state[f]), [1, true, 500, 2, 3]);
    assert.match(await tab.page.textContent('#layers-status'), /rotary positions, θ = 500.*2 rotated features.*sliding window 3/);
    // the file's X is not in it: the lab's inputs stay, so the numbers are the saved lab's
    checkHeads(loaded.heads, before.heads.map((h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, rowsOf(v, v.length / TOKENS.length)]))), 'loaded back');
  });
});

describe('exports with key/value heads and rotary positions', () => {
  it('head 2\'s W_k export is its key/value head\'s; Q and K before rotation are exported too', async () => {
    const state = handLab();
    await setLab(state);
    if (await tab.page.locator('#export-panel').isHidden()) await tab.page.click('#export-toggle');
    await tab.page.selectOption('#export-format', 'csv');
    await tab.page.selectOption('#export-precision', 'full');
    const ids = await tab.page.$$eval('#export-table option', (options) => options.map((o) => o.value));
    for (const id of ['qUnrotated-0', 'kUnrotated-1', 'wk-1']) assert.ok(ids.includes(id), id);
    const numbers = async (id) => {
      await tab.page.selectOption('#export-table', id);
      const lines = (await tab.page.textContent('#export-preview')).trim().split('\n').filter((line) => /\d/.test(line));
      return lines.slice(-D).map((line) => line.split(',').slice(-D).map(Number)).flat();
    };
    // key/value head 1's W_k (the only one), every float32 digit
    assert.ok(largest(await numbers('wk-1'), state.custom.wk) < 1e-7, 'W_k of head 2 is key/value head 1\'s');
    const want = attention64(ROWS, state.custom, { heads: 2, kvHeads: 1, dK: D, causal: true, window: 3, rotary: { dims: D, theta: 100 } });
    const kBefore = await numbers('kUnrotated-1');
    assert.ok(largest(kBefore, want.heads[1].kUnrotated.slice(-D).flat()) < 1e-5, 'K before rotation, last rows');
    await tab.page.click('#export-toggle');
  });
});

describe('practice mode with key/value heads, rotary positions and a window', () => {
  it('every blank\'s true value is the float64 reference\'s (scores, scaled scores, weights, z of the key/value head read); no q entry is asked', async () => {
    const state = handLab({ selectedHead: 1 });
    await setLab({ ...state, practice: {} });
    const exercises = await tab.page.evaluate(() => globalThis.attentionLab.practice.exercises.map((e) => ({ cell: e.cell, blanks: e.blanks.map((b) => ({ cell: b.cell, truth: b.truth })) })));
    await setLab({ practice: null });
    const want = attention64(ROWS, state.custom, { heads: 2, kvHeads: 1, dK: D, causal: true, window: 3, rotary: { dims: D, theta: 100 } });
    const valueOf = ({ matrix, head, row, col }) => {
      const h = want.heads[head];
      const score = h.q[row].reduce((sum, a, c) => sum + a * h.k[col][c], 0);
      return { scores: score, scaled: score / Math.sqrt(D), weights: h.weights[row]?.[col], softmax: h.weights[row]?.[col], z: h.z[row]?.[col] }[matrix];
    };
    let checked = 0;
    for (const { cell, blanks } of exercises) {
      assert.notEqual(cell.matrix, 'q', 'a q entry is not asked with rotary positions');
      for (const blank of blanks) {
        const expected = valueOf(blank.cell);
        if (expected === undefined) continue;
        assert.ok(Math.abs(blank.truth - expected) <= 1e-5 * Math.max(1, Math.abs(expected)), `${JSON.stringify(blank.cell)}: ${blank.truth} vs ${expected}`);
        checked++;
      }
    }
    assert.ok(checked >= 3, `${checked} blanks checked`);
  });
});

describe('Hindi and the keyboard for key/value heads, rotary positions and the window', () => {
  it('in Hindi the settings are labelled, the numbers the same; every new control is reachable by keyboard', async () => {
    await setLab(handLab());
    const english = await shown();
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi')));
    const labels = await tab.page.evaluate(() => ['kvHeads', 'rotary', 'rotaryTheta', 'rotaryDims', 'window'].map((id) => {
      const input = document.getElementById(id);
      return input.labels[0].textContent.trim();
    }));
    assert.deepEqual(labels, ['key/value heads की संख्या', 'rotary positions (RoPE) चालू', 'RoPE का आधार θ', 'घुमाए गए features', 'sliding window की चौड़ाई']);
    // each setting's hint, read out as its description
    const hints = await tab.page.evaluate(() => ['kvHeads', 'rotary', 'window'].map((id) => document.getElementById(document.getElementById(id).getAttribute('aria-describedby')).textContent));
    assert.match(hints[0], /^Grouped-query attention: W_k और W_v में इतने heads/);
    assert.match(hints[1], /^Rotary positions: q और k को/);
    assert.match(hints[2], /i − j < window/);
    assert.match(await tab.page.textContent('#head-panel'), /घुमाने से पहले Q/);
    assert.deepEqual((await shown()).heads, english.heads);
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en')));
    // by keyboard: Tab from the W_O box reaches each new control in turn
    await tab.page.evaluate(() => { document.getElementById('settings').open = true; });
    await tab.page.focus('#useWo');
    const reached = [];
    for (let i = 0; i < 5; i++) {
      await tab.page.keyboard.press('Tab');
      reached.push(await tab.page.evaluate(() => document.activeElement.id));
    }
    assert.deepEqual(reached, ['kvHeads', 'rotary', 'rotaryTheta', 'rotaryDims', 'window']);
    // axe-core: the settings and the head's tables with the new controls and lines
    await renderEverySection(tab.page);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const found = [];
      for (const selector of ['#controls', '#head-panel', '#weights']) {
        const result = await globalThis.axe.run(document.querySelector(selector), { resultTypes: ['violations'] });
        found.push(...result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${selector} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
      }
      return found;
    });
    assert.deepEqual(violations, []);
    // Space on the checkbox turns rotary off
    await tab.page.focus('#rotary');
    await lab.redrawn(() => tab.page.keyboard.press('Space'));
    assert.equal((await shown()).state.rotary, false);
  });
});
