// The teaching page's pure parts in Node: the walk's steps, the state transitions behind edits to
// an example, the names explanations give, and the message catalogue.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { walkSteps, STAGES, cellSelector } from '../../../../web/src/walk/steps.mjs';
import { presetState, buildRequest, withCellEdit, withSettingChange, withWeightEdit, modifiedAspects } from '../../../../web/src/state/index.mjs';
import { explainCell } from '../../../../web/src/shared/explain-cell.mjs';
import { tableLabels } from '../../../../web/src/shared/labels.mjs';
import { setPrecision, formatNumber } from '../../../../web/src/shared/format.mjs';
import { message } from '../../../../web/src/i18n/index.mjs';
import { referenceAttention } from '../../reference.mjs';

// A shown computation as the page builds it, with the float64 reference as the engine.
function viewOf(state) {
  const { request, tokens, keyTokens } = buildRequest(state);
  const eye = (d) => Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
  const weights = request.weights.mode === 'custom' ? request.weights : { wq: eye(request.dModel), wk: eye(request.dModel), wv: eye(request.dModel), wo: null };
  const result = referenceAttention({ ...request, x: Array.from(request.x), wq: weights.wq, wk: weights.wk, wv: weights.wv, wo: request.useWo ? weights.wo : undefined });
  const scale = state.scaleMode === 'sqrt_dk' ? Math.sqrt(request.dK) : 1;
  return {
    tokens, keyTokens, columns: state.x?.columns ?? [], x: request.x, context: null, dModel: request.dModel, heads: request.heads,
    dK: request.dK, dV: request.dV, m: keyTokens.length, self: true, scaleMode: state.scaleMode, identity: state.weightsMode === 'identity',
    weights: { ...weights, wo: request.useWo ? weights.wo : null }, result: { ...result, shape: { scale }, dOut: result.output.length / tokens.length },
  };
}

describe('the guided walk', () => {
  it('walks q, k, v, each score, the scaling, the softmax, each weighted value, the sum, concat and W_O, in the formula\'s order', () => {
    const view = viewOf(presetState('cat-sat'));
    const steps = walkSteps(view, 2, 0);
    const m = view.m;
    assert.equal(steps.length, 3 + m + 1 + 1 + m + 1 + 1 + 1);
    const order = steps.map((s) => STAGES.indexOf(s.stage));
    assert.ok(order.every((o, i) => o >= 1 && (i === 0 || o >= order[i - 1])), `stages in order: ${steps.map((s) => s.stage)}`);
    // each score step takes row 'sat' of Q and one row of K, and gives that one cell
    const scores = steps.filter((s) => s.stage === 'scores');
    scores.forEach((step, j) => {
      assert.deepEqual(step.outputs, [{ matrix: 'scores', head: 0, row: 2, col: j }]);
      assert.deepEqual(step.inputs.slice(0, 2), [{ matrix: 'q', head: 0, row: 2 }, { matrix: 'k', head: 0, row: j }]);
      assert.equal(cellSelector(step.outputs[0]), `td[data-matrix="scores"][data-head="0"][data-row="2"][data-col="${j}"]`);
    });
    // a weighted value's arithmetic: weight × v, at 4 significant digits by default (issue 26, point 6)
    const w = view.result.heads[0].weights[2 * m + 2];
    const v = [1, 1, 1, 1];  // E_sat
    const productsOf = (all) => all.filter((s) => s.stage === 'z')[2].arithmetic[1].replace(/^= \[|\]$/g, '').split(', ').map(Number);
    productsOf(steps).forEach((p, c) => assert.equal(p, Number((w * v[c]).toPrecision(4))));
    // with every digit asked for, each product printed as the float32 it is
    setPrecision(0);
    const exact = walkSteps(view, 2, 0);
    setPrecision(4);
    productsOf(exact).forEach((p, c) => assert.equal(Math.fround(p), Math.fround(Math.fround(w) * v[c])));
    assert.match(exact.filter((s) => s.stage === 'z')[2].arithmetic[1], /^= \[0\.57611686, /, 'the shortest decimal of the float32, not the double');
  });
});

describe('edits to an example', () => {
  it("a word has one vector in every row, whatever its case; an edit changes it everywhere", () => {
    const base = { ...presetState('money-bank'), sentence: 'The bank and the river bank' };
    const x = (state) => buildRequest(state).request.x;
    const before = x(base);
    assert.deepEqual(Array.from(before.subarray(0, 10)), Array.from(before.subarray(30, 40)), "'The' and 'the'");
    const edited = withCellEdit(base, 'x', 5, 'bank', 1, 0.25);
    const after = x(edited);
    assert.equal(after[1 * 10 + 1], 0.25, 'the other bank follows');
    assert.equal(after[5 * 10 + 1], 0.25);
    // typing the same cell again replaces the edit, from whichever row
    const again = withCellEdit(edited, 'x', 1, 'Bank', 1, 0.5);
    assert.equal(Object.keys(again.xEdits).length, 1);
    assert.equal(x(again)[5 * 10 + 1], 0.5);
  });

  it("a preset's rows belong to its words, wherever they appear", () => {
    const state = presetState('animal-it');
    const { request, tokens } = buildRequest(state);
    const row = (word) => Array.from(request.x.subarray(tokens.indexOf(word) * 9, tokens.indexOf(word) * 9 + 9));
    assert.deepEqual(row('the'), row('The'));
    assert.deepEqual(row('because').slice(0, 6), [0, 0, 0, 0, 0, 0], 'no q or k in the notes');
  });

  it('identity weights keep d_k = d_v = d_model; hand-set weights that no longer fit are replaced, and that is reported', () => {
    const identity = withSettingChange(presetState('money-bank'), { dModel: 12 });
    assert.deepEqual([identity.state.dK, identity.state.dV, identity.replaced], [12, 12, null]);
    assert.equal(buildRequest(identity.state).problems, undefined);
    const custom = withSettingChange(presetState('kids-lions'), { dK: 3 });
    assert.deepEqual([custom.state.weightsMode, custom.state.custom, custom.replaced], ['random', null, 'sizes']);
    const same = withSettingChange(presetState('kids-lions'), { dK: 2 });
    assert.equal(same.replaced, null, 'the same size is no change');
    const wo = withSettingChange(presetState('kids-lions'), { useWo: true });  // 1 × 10 = d_model: an identity W_O
    assert.equal(wo.replaced, null);
    assert.equal(wo.state.custom.wo.length, 100);
    const narrow = withSettingChange(presetState('animal-it'), { useWo: true });  // d_v 3 ≠ d_model 9
    assert.equal(narrow.replaced, 'wo');
  });

  it('a weight edit makes the shown weights the reader\'s own', () => {
    const state = presetState('money-bank');
    const view = viewOf(state);
    const next = withWeightEdit(state, view.weights, { matrix: 'wq', head: 0, row: 0, col: 1 }, 3);
    assert.equal(next.weightsMode, 'custom');
    assert.equal(next.custom.wq[1], 3);
    assert.equal(next.custom.wq[0], 1, 'the rest is the identity that was shown');
  });

  it('modifiedAspects names what changed from the example', () => {
    assert.deepEqual(modifiedAspects(presetState('telescope')), []);
    assert.deepEqual(modifiedAspects({ ...presetState('telescope'), sentence: 'The man saw' }), ['sentence']);
    assert.deepEqual(modifiedAspects({ ...presetState('telescope'), scaleMode: 'none', xEdits: { '0:The:0': 1 } }), ['scaling', 'inputs']);
    assert.deepEqual(modifiedAspects({ ...presetState('telescope'), preset: null }), []);
  });
});

describe('explanations', () => {
  it('name rows and columns as the tables do, and count the zero terms they leave out past four terms', () => {
    const view = viewOf(presetState('animal-it'));
    const it = view.tokens.indexOf('it');
    const score = explainCell(view, { matrix: 'scores', head: 0, row: it, col: 1 });
    assert.equal(score.title, "Scores, head 1: row 'it', column 'animal'");
    assert.equal(score.lines[1], '0.6×0.6 + 0.5×0.5 + 0.4×0.4');
    const the = explainCell(view, { matrix: 'scores', head: 0, row: it, col: 0 });
    // three terms: written out whole, the zero too, as the notes write q·k (issue 26, point 4)
    assert.equal(the.lines[1], '0.6×0.2 + 0.5×0.1 + 0.4×0');
    const q = explainCell(view, { matrix: 'q', head: 0, row: it, col: 2 });
    assert.equal(q.title, `Q, head 1: row 'it', column '${tableLabels(view, 'q').columns[2]}'`);
    // the X row the terms come from, quoted whole, and each kept term named by its feature (review 4, finding 6)
    const xIt = Array.from({ length: view.dModel }, (_, i) => view.x[it * view.dModel + i]);
    assert.equal(q.lines[1], `Row 'it' of X: [${xIt.map((v) => formatNumber(v)).join(', ')}].`);
    const named = /^(\w+): 0\.4 × 1 \(8 zero terms left out\)$/.exec(q.lines[2]);
    assert.ok(named, q.lines[2]);
    assert.equal(Math.fround(xIt[view.columns.indexOf(named[1])]), Math.fround(0.4), `${named[1]} is the feature 'it' holds 0.4 of`);
    const because = explainCell(view, { matrix: 'q', head: 0, row: view.tokens.indexOf('because'), col: 0 });
    assert.match(because.lines[2], /^every term is 0 \(9 zero terms left out\)$/);
  });
});

describe('messages', () => {
  it('fills named slots and shows an unknown key as itself', () => {
    assert.equal(message('walk.position', { step: 3, count: 14 }), 'Step 3 of 14');
    assert.equal(message('no.such.key'), 'no.such.key');
  });
});
