// engine.createStackTrainer() through the JavaScript API, both builds: the same weights after 100
// steps as the native C++ test asserts (its constant, read from tests/core/test_stack_trainer.cpp),
// gradients against central differences of a float64 stack written here, the two tasks of issue 22
// (with head ablation), errors naming the field, and a WebAssembly trap that leaves the engine usable.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { loadAttention, loadAttentionFrom } from '../../../dist/lib/attention.node.mjs';
import createSimd from '../../../dist/lib/attention-learn-simd.mjs';
import { forEachBuild } from './builds.mjs';

const M64 = (1n << 64n) - 1n;

// tests/core/test_stack_trainer.cpp's small_examples: ids from a 64-bit LCG, regress targets apart
function smallExamples(vocab, n, count, seed) {
  let state = BigInt(seed);
  const next = () => {
    state = (state * 6364136223846793005n + 1442695040888963407n) & M64;
    return Number(state >> 33n);
  };
  return Array.from({ length: count }, (_, e) => {
    const ids = Array.from({ length: n }, () => next() % vocab);
    return { ids, first: Math.floor(n / 2), query: n - 1 - (e % 2), target: e % 3 };
  });
}

// FNV-1a over the little-endian bytes of every weight, in the trainer's parameter order
function checksum(weights) {
  let hash = 14695981039346656037n;
  for (const values of Object.values(weights)) {
    for (const byte of new Uint8Array(values.buffer, values.byteOffset, values.byteLength)) {
      hash = ((hash ^ BigInt(byte)) * 1099511628211n) & M64;
    }
  }
  return hash;
}

// The constant the native test asserts (printed by the native run, then by both WebAssembly suites)
const cppTest = readFileSync(new URL('../../core/test_stack_trainer.cpp', import.meta.url), 'utf8');
const nativeChecksum = BigInt(/CHECK\(hashes\[0\] == (\d+)ull\)/.exec(cppTest)[1]);
// and the one of the stacks with norms and MLPs (four blocks' checksums folded into one)
const nativeBlocksChecksum = BigInt(/CHECK\(blocks_hash == (\d+)ull\)/.exec(cppTest)[1]);

// ---- A float64 attention-only stack (Vaswani et al. 2017), independent of the core ----------------
function referenceLoss(p, { vocab, dModel: d, layers, heads, causal }, examples) {
  const dk = d / heads;
  const at = (w, i, j, cols) => w[i * cols + j];
  let total = 0;
  for (const { ids, first } of examples) {
    const n = ids.length;
    let x = ids.map((id, i) => Array.from({ length: d }, (_, c) => p.tokens[id * d + c] + p.positions[i * d + c]));
    for (let l = 0; l < layers; l++) {
      const w = (name) => p[`layers.${l}.${name}`];
      const concat = x.map(() => new Array(heads * dk).fill(0));
      for (let h = 0; h < heads; h++) {
        const project = (m) => x.map((row) => Array.from({ length: dk }, (_, c) => row.reduce((s, v, a) => s + v * m[h * d * dk + a * dk + c], 0)));
        const [q, k, v] = [project(w('wq')), project(w('wk')), project(w('wv'))];
        for (let i = 0; i < n; i++) {
          const last = causal ? i : n - 1;
          const s = Array.from({ length: last + 1 }, (_, j) => q[i].reduce((sum, qc, c) => sum + qc * k[j][c], 0) / Math.sqrt(dk));
          const top = Math.max(...s);
          const e = s.map((value) => Math.exp(value - top));
          const sum = e.reduce((a, b) => a + b, 0);
          e.forEach((weight, j) => { for (let c = 0; c < dk; c++) concat[i][h * dk + c] += weight / sum * v[j][c]; });
        }
      }
      x = x.map((row, i) => row.map((value, c) => value + concat[i].reduce((s, z, a) => s + z * at(w('wo'), a, c, d), 0)));
    }
    let sum = 0;
    for (let i = first; i <= n - 2; i++) {
      const logits = Array.from({ length: vocab }, (_, v) => x[i].reduce((s, o, c) => s + o * at(p.unembedding, c, v, vocab), 0));
      const top = Math.max(...logits);
      sum += top + Math.log(logits.reduce((s, z) => s + Math.exp(z - top), 0)) - logits[ids[i + 1]];
    }
    total += sum / (n - 1 - first);
  }
  return total / examples.length;
}

// ---- Task 1: "The animal didn't cross the street because it was too tired | wide" ---------------
// Word embeddings as test_stack_trainer.cpp's embed(): feature columns bumped by 1, noise of 0.15 in
// the first ten, two free columns, the noise from splitmix64 seeded by the word's FNV-1a hash.
const FEATURES = { Finance: 0, Nature: 1, Animal: 2, Person: 3, Action: 4, Pronoun: 5, Plural: 6, Feeling: 7, Object: 8, Science: 9 };
function embed(word, features) {
  let state = 14695981039346656037n;
  for (const byte of new TextEncoder().encode(word)) state = ((state ^ BigInt(byte)) * 1099511628211n) & M64;
  const unit = () => {
    state = (state + 0x9e3779b97f4a7c15n) & M64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
    return Math.fround(Number((z ^ (z >> 31n)) >> 40n) * 2 ** -23 - 1);
  };
  const v = new Float32Array(12);
  for (let c = 0; c < 10; c++) v[c] = Math.fround(0.15 * unit());
  for (const f of features) v[FEATURES[f]] = Math.fround(v[FEATURES[f]] + 1);
  v[10] = unit();
  v[11] = unit();
  return v;
}

function tiredOrWide() {
  const words = [];
  const table = [];
  const add = (word, features) => { words.push(word); table.push(...embed(word, features)); };
  for (const w of ['the', 'because', 'too']) add(w, []);
  for (const w of ["didn't", 'cross', 'was']) add(w, ['Action']);
  add('it', ['Pronoun']);
  add('tired', ['Feeling']);
  add('wide', ['Object']);
  const animals = ['dog', 'cat', 'horse', 'cow', 'sheep', 'goat'];
  const streets = ['street', 'road', 'river', 'bridge'];
  const heldAnimals = ['lion', 'fox', 'wolf', 'bear'];
  const heldStreets = ['valley', 'canal', 'path'];
  for (const w of [...animals, ...heldAnimals]) add(w, ['Animal']);
  for (const w of [...streets, ...heldStreets]) add(w, ['Nature', 'Object']);
  const id = (w) => words.indexOf(w);
  const sentence = (animal, street, tired) => ({
    ids: ['the', animal, "didn't", 'cross', 'the', street, 'because', 'it', 'was', 'too', tired ? 'tired' : 'wide'].map(id),
    query: 7, target: tired ? 1 : 5,
  });
  const pairs = (as, ss) => [true, false].flatMap((tired) => as.flatMap((a) => ss.map((s) => sentence(a, s, tired))));
  return { vocab: words.length, table: Float32Array.from(table), train: pairs(animals, streets), heldOut: pairs(heldAnimals, heldStreets) };
}

// ---- Task 2: induction heads (test_stack_trainer.cpp's repeated_halves) --------------------------
function repeatedHalves(vocab, count, seed) {
  let state = BigInt(seed);
  const next = (below) => {
    state = (state * 6364136223846793005n + 1442695040888963407n) & M64;
    return Number((state >> 33n) % BigInt(below));
  };
  return Array.from({ length: count }, () => {
    const k = 6 + next(3);
    const r = next(4);
    const pool = Array.from({ length: vocab }, (_, i) => i);
    const ids = [];
    for (let i = 0; i < k; i++) {
      const j = i + next(vocab - i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
      ids.push(pool[i]);
    }
    for (let i = r; i < k; i++) ids.push(ids[i]);
    return { ids, first: k, k, r };
  });
}

// Each head's previous-token score (mean weight from i to i − 1) and induction score (mean weight from
// a repeated token to the one after its earlier copy), over the examples (Olsson et al. 2022)
function headScores(trainer, list, layer, heads) {
  const previous = new Array(heads).fill(0);
  const induction = new Array(heads).fill(0);
  let previousCount = 0;
  let inductionCount = 0;
  for (const { ids, first, k, r } of list) {
    const trace = trainer.trace({ ids, first });
    const n = ids.length;
    for (let h = 0; h < heads; h++) {
      const a = trace.layers[layer].attention.heads[h].weights;
      for (let i = 1; i < n; i++) previous[h] += a[i * n + i - 1];
      for (let i = k; i < n; i++) induction[h] += a[i * n + (i - k + r + 1)];
    }
    previousCount += n - 1;
    inductionCount += n - k;
  }
  return { previous: previous.map((s) => s / previousCount), induction: induction.map((s) => s / inductionCount) };
}

const fails = (call, Kind, field, message) => assert.throws(call, (error) => {
  assert.ok(error instanceof Kind, `${error.constructor.name}: ${error.message}`);
  assert.equal(error.field, field, error.message);
  if (message) assert.match(error.message, message);
  return true;
});

const checksumSpec = { model: { vocab: 8, dModel: 8, layers: 2, heads: 2, positions: 'learned', maxPositions: 10 },
  optimizer: { learningRate: 0.02, batchSize: 4 }, seed: 77 };

forEachBuild((build) => `${build} build: the stack trainer`, { learning: true }, ({ engine }) => {
  numbersTests(engine);
  taskTests(engine);
  badInputTests(engine);
});

// the native test's checksum, and gradients against central differences
function numbersTests(engine) {
  it('100 Adam steps end on the weights the native C++ test asserts (FNV-1a checksum)', () => {
    const trainer = engine.createStackTrainer(checksumSpec);
    trainer.setData(smallExamples(8, 10, 12, 7));
    const { losses, steps } = trainer.step(100);
    assert.equal(steps, 100);
    assert.ok(losses.at(-1) < losses[0], `loss ${losses[0]} -> ${losses.at(-1)}`);
    assert.equal(checksum(trainer.weights()), nativeChecksum);
    trainer.dispose();
    const other = engine.createStackTrainer({ ...checksumSpec, seed: 78 });
    other.setData(smallExamples(8, 10, 12, 7));
    other.step(100);
    assert.notEqual(checksum(other.weights()), nativeChecksum);
    other.dispose();
  });

  it('100 Adam steps with norms and MLPs (LayerNorm/RMSNorm, pre/post-LN, GELU tanh/erf, SwiGLU) end on the native checksum', () => {
    const cases = [['pre', 'layernorm', 'gelu-tanh'], ['pre', 'rmsnorm', 'gelu'], ['post', 'layernorm', 'gelu'], ['post', 'rmsnorm', 'swiglu']];
    let folded = 14695981039346656037n;
    for (const [block, norm, mlp] of cases) {
      const trainer = engine.createStackTrainer({ ...checksumSpec, model: { ...checksumSpec.model, block, norm, mlp, mlpHidden: 12 } });
      trainer.setData(smallExamples(8, 10, 12, 7));
      const { losses } = trainer.step(100);
      assert.ok(losses.at(-1) < losses[0], `${block} ${norm} ${mlp}: loss ${losses[0]} -> ${losses.at(-1)}`);
      const one = checksum(trainer.weights());
      trainer.dispose();
      for (let b = 0n; b < 8n; b++) folded = ((folded ^ ((one >> (8n * b)) & 0xffn)) * 1099511628211n) & M64;
    }
    assert.equal(folded, nativeBlocksChecksum);
  });

  it('gradients() = central differences of a float64 stack written here; its loss too', () => {
    for (const causal of [true, false]) {
      const model = { vocab: 5, dModel: 4, layers: 2, heads: 2, positions: 'learned', maxPositions: 6, mask: causal ? 'causal' : 'none' };
      const trainer = engine.createStackTrainer({ model, seed: 5 });
      const examples = smallExamples(5, 6, 3, 1);
      const { loss, gradients } = trainer.gradients(examples);
      const p = Object.fromEntries(Object.entries(trainer.weights()).map(([name, v]) => [name, Float64Array.from(v)]));
      const spec = { ...model, causal };
      assert.ok(Math.abs(loss - referenceLoss(p, spec, examples)) < 1e-5 * loss, `loss ${loss}`);
      for (const [name, g] of Object.entries(gradients)) {
        let diff = 0;
        let norm = 0;
        for (let i = 0; i < g.length; i++) {
          const keep = p[name][i];
          p[name][i] = keep + 1e-5;
          const up = referenceLoss(p, spec, examples);
          p[name][i] = keep - 1e-5;
          const down = referenceLoss(p, spec, examples);
          p[name][i] = keep;
          const fd = (up - down) / 2e-5;
          diff += (fd - g[i]) ** 2;
          norm += fd ** 2;
        }
        assert.ok(Math.sqrt(diff) <= 1e-3 * Math.sqrt(norm) + 1e-6, `${name}: |g − fd| ${Math.sqrt(diff)}, |fd| ${Math.sqrt(norm)}`);
      }
      trainer.dispose();
    }
  });

}

// issue 22's two tasks, with head ablation
function taskTests(engine) {
  it("'tired' or 'wide': two layers reach 95 % held out in 60 steps; one layer stays at or above ln 2", () => {
    const { vocab, table, train, heldOut } = tiredOrWide();
    const run = (layers) => {
      const names = Array.from({ length: layers }, (_, l) => ['wq', 'wk', 'wv', 'wo'].map((w) => `layers.${l}.${w}`)).flat();
      const trainer = engine.createStackTrainer({ model: { vocab, dModel: 12, layers, heads: 2, mask: 'none' },
        loss: { kind: 'attend', layer: layers - 1 }, optimizer: { learningRate: 0.05 }, seed: 21, train: names, weights: { tokens: table } });
      trainer.setData(train);
      const start = trainer.evaluate(heldOut);
      trainer.step(60);
      const result = { start, heldOut: trainer.evaluate(heldOut), train: trainer.evaluate(train) };
      trainer.dispose();
      return result;
    };
    const two = run(2);
    assert.ok(two.start.accuracy < 0.95, `before: ${two.start.accuracy}`);
    assert.ok(two.heldOut.accuracy >= 0.95, `two layers, held out: ${two.heldOut.accuracy}`);
    const one = run(1);
    assert.ok(one.train.loss >= Math.log(2) - 1e-4, `one layer, training loss ${one.train.loss}`);
  });

  it('induction heads: 95 % held out, a previous-token head in layer 0 and an induction head in layer 1; ablation', () => {
    const train = repeatedHalves(16, 512, 1);
    const held = repeatedHalves(16, 128, 2);
    const trainer = engine.createStackTrainer({ model: { vocab: 16, dModel: 32, layers: 2, heads: 2, positions: 'rotary' },
      optimizer: { learningRate: 0.01, batchSize: 16 }, seed: 3 });
    trainer.setData(train.map(({ ids, first }) => ({ ids, first })));
    trainer.step(500);
    const heldOut = held.map(({ ids, first }) => ({ ids, first }));
    const { accuracy } = trainer.evaluate(heldOut);
    assert.ok(accuracy >= 0.95, `held out ${accuracy}`);
    const layer0 = headScores(trainer, held, 0, 2);
    const layer1 = headScores(trainer, held, 1, 2);
    assert.ok(Math.max(...layer0.previous) > 0.8, `previous-token scores ${layer0.previous}`);
    assert.ok(Math.max(...layer1.induction) > 0.8, `induction scores ${layer1.induction}`);
    const previousHead = layer0.previous.indexOf(Math.max(...layer0.previous));
    const off = trainer.evaluate(heldOut, { ablate: [[0, previousHead]] }).accuracy;
    const layer1Off = trainer.evaluate(heldOut, { ablate: [[1, 0], [1, 1]] }).accuracy;
    assert.ok(off < 0.5, `the previous-token head off: ${off}`);
    assert.ok(layer1Off < 0.5, `both layer-1 heads off: ${layer1Off}`);
    assert.equal(trainer.evaluate(heldOut).accuracy, accuracy, 'the ablation lasts one call');
    trainer.dispose();
  });

}

function badInputTests(engine) {
  it('bad options and data are refused with a message naming the field', () => {
    const good = { model: { vocab: 5, dModel: 4, layers: 2, heads: 2 } };
    const create = (options) => () => engine.createStackTrainer(options);
    fails(create({ ...good, colour: 1 }), TypeError, 'colour');
    fails(create({ model: { ...good.model, block: 'sideways' } }), TypeError, 'model.block', /'attention-only', 'pre', 'post'/);
    fails(create({ model: { ...good.model, norm: 'batchnorm', block: 'pre' } }), TypeError, 'model.norm');
    fails(create({ model: { ...good.model, heads: 3 } }), RangeError, 'heads', /must divide dModel/);
    fails(create({ model: { ...good.model, layers: 10000 } }), RangeError, 'layers');
    fails(create({ model: { ...good.model, layers: 2.5 } }), TypeError, 'model.layers');
    fails(create({ model: { ...good.model, positions: 'rotary', dK: 3 } }), RangeError, 'positions', /even dK/);
    fails(create({ ...good, loss: { kind: 'attend', layer: 2 } }), RangeError, 'loss.layer');
    fails(create({ ...good, loss: { kind: 'guess' } }), TypeError, 'loss.kind');
    fails(create({ ...good, optimizer: { beta1: 1 } }), RangeError, 'optimizer.beta1');
    fails(create({ ...good, weights: { tokens: [1, 2] } }), RangeError, 'tokens', /expected 20/);
    fails(create({ ...good, weights: { 'layers.0.wq': new Float32Array(16).fill(NaN) } }), RangeError, 'layers.0.wq');
    const trainer = engine.createStackTrainer(good);
    fails(() => trainer.step(1), RangeError, 'examples');
    fails(() => trainer.setData([{ ids: [0, 1, 2] }, { ids: [0, 9, 1] }]), RangeError, 'examples[1].ids', /outside the vocabulary of 5/);
    fails(() => trainer.setData([{ ids: [0, 1, 2], first: 2 }]), RangeError, 'examples[0].first');
    fails(() => trainer.setData([{ ids: 'abc' }]), TypeError, 'examples[0].ids');
    fails(() => trainer.step(0), RangeError, 'steps');
    const data = [{ ids: [0, 1, 2, 3] }];
    fails(() => trainer.evaluate(data, { ablate: [[0, 2]] }), RangeError, 'ablate[0].head');
    fails(() => trainer.evaluate(data, { ablate: [[5, 0]] }), RangeError, 'ablate[0].layer');
    fails(() => trainer.evaluate(data, { ablate: [0] }), TypeError, 'ablate[0]');
    fails(() => trainer.setWeights({ nope: [1] }), RangeError, 'nope');
    const before = trainer.weights()['layers.0.wq'];
    fails(() => trainer.setWeights({ 'layers.0.wq': new Float32Array(16), tokens: [1] }), RangeError, 'tokens');
    assert.deepEqual(trainer.weights()['layers.0.wq'], before, 'all or none');
    trainer.setData(data);
    assert.equal(trainer.step(2).steps, 2, 'usable after every refusal');
    trainer.dispose();
    fails(() => trainer.step(1), Error, 'trainer', /disposed/);
  });
}

// The real SIMD engine's factory, with the stack trainer's step() made to trap on request: it runs the
// real code on a trainer handle pointing far outside memory, so the trap happens inside C++.
function trappingBuilds() {
  const armed = { step: false };
  const wasmBinary = readFileSync(new URL('../../../dist/lib/attention-learn-simd.wasm', import.meta.url));
  // the glue runs synchronously on a restart (runtime.mjs): the class is there when it returns
  const patch = (module) => {
    const prototype = module.StackTrainer?.prototype;
    if (!prototype || prototype.trapping) return;
    const step = prototype.step;
    prototype.trapping = true;
    prototype.step = function step1(count) {
      if (armed.step) {
        armed.step = false;
        this.$$.ptr = 2 ** 31 - 4096;
      }
      return step.call(this, count);
    };
  };
  const createModule = (options) => {
    const ready = createSimd(options);
    patch(options);
    return ready.then((module) => {
      patch(module);
      return module;
    });
  };
  return { armed, builds: { 'learn-simd': { createModule, wasmBinary } } };
}

describe('the page\'s engine (no learning code)', () => {
  it('createStackTrainer() says it needs the learning engine', async () => {
    const engine = await loadAttention({ learning: false });
    assert.throws(() => engine.createStackTrainer(checksumSpec), /createStackTrainer\(\) needs the learning engine: .*loadAttention\(\{ learning: true \}\)/);
  });
});

describe('the stack trainer survives a WebAssembly trap', () => {
  it('a trap in step() fails that call naming the engine; a new trainer trains to the same weights', async () => {
    const { armed, builds } = trappingBuilds();
    const engine = await loadAttentionFrom(builds, { simd: true, learning: true });
    const data = smallExamples(8, 10, 12, 7);
    const trainer = engine.createStackTrainer(checksumSpec);
    trainer.setData(data);
    trainer.step(10);
    armed.step = true;
    fails(() => trainer.step(1), Error, 'engine', /failed inside WebAssembly/);
    fails(() => trainer.step(1), Error, 'trainer', /create a new one/);
    trainer.dispose();
    const fresh = engine.createStackTrainer(checksumSpec);
    fresh.setData(data);
    fresh.step(100);
    assert.equal(checksum(fresh.weights()), nativeChecksum);
    fresh.dispose();
  });
});
