// Biases, positions and engine.gradients() through the JavaScript API, both builds, against a
// float64 forward written here and its central finite differences.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { forEachBuild } from './builds.mjs';
import { randomSource, assertClose } from '../reference.mjs';

const sinusoid = (pos, col, d) => {
  const angle = pos / 10000 ** ((2 * Math.floor(col / 2)) / d);
  return col % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
};

// Multi-head attention in float64 with biases and positions, from the definitions.
function forward64(p) {
  const { n, dModel: d, heads, dK, dV } = p;
  const m = p.context ? p.context.length / d : n;
  const withPositions = (a) => Float64Array.from(a, (value, i) => value + (p.positions === 'sinusoidal' ? sinusoid(Math.floor(i / d), i % d, d) : 0));
  const x = withPositions(p.x);
  const c = p.context ? withPositions(p.context) : x;
  const project = (a, rows, w, b, h, width) => {
    const y = new Float64Array(rows * width);
    for (let r = 0; r < rows; r++) {
      for (let col = 0; col < width; col++) {
        let sum = b ? b[h * width + col] : 0;
        for (let t = 0; t < d; t++) sum += a[r * d + t] * w[(h * d + t) * width + col];
        y[r * width + col] = sum;
      }
    }
    return y;
  };
  const scale = Math.sqrt(dK);
  const concat = new Float64Array(n * heads * dV);
  const weightsByHead = [];
  for (let h = 0; h < heads; h++) {
    const q = project(x, n, p.wq, p.bq, h, dK), k = project(c, m, p.wk, p.bk, h, dK), v = project(c, m, p.wv, p.bv, h, dV);
    const weights = new Float64Array(n * m);
    for (let i = 0; i < n; i++) {
      const visible = (j) => p.mask !== 'causal' || j <= i;
      let best = -Infinity;
      const s = [];
      for (let j = 0; j < m; j++) {
        let dot = 0;
        for (let t = 0; t < dK; t++) dot += q[i * dK + t] * k[j * dK + t];
        s.push(visible(j) ? dot / scale : -Infinity);
        best = Math.max(best, s[j]);
      }
      let total = 0;
      for (let j = 0; j < m; j++) total += (weights[i * m + j] = Math.exp(s[j] - best));
      for (let j = 0; j < m; j++) {
        weights[i * m + j] /= total;
        for (let t = 0; t < dV; t++) concat[i * heads * dV + h * dV + t] += weights[i * m + j] * v[j * dV + t];
      }
    }
    weightsByHead.push(weights);
  }
  if (!p.wo) return { output: concat, weights: weightsByHead };
  const width = heads * dV;
  const output = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let col = 0; col < d; col++) {
      let sum = p.bo ? p.bo[col] : 0;
      for (let t = 0; t < width; t++) sum += concat[i * width + t] * p.wo[t * d + col];
      output[i * d + col] = sum;
    }
  }
  return { output, weights: weightsByHead };
}

function randomProblem(random, { cross, wo, biases, positions, mask }) {
  const n = random.int(1, 6), dModel = random.int(1, 7), heads = random.int(1, 3), dK = random.int(1, 4), dV = random.int(1, 4);
  const m = cross ? random.int(1, 6) : n;
  const p = { n, dModel, heads, dK, dV, x: random.matrix(n * dModel), mask, positions,
    wq: random.matrix(heads * dModel * dK, 0.8), wk: random.matrix(heads * dModel * dK, 0.8), wv: random.matrix(heads * dModel * dV, 0.8) };
  if (cross) p.context = random.matrix(m * dModel);
  if (wo) p.wo = random.matrix(heads * dV * dModel, 0.8);
  if (biases) {
    p.bq = random.matrix(heads * dK, 0.5);
    p.bk = random.matrix(heads * dK, 0.5);
    p.bv = random.matrix(heads * dV, 0.5);
    if (wo) p.bo = random.matrix(dModel, 0.5);
  }
  return { p, m, dOut: wo ? dModel : heads * dV };
}

forEachBuild((build) => `${build} build: biases, positions, gradients`, { learning: true }, (build) => {
  forwardAndGradientTests(build);
  badInputTests(build);
});

// biases, positions and gradients against the float64 forward
function forwardAndGradientTests({ engine }) {
  it('biases and sinusoidal positions match the float64 forward; the trace returns what was added', () => {
    const random = randomSource(14);
    for (let trial = 0; trial < 12; trial++) {
      const { p, m } = randomProblem(random, { cross: trial % 2 === 1, wo: trial % 3 !== 0, biases: true,
        positions: trial % 4 < 2 ? 'sinusoidal' : 'none', mask: trial % 5 === 0 ? 'causal' : 'none' });
      const r = engine.attention(p);
      assertClose(`output, trial ${trial}`, r.output, forward64(p).output, { atol: 1e-4, rtol: 1e-4 });
      if (p.positions === 'sinusoidal') {
        assertClose('positions.x', r.positions.x, Array.from({ length: p.n * p.dModel }, (_, i) => sinusoid(Math.floor(i / p.dModel), i % p.dModel, p.dModel)),
          { atol: 1e-7, rtol: 1e-6 });
        assert.equal(r.positions.context?.length, p.context ? m * p.dModel : undefined);
      } else {
        assert.equal(r.positions, undefined);
      }
    }
  });

  it('gradients() against central differences of the float64 forward', () => {
    const random = randomSource(1414);
    for (let trial = 0; trial < 16; trial++) {
      const { p, m, dOut } = randomProblem(random, { cross: trial % 2 === 1, wo: trial % 4 < 2, biases: trial % 3 !== 2,
        positions: trial % 5 < 2 ? 'sinusoidal' : 'none', mask: trial % 3 === 0 ? 'causal' : 'none' });
      const dOutput = random.matrix(p.n * dOut);
      const dWeights = trial % 2 === 0 ? random.matrix(p.heads * p.n * m) : undefined;
      const got = engine.gradients({ ...p, dOutput, dWeights });
      assertClose('output', got.output, forward64(p).output, { atol: 1e-4, rtol: 1e-4 });
      const objective = (q) => {
        const { output, weights } = forward64(q);
        let loss = 0;
        output.forEach((value, i) => { loss += value * dOutput[i]; });
        if (dWeights) weights.forEach((w, h) => w.forEach((value, i) => { loss += value * dWeights[h * p.n * m + i]; }));
        return loss;
      };
      for (const name of ['x', 'context', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) {
        if (!p[name]) {
          assert.equal(got[name], undefined, `${name} is absent, so is its gradient`);
          continue;
        }
        const numeric = Array.from(p[name], (_, i) => {
          const step = 1e-6;
          const up = Float64Array.from(p[name]), down = Float64Array.from(p[name]);
          up[i] += step;
          down[i] -= step;
          return (objective({ ...p, [name]: up }) - objective({ ...p, [name]: down })) / (2 * step);
        });
        let diff = 0, norm = 0;
        numeric.forEach((want, i) => { diff += (got[name][i] - want) ** 2; norm += want ** 2; });
        const error = Math.sqrt(diff) / Math.max(Math.sqrt(norm), 1e-2);
        assert.ok(error <= 1e-3, `trial ${trial}, ${name}: norm-wise relative error ${error}`);
      }
    }
  });
}

// bad input to gradients()
function badInputTests({ engine }) {
  describe('bad input names the field, and the engine stays usable', () => {
    const base = { x: [1, 0, 0, 1], n: 2, dModel: 2, wq: [1, 0, 0, 1], wk: [1, 0, 0, 1], wv: [1, 0, 0, 1], wo: [1, 0, 0, 1] };
    const cases = [
      ['dOutput of the wrong length', () => engine.gradients({ ...base, dOutput: [1, 2, 3] }), RangeError, 'dOutput',
        /dOutput has 3 values; expected n × dOut = 2 × 2 = 4/],
      ['dOutput missing', () => engine.gradients(base), TypeError, 'dOutput', /dOutput is required/],
      ['dOutput holding NaN', () => engine.gradients({ ...base, dOutput: [1, NaN, 0, 0] }), RangeError, 'dOutput', /dOutput\[1\] is NaN/],
      ['dWeights of the wrong length', () => engine.gradients({ ...base, dOutput: [0, 0, 0, 0], dWeights: [1] }), RangeError, 'dWeights',
        /expected heads × n × m = 1 × 2 × 2 = 4/],
      ['bq of the wrong size', () => engine.attention({ ...base, bq: [1] }), RangeError, 'bq', /bq has 1 values; expected heads × dK = 1 × 2 = 2/],
      ['bo without wo', () => engine.attention({ ...base, wo: undefined, bo: [1, 1] }), RangeError, 'bo', /wo is omitted/],
      ['positions a bad word', () => engine.attention({ ...base, positions: 'learned' }), TypeError, 'positions',
        /positions must be 'none' or 'sinusoidal'/],
      ['a misspelt gradient option', () => engine.gradients({ ...base, dOuptut: [0, 0, 0, 0] }), TypeError, 'dOuptut', /unknown option/],
    ];
    for (const [what, call, Kind, field, pattern] of cases) {
      it(what, () => {
        assert.throws(call, (error) => {
          assert.ok(error instanceof Kind, `${error.constructor.name}: ${error.message}`);
          assert.equal(error.field, field);
          assert.match(error.message, pattern);
          return true;
        });
        const r = engine.gradients({ ...base, dOutput: [1, 0, 0, 0] });
        assert.equal(r.wq.length, 4, 'the engine still answers after the error');
      });
    }
  });
}
