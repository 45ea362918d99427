// The WebAssembly engine through its JavaScript API, both builds, in Node.
// Run after `npm run build` (dist/lib) and the native build (build/native/dump_init_weights).
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { loadAttention } from '../../../dist/lib/attention.node.mjs';
import { forEachBuild } from './builds.mjs';
import { referenceAttention, randomSource, assertClose } from '../reference.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const catSat = { x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], n: 3, dModel: 4 };  // 002, W = I

forEachBuild((build) => `${build} build`, {}, (build) => {
  notesAndReferenceTests(build);
  resultsAndErrorsTests(build);
  memoryAndWeightsTests(build);
});

// the notes' examples and random problems against the float64 reference
function notesAndReferenceTests({ engine, simd }) {
  it('reports which build it is', () => {
    assert.equal(engine.info.simd, simd);
    assert.match(engine.info.version, /^\d+\.\d+\.\d+$/);
  });

  it("002 'The cat sat': weights [0.4223, 0.1554, 0.4223] and the notes' outputs", () => {
    const r = engine.attention(catSat);
    assertClose('weights row The', r.heads[0].weights.subarray(0, 3), [0.4223, 0.1554, 0.4223], { atol: 5e-5, rtol: 0 });
    assertClose('output', r.output, [0.8446, 0.5777, 0.8446, 0.5777, 0.5777, 0.8446, 0.5777, 0.8446, 0.7881, 0.7881, 0.7881, 0.7881],
      { atol: 5e-5, rtol: 0 });
    assert.equal(r.dOut, 4);
  });

  it("003: the scores of 'it' are 0.17, 0.77, 0.20, 0.29, 0.62, 0.92, 0.14, 1.22", () => {
    const keys = [0.2, 0.1, 0.0, 0.6, 0.5, 0.4, 0.1, 0.2, 0.1, 0.2, 0.1, 0.3, 0.5, 0.4, 0.3, 0.7, 0.6, 0.5, 0.1, 0.0, 0.2, 0.9, 0.8, 0.7];
    const r = engine.attention({ x: [0.6, 0.5, 0.4], n: 1, dModel: 3, context: keys, scale: 'none' });
    assert.equal(r.shape.m, 8);
    assertClose('scores', r.heads[0].scores, [0.17, 0.77, 0.20, 0.29, 0.62, 0.92, 0.14, 1.22], { atol: 1e-6, rtol: 0 });
  });

  it('random problems match the float64 reference: self and cross, every mask and scale, odd dK and dV, with and without W_O', () => {
    const random = randomSource(simd ? 11 : 12);
    let cases = 0;
    for (const scale of ['sqrt_dk', 'none', 0.75]) {
      for (const maskKind of ['none', 'causal', 'keep']) {
        for (const cross of [false, true]) {
          for (const withWo of [false, true]) {
            const n = random.int(1, 40), dModel = random.int(1, 96), heads = random.int(1, 6);
            const dK = random.int(0, 16) * 2 + 1, dV = random.int(0, 16) * 2 + 1;
            const m = cross ? random.int(1, 40) : n;
            const spread = 1.7 / Math.sqrt(dModel);
            const problem = {
              x: random.matrix(n * dModel), n, dModel, heads, dK, dV, scale,
              wq: random.matrix(heads * dModel * dK, spread), wk: random.matrix(heads * dModel * dK, spread),
              wv: random.matrix(heads * dModel * dV, spread),
            };
            if (cross) Object.assign(problem, { context: random.matrix(m * dModel), m });
            if (withWo) problem.wo = random.matrix(heads * dV * dModel, 1 / Math.sqrt(heads * dV));
            if (maskKind === 'keep') {
              problem.mask = { keep: Uint8Array.from({ length: n * m }, (_, i) => (i < m ? 0 : random.next() < 0.75 ? 1 : 0)) };
            } else {
              problem.mask = maskKind;
            }
            const label = JSON.stringify({ n, m, dModel, heads, dK, dV, scale, maskKind, cross, withWo });
            const got = engine.attention(problem);
            const want = referenceAttention({ ...problem, mask: problem.mask.keep ?? problem.mask });
            for (let h = 0; h < heads; h++) {
              for (const key of ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'z']) {
                assertClose(`${label} head ${h} ${key}`, got.heads[h][key], want.heads[h][key]);
              }
            }
            assertClose(`${label} concat`, got.concat, want.concat);
            assertClose(`${label} output`, got.output, want.output);
            const fast = engine.attention({ ...problem, trace: false });
            assert.deepEqual(fast.output, got.output, `${label}: the trace-free path differs`);
            assert.equal(fast.heads, undefined);
            cases++;
          }
        }
      }
    }
    assert.equal(cases, 36);
  });
}

// what a call returns and what it refuses
function resultsAndErrorsTests({ engine }) {
  it('results are Float32Array copies that JavaScript owns, never views of WebAssembly memory', () => {
    const r = engine.attention(catSat);
    assert.ok(r.output instanceof Float32Array);
    assert.equal(r.output.buffer.byteLength, r.output.byteLength);
    assert.equal(r.heads[0].weights.buffer.byteLength, r.heads[0].weights.byteLength);
    const before = Array.from(r.output);
    engine.attention({ ...catSat, x: catSat.x.map((v) => v * 3) });
    assert.deepEqual(Array.from(r.output), before);
  });

  describe('bad input throws an Error naming the field, and the engine stays usable', () => {
    const cases = [
      ['x missing', { n: 1, dModel: 1 }, TypeError, 'x', /x is required/],
      ['x of strings', { x: ['1', 2], n: 1, dModel: 2 }, TypeError, 'x', /x\[0\] is not a number \(got the string "1"\)/],
      ['x as a string', { x: '<img src=x onerror=alert(1)>', n: 1, dModel: 1 }, TypeError, 'x', /x must be a Float32Array/],
      ['x holding NaN', { x: [1, NaN, 0, 0], n: 1, dModel: 4 }, RangeError, 'x', /x\[1\] \(row 1, column 2, counting from 1\) is NaN/],
      ['x of the wrong length', { x: [1, 2, 3], n: 2, dModel: 2 }, RangeError, 'x', /x has 3 values; expected n × dModel = 2 × 2 = 4/],
      ['n a fraction', { ...catSat, n: 2.5 }, TypeError, 'n', /n must be a whole number, got number 2.5/],
      ['n zero', { ...catSat, n: 0 }, RangeError, 'n', /n must be at least 1, got 0/],
      ['n huge', { ...catSat, n: 1e12 }, RangeError, 'n', /n \(1000000000000\)/],
      ['n above the cap', { ...catSat, n: 5000 }, RangeError, 'n', /cap of 4096/],
      ['dModel not divisible', { x: new Float32Array(10), n: 1, dModel: 10, heads: 3, wq: [], wk: [], wv: [] }, RangeError, 'dModel',
        /dModel \(10\) is not divisible by heads \(3\)/],
      ['identity with two heads', { ...catSat, heads: 2 }, RangeError, 'wq', /wq is omitted, which means the identity/],
      ['wq of the wrong size', { ...catSat, wq: [1, 2, 3] }, RangeError, 'wq', /wq has 3 values; expected heads × dModel × dK = 1 × 4 × 4 = 16/],
      ['wo of the wrong size', { ...catSat, wo: [1] }, RangeError, 'wo', /wo has 1 values/],
      ['scale a word', { ...catSat, scale: 'sqrt' }, TypeError, 'scale', /scale must be 'sqrt_dk', 'none' or a number/],
      ['scale negative', { ...catSat, scale: -2 }, RangeError, 'scale', /got -2/],
      ['mask a word', { ...catSat, mask: 'upper' }, TypeError, 'mask', /mask must be 'none', 'causal'/],
      ['mask of the wrong size', { ...catSat, mask: { keep: new Uint8Array(4) } }, RangeError, 'mask', /mask has 4 values; expected n × m = 3 × 3 = 9/],
      ['mask with a 2', { ...catSat, mask: { keep: [1, 1, 1, 1, 2, 1, 1, 1, 1] } }, TypeError, 'mask', /mask\.keep\[4\] must be 1 \(keep\) or 0/],
      ['mask unnamed', { ...catSat, mask: new Uint8Array(9).fill(1) }, TypeError, 'mask', /without its convention: give \{ keep: \[\.\.\.\] \}/],
      ['context not a multiple of dModel', { ...catSat, context: [1, 2, 3] }, RangeError, 'context', /not a multiple of dModel \(4\)/],
      ['trace a string', { ...catSat, trace: 'yes' }, TypeError, 'trace', /trace must be true or false/],
      ['a misspelt option', { ...catSat, hedas: 2 }, TypeError, 'hedas', /unknown option 'hedas'/],
      ['values too large for float32', { x: [1e30], n: 1, dModel: 1 }, RangeError, 'x', /overflow float32/],
      ['the trace too large', { x: new Float32Array(4096), n: 4096, dModel: 1, heads: 2, dK: 1, wq: [1, 1], wk: [1, 1], wv: [1, 1] },
        RangeError, 'trace', /turn the trace off/],
    ];
    for (const [what, options, Kind, field, pattern] of cases) {
      it(what, () => {
        assert.throws(() => engine.attention(options), (error) => {
          assert.ok(error instanceof Kind, `${error.constructor.name}: ${error.message}`);
          assert.equal(error.field, field);
          assert.match(error.message, pattern);
          return true;
        });
        const r = engine.attention(catSat);
        assert.ok(Math.abs(r.output[0] - 0.8446) < 5e-5, 'the engine still answers after the error');
      });
    }
    it('non-object options', () => {
      assert.throws(() => engine.attention(null), TypeError);
      assert.throws(() => engine.attention([1, 2]), TypeError);
      assert.throws(() => engine.initWeights({ dModel: 4, seed: -1 }), (e) => e instanceof RangeError && e.field === 'seed');
      assert.throws(() => engine.initWeights({ dModel: 4, seed: 1.5 }), (e) => e.field === 'seed');
    });
  });
}

// the heap over many calls; initWeights against the native core
function memoryAndWeightsTests({ engine }) {
  it('10,000 calls leave the heap at its steady size', () => {
    const problem = { ...catSat, heads: 2, dK: 3, dV: 2, wq: new Float32Array(24).fill(0.1), wk: new Float32Array(24).fill(0.2),
      wv: new Float32Array(16).fill(0.3), wo: new Float32Array(16).fill(0.5) };
    for (let i = 0; i < 10; i++) engine.attention(problem);
    const before = engine.memory();
    for (let i = 0; i < 10000; i++) {
      engine.attention(i % 2 ? problem : { ...problem, trace: false });
      if (i % 1000 === 0) assert.throws(() => engine.attention({ ...problem, n: 7 }), RangeError);
    }
    const after = engine.memory();
    assert.equal(after.allocatedBytes, before.allocatedBytes);
    assert.equal(after.heapBytes, before.heapBytes);
  });

  it('initWeights gives the native core\'s bits for the same seed', () => {
    const tool = path.join(root, 'build/native/dump_init_weights');
    assert.ok(existsSync(tool), `${tool} is missing: build the native tests first (npm test does)`);
    for (const [dModel, heads, dK, dV, seed] of [[4, 1, 0, 0, 0], [12, 3, 5, 7, 42], [64, 8, 0, 0, 2 ** 40 + 3]]) {
      const native = JSON.parse(execFileSync(tool, [dModel, heads, dK, dV, seed].map(String), { encoding: 'utf8' }));
      const options = { dModel, heads, seed };
      if (dK) options.dK = dK;
      if (dV) options.dV = dV;
      const wasm = engine.initWeights(options);
      for (const key of ['wq', 'wk', 'wv', 'wo']) {
        assert.deepEqual(Array.from(wasm[key]), native[key].map(Math.fround), `${key} for seed ${seed}`);
      }
    }
  });
}

it('the SIMD and scalar builds agree', async () => {
  const [simd, scalar] = await Promise.all([loadAttention({ simd: true }), loadAttention({ simd: false })]);
  const random = randomSource(5);
  const problem = { x: random.matrix(33 * 24), n: 33, dModel: 24, heads: 3, wq: random.matrix(3 * 24 * 8, 0.3),
    wk: random.matrix(3 * 24 * 8, 0.3), wv: random.matrix(3 * 24 * 8, 0.3), wo: random.matrix(24 * 24, 0.2), mask: 'causal' };
  const a = simd.attention(problem), b = scalar.attention(problem);
  assertClose('output', a.output, b.output, { atol: 1e-5, rtol: 1e-5 });
  for (let h = 0; h < 3; h++) assertClose(`weights ${h}`, a.heads[h].weights, b.heads[h].weights, { atol: 1e-6, rtol: 0 });
});

it("loadAttention({ simd: 'auto' }) picks SIMD where the runtime has it (Node 20 does)", async () => {
  const engine = await loadAttention();
  assert.equal(engine.info.simd, true);
  await assert.rejects(loadAttention({ simd: 'yes' }), TypeError);
});

describe('the forward-only engine and the learning engine (loadAttention({ learning }))', () => {
  let plain, learner;
  before(async () => {
    [plain, learner] = await Promise.all([loadAttention({ simd: true }), loadAttention({ simd: true, learning: true })]);
  });

  it('say which they are', () => {
    assert.equal(plain.info.learning, false);
    assert.equal(learner.info.learning, true);
    assert.equal(learner.info.simd, true);
  });

  it('give the same bits for the forward pass, biases and positions included', () => {
    const random = randomSource(31);
    const problem = { x: random.matrix(5 * 6), n: 5, dModel: 6, heads: 2, wq: random.matrix(36, 0.4), wk: random.matrix(36, 0.4),
      wv: random.matrix(36, 0.4), wo: random.matrix(36, 0.4), bq: random.matrix(6), bk: random.matrix(6), bv: random.matrix(6),
      bo: random.matrix(6), positions: 'sinusoidal', mask: 'causal' };
    const a = plain.attention(problem), b = learner.attention(problem);
    assert.deepEqual(Array.from(a.output), Array.from(b.output));
    assert.deepEqual(Array.from(a.heads[1].weights), Array.from(b.heads[1].weights));
    // and the notes' 002 example on the plain engine
    assertClose('output', plain.attention(catSat).output.subarray(0, 2), [0.8446, 0.5777], { atol: 5e-5, rtol: 0 });
  });

  it('gradients() and createTrainer() on the plain engine say to load with { learning: true }', () => {
    for (const call of [() => plain.gradients({ ...catSat, dOutput: new Float32Array(12) }),
      () => plain.createTrainer({ model: { dModel: 4 }, loss: { kind: 'regress' } })]) {
      assert.throws(call, (error) => error instanceof Error && /learning: true/.test(error.message) && /gradients\(\)|createTrainer\(\)/.test(error.message));
    }
    // the plain engine keeps working after the refusal
    assert.equal(plain.attention(catSat).dOut, 4);
    // while the learning engine takes them (their values are checked in gradients.test.mjs)
    const g = learner.gradients({ ...catSat, dOutput: new Float32Array(12).fill(1) });
    assert.equal(g.x.length, 12);
  });

  it('refuses a learning option that is not true or false', async () => {
    await assert.rejects(loadAttention({ learning: 'yes' }),
      (error) => error instanceof TypeError && error.field === 'learning' && /learning must be true or false/.test(error.message));
  });
});
