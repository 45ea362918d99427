// The query a layer opens on, and the query when a sentence is typed (review 9, findings 1 and 8):
// under a causal mask the last token (the first sees itself alone, weight 1, and RoPE turns it by 0),
// without a mask the first; the query shown on the same tokens stays; a query at the end of a causal
// sentence stays at its end as the sentence is typed, another stays where it is.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { defaultState, openingQuery, reduce } from '../../../../web/src/state/index.mjs';
import { stateWithInputs, stateWithLayer } from '../../../../web/src/layers/apply.mjs';

// a layer of d_model 2, one head (convertLayer's output shape), causal or not
const layer = (causal) => ({ dModel: 2, heads: 1, dK: 2, dV: 2, causal, wq: [1, 0, 0, 1], wk: [1, 0, 0, 1], wv: [1, 0, 0, 1] });
const rows = (tokens) => ({ tokens, rows: tokens.map((_, i) => [i, 1]) });
const MODEL = ['<s>', 'The', 'cat', 'sat'];

describe('openingQuery', () => {
  it('a causal layer on new tokens opens on the last token; an unmasked one on the first', () => {
    const start = { ...defaultState(), sentence: 'one two', selectedToken: 0 };
    assert.equal(stateWithLayer(start, layer(true), rows(MODEL)).selectedToken, 3);
    assert.equal(stateWithLayer(start, layer(false), rows(MODEL)).selectedToken, 0);
    // a model's layer as models/lab.mjs makes it: the layer, then its rows
    const opened = stateWithInputs(stateWithLayer(start, layer(true), rows(MODEL)), rows(MODEL));
    assert.equal(opened.selectedToken, 3);
  });

  it('on the same tokens the query shown stays (another head of the same text), in range', () => {
    const shown = { ...stateWithLayer(defaultState(), layer(true), rows(MODEL)), selectedToken: 1 };
    assert.equal(stateWithLayer(shown, layer(true), rows(MODEL)).selectedToken, 1);
    assert.equal(stateWithInputs(shown, rows(MODEL)).selectedToken, 1);
    // other tokens: the last again
    assert.equal(stateWithInputs(shown, rows(['a', 'b'])).selectedToken, 1);
    assert.equal(stateWithInputs(shown, rows(['a', 'b', 'c', 'd', 'e'])).selectedToken, 4);
    assert.equal(openingQuery({ ...shown, selectedToken: 9 }, shown), 3);
  });

  it('a typed sentence under a causal mask keeps a query at the end at the end, and any other where it was', () => {
    const opened = stateWithInputs(stateWithLayer(defaultState(), layer(true), rows(MODEL)), rows(MODEL));
    const typed = (state, sentence) => reduce(state, { type: 'settings', change: { sentence, inputs: null }, field: 'sentence' });
    assert.equal(typed(opened, 'My dog likes long walks').selectedToken, 4);
    // typed word by word: the query follows the end
    let state = opened;
    for (const sentence of ['My', 'My dog', 'My dog likes']) state = typed(state, sentence);
    assert.equal(state.selectedToken, 2);
    // a query the reader chose stays where it was
    assert.equal(typed({ ...opened, selectedToken: 1 }, 'My dog likes long walks').selectedToken, 1);
    // no mask: the query stays where it was, as before
    assert.equal(typed({ ...opened, maskMode: 'none' }, 'My dog likes long walks').selectedToken, 3);
  });
});
