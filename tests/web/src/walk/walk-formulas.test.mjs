// The walk's headlines give the formula computed (review 8, findings 1, 5 and 8): "+ b_q" when the
// layer has a bias, RoPE(…) and a checkable rotation step (pair, angle, cos and sin) when rotary
// positions are on, the key's row in each score step, and a masked score said to be unused. The
// numbers are checked against a float64 rotate-half and angles written here, not the page's code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { walkSteps } from '../../../../web/src/walk/steps.mjs';
import { presetState, buildRequest } from '../../../../web/src/state/index.mjs';
import { referenceAttention } from '../../reference.mjs';

// cat-sat (3 tokens, d = 4, one head, W = I) as the page shows it, the float64 reference as engine
function viewOf(state) {
  const { request, tokens, keyTokens } = buildRequest(state);
  const eye = (d) => Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
  const weights = { wq: eye(request.dModel), wk: eye(request.dModel), wv: eye(request.dModel), wo: null };
  const result = referenceAttention({ ...request, x: Array.from(request.x), ...weights, mask: state.mask ?? 'none' });
  return {
    tokens, keyTokens, columns: [], x: request.x, context: null, dModel: request.dModel, heads: 1, dK: request.dK, dV: request.dV,
    m: keyTokens.length, self: true, scaleMode: 'sqrt_dk', weights, result: { ...result, shape: { scale: 2 } },
  };
}

// rotate-half in float64: feature c with c + d/2, angle p · θ^(−2c/d)
function rotateHalf(row, p, theta) {
  const half = row.length / 2;
  const out = [...row];
  for (let c = 0; c < half; c++) {
    const angle = p * theta ** (-2 * c / row.length);
    out[c] = row[c] * Math.cos(angle) - row[c + half] * Math.sin(angle);
    out[c + half] = row[c + half] * Math.cos(angle) + row[c] * Math.sin(angle);
  }
  return out;
}

const numbers = (line) => (line.match(/−?-?\d+(\.\d+)?(e[-+]?\d+)?/g) ?? []).map((s) => Number(s.replace('−', '-')));

describe('the walk says the formula it computes', () => {
  it('a bias: "q = x · W_q + b_q" and the bias said to be added; no "+ b_k" without b_k', () => {
    const view = viewOf(presetState('cat-sat'));
    view.weights = { ...view.weights, bq: [0.5, 0, 0, 0] };
    const steps = walkSteps(view, 2, 0);
    assert.match(steps[0].text, /^q = x · W_q \+ b_q for 'sat'/);
    assert.match(steps[0].text, /Then the bias b_q is added/);
    assert.match(steps[1].text, /^K = X · W_k, head 1/);
    // without a bias the headline is as before
    assert.match(walkSteps(viewOf(presetState('cat-sat')), 2, 0)[0].text, /^q = x · W_q for 'sat'/);
  });

  it('rotary positions: q = RoPE(x · W_q), then a rotation step whose pair, angle and arithmetic are a rotate-half at position 2 (row 3)', () => {
    const view = viewOf(presetState('cat-sat'));
    const h = view.result.heads[0];
    // q·W = q: a made-up unrotated q with distinct features, rotated here in float64 at each row's position
    const unrotated = [[0.3, -1.2, 2.5, 0.7], [1, 0.5, -0.25, 2], [-0.4, 3, 1.5, -2]];
    h.qUnrotated = Float32Array.from(unrotated.flat());
    h.q = Float32Array.from(unrotated.flatMap((row, p) => rotateHalf(row, p, 100)));
    view.rotary = { dims: 4, theta: 100 };
    const steps = walkSteps(view, 2, 0);
    assert.match(steps[0].text, /^q = RoPE\(x · W_q\) for 'sat'/);
    assert.match(steps[0].text, /position 2 \(row 3: positions count from 0\)/);
    const rotation = steps[1];
    assert.match(rotation.text, /^RoPE turns q of 'sat', head 1, at position p = 2 \(row 3/);
    assert.match(rotation.text, /feature i \+ 2/);
    // the pair shown: the largest rotated feature of row 3 (here feature 3, i.e. c = 0 with partner 3)
    const rotated = rotateHalf(unrotated[2], 2, 100);
    const c = rotated.reduce((best, v, i) => (Math.abs(v) > Math.abs(rotated[best]) ? i : best), 0) % 2;
    const angle = 2 * 100 ** (-2 * c / 4);
    const [thetaLine, first, firstValue, second, secondValue] = rotation.arithmetic;
    assert.ok(Math.abs(numbers(thetaLine).at(-1) - angle) <= 5e-4 * Math.max(1, angle), thetaLine);
    const [a, , b] = numbers(first).slice(1);
    assert.ok(Math.abs(a - unrotated[2][c]) < 1e-3 && Math.abs(b - unrotated[2][c + 2]) < 1e-3, first);
    assert.ok(first.includes(`cos(`) && first.includes(' − '), first);
    assert.ok(Math.abs(numbers(firstValue)[0] - rotated[c]) <= 1e-3 * Math.max(1, Math.abs(rotated[c])), `${firstValue} vs ${rotated[c]}`);
    assert.ok(Math.abs(numbers(secondValue)[0] - rotated[c + 2]) <= 1e-3 * Math.max(1, Math.abs(rotated[c + 2])), `${second} ${secondValue} vs ${rotated[c + 2]}`);
    assert.deepEqual(rotation.outputs[0], { matrix: 'q', head: 0, row: 2 });
  });

  it('each score step names the key\'s row; a score the causal mask removes is said to be masked, not used', () => {
    const state = { ...presetState('cat-sat'), mask: 'causal' };
    const view = viewOf(state);
    const scores = walkSteps(view, 1, 0).filter((s) => s.stage === 'scores');
    assert.deepEqual(scores.map((s) => s.text.match(/\(row (\d)\)/)?.[1]), ['1', '2', '3']);
    assert.match(scores[1].text, /^Score of 'cat' with 'cat' \(row 2\): q · k/);
    assert.match(scores[2].text, /^Score of 'cat' with 'sat' \(row 3\): masked, not used/);
  });
});
