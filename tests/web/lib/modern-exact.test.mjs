// Issue 25's core through the JavaScript API, on both learning builds: flashAttention() (the tiled
// online softmax and its per-tile trace, sink logits) and kvCache() (prefill, then one token at a time;
// StreamingLLM's eviction)
// against a float64 forward written here from the definitions; RoPE's shift invariance; bad input refused
// naming the field, and a good call after it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { forEachBuild } from './builds.mjs';
import { loadAttention } from '../../../dist/lib/attention.node.mjs';
import { randomSource } from '../reference.mjs';

// RoPE, rotate-half: row r at position first + r; the pair (c, c + dims/2) turns by position / theta^(2c/dims).
function rotate(a, rows, width, dims, firstPosition) {
  const out = Float64Array.from(a);
  const half = dims / 2;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < half; c++) {
      const angle = (firstPosition + r) / 10000 ** ((2 * c) / dims);
      const x1 = a[r * width + c], x2 = a[r * width + c + half];
      out[r * width + c] = x1 * Math.cos(angle) - x2 * Math.sin(angle);
      out[r * width + c + half] = x2 * Math.cos(angle) + x1 * Math.sin(angle);
    }
  }
  return out;
}

function project(a, rows, d, w, block, width) {
  const y = new Float64Array(rows * width);
  for (let r = 0; r < rows; r++) {
    for (let col = 0; col < width; col++) {
      let sum = 0;
      for (let t = 0; t < d; t++) sum += a[r * d + t] * w[(block * d + t) * width + col];
      y[r * width + col] = sum;
    }
  }
  return y;
}

// Causal attention per head in float64, with an optional sink logit per head: the scaled scores, the
// weights (rows summing to 1 − the sink's share), the sink's share and z.
function forward64(p, sinks = null) {
  const { n, dModel: d, heads, kvHeads, dK, dV } = p;
  const out = [];
  for (let h = 0; h < heads; h++) {
    const g = Math.floor((h * kvHeads) / heads);
    const q = rotate(project(p.x, n, d, p.wq, h, dK), n, dK, p.rotary.dims, p.rotary.firstPosition ?? 0);
    const k = rotate(project(p.x, n, d, p.wk, g, dK), n, dK, p.rotary.dims, p.rotary.firstPosition ?? 0);
    const v = project(p.x, n, d, p.wv, g, dV);
    const scaled = [], weights = new Float64Array(n * n), sinkWeight = new Float64Array(n), z = new Float64Array(n * dV);
    for (let i = 0; i < n; i++) {
      const s = [];
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += q[i * dK + c] * k[j * dK + c];
        s.push(dot / Math.sqrt(dK));
      }
      const sink = sinks ? sinks[h] : -Infinity;
      const top = Math.max(sink, ...s);
      const total = s.reduce((a, b) => a + Math.exp(b - top), 0) + Math.exp(sink - top);
      s.forEach((value, j) => {
        weights[i * n + j] = Math.exp(value - top) / total;
        for (let c = 0; c < dV; c++) z[i * dV + c] += weights[i * n + j] * v[j * dV + c];
      });
      sinkWeight[i] = Math.exp(sink - top) / total;
      scaled.push(s);
    }
    out.push({ scaled, weights, sinkWeight, z });
  }
  return out;
}

function problem(seed, n = 7) {
  const values = randomSource(seed).matrix;
  const dModel = 8, heads = 4, kvHeads = 2, dK = 4, dV = 3;
  return {
    x: values(n * dModel), n, dModel, heads, kvHeads, dK, dV, mask: 'causal', rotary: { dims: 4 },
    wq: values(heads * dModel * dK, 0.5), wk: values(kvHeads * dModel * dK, 0.5), wv: values(kvHeads * dModel * dV, 0.5),
  };
}

function assertNear(got, want, tolerance, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= tolerance, `${what}[${i}]: ${got[i]} against ${want[i]} (tolerance ${tolerance})`);
  }
}

// float32 storage and accumulation over a few dozen O(1) terms, as the C++ suite's bound
const BOUND = 1e-4;

forEachBuild((build) => `flashAttention() on the ${build} learning build`, { learning: true }, ({ engine }) => {
  it('every tile size gives the float64 softmax(QKᵀ/√dK)·V, and the last tile\'s m and ℓ are the row\'s max and sum', () => {
    const p = problem(11);
    const want = forward64(p);
    for (const tile of [1, 2, 3, 7, 50]) {
      const r = engine.flashAttention({ ...p, tile });
      assert.equal(r.tiles, Math.ceil(p.n / tile));
      assert.deepEqual(r.memory, { fullValues: p.n * p.n, tiledValues: p.n * (Math.min(tile, p.n) + 2 + p.dV) });
      r.heads.forEach((head, h) => {
        assertNear(head.z, want[h].z, BOUND, `tile ${tile} head ${h} z`);
        assertNear(head.weights, want[h].weights, BOUND, `tile ${tile} head ${h} weights`);
        assertNear(head.z, r.exact.heads[h].z, 1e-6, `tile ${tile} head ${h} z against the exact pass`);
        for (let i = 0; i < p.n; i++) {
          const last = i * r.tiles + r.tiles - 1;
          const top = Math.max(...want[h].scaled[i]);
          assert.ok(Math.abs(head.runningMax[last] - top) <= BOUND, `m of row ${i}`);
          const sum = want[h].scaled[i].reduce((a, b) => a + Math.exp(b - top), 0);
          assert.ok(Math.abs(head.runningSum[last] - sum) <= BOUND * sum, `ℓ of row ${i}`);
          for (let t = 1; t < r.tiles; t++) {  // r = e^(m_old − m_new), from the trace's own m
            const at = i * r.tiles + t;
            const expected = Math.exp(head.runningMax[at - 1] - head.runningMax[at]);
            assert.ok(Math.abs(head.rescale[at] - expected) <= 1e-6, `rescale of row ${i} tile ${t}`);
          }
        }
      });
    }
  });

  it('a sink of -Infinity is plain softmax; finite sinks match a float64 sink softmax and rows sum below 1', () => {
    const p = problem(12);
    const plain = engine.flashAttention({ ...p, tile: 2 });
    const none = engine.flashAttention({ ...p, tile: 2, sinks: [-Infinity, -Infinity, -Infinity, -Infinity] });
    none.heads.forEach((head, h) => assert.deepEqual(head.z, plain.heads[h].z));
    const sinks = [0, 1, -1, 2.5];  // head 0: "softmax + 1"
    const want = forward64(p, sinks);
    const got = engine.flashAttention({ ...p, tile: 2, sinks });
    got.heads.forEach((head, h) => {
      assertNear(head.z, want[h].z, BOUND, `head ${h} z`);
      assertNear(head.sinkWeight, want[h].sinkWeight, BOUND, `head ${h} sink weight`);
      for (let i = 0; i < p.n; i++) {
        const row = head.weights.slice(i * p.n, (i + 1) * p.n).reduce((a, b) => a + b, 0);
        assert.ok(row < 1, `head ${h} row ${i} sums to ${row}`);
        assert.ok(Math.abs(row + head.sinkWeight[i] - 1) < 1e-5);
      }
    });
  });

  it('refuses bad input naming the field, then works', () => {
    const p = problem(13);
    assert.throws(() => engine.flashAttention({ ...p, tile: 0 }), (e) => e instanceof RangeError && e.field === 'tile');
    assert.throws(() => engine.flashAttention({ ...p, tile: '2' }), (e) => e instanceof TypeError && e.field === 'tile');
    assert.throws(() => engine.flashAttention({ ...p }), (e) => e instanceof TypeError && e.field === 'tile');
    assert.throws(() => engine.flashAttention({ ...p, tile: 2, sinks: [0, 0] }), (e) => e instanceof RangeError && e.field === 'sinks');
    assert.throws(() => engine.flashAttention({ ...p, tile: 2, sinks: [0, NaN, 0, 0] }), (e) => e.field === 'sinks' && /sinks\[1\]/.test(e.message));
    assert.throws(() => engine.flashAttention({ ...p, tile: 2, sinks: 'none' }), (e) => e instanceof TypeError && e.field === 'sinks');
    assert.throws(() => engine.flashAttention({ ...p, tile: 2, trace: false }), (e) => e instanceof TypeError && e.field === 'trace');
    assert.throws(() => engine.flashAttention({ ...p, tile: 2, kvHeads: 3 }), (e) => e.field === 'kvHeads');
    assert.equal(engine.flashAttention({ ...p, tile: 2 }).heads.length, 4);
  });
});

forEachBuild((build) => `kvCache() on the ${build} learning build`, { learning: true }, ({ engine }) => {
  const weightsOf = ({ x: _x, n: _n, ...rest }) => rest;

  it('every decoded row equals the full causal pass\'s row (GQA, RoPE from position 1000), and the float64 one', () => {
    const p = { ...problem(21, 9), rotary: { dims: 4, firstPosition: 1000 } };
    const full = engine.attention(p);
    const want = forward64(p);
    const cache = engine.kvCache({ ...weightsOf(p), capacity: p.n });
    try {
      const first = cache.prefill(p.x.slice(0, 3 * p.dModel));
      assertNear(first.output, full.output.slice(0, 3 * 12), 1e-6, 'prefill output');
      for (let i = 3; i < p.n; i++) {
        const step = cache.step(p.x.slice(i * p.dModel, (i + 1) * p.dModel));
        assert.equal(step.position, 1000 + i);
        assert.equal(step.length, i + 1);
        // the one-row products add in another order than the n-row ones on the fast arithmetic: float32 rounding
        assertNear(step.output, full.output.slice(i * 12, (i + 1) * 12), 1e-6, `token ${i} output`);
        for (let h = 0; h < p.heads; h++) {
          assertNear(step.z.slice(h * p.dV, (h + 1) * p.dV), want[h].z.slice(i * p.dV, (i + 1) * p.dV), BOUND, `token ${i} head ${h} z`);
          assertNear(step.weights.slice(h * (i + 1), (h + 1) * (i + 1)), want[h].weights.slice(i * p.n, i * p.n + i + 1), BOUND, `token ${i} head ${h} weights`);
        }
      }
      assert.equal(cache.length, p.n);
    } finally {
      cache.dispose();
    }
  });

  it('counts the cache and the multiply-adds by hand, and a window keeps only the last w keys', () => {
    const p = problem(22, 6);
    const cache = engine.kvCache({ ...weightsOf(p), capacity: 6, window: 4 });
    cache.prefill(p.x.slice(0, 5 * p.dModel));
    const step = cache.step(p.x.slice(5 * p.dModel));
    // projections 8·(4·4 q + 2·4 k + 2·3 v) = 240; 4 heads · 4 visible keys · (4 + 3) = 112
    assert.equal(step.multiplyAdds, 240 + 112);
    assert.equal(step.firstKey, 2);
    assert.equal(step.weights.length, 4 * 4);
    // 6 tokens · 2 kv heads · (dK + dV): K and V both counted
    assert.equal(step.cacheValues, 6 * 2 * (4 + 3));
    assert.equal(step.cacheBytes, 6 * 2 * (4 + 3) * 4);
    // without a cache, all 6 rows again: 6 · 240 + 4 · (1 + 2 + 3 + 4 + 4 + 4) · 7
    assert.equal(step.fullMultiplyAdds, 6 * 240 + 4 * 18 * 7);
    assert.throws(() => cache.step(p.x.slice(0, 8)), (e) => e instanceof RangeError && e.field === 'capacity');
    cache.dispose();
    assert.throws(() => cache.step(p.x.slice(0, 8)), (e) => e.field === 'cache');
  });

  it('refuses bad input naming the field; a refused step leaves the cache usable', () => {
    const p = problem(23, 4);
    assert.throws(() => engine.kvCache(weightsOf(p)), (e) => e instanceof TypeError && e.field === 'capacity');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, mask: 'none' }), (e) => e instanceof RangeError && e.field === 'mask');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, x: p.x }), (e) => e instanceof TypeError && e.field === 'x');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, kvHeads: 3 }), (e) => e.field === 'kvHeads');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, wk: [1, 2] }), (e) => e.field === 'wk');
    const cache = engine.kvCache({ ...weightsOf(p), capacity: 4 });
    assert.throws(() => cache.prefill(p.x.slice(0, 7)), (e) => e instanceof RangeError && e.field === 'x');
    assert.throws(() => cache.step([1, 2, 3]), (e) => e instanceof RangeError && e.field === 'x');
    assert.throws(() => cache.step(new Float32Array(8).fill(Infinity)), (e) => e.field === 'x');
    assert.throws(() => cache.step('abc'), (e) => e instanceof TypeError && e.field === 'x');
    assert.equal(cache.length, 0);
    assert.equal(cache.step(p.x.slice(0, 8)).length, 1);
    cache.dispose();
  });
});

// Row i of every head in float64 reading only the keys `keys` (indices), RoPE from position 0: z per head.
function keptRow64(p, i, keys) {
  const { n, dModel: d, heads, kvHeads, dK, dV } = p;
  return Array.from({ length: heads }, (_, h) => {
    const g = Math.floor((h * kvHeads) / heads);
    const q = rotate(project(p.x, n, d, p.wq, h, dK), n, dK, p.rotary.dims, 0);
    const k = rotate(project(p.x, n, d, p.wk, g, dK), n, dK, p.rotary.dims, 0);
    const v = project(p.x, n, d, p.wv, g, dV);
    const s = keys.map((j) => {
      let dot = 0;
      for (let c = 0; c < dK; c++) dot += q[i * dK + c] * k[j * dK + c];
      return dot / Math.sqrt(dK);
    });
    const top = Math.max(...s), e = s.map((value) => Math.exp(value - top)), total = e.reduce((a, b) => a + b, 0);
    return Array.from({ length: dV }, (_, c) => keys.reduce((sum, j, r) => sum + (e[r] / total) * v[j * dV + c], 0));
  });
}

forEachBuild((build) => `kvCache({ evict }) (StreamingLLM) on the ${build} learning build`, { learning: true }, ({ engine }) => {
  const weightsOf = ({ x: _x, n: _n, ...rest }) => rest;

  it('keeps the first sinks and the most recent tokens, and each row reads exactly them (float64)', () => {
    const p = problem(24, 10);
    for (const [sinks, budget] of [[1, 4], [2, 5], [0, 3]]) {
      const cache = engine.kvCache({ ...weightsOf(p), capacity: p.n, evict: { sinks, budget } });
      try {
        cache.prefill(p.x.slice(0, p.dModel));
        for (let i = 1; i < p.n; i++) {
          const step = cache.step(p.x.slice(i * p.dModel, (i + 1) * p.dModel));
          const keys = Array.from({ length: i + 1 }, (_, j) => j).filter((j) => i + 1 <= budget || j < sinks || j > i - (budget - sinks));
          assert.deepEqual(step.keyPositions, keys, `sinks ${sinks}, budget ${budget}, token ${i}`);
          assert.equal(step.length, Math.min(i + 1, budget));
          keptRow64(p, i, keys).forEach((z, h) => assertNear(step.z.slice(h * p.dV, (h + 1) * p.dV), z, BOUND, `token ${i} head ${h} z`));
        }
      } finally {
        cache.dispose();
      }
    }
  });

  it('refuses a bad eviction naming the field', () => {
    const p = problem(25, 4);
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, evict: { sinks: 1, budget: 5 } }), (e) => e instanceof RangeError && e.field === 'budget');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, evict: { sinks: 3, budget: 3 } }), (e) => e instanceof RangeError && e.field === 'sinks');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, evict: { sinks: -1, budget: 3 } }), (e) => e.field === 'sinks');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, evict: 'all' }), (e) => e instanceof TypeError && e.field === 'evict');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, evict: { budget: 3, keep: 1 } }), (e) => e.field === 'keep');
    assert.throws(() => engine.kvCache({ ...weightsOf(p), capacity: 4, window: 2, evict: { budget: 3 } }), (e) => e.field === 'window');
    const cache = engine.kvCache({ ...weightsOf(p), capacity: 4, evict: { budget: 3 } });
    assert.equal(cache.step(p.x.slice(0, 8)).length, 1);
    cache.dispose();
  });
});

forEachBuild((build) => `RoPE on the ${build} learning build`, { learning: true }, ({ engine }) => {
  it('shifting every position by s leaves every score unchanged to rounding; reordering tokens does not', () => {
    const p = problem(31, 6);
    const base = engine.attention({ ...p, mask: 'none' });
    for (const shift of [1, 17, 5000]) {
      const moved = engine.attention({ ...p, mask: 'none', rotary: { dims: 4, firstPosition: shift } });
      moved.heads.forEach((head, h) => assertNear(head.scores, base.heads[h].scores, 1e-5, `shift ${shift} head ${h}`));
    }
    const swapped = Float32Array.from(p.x);
    swapped.set(p.x.slice(0, 8), 5 * 8);
    swapped.set(p.x.slice(5 * 8, 6 * 8), 0);
    const after = engine.attention({ ...p, x: swapped, mask: 'none' });
    assert.ok(Math.abs(after.heads[0].scores[5 * 6 + 0] - base.heads[0].scores[0 * 6 + 5]) > 1e-3);
  });
});

describe('the page\'s engine', () => {
  it('says flashAttention() and kvCache() need the learning engine', async () => {
    const engine = await loadAttention({ simd: false });
    assert.throws(() => engine.flashAttention({}), /learning engine/);
    assert.throws(() => engine.kvCache({}), /learning engine/);
  });
});
