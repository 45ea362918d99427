// engine.prepare(): weights resident in WebAssembly memory, run() on x alone. Both builds, in Node.
import { it } from 'node:test';
import assert from 'node:assert/strict';

import { forEachBuild } from './builds.mjs';
import { referenceAttention, randomSource, assertClose } from '../reference.mjs';

forEachBuild((build) => `prepared model, ${build} build`, {}, (build) => {
  sameNumbersTests(build);
  outputsAndErrorsTests(build);
});

// the prepared model's numbers against attention() and the float64 reference
function sameNumbersTests({ engine, simd }) {
  it('gives attention() bit for bit, at several n, masks and scales, with and without W_O', () => {
    const random = randomSource(simd ? 21 : 22);
    for (const [dModel, heads, dK, dV] of [[8, 2, 4, 4], [24, 3, 5, 7], [64, 2, 32, 32]]) {
      for (const mask of ['none', 'causal']) {
        for (const scale of ['sqrt_dk', 'none', 0.75]) {
          for (const withWo of [false, true]) {
            const weights = { wq: random.matrix(heads * dModel * dK, 0.4), wk: random.matrix(heads * dModel * dK, 0.4),
              wv: random.matrix(heads * dModel * dV, 0.4), wo: withWo ? random.matrix(heads * dV * dModel, 0.3) : undefined };
            const model = engine.prepare({ dModel, heads, dK, dV, ...weights, mask, scale });
            for (const n of [1, 3, 9, 17]) {
              const x = random.matrix(n * dModel);
              const want = engine.attention({ x, n, dModel, heads, dK, dV, ...weights, mask, scale, trace: false });
              const got = model.run({ x, n });
              assert.equal(got.dOut, want.dOut);
              assert.equal(got.output.length, want.output.length);
              for (let i = 0; i < want.output.length; i++) {
                assert.ok(Object.is(got.output[i], want.output[i]), `dModel=${dModel} mask=${mask} scale=${scale} wo=${withWo} n=${n}: output[${i}] ${got.output[i]} vs ${want.output[i]}`);
              }
            }
            model.dispose();
          }
        }
      }
    }
  });

  it('matches the float64 reference', () => {
    const random = randomSource(simd ? 23 : 24);
    const [n, dModel, heads, dK] = [6, 12, 3, 4];
    const weights = { wq: random.matrix(heads * dModel * dK, 0.5), wk: random.matrix(heads * dModel * dK, 0.5),
      wv: random.matrix(heads * dModel * dK, 0.5), wo: random.matrix(heads * dK * dModel, 0.5) };
    const x = random.matrix(n * dModel);
    const want = referenceAttention({ x, n, dModel, heads, ...weights, mask: 'causal' });
    const model = engine.prepare({ dModel, heads, ...weights, mask: 'causal' });
    assertClose('output', model.run({ x, n }).output, want.output, { atol: 1e-5, rtol: 1e-5 });
    model.dispose();
  });
}

// given outputs, bad options and dispose()
function outputsAndErrorsTests({ engine, simd }) {
  it('writes into a given output: the same bits, the same array; a wrong output is refused by name', () => {
    const random = randomSource(simd ? 25 : 26);
    const [dModel, heads, n] = [16, 2, 5];
    const weights = { wq: random.matrix(dModel * dModel, 0.4), wk: random.matrix(dModel * dModel, 0.4), wv: random.matrix(dModel * dModel, 0.4), wo: random.matrix(dModel * dModel, 0.3) };
    const model = engine.prepare({ dModel, heads, ...weights });
    const x = random.matrix(n * dModel);
    const want = model.run({ x, n }).output;
    const output = new Float32Array(n * dModel).fill(Number.NaN);
    for (let call = 0; call < 3; call++) {
      const got = model.run({ x, n, output });
      assert.equal(got.output, output, 'the given array comes back');
      assert.equal(got.dOut, dModel);
      for (let i = 0; i < want.length; i++) assert.ok(Object.is(output[i], want[i]), `output[${i}]`);
    }
    // a second x into the same array: the new result, not the old
    const x2 = random.matrix(n * dModel);
    const want2 = model.run({ x: x2, n }).output;
    model.run({ x: x2, n, output });
    assert.deepEqual(Array.from(output), Array.from(want2));
    const refused = (value, Kind, pattern) => assert.throws(() => model.run({ x, n, output: value }), (e) => e instanceof Kind && e.field === 'output' && pattern.test(e.message));
    refused(new Float64Array(n * dModel), TypeError, /output must be a Float32Array of n × dOut values, got/);
    refused(Array.from(want), TypeError, /must be a Float32Array/);
    refused(null, TypeError, /must be a Float32Array/);
    refused(new Float32Array(n * dModel - 1), RangeError, new RegExp(`output has ${n * dModel - 1} values; expected n × dOut = ${n} × ${dModel}`));
    const detached = new Float32Array(n * dModel);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    refused(detached, TypeError, /detached/);
    // look-alikes: a Proxy of a Float32Array, an object claiming its prototype, a subclass whose buffer getter throws
    refused(new Proxy(new Float32Array(n * dModel), {}), TypeError, /must be a Float32Array/);
    refused(Object.create(Float32Array.prototype), TypeError, /must be a Float32Array/);
    class Hostile extends Float32Array { get buffer() { throw new Error('no'); } set() { throw new Error('no'); } }
    const hostile = new Hostile(n * dModel);
    assert.deepEqual(Array.from(model.run({ x, n, output: hostile }).output), Array.from(want), 'its own getter and set() are not used');
    // still usable, and the output untouched by the refused calls
    assert.deepEqual(Array.from(model.run({ x, n, output }).output), Array.from(want));
    model.dispose();
  });

  it('names the field of every bad option, at prepare() and at run()', () => {
    const w = new Float32Array(4 * 4);
    const expectError = (fn, Kind, field, pattern) => assert.throws(fn, (e) => e instanceof Kind && e.field === field && pattern.test(e.message));
    expectError(() => engine.prepare({ heads: 1 }), TypeError, 'dModel', /dModel is required/);
    expectError(() => engine.prepare({ dModel: 4, wq: w, wk: w, wv: new Float32Array(15) }), RangeError, 'wv', /wv has 15 values; expected/);
    expectError(() => engine.prepare({ dModel: 4, wq: w, wk: w, wv: w, wo: [1, 2, 'a'] }), TypeError, 'wo', /wo\[2\] is not a number/);
    expectError(() => engine.prepare({ dModel: 4, wq: Float32Array.from(w).fill(NaN), wk: w, wv: w }), RangeError, 'wq', /finite/);
    expectError(() => engine.prepare({ dModel: 4, mask: { keep: new Uint8Array(4) } }), TypeError, 'mask', /'none' or 'causal'/);
    expectError(() => engine.prepare({ dModel: 4, context: w }), TypeError, 'context', /unknown option 'context'/);
    expectError(() => engine.prepare({ dModel: 4, scale: -1 }), RangeError, 'scale', /got -1/);
    const model = engine.prepare({ dModel: 4, wq: w, wk: w, wv: w });
    expectError(() => model.run({ x: new Float32Array(7), n: 2 }), RangeError, 'x', /x has 7 values; expected n × dModel = 2 × 4 = 8/);
    expectError(() => model.run({ x: new Float32Array(4) }), TypeError, 'n', /n is required/);
    expectError(() => model.run({ x: new Float32Array(4 * 5000), n: 5000 }), RangeError, 'n', /cap of 4096/);
    expectError(() => model.run({ x: [0, 0, Infinity, 0], n: 1 }), RangeError, 'x', /finite/);
    expectError(() => model.run({ x: new Float32Array(4), n: 1, trace: true }), TypeError, 'trace', /unknown option 'trace'/);
    assert.equal(model.run({ x: [1, 2, 3, 4], n: 1 }).output.length, 4, 'still usable after errors');
    model.dispose();
  });

  it('dispose() gives the memory back, and run() after it says so', () => {
    const random = randomSource(25);
    const [dModel, heads] = [64, 4];
    const weights = { wq: random.matrix(dModel * dModel), wk: random.matrix(dModel * dModel), wv: random.matrix(dModel * dModel), wo: random.matrix(dModel * dModel) };
    const x = random.matrix(16 * dModel);
    // one round first, so that buffers the engine keeps between calls (packed panels) exist
    const warm = engine.prepare({ dModel, heads, ...weights });
    warm.run({ x, n: 16 });
    warm.dispose();
    const before = engine.memory().allocatedBytes;
    const model = engine.prepare({ dModel, heads, ...weights });
    model.run({ x, n: 16 });
    assert.ok(engine.memory().allocatedBytes >= before + 4 * 4 * dModel * dModel, 'the weights live in WebAssembly memory');
    model.dispose();
    assert.equal(engine.memory().allocatedBytes, before);
    model.dispose();  // twice is harmless
    assert.throws(() => model.run({ x, n: 16 }), /disposed; call engine.prepare\(\) again/);
  });
}
