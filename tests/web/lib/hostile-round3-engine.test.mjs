// Issue 28, the engine and its APIs: whole numbers past 32 bits, typed arrays whose length lies,
// WebAssembly traps, masks that name their convention, b_k left out of training, name tables.
// Expected values come from the notes' "The cat sat" example (002: W = I) and a float64 softmax
// written here, not from the engine.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { loadAttention, loadAttentionFrom } from '../../../dist/lib/attention.mjs';
import createSimd from '../../../dist/lib/attention-learn-simd.mjs';

const catSat = { x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], n: 3, dModel: 4 };  // 002, W = I

function fails(call, Kind, field, pattern) {
  assert.throws(call, (error) => {
    assert.ok(error instanceof Kind, `${error.name}: ${error.message}`);
    assert.equal(error.field, field, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

// softmax(x xᵀ / √4) in float64, with keep flags (1: the query may look at that key)
function catSatWeights(keep = [1, 1, 1, 1, 1, 1, 1, 1, 1]) {
  const rows = [catSat.x.slice(0, 4), catSat.x.slice(4, 8), catSat.x.slice(8, 12)];
  const out = [];
  for (let i = 0; i < 3; i++) {
    const scores = rows.map((k, j) => (keep[i * 3 + j] ? k.reduce((s, v, c) => s + v * rows[i][c], 0) / 2 : -Infinity));
    const top = Math.max(...scores);
    const e = scores.map((s) => (s === -Infinity ? 0 : Math.exp(s - top)));
    const sum = e.reduce((a, b) => a + b, 0);
    out.push(...e.map((v) => (sum ? v / sum : 0)));
  }
  return out;
}

const close = (actual, expected, label) => {
  Array.from(expected).forEach((e, i) => assert.ok(Math.abs(actual[i] - e) <= 1e-6, `${label}[${i}]: ${actual[i]} vs ${e}`));
};

describe('issue 28: whole numbers are checked as JavaScript numbers before they cross into WebAssembly', () => {
  let engine;
  let trainer;
  before(async () => {
    engine = await loadAttention({ learning: true });
    trainer = engine.createTrainer({ model: { dModel: 4 }, loss: { kind: 'regress' }, seed: 1 });
    trainer.setData([{ x: catSat.x, target: catSat.x }]);
  });

  it('trainer.step takes 1 to 1,000,000 steps and quotes any other count as given', () => {
    for (const steps of [2 ** 32 + 1, 2 ** 31, 2 ** 53 - 1, 2 ** 64, 1_000_001, 0, -1, -(2 ** 32) + 3]) {
      const digits = BigInt(steps).toString();
      fails(() => trainer.step(steps), RangeError, 'steps', new RegExp(`from 1 to 1000000, got ${digits}$`));
    }
    fails(() => trainer.step(1.5), TypeError, 'steps', /whole number/);
    assert.equal(trainer.steps, 0, 'no refused call took a step');
    assert.equal(trainer.step(3).losses.length, 3);
  });

  it('every whole-number option of the trainer is range-checked (batchSize, vocabulary, classes, heads, examples)', () => {
    const base = { model: { dModel: 4 }, loss: { kind: 'regress' } };
    const cases = [
      [{ ...base, optimizer: { batchSize: 2 ** 32 + 1 } }, 'optimizer.batchSize', '4294967297'],
      [{ ...base, optimizer: { batchSize: -1 } }, 'optimizer.batchSize', '-1'],
      [{ ...base, optimizer: { batchSize: 2 ** 31 } }, 'optimizer.batchSize', '2147483648'],
      [{ ...base, model: { dModel: 4, vocabulary: 2 ** 32 + 5 } }, 'model.vocabulary', '4294967301'],
      [{ model: { dModel: 4 }, loss: { kind: 'classify', classes: 2 ** 32 + 2 } }, 'loss.classes', '4294967298'],
      [{ model: { dModel: 4 }, loss: { kind: 'attend', head: 2 ** 32 } }, 'loss.head', '4294967296'],
      [{ model: { dModel: 2 ** 32 + 4 }, loss: { kind: 'regress' } }, 'dModel', '4294967300'],
    ];
    for (const [options, field, digits] of cases) {
      assert.throws(() => engine.createTrainer(options), (error) => error.field === field && error.message.includes(digits), `${field} ${digits}`);
    }
    const attend = engine.createTrainer({ model: { dModel: 4 }, loss: { kind: 'attend' } });
    for (const [example, field, digits] of [
      [{ x: catSat.x, query: 2 ** 32, target: 0 }, 'examples[0].query', '4294967296'],
      [{ x: catSat.x, query: 0, target: 2 ** 32 + 1 }, 'examples[0].target', '4294967297'],
      [{ x: catSat.x, query: 0, target: 0, head: 2 ** 32 }, 'examples[0].head', '4294967296'],
    ]) {
      assert.throws(() => attend.setData([example]), (error) => error.field === field && error.message.includes(digits), field);
    }
    const words = engine.createTrainer({ model: { dModel: 4, vocabulary: 10 }, loss: { kind: 'attend' } });
    for (const id of [2 ** 32 + 1, 10, -1]) {
      fails(() => words.setData([{ tokens: [1, id], query: 0, target: 1 }]), RangeError, 'examples[0].tokens', new RegExp(`from 0 to 9, got ${id}$`));
    }
    for (const t of [attend, words]) t.dispose();
  });

  it('sizes and seeds of attention(), prepare(), run() and initWeights() past 32 bits are refused quoting the value', () => {
    fails(() => engine.attention({ ...catSat, n: 2 ** 32 + 3 }), RangeError, 'n', /4294967299/);
    fails(() => engine.attention({ ...catSat, heads: 2 ** 31 }), RangeError, 'heads', /2147483648/);
    fails(() => engine.prepare({ dModel: 2 ** 32 + 4 }), RangeError, 'dModel', /4294967300/);
    const model = engine.prepare({ dModel: 4 });
    fails(() => model.run({ x: catSat.x, n: 2 ** 32 + 3 }), RangeError, 'n', /4294967299/);
    for (const seed of [2 ** 53, -1, 2 ** 64]) fails(() => engine.initWeights({ dModel: 4, seed }), RangeError, 'seed');
    fails(() => engine.createTrainer({ model: { dModel: 4 }, seed: 2 ** 53 }), RangeError, 'seed', /9007199254740992/);
    assert.equal(model.run({ x: catSat.x, n: 3 }).output.length, 12);
  });
});

// A typed array whose `length` (or buffer, or byteLength) says something else than it holds.
function liar(Type, values, claimed) {
  class Liar extends Type {
    get length() { return claimed; }
    get byteLength() { return claimed * Type.BYTES_PER_ELEMENT; }
  }
  return Liar.from(values);
}

describe('issue 28: typed arrays are read by their true length, whatever `length` says', () => {
  let engine;
  before(async () => {
    engine = await loadAttention({ learning: true });
  });

  it('run() and prepare() refuse an array holding 4,096 values that claims 12, and nothing is written past a buffer', () => {
    const model = engine.prepare({ dModel: 4, ...engine.initWeights({ dModel: 4, seed: 3 }) });
    const other = engine.prepare({ dModel: 4, mask: 'causal' });
    const expected = other.run({ x: catSat.x, n: 3 }).output;
    model.run({ x: catSat.x, n: 3 });  // its buffers for n = 3, made once
    const before = engine.memory();
    const big = liar(Float32Array, Array.from({ length: 4096 }, (_, i) => i % 3), 12);
    fails(() => model.run({ x: big, n: 3 }), RangeError, 'x', /x has 4096 values; expected n × dModel = 3 × 4 = 12/);
    fails(() => engine.prepare({ dModel: 4, wq: big }), RangeError, 'wq', /4096/);
    assert.deepEqual(engine.memory(), before, 'the refused calls left memory as it was');
    // the other way round: it claims 4,096 and holds 12, which is what n = 3 needs
    const small = liar(Float32Array, catSat.x, 4096);
    assert.deepEqual(Array.from(model.run({ x: small, n: 3 }).output), Array.from(model.run({ x: catSat.x, n: 3 }).output));
    assert.deepEqual(Array.from(other.run({ x: catSat.x, n: 3 }).output), Array.from(expected));
  });

  it('attention(), masks, an own `length` property and other element types are read by their true length too', () => {
    const plain = engine.attention(catSat);
    close(plain.heads[0].weights, catSatWeights(), 'W = I');
    for (const Type of [Float32Array, Float64Array, Int8Array, Uint16Array]) {
      fails(() => engine.attention({ ...catSat, x: liar(Type, Array(4096).fill(1), 12) }), RangeError, 'x', /x has 4096 values/);
      const r = engine.attention({ ...catSat, x: liar(Type, catSat.x, 4096) });
      assert.deepEqual(Array.from(r.output), Array.from(plain.output), Type.name);
    }
    const own = Float32Array.from(catSat.x);
    Object.defineProperty(own, 'length', { value: 2 });
    assert.deepEqual(Array.from(engine.attention({ ...catSat, x: own }).output), Array.from(plain.output));
    const keep = [1, 1, 0, 1, 1, 1, 0, 0, 1];
    const r = engine.attention({ ...catSat, mask: { keep: liar(Uint8Array, keep, 3) } });
    close(r.heads[0].weights, catSatWeights(keep), 'a lying mask');
    fails(() => engine.attention({ ...catSat, mask: { keep: liar(Uint8Array, Array(4096).fill(1), 9) } }), RangeError, 'mask', /4096/);
  });

  it("the trainer copies examples and weights by their true length (embind's copy would trust `length`)", () => {
    const trainer = engine.createTrainer({ model: { dModel: 4 }, loss: { kind: 'regress' } });
    trainer.setData([{ x: liar(Float32Array, catSat.x, 4096), target: liar(Float32Array, catSat.x, 1) }]);
    assert.equal(trainer.step(1).losses.length, 1);
    fails(() => trainer.setWeights({ wq: liar(Float32Array, Array(4096).fill(0), 16) }), RangeError, 'wq');
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    trainer.setWeights({ wq: liar(Float32Array, identity, 4096) });
    assert.deepEqual(Array.from(trainer.weights().wq), identity);
    trainer.dispose();
  });
});

// The real engine's factory, with one export made to trap on request: it runs the real code on an
// address far outside memory, so the trap happens inside C++, with its allocations and stack left.
// (The glue replaces its exports by the raw ones on their first call: the wrappers are kept by a setter.)
function trappingBuilds() {
  const armed = { attention: false, run: false };
  const keep = (module, name, wrapper) => Object.defineProperty(module, name, { get: () => wrapper, set: () => {} });
  const createModule = (options) => {
    const ready = createSimd(options);
    const attention = options._attn_attention;
    keep(options, '_attn_attention', () => {
      if (!armed.attention) return attention();
      armed.attention = false;
      const request = options._attn_request() >> 3;
      options.HEAPF64[request + 16] = 2 ** 31 - 4096;  // x's address (after calls.cpp's 16 scalars): past any memory
      return attention();
    });
    const run = options._attn_prepared_run;
    keep(options, '_attn_prepared_run', (model) => {
      if (!armed.run) return run(model);
      armed.run = false;
      return options._attn_output_data(2 ** 31 - 64, 0);  // reads a pointer out of bounds
    });
    return ready;
  };
  const wasmBinary = readFileSync(new URL('../../../dist/lib/attention-learn-simd.wasm', import.meta.url));
  return { armed, builds: { 'learn-simd': { createModule, wasmBinary } } };
}

describe('issue 28: the engine survives a WebAssembly trap', () => {
  it('a trap in attention() fails that call with a message; memory(), attention(), prepared models and trainers work after it', async () => {
    const { armed, builds } = trappingBuilds();
    const engine = await loadAttentionFrom(builds, { simd: true, learning: true });
    const model = engine.prepare({ dModel: 4 });
    const before = model.run({ x: catSat.x, n: 3 }).output;
    const trainer = engine.createTrainer({ model: { dModel: 4 }, loss: { kind: 'regress' } });
    const plain = engine.attention(catSat);
    armed.attention = true;
    assert.throws(() => engine.attention(catSat), (error) => error.field === 'engine' &&
      /attention\(\) failed inside WebAssembly \(memory access out of bounds\)/.test(error.message) && error.cause instanceof WebAssembly.RuntimeError);
    const memory = engine.memory();
    assert.ok(memory.heapBytes > 0 && memory.allocatedBytes >= 0, JSON.stringify(memory));
    const again = engine.attention(catSat);
    assert.deepEqual(Array.from(again.output), Array.from(plain.output));
    close(again.heads[0].weights, catSatWeights(), 'after the trap');
    assert.deepEqual(Array.from(model.run({ x: catSat.x, n: 3 }).output), Array.from(before), 'a model prepared before the trap');
    fails(() => trainer.step(1), Error, 'trainer', /create a new one/);
    trainer.dispose();
    const fresh = engine.createTrainer({ model: { dModel: 4 }, loss: { kind: 'regress' } });
    fresh.setData([{ x: catSat.x, target: catSat.x }]);
    assert.equal(fresh.step(2).losses.length, 2);
    // the new instance leaks nothing either
    const steady = engine.memory();
    for (let i = 0; i < 50; i++) engine.attention(catSat);
    assert.deepEqual(engine.memory(), steady);
  });

  it('a trap in a prepared model\'s run() likewise; every other prepared model keeps its weights', async () => {
    const { armed, builds } = trappingBuilds();
    const engine = await loadAttentionFrom(builds, { simd: true, learning: true });
    const weights = engine.initWeights({ dModel: 4, heads: 2, seed: 7 });
    const a = engine.prepare({ dModel: 4, heads: 2, ...weights });
    const b = engine.prepare({ dModel: 4, mask: 'causal' });
    const expectedA = a.run({ x: catSat.x, n: 3 }).output;
    const expectedB = b.run({ x: catSat.x, n: 3 }).output;
    armed.run = true;
    fails(() => a.run({ x: catSat.x, n: 3 }), Error, 'engine', /run\(\) failed inside WebAssembly/);
    assert.deepEqual(Array.from(a.run({ x: catSat.x, n: 3 }).output), Array.from(expectedA));
    assert.deepEqual(Array.from(b.run({ x: catSat.x, n: 3 }).output), Array.from(expectedB));
    a.dispose();
    b.dispose();
    assert.ok(engine.memory().heapBytes > 0);
  });
});

describe('issue 28: a mask names its convention', () => {
  let engine;
  before(async () => {
    engine = await loadAttention({ learning: true });
  });

  it('an unnamed array of flags (booleans, 0 and 1, any typed array) is refused, saying to use { keep } or { masked }', () => {
    const unnamed = [[true, false, true, true, true, true, false, false, true], Array(9).fill(false), [1, 1, 1, 1, 1, 1, 1, 1, true],
      [1, 0, 1, 1, 1, 0, 0, 1, 1], Uint8Array.from([1, 0, 1, 1, 1, 0, 0, 1, 1]), new Float32Array(9).fill(1), new Int32Array(9)];
    for (const mask of unnamed) {
      fails(() => engine.attention({ ...catSat, mask }), TypeError, 'mask', /\{ keep: \[\.\.\.\] \}.*\{ masked: \[\.\.\.\] \}/);
    }
  });

  it('{ keep } and { masked } read the same flags opposite ways (booleans, 0 and 1, Uint8Array)', () => {
    const keep = [1, 0, 1, 1, 1, 0, 0, 1, 1];
    const expected = catSatWeights(keep);
    const hidden = keep.map((k) => 1 - k);
    for (const mask of [{ keep }, { keep: keep.map(Boolean) }, { keep: Uint8Array.from(keep) }, { masked: hidden },
      { masked: hidden.map(Boolean) }, { masked: Uint8Array.from(hidden) }]) {
      close(engine.attention({ ...catSat, mask }).heads[0].weights, expected, JSON.stringify(mask));
    }
    // PyTorch's causal boolean mask (True above the diagonal: hidden) is the engine's 'causal'
    const torchCausal = [false, true, true, false, false, true, false, false, false];
    assert.deepEqual(Array.from(engine.attention({ ...catSat, mask: { masked: torchCausal } }).output),
      Array.from(engine.attention({ ...catSat, mask: 'causal' }).output));
    const g = engine.gradients({ ...catSat, mask: { masked: torchCausal }, dOutput: new Float32Array(12).fill(1) });
    assert.equal(g.x.length, 12);
  });

  it('anything else is refused naming mask (both names, other names, bad flags, a prepared model)', () => {
    for (const mask of [{ keep: [1], masked: [1] }, { hide: [1] }, {}, { keep: [2, 1, 1, 1, 1, 1, 1, 1, 1] }, { masked: 'causal' },
      { keep: Uint8Array.of(1, 1, 1, 1, 3, 1, 1, 1, 1) }, { toString: [1] }]) {
      assert.throws(() => engine.attention({ ...catSat, mask }), (error) => error.field === 'mask', JSON.stringify(mask));
    }
    fails(() => engine.prepare({ dModel: 4, mask: { keep: [1] } }), TypeError, 'mask', /'none' or 'causal'/);
  });
});

describe('issue 28: the trainer leaves b_k out by default', () => {
  let engine;
  before(async () => {
    engine = await loadAttention({ learning: true });
  });

  it('with biases and no train list, b_k stays exactly 0 while b_q and b_v learn; b_k still trains when named', () => {
    const spec = { model: { dModel: 4, heads: 2, biases: true }, loss: { kind: 'regress' }, optimizer: { kind: 'adam', learningRate: 0.01 }, seed: 5 };
    const data = [{ x: catSat.x, target: catSat.x.map((v) => v / 2) }];
    for (const train of [undefined, []]) {
      const trainer = engine.createTrainer({ ...spec, train });
      trainer.setData(data);
      trainer.step(3);
      const w = trainer.weights();
      assert.ok(w.bk.every((v) => v === 0), `bk ${Array.from(w.bk)}`);
      assert.ok(w.bq.some((v) => v !== 0) && w.bv.some((v) => v !== 0) && w.bo.some((v) => v !== 0));
      trainer.dispose();
    }
    const named = engine.createTrainer({ ...spec, train: ['bk'] });
    named.setData(data);
    named.step(3);
    assert.equal(named.weights().bk.length, 4);
    named.dispose();
    // why: the true gradient of b_k is 0 (softmax ignores a constant per row); the engine's is 0 to rounding
    const g = engine.gradients({ ...catSat, heads: 1, wq: Array(16).fill(0.3), wk: Array(16).fill(-0.2), wv: Array(16).fill(0.1),
      bq: [0.5, 0, 0, 1], bk: [0.1, 0.2, 0.3, 0.4], dOutput: Array.from({ length: 12 }, (_, i) => i - 6) });
    assert.ok(g.bk.every((v) => Math.abs(v) < 1e-5), `d bk ${Array.from(g.bk)}`);
    assert.ok(g.bq.some((v) => Math.abs(v) > 1e-3), `d bq ${Array.from(g.bq)}`);
  });
});

describe("issue 28: the engine's tables of names are own names only", () => {
  let engine;
  before(async () => {
    engine = await loadAttention({ learning: true });
  });
  const names = ['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty'];

  it('positions, loss.kind and optimizer.kind: inherited names are unknown names with a message', () => {
    for (const name of names) {
      fails(() => engine.attention({ ...catSat, positions: name }), TypeError, 'positions', /'none' or 'sinusoidal'/);
      fails(() => engine.createTrainer({ model: { dModel: 4, positions: name } }), TypeError, 'positions');
      fails(() => engine.createTrainer({ model: { dModel: 4 }, loss: { kind: name } }), TypeError, 'loss.kind', /'attend', 'classify' or 'regress'/);
      fails(() => engine.createTrainer({ model: { dModel: 4 }, optimizer: { kind: name } }), TypeError, 'optimizer.kind', /'adam' or 'sgd'/);
    }
  });
});
