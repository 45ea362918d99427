// The engine against hostile callers: names that exist on every object, divisors at the float32
// edges, results that would not be finite, huge and detached arrays. Each call either returns
// finite numbers or throws an Error naming the field, and leaves memory and the stack as they were.
import { it } from 'node:test';
import assert from 'node:assert/strict';

import { forEachBuild } from './builds.mjs';

const catSat = { x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], n: 3, dModel: 4 };  // 002, W = I
const OBJECT_NAMES = ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];

function assertFieldError(call, field, pattern) {
  assert.throws(call, (error) => {
    assert.ok(error instanceof Error);
    assert.equal(error.field, field, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

function detached(length, Type = Float32Array) {
  const array = new Type(length);
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return array;
}

function assertFiniteResult(result, label) {
  const arrays = [['output', result.output], ['concat', result.concat]];
  result.heads.forEach((head, h) => {
    for (const key of ['q', 'k', 'v', 'scores', 'weights', 'z']) arrays.push([`heads[${h}].${key}`, head[key]]);
    // scaled is −∞ exactly where a key is masked, finite everywhere else
    arrays.push([`heads[${h}].scaled`, head.scaled.filter((v) => v !== -Infinity)]);
  });
  for (const [name, values] of arrays) {
    const bad = Array.from(values).findIndex((v) => !Number.isFinite(v));
    assert.equal(bad, -1, `${label}: ${name}[${bad}] is ${values[bad]}`);
  }
}

forEachBuild((build) => `hostile input, ${build} build`, {}, (build) => {
  refusedInputTests(build);
  memoryAndReentryTests(build);
  reentryTests(build);
});

// names, divisors and magnitudes that are refused by field, or give finite arrays
function refusedInputTests({ engine }) {
  it("names every object has ('toString', '__proto__', …) are unknown scales and masks, not modes", () => {
    for (const name of OBJECT_NAMES) {
      assertFieldError(() => engine.attention({ ...catSat, scale: name }), 'scale', /scale must be 'sqrt_dk', 'none' or a number/);
      assertFieldError(() => engine.attention({ ...catSat, mask: name }), 'mask', /mask must be 'none', 'causal'/);
    }
    const options = JSON.parse('{"x": [1], "n": 1, "dModel": 1, "__proto__": {"heads": 2}}');
    assertFieldError(() => engine.attention(options), '__proto__', /unknown option '__proto__'/);
  });

  it('a divisor outside float32 (1e-39, 5e-324, 1e39) is refused naming scale', () => {
    for (const divisor of [1e-39, 5e-324, Number.MIN_VALUE, 1e39, 1.7e308]) {
      assertFieldError(() => engine.attention({ ...catSat, scale: divisor }), 'scale', /float32/);
    }
    // the smallest and largest normal float32 themselves are fine
    assertFiniteResult(engine.attention({ x: [1e-16], n: 1, dModel: 1, scale: 2 ** -126 }), 'divisor 2^-126');
    assertFiniteResult(engine.attention({ ...catSat, scale: 3.4e38 }), 'divisor 3.4e38');
  });

  it('scores that overflow when divided are refused naming scale (1e38 ÷ 0.01)', () => {
    for (const mask of ['none', 'causal', { keep: new Uint8Array([1]) }]) {
      assertFieldError(() => engine.attention({ x: [1e19], n: 1, dModel: 1, scale: 0.01, mask }), 'scale', /overflow float32/);
      assertFieldError(() => engine.attention({ x: [1e19], n: 1, dModel: 1, scale: 0.01, mask, trace: false }), 'scale', /overflow float32/);
    }
  });

  it('every array returned is finite, or the call fails naming a field: inputs from 1 to 3e38, every divisor', () => {
    let failures = 0, results = 0;
    for (const magnitude of [1, 1e10, 1e19, 1e20, 1e37, 3.4e38]) {
      for (const m of [1, 3, 7, 11]) {
        for (const scale of ['sqrt_dk', 'none', 1e-30, 1e30]) {
          const x = Array.from({ length: m * 2 }, (_, i) => (i % 3 === 1 ? -magnitude : magnitude));
          const problem = { x, n: m, dModel: 2, heads: 1, wq: [0, 0, 0, 0], wk: [0, 0, 0, 0], wv: [1, 0, 0, 1], wo: [1, 0, 0, 1], scale };
          for (const variant of [problem, { ...problem, wq: [1, 0, 0, 1], wk: [1, 0, 0, 1] }, { ...problem, wo: undefined }]) {
            const label = JSON.stringify({ magnitude, m, scale });
            try {
              assertFiniteResult(engine.attention(variant), label);
              results++;
            } catch (error) {
              assert.ok(['x', 'scale'].includes(error.field), `${label}: ${error.message}`);
              failures++;
            }
          }
        }
      }
    }
    assert.ok(failures > 0 && results > 0, `${failures} refused, ${results} computed`);
  });
}

// huge, detached and reentrant arrays leave the engine as it was
function memoryAndReentryTests({ engine }) {
  it('a 600-million-value x with n = dModel = 1 is refused at once naming x, and the heap does not grow', () => {
    const before = engine.memory();
    const x = new Float32Array(600e6);  // 2.4 GB, untouched: the pages are never written
    assertFieldError(() => engine.attention({ x, n: 1, dModel: 1 }), 'x', /x has 600000000 values; expected n × dModel = 1 × 1 = 1/);
    assertFieldError(() => engine.attention({ ...catSat, wq: x }), 'wq', /wq has 600000000 values/);
    assertFieldError(() => engine.attention({ x: new Array(2 ** 24 + 1), n: 1, dModel: 1 }), 'x', /above the cap/);
    assert.deepEqual(engine.memory(), before);
  });

  it('100,000 calls that fail on a detached or unreadable array leave memory and stack unchanged', () => {
    engine.attention(catSat);
    const before = engine.memory();
    const poisoned = new Proxy([1, 2, 3, 4], { get(target, key) { if (key === '2') throw new Error('no reading'); return target[key]; } });
    const makers = [
      () => [{ ...catSat, x: detached(12) }, 'x'],
      () => [{ ...catSat, wq: detached(16) }, 'wq'],
      () => [{ ...catSat, context: detached(8) }, 'context'],
      () => [{ ...catSat, mask: detached(9, Uint8Array) }, 'mask'],
      () => [{ ...catSat, wo: poisoned }, 'wo'],
      // x is read first; a getter read after it detaches x's buffer
      () => {
        const x = Float32Array.from(catSat.x);
        const options = { ...catSat, x };
        Object.defineProperty(options, 'wo', { enumerable: true, get() { structuredClone(x.buffer, { transfer: [x.buffer] }); return undefined; } });
        return [options, 'x'];
      },
    ];
    makers.push(() => {
      const options = { ...catSat };
      Object.defineProperty(options, 'heads', { enumerable: true, get() { throw new Error('no'); } });
      return [options, 'heads'];
    });
    for (let i = 0; i < 100_000; i++) {
      const [options, field] = makers[i % makers.length]();
      try {
        engine.attention(options);
        assert.fail(`call ${i} did not fail`);
      } catch (error) {
        if (error.field !== field) assert.fail(`call ${i}: field ${error.field}, expected ${field}: ${error.message}`);
      }
    }
    assert.deepEqual(engine.memory(), before);
    const r = engine.attention(catSat);
    assert.ok(Math.abs(r.output[0] - 0.8446) < 5e-5, 'the engine still answers');
  });

}

// calls that try to start another call from inside one
function reentryTests({ engine }) {
  it('a typed array whose buffer getter calls the engine: the getter never runs (lengths and bytes are read through %TypedArray%)', () => {
    const plain = engine.attention({ ...catSat, wo: Float32Array.from({ length: 16 }, (_, i) => (i % 5) / 4) });
    let reads = 0;
    class Reentrant extends Float32Array {
      get buffer() {
        reads++;
        engine.attention({ x: [1, 2, 3, 4, 5, 6], n: 2, dModel: 3 });
        return super.buffer;
      }
    }
    const before = engine.memory();
    const outer = engine.attention({ ...catSat, wo: Reentrant.from({ length: 16 }, (_, i) => (i % 5) / 4) });
    assert.equal(reads, 0, `the overriding buffer getter ran ${reads} times`);
    assert.deepEqual(Array.from(outer.output), Array.from(plain.output));
    assert.deepEqual(engine.memory(), before);
  });

  it('a call made from inside a call (an option whose getter calls the engine) does not disturb it', () => {
    // the engine has one request block: the inner call must not leave its sizes or addresses in the outer's
    const plain = engine.attention({ ...catSat, wo: Float32Array.from({ length: 16 }, (_, i) => (i % 5) / 4) });
    let inner = null, reads = 0;
    const options = { ...catSat };
    Object.defineProperty(options, 'wo', {
      enumerable: true,
      get() {
        reads++;
        inner = engine.attention({ x: [1, 2, 3, 4, 5, 6], n: 2, dModel: 3, mask: 'causal', positions: 'sinusoidal' });
        return Float32Array.from({ length: 16 }, (_, i) => (i % 5) / 4);
      },
    });
    const before = engine.memory();
    const outer = engine.attention(options);
    assert.ok(reads >= 1, `the inner call ran ${reads} times`);
    assert.equal(inner.shape.n, 2);
    assert.deepEqual(outer.shape, plain.shape);
    assert.deepEqual(Array.from(outer.output), Array.from(plain.output));
    assert.deepEqual(engine.memory(), before);
  });
}

// gradients() hands its arrays over as attention() does (callWithArrays): sizes checked from the
// lengths before anything is copied, the copies always freed.
forEachBuild((build) => `hostile input to gradients(), ${build} learning build`, { learning: true }, ({ engine }) => {
  const problem = { ...catSat, wq: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], wo: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] };
  const dOutput = new Float32Array(12).fill(1);

  it('a 600-million-value dOutput or dWeights is refused at once naming it, and the heap does not grow', () => {
    engine.gradients({ ...problem, dOutput });
    const before = engine.memory();
    const huge = new Float32Array(600e6);  // 2.4 GB, untouched: the pages are never written
    assertFieldError(() => engine.gradients({ ...problem, dOutput: huge }), 'dOutput', /dOutput has 600000000 values; expected n × dOut = 3 × 4 = 12/);
    assertFieldError(() => engine.gradients({ ...problem, dOutput, dWeights: huge }), 'dWeights', /dWeights has 600000000 values; expected heads × n × m = 1 × 3 × 3 = 9/);
    assertFieldError(() => engine.gradients({ ...problem, x: huge, dOutput }), 'x', /x has 600000000 values/);
    assert.deepEqual(engine.memory(), before);
  });

  it('100,000 calls that fail on a detached, unreadable or bad array leave memory and stack unchanged', () => {
    // the gradient of Σ output (dOutput all ones) with respect to x, from the call before the failures
    const expected = engine.gradients({ ...problem, dOutput }).x;
    const before = engine.memory();
    const poisoned = new Proxy([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], { get(target, key) { if (key === '5') throw new Error('no reading'); return target[key]; } });
    const makers = [
      () => [{ ...problem, dOutput: detached(12) }, 'dOutput'],
      () => [{ ...problem, dOutput, dWeights: detached(9) }, 'dWeights'],
      () => [{ ...problem, dOutput: poisoned }, 'dOutput'],
      () => [{ ...problem, x: detached(12), dOutput }, 'x'],
      () => [{ ...problem, wo: detached(16), dOutput }, 'wo'],
      // sizes pass the check; the values fail in the core, after every array was copied in
      () => [{ ...problem, dOutput: Float32Array.of(1, 1, 1, 1, 1, NaN, 1, 1, 1, 1, 1, 1) }, 'dOutput'],
      () => [{ ...problem, dOutput, dWeights: new Float32Array(9).fill(Infinity) }, 'dWeights'],
      () => [{ ...problem, dOutput: new Float32Array(13) }, 'dOutput'],
    ];
    // dOutput read first; a getter read after it detaches dOutput's buffer
    makers.push(() => {
      const late = Float32Array.from(dOutput);
      const options = { ...problem, dOutput: late };
      Object.defineProperty(options, 'dWeights', { enumerable: true, get() { structuredClone(late.buffer, { transfer: [late.buffer] }); return undefined; } });
      return [options, 'dOutput'];
    });
    for (let i = 0; i < 100_000; i++) {
      const [options, field] = makers[i % makers.length]();
      try {
        engine.gradients(options);
        assert.fail(`call ${i} did not fail`);
      } catch (error) {
        if (error.field !== field) assert.fail(`call ${i}: field ${error.field}, expected ${field}: ${error.message}`);
      }
    }
    assert.deepEqual(engine.memory(), before);
    assert.deepEqual(engine.gradients({ ...problem, dOutput }).x, expected, 'the engine still answers, with the same bits');
  });
});
