// The stack's state rules (state/stack.mjs, model.mjs, settings.mjs, link.mjs): what the engine is
// asked per layer, each bad setting named, weight edits going to the chosen layer alone, and links
// and settings carrying the stack. The numbers of a stack are checked in tests/e2e/blocks.test.mjs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { buildRequest, presetState, reduce, stateFromFragment, stateToFragment, stateFromSettings } from '../../../../web/src/state/index.mjs';

const base = () => ({ ...presetState('cat-sat'), weightsMode: 'random', seed: 4 });
const fields = (state) => (buildRequest(state).problems ?? []).map((p) => p.field);

describe('a stack of layers in the state', () => {
  it('one attention layer asks for no stack; two layers or a full block do, each layer with its recipe', () => {
    assert.equal(buildRequest(base()).request.stack, undefined);
    const { stack } = buildRequest({ ...base(), layers: 3 }).request;
    assert.deepEqual(stack.recipes, [null, { mode: 'random', seed: 5 }, { mode: 'random', seed: 6 }]);
    assert.equal(stack.arrangement, 'attention-only');
    const full = buildRequest({ ...base(), block: 'full', norm: 'post' }).request.stack;
    assert.deepEqual([full.layers, full.arrangement, full.hidden], [1, 'post', 4 * base().dModel]);
  });

  it('names each bad setting: layers, block, norm, layer, cross, padding, width, a hand-set layer', () => {
    assert.deepEqual(fields({ ...base(), layers: 7 }), ['layers']);
    assert.deepEqual(fields({ ...base(), layers: 'two' }), ['layers']);
    assert.deepEqual(fields({ ...base(), layers: 2, block: 'wide' }), ['block']);
    assert.deepEqual(fields({ ...base(), layers: 2, norm: 'middle' }), ['norm']);
    assert.deepEqual(fields({ ...base(), layers: 2, selectedLayer: -1 }), ['layer']);
    assert.deepEqual(fields({ ...base(), layers: 2, attention: 'cross' }), ['layers']);
    assert.deepEqual(fields({ ...base(), layers: 2, maskMode: 'padding' }), ['layers']);
    assert.deepEqual(fields({ ...base(), layers: 2, heads: 2, dK: 2, dV: 1, useWo: false }), ['layers']);
    const custom = { ...base(), layers: 2, weightsMode: 'custom', heads: 1, dK: 3, dV: 3, dModel: 3, useWo: false,
      custom: { wq: Array(9).fill(0), wk: Array(9).fill(0), wv: Array(9).fill(0) }, layerWeights: [{ wq: [1], wk: Array(9).fill(0), wv: Array(9).fill(0) }] };
    const [problem] = buildRequest(custom).problems;
    assert.equal(problem.message, "layers: layer 2's wq has 1 values; it needs 9");
  });

  it('a weight typed goes to the chosen layer; the first makes every layer the reader\'s own', () => {
    const shown = (v) => ({ wq: Array(4).fill(v), wk: Array(4).fill(v), wv: Array(4).fill(v), wo: null });
    const state = { ...base(), dModel: 2, heads: 1, dK: 2, dV: 2, layers: 2, selectedLayer: 1 };
    const cell = { matrix: 'wq', head: 0, row: 1, col: 0 };
    const next = reduce(state, { type: 'weight', weights: shown(2), cell, value: 9, layers: [shown(1), shown(2)] });
    assert.equal(next.weightsMode, 'custom');
    assert.deepEqual(next.custom.wq, [1, 1, 1, 1]);
    assert.deepEqual(next.layerWeights[0].wq, [2, 2, 9, 2]);
    const back = reduce({ ...next, selectedLayer: 0 }, { type: 'weight', weights: shown(1), cell, value: -3 });
    assert.deepEqual(back.custom.wq, [1, 1, -3, 1]);
    assert.deepEqual(back.layerWeights[0].wq, [2, 2, 9, 2]);
  });

  it('the chosen layer stays within the layers', () => {
    const next = reduce({ ...base(), layers: 3, selectedLayer: 2 }, { type: 'settings', change: { layers: 2 } });
    assert.equal(next.selectedLayer, 1);
  });

  it('links and settings carry the stack; a bad value in either is named', () => {
    const state = { ...base(), layers: 2, block: 'full', norm: 'post', selectedLayer: 1 };
    const read = stateFromFragment(stateToFragment(state)).state;
    for (const field of ['layers', 'block', 'norm', 'selectedLayer']) assert.equal(read[field], state[field], field);
    assert.ok(stateFromFragment(stateToFragment({ ...state, block: 'wide' })).problems);
    const settings = { layers: '3', block: 'full', norm: 'pre', layer: '2' };
    const { state: fromSettings, problems } = stateFromSettings((name) => settings[name] ?? null);
    assert.deepEqual([fromSettings.layers, fromSettings.block, fromSettings.norm, fromSettings.selectedLayer, problems], [3, 'full', 'pre', 1, []]);
    const bad = { block: 'wide', norm: 'x', layer: '0' };
    assert.deepEqual(stateFromSettings((name) => bad[name] ?? null).problems.map((p) => p.field), ['block', 'norm', 'layer']);
  });
});

// A real model's block (models/lab.mjs) for d_model d and a plain MLP of f hidden units, numbers from a counter
function modelBlock(d, f, { kind = 'plain' } = {}) {
  let next = 0;
  const values = (count) => Array.from({ length: count }, () => (next++ % 7) / 8 - 0.25);
  const norm = { kind: 'layernorm', eps: 1e-12, weight: values(d), bias: values(d) };
  const mlp = kind === 'plain' ? { kind, activation: 'gelu', hidden: f, w1: values(d * f), b1: values(f), w2: values(f * d), b2: values(d) }
    : { kind, hidden: f, wGate: values(d * f), wUp: values(d * f), wDown: values(f * d) };
  return { arrangement: 'post', norm1: norm, norm2: { ...norm, kind: 'rmsnorm', bias: null }, mlp };
}

describe('a real model\'s block in the state (modelBlock)', () => {
  it('a full block of its arrangement takes it as layer 1\'s, with its hidden width; another arrangement or block does not', () => {
    const d = base().dModel;
    const block = modelBlock(d, 2 * d);
    const state = { ...base(), block: 'full', norm: 'post', modelBlock: block };
    const { stack } = buildRequest(state).request;
    assert.equal(stack.model, block);
    assert.equal(buildRequest({ ...state, norm: 'pre' }).request.stack.model, undefined);
    assert.equal(buildRequest({ ...state, block: 'attention', layers: 2 }).request.stack.model, undefined);
    // a typed cell of w1 is in range up to d × 2d (the model's width), not 4d²
    assert.deepEqual(fields({ ...state, blockEdits: { [`0:w1:${d * 2 * d - 1}`]: 1 } }), []);
    assert.deepEqual(fields({ ...state, blockEdits: { [`0:w1:${d * 2 * d}`]: 1 } }), ['layers']);
  });

  it('a block whose arrays do not fit d_model is refused naming the array; changing d_model lets it go', () => {
    const d = base().dModel;
    const block = modelBlock(d, 3);
    const wrong = { ...block, mlp: { ...block.mlp, b1: [1, 2] } };
    const { problems } = buildRequest({ ...base(), block: 'full', norm: 'post', modelBlock: wrong });
    assert.deepEqual(problems.map((p) => [p.field, p.values?.name, p.values?.count, p.values?.need]), [['layers', 'mlp.b1', 2, 3]]);
    const changed = reduce({ ...base(), block: 'full', norm: 'post', modelBlock: block }, { type: 'settings', change: { dModel: d + 2 } });
    assert.equal(changed.modelBlock, null);
  });

  it('a link carries the block and reads it back; a block with a bad kind or a non-number is refused', () => {
    const d = base().dModel;
    for (const kind of ['plain', 'swiglu']) {
      const state = { ...base(), block: 'full', norm: 'post', modelBlock: modelBlock(d, 4, { kind }) };
      const read = stateFromFragment(stateToFragment(state));
      assert.deepEqual(read.state.modelBlock, state.modelBlock);
    }
    // with where it came from (models/lab.mjs): read back as written
    const named = { ...base(), block: 'full', norm: 'post', modelBlock: { ...modelBlock(d, 4), source: { model: 'bert', architectures: 'BertForMaskedLM', layer: 2, layers: 2 } } };
    assert.deepEqual(stateFromFragment(stateToFragment(named)).state.modelBlock.source, named.modelBlock.source);
    const good = modelBlock(d, 4);
    for (const bad of [{ ...good, arrangement: 'middle' }, { ...good, norm1: { ...good.norm1, kind: 'batchnorm' } }, { ...good, norm1: { ...good.norm1, eps: 0 } },
      { ...good, mlp: { ...good.mlp, activation: 'tanh' } }, { ...good, mlp: { ...good.mlp, w1: ['1'] } }, { ...good, mlp: { ...good.mlp, hidden: 0 } },
      // where it came from ("About this example"): short texts and whole numbers only
      { ...good, source: { model: { html: 1 }, architectures: 'X', layer: 1, layers: 2 } }, { ...good, source: { model: 'x'.repeat(201), architectures: '', layer: 1, layers: 2 } },
      { ...good, source: { model: 'gpt2', architectures: 'GPT2LMHeadModel', layer: 0.5, layers: 2 } }, { ...good, source: 'gpt2' }]) {
      const fragment = `#lab=${encodeURIComponent(JSON.stringify({ block: 'full', norm: 'post', modelBlock: bad }))}`;
      assert.ok(stateFromFragment(fragment).problems?.length > 0, JSON.stringify(bad).slice(0, 80));
    }
  });
});

describe('a link of a model\'s layer (review 6, finding 1)', () => {
  it('writes each weight as the shortest decimal that reads back as the same float32, not 17 digits', () => {
    const d = base().dModel;
    let seed = 12345;
    // float32 values from xorshift32, as a model's weights are (Array.from of a Float32Array)
    const floats = (count) => Array.from(new Float32Array(Array.from({ length: count }, () => {
      seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
      return ((seed >>> 0) / 4294967296 - 0.5) * 0.1;
    })));
    const custom = { wq: floats(d * d), wk: floats(d * d), wv: floats(d * d), wo: floats(d * d), bq: floats(d), bk: null, bv: null, bo: null };
    const block = modelBlock(d, 2 * d);
    block.mlp.w1 = floats(2 * d * d);
    const state = { ...base(), weightsMode: 'custom', custom, block: 'full', norm: 'post', modelBlock: block };
    const fragment = stateToFragment(state);
    const numbers = decodeURIComponent(fragment).match(/-?\d+\.\d+(e-?\d+)?|\d+e-?\d+/g);
    const digits = (text) => text.replace(/^-?0*\.?0*/, '').replace(/e.*$/, '').replace('.', '').length;
    assert.ok(numbers.length > 4 * d * d);
    const longest = Math.max(...numbers.map(digits));
    assert.ok(longest <= 9, `a number with ${longest} significant digits`);
    // and they read back as the same float32 values
    const read = stateFromFragment(fragment).state;
    for (const name of ['wq', 'wo', 'bq']) assert.deepEqual(Float32Array.from(read.custom[name]), Float32Array.from(custom[name]));
    assert.deepEqual(Float32Array.from(read.modelBlock.mlp.w1), Float32Array.from(block.mlp.w1));
  });
});
