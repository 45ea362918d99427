// Grouped-query attention (kvHeads), rotary positions (rotary) and a sliding window (window) through the
// JavaScript API, on both builds of the page's engine and of the learning engine: attention() against a
// float64 forward written here from the definitions, gradients() against its central differences, and
// one bad input per new field (the error names it) followed by a good call.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { forEachBuild } from './builds.mjs';
import { randomSource, assertClose } from '../reference.mjs';

// RoPE, rotate-half: row r at position first + r; the pair (c, c + dims/2) turns by position / theta^(2c/dims).
function rotate(a, rows, width, { dims = 0, theta = 10000, firstPosition = 0 } = {}) {
  const out = Float64Array.from(a);
  const half = dims / 2;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < half; c++) {
      const angle = (firstPosition + r) / theta ** ((2 * c) / dims);
      const x1 = a[r * width + c], x2 = a[r * width + c + half];
      out[r * width + c] = x1 * Math.cos(angle) - x2 * Math.sin(angle);
      out[r * width + c + half] = x2 * Math.cos(angle) + x1 * Math.sin(angle);
    }
  }
  return out;
}

// y (rows, width) = a · w[block] + b[block], in float64
function project(a, rows, d, w, b, block, width) {
  const y = new Float64Array(rows * width);
  for (let r = 0; r < rows; r++) {
    for (let col = 0; col < width; col++) {
      let sum = b ? b[block * width + col] : 0;
      for (let t = 0; t < d; t++) sum += a[r * d + t] * w[(block * d + t) * width + col];
      y[r * width + col] = sum;
    }
  }
  return y;
}

// Softmax of one query row over the keys `visible` keeps; all masked: zeros.
function softmaxRow(scores, visible) {
  const s = scores.map((value, j) => (visible(j) ? value : -Infinity));
  const best = Math.max(...s);
  if (best === -Infinity) return s.map(() => 0);
  const e = s.map((value) => Math.exp(value - best));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((value) => value / total);
}

// Multi-head attention with kvHeads, rotary and window, in float64 from the definitions.
function forward64(p) {
  const { n, dModel: d, heads, dK, dV } = p;
  const m = p.context ? p.context.length / d : n;
  const c = p.context ?? p.x;
  const kvHeads = p.kvHeads ?? heads;
  const concat = new Float64Array(n * heads * dV);
  const weightsByHead = [];
  for (let h = 0; h < heads; h++) {
    const g = Math.floor((h * kvHeads) / heads);
    const q = rotate(project(p.x, n, d, p.wq, p.bq, h, dK), n, dK, p.rotary);
    const k = rotate(project(c, m, d, p.wk, p.bk, g, dK), m, dK, p.rotary);
    const v = project(c, m, d, p.wv, p.bv, g, dV);
    const weights = new Float64Array(n * m);
    for (let i = 0; i < n; i++) {
      const byMask = (j) => (p.mask === 'causal' ? j <= i : p.mask?.keep ? p.mask.keep[i * m + j] === 1 : true);
      const visible = (j) => byMask(j) && (!p.window || i - j < p.window);
      const scores = Array.from({ length: m }, (_, j) => {
        let dot = 0;
        for (let t = 0; t < dK; t++) dot += q[i * dK + t] * k[j * dK + t];
        return dot / Math.sqrt(dK);
      });
      softmaxRow(scores, visible).forEach((w, j) => {
        weights[i * m + j] = w;
        for (let t = 0; t < dV; t++) concat[i * heads * dV + h * dV + t] += w * v[j * dV + t];
      });
    }
    weightsByHead.push(weights);
  }
  const output = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let col = 0; col < d; col++) {
      let sum = p.bo[col];
      for (let t = 0; t < heads * dV; t++) sum += concat[i * heads * dV + t] * p.wo[t * d + col];
      output[i * d + col] = sum;
    }
  }
  return { output, weights: weightsByHead };
}

function randomProblem(random, trial) {
  const heads = [1, 2, 4, 6][trial % 4];
  const divisors = Array.from({ length: heads }, (_, i) => i + 1).filter((g) => heads % g === 0);
  const kvHeads = trial % 3 === 0 ? 1 : divisors[random.int(0, divisors.length - 1)];
  const n = random.int(1, 7), dModel = random.int(2, 8), dK = 2 * random.int(1, 3), dV = random.int(1, 4);
  const cross = trial % 5 === 4;
  const m = cross ? random.int(1, 7) : n;
  const p = { n, dModel, heads, kvHeads, dK, dV, x: random.matrix(n * dModel),
    wq: random.matrix(heads * dModel * dK, 0.8), wk: random.matrix(kvHeads * dModel * dK, 0.8), wv: random.matrix(kvHeads * dModel * dV, 0.8),
    wo: random.matrix(heads * dV * dModel, 0.8), bq: random.matrix(heads * dK, 0.5), bk: random.matrix(kvHeads * dK, 0.5),
    bv: random.matrix(kvHeads * dV, 0.5), bo: random.matrix(dModel, 0.5),
    rotary: { dims: trial % 4 === 1 ? 0 : 2 * random.int(1, dK / 2), theta: trial % 2 ? 10000 : 50, firstPosition: random.int(0, 40) },
    window: trial % 6 === 5 ? 0 : random.int(1, Math.max(n, m)) };
  if (cross) p.context = random.matrix(m * dModel);
  const masks = ['none', 'causal', 'keep'];
  p.mask = masks[trial % 3];
  if (p.mask === 'keep') p.mask = { keep: Array.from({ length: n * m }, () => (random.int(0, 3) === 0 ? 0 : 1)) };
  return { p, m };
}

for (const learning of [false, true]) {
  forEachBuild((build) => `${build} ${learning ? 'learning' : 'page'} engine: kvHeads, rotary, window`, { learning }, ({ engine }) => {
    forwardTests(engine);
    if (learning) gradientTests(engine);
    badInputTests(engine, learning);
  });
}

function forwardTests(engine) {
  it('attention() with grouped heads, rotary positions and a window matches the float64 forward', () => {
    const random = randomSource(2711);
    for (let trial = 0; trial < 24; trial++) {
      const { p } = randomProblem(random, trial);
      const want = forward64(p);
      const r = engine.attention(p);
      assertClose(`output, trial ${trial}`, r.output, want.output, { atol: 1e-4, rtol: 1e-4 });
      r.heads.forEach((head, h) => assertClose(`weights of head ${h}, trial ${trial}`, head.weights, want.weights[h], { atol: 1e-5, rtol: 1e-4 }));
      assert.equal(r.shape.kvHeads, p.kvHeads);
      assert.equal('qUnrotated' in r.heads[0], p.rotary.dims > 0, 'q before the rotation only with a rotation');
      if (p.rotary.dims > 0) {
        const q = project(p.x, p.n, p.dModel, p.wq, p.bq, 0, p.dK);
        assertClose('qUnrotated', r.heads[0].qUnrotated, q, { atol: 1e-5, rtol: 1e-4 });
        assertClose('q rotated', r.heads[0].q, rotate(q, p.n, p.dK, p.rotary), { atol: 1e-5, rtol: 1e-4 });
      }
      const fast = engine.attention({ ...p, trace: false });
      assert.deepEqual(fast.output, r.output, 'the trace-free path gives the same bits');
    }
  });
}

function gradientTests(engine) {
  it('gradients() through the groups, the rotation and the window against central differences', () => {
    const random = randomSource(1515);
    for (let trial = 0; trial < 12; trial++) {
      const { p, m } = randomProblem(random, trial);
      const dOutput = random.matrix(p.n * p.dModel);
      const dWeights = trial % 2 === 0 ? random.matrix(p.heads * p.n * m) : undefined;
      const got = engine.gradients({ ...p, dOutput, dWeights });
      const objective = (q) => {
        const { output, weights } = forward64(q);
        let loss = 0;
        output.forEach((value, i) => { loss += value * dOutput[i]; });
        if (dWeights) weights.forEach((w, h) => w.forEach((value, i) => { loss += value * dWeights[h * p.n * m + i]; }));
        return loss;
      };
      for (const name of ['x', 'context', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) {
        if (!p[name]) continue;
        assert.equal(got[name].length, p[name].length, `${name}'s gradient is sized like it`);
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

function badInputTests(engine, learning) {
  describe('a bad kvHeads, rotary or window names the field, and the next call works', () => {
    const eye = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const base = { x: [1, 2, 3, 4, 5, 6, 7, 8], n: 2, dModel: 4, heads: 2, wq: eye, wk: eye, wv: eye, wo: eye };
    const cases = [
      ['kvHeads not dividing heads', { kvHeads: 3 }, RangeError, 'kvHeads', /kvHeads \(3\) must divide heads \(2\)/],
      ['kvHeads not a number', { kvHeads: 'two' }, TypeError, 'kvHeads', /kvHeads must be a whole number/],
      ['kvHeads 0', { kvHeads: 0 }, RangeError, 'kvHeads', /kvHeads must be at least 1/],
      ['wk sized for heads when kvHeads is 1', { kvHeads: 1 }, RangeError, 'wk', /expected kvHeads × dModel × dK = 1 × 4 × 2 = 8/],
      ['rotary.dims odd', { rotary: { dims: 1 } }, RangeError, 'rotary.dims', /rotary.dims is 1; it must be even, from 0 \(no rotation\) to dK \(2\)/],
      ['rotary.dims missing', { rotary: { theta: 500 } }, TypeError, 'rotary.dims', /rotary.dims is required/],
      ['rotary.theta negative', { rotary: { dims: 2, theta: -1 } }, RangeError, 'rotary.theta', /rotary.theta is -1; it must be a finite number above 1/],
      ['rotary.theta a string', { rotary: { dims: 2, theta: '1e4' } }, TypeError, 'rotary.theta', /rotary.theta must be a number/],
      ['rotary.firstPosition fractional', { rotary: { dims: 2, firstPosition: 1.5 } }, TypeError, 'rotary.firstPosition',
        /rotary.firstPosition must be a whole number/],
      ['rotary.firstPosition too far', { rotary: { dims: 2, firstPosition: 2 ** 18 + 1 } }, RangeError, 'rotary.firstPosition', /from 0 to 262144/],
      ['rotary with an unknown key', { rotary: { dims: 2, base: 10 } }, TypeError, 'base', /unknown option 'base'/],
      ['window negative', { window: -1 }, RangeError, 'window', /window must be 0 or more, got -1/],
      ['window a word', { window: 'wide' }, TypeError, 'window', /window must be a whole number/],
    ];
    for (const [what, spoil, Kind, field, pattern] of cases) {
      it(what, () => {
        const call = () => (learning ? engine.gradients({ ...base, ...spoil, dOutput: new Array(8).fill(1) }) : engine.attention({ ...base, ...spoil }));
        assert.throws(call, (error) => {
          assert.ok(error instanceof Kind, `${error.constructor.name}: ${error.message}`);
          assert.equal(error.field, field);
          assert.match(error.message, pattern);
          return true;
        });
        const good = { ...base, kvHeads: 2, rotary: { dims: 2, theta: 10000, firstPosition: 3 }, window: 1, mask: 'causal' };
        const r = engine.attention(good);
        // window 1 with the causal mask: each query sees itself alone, so each head's weights are the identity
        r.heads.forEach((head) => assert.deepEqual(Array.from(head.weights), [1, 0, 0, 1]));
      });
    }
  });
}
