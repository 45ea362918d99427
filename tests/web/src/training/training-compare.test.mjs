// "Compare before and after" (training/compare.mjs): the address carries both labs' weights number for
// number while a link can (state/link.mjs's limits: 100,000 numbers a lab, 2,000,000 characters for
// the fragment, here both labs together); past them there is no address, and the page says why
// instead of opening a comparison of other weights.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { compareAddress, comparable, stackStateWithWeights } from '../../../../web/src/training/compare.mjs';
import { stateFromFragment, stateToFragment, LINK_MAX_WEIGHTS, MAX_LINK } from '../../../../web/src/state/link.mjs';
import { presetState } from '../../../../web/src/state/model.mjs';
import { TASKS } from '../../../../web/src/training/tasks.mjs';

// a two-layer attention-only state of d_model × d_model matrices, every value (l + 1) · 0.001 · (i mod 7)
// (or `value(l, i)`); links write each as its shortest float32 text (review 6, finding 1), so the
// numbers read back are compared as float32
function stackState(dModel, layers, value = (l, i) => (l + 1) * 0.001 * (i % 7)) {
  const weights = {};
  for (let l = 0; l < layers; l++) {
    for (const name of ['wq', 'wk', 'wv', 'wo']) weights[`layers.${l}.${name}`] = Float32Array.from({ length: dModel * dModel }, (_, i) => value(l, i));
  }
  const model = { dModel, heads: 2, layers, mask: 'none' };
  return stackStateWithWeights(presetState('cat-sat'), { model, weights, example: { sentence: 'the cat sat on the mat', query: 1 } });
}

const parts = (address) => new URL(address).hash.slice(1).split('&');
const f32 = (values) => Float32Array.from(values);
// many digits each, as trained weights have: a seeded sequence in (−1, 1)
const digits = (l, i) => Math.sin(12.9898 * i + 78.233 * (l + 1)) * 0.987654321;

describe('the before-and-after link', () => {
  it('carries both states, weights number for number, on the compare view of the same page', () => {
    const a = stackState(12, 2);
    const b = { ...a, custom: { ...a.custom, wq: a.custom.wq.map((v) => v + 0.5) } };
    const address = compareAddress('https://example.org/lab/index.html?lang=hi&view=train#lab=old', a, b);
    const url = new URL(address);
    assert.equal(url.pathname, '/lab/index.html');
    assert.equal(url.searchParams.get('view'), 'compare');
    assert.equal(url.searchParams.get('lang'), 'hi');
    const [readA, readB] = parts(address).map((part) => stateFromFragment(part).state);
    assert.deepEqual(f32(readA.custom.wq), f32(a.custom.wq));
    assert.deepEqual(f32(readB.custom.wq), f32(b.custom.wq));
    assert.notDeepEqual(readB.custom.wq, readA.custom.wq);
    assert.deepEqual(f32(readB.layerWeights[0].wo), f32(a.layerWeights[0].wo));
    assert.equal(readB.layers, 2);
    assert.equal(readB.useWo, true);
  });

  it(`has no address past a link's limits: ${LINK_MAX_WEIGHTS} numbers a lab, or ${MAX_LINK} characters for both`, () => {
    // 2 layers × 4 matrices × 112² = 100,352 numbers: over the count by 352
    const big = stackState(112, 2);
    assert.equal(2 * 4 * 112 * 112 > LINK_MAX_WEIGHTS, true);
    assert.equal(compareAddress('https://example.org/index.html', stackState(12, 2), big), null);
    // 2 × 4 × 100² = 80,000 numbers of many digits: each lab's link fits (about 1.2 MB), both together do not
    const half = stackState(100, 2, digits);
    const one = stateToFragment(half).length;
    assert.ok(one < MAX_LINK && 2 * one > MAX_LINK, `one lab's fragment: ${one} characters`);
    assert.equal(compareAddress('https://example.org/index.html', half, half), null);
    // 2 × 4 × 60² = 28,800: both fit, and the address carries them
    const fits = stackState(60, 2);
    const address = compareAddress('https://example.org/index.html', fits, fits);
    assert.ok(address && address.length < MAX_LINK);
    assert.deepEqual(f32(stateFromFragment(parts(address)[1]).state.layerWeights[0].wq), f32(fits.layerWeights[0].wq));
  });

  it('is offered for every task: the one-layer ones, the stack on fixed words, and induction (an attention-only stack with rotary positions)', () => {
    assert.deepEqual(TASKS.filter(comparable).map((t) => t.id), TASKS.map((t) => t.id));
    // a stack the lab cannot hold (a full block with rotary positions) is not offered
    assert.equal(comparable({ stack: true, model: { positions: 'rotary', block: 'pre' } }), false);
  });
});
