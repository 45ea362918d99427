// engine.createTrainer() through the JavaScript API, both builds: a task learned from the page's
// own vocabulary, the same bits in both builds, memory freed by dispose, errors naming the field.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { forEachBuild } from './builds.mjs';

const vocabulary = JSON.parse(readFileSync(new URL('../../../web/data/vocabulary.json', import.meta.url), 'utf8')).words;
const embed = (sentence) => Float32Array.from(sentence.split(' ').flatMap((word) => {
  assert.ok(vocabulary[word], `'${word}' is in the vocabulary`);
  return vocabulary[word];
}));

// "the A didn't cross the P because it was too tired": 'it' (7) should look at the animal (1);
// "by the P the A sat because it was too tired": at the animal (4).
const sentences = (animals, places) => animals.flatMap((a) => places.flatMap((p) => [
  { x: embed(`the ${a} didn't cross the ${p} because it was too tired`), query: 7, target: 1 },
  { x: embed(`by the ${p} the ${a} sat because it was too tired`), query: 7, target: 4 },
]));
const train = sentences(['dog', 'cat', 'horse', 'cow', 'sheep'], ['road', 'river', 'bridge']);
const heldOut = sentences(['lion', 'fox', 'wolf', 'mouse', 'tiger'], ['street', 'valley', 'forest']);

const options = { model: { dModel: 10, heads: 2 }, loss: { kind: 'attend' }, optimizer: { kind: 'adam', learningRate: 0.05 },
  train: ['wq', 'wk'], seed: 3 };

const results = {};

forEachBuild((build) => `${build} build: the trainer`, { learning: true }, (build) => {
  learningTests(build);
  lifetimeTests(build);
  badInputTests(build);
});

// what the trainer learns, with each loss and optimiser
function learningTests({ engine, simd }) {
  it("learns where 'it' looks, and generalises to nouns it never saw", () => {
    const trainer = engine.createTrainer(options);
    trainer.setData(train);
    const start = trainer.evaluate(heldOut);
    const { losses, gradientNorms, steps } = trainer.step(60);
    const end = trainer.evaluate(heldOut);
    assert.equal(losses.length, 60);
    assert.equal(gradientNorms.length, 60);
    assert.equal(steps, 60);
    assert.ok(losses.at(-1) < 0.1 * losses[0], `training loss ${losses[0]} -> ${losses.at(-1)}`);
    assert.ok(start.accuracy < 0.5, `held-out accuracy before training ${start.accuracy}`);
    assert.ok(end.accuracy >= 0.95, `held-out accuracy after 60 steps ${end.accuracy}`);
    // The weights it learned, through attention(): 'it' now puts most of its weight on the animal.
    const w = trainer.weights();
    const r = engine.attention({ x: heldOut[0].x, n: 11, dModel: 10, heads: 2, wq: w.wq, wk: w.wk, wv: w.wv, wo: w.wo });
    const mean = (j) => (r.heads[0].weights[7 * 11 + j] + r.heads[1].weights[7 * 11 + j]) / 2;
    assert.ok(mean(1) > 0.5, `weight on the animal ${mean(1)}`);
    results[simd] = { losses: Array.from(losses), weights: Object.fromEntries(Object.entries(w).map(([k, v]) => [k, Array.from(v)])) };
    trainer.dispose();
  });

  it('classify and regress train too; SGD with momentum, clipping and batches', () => {
    const classify = engine.createTrainer({ model: { dModel: 10, heads: 2, biases: true, positions: 'sinusoidal' },
      loss: { kind: 'classify', classes: 2 }, optimizer: { kind: 'sgd', learningRate: 0.2, momentum: 0.9, clipNorm: 1, batchSize: 8 }, seed: 1 });
    // Is the token read out (the noun) an animal? Class 1 for the animals' sentences.
    const data = [...train, ...heldOut].flatMap((e) => [{ x: e.x, query: e.target, target: 1 }, { x: e.x, query: e.target === 1 ? 5 : 2, target: 0 }]);
    classify.setData(data);
    const { losses } = classify.step(80);
    assert.ok(losses.at(-1) < 0.5 * losses[0], `classify loss ${losses[0]} -> ${losses.at(-1)}`);
    assert.equal(classify.evaluate(data).accuracy, 1);
    classify.dispose();

    const regress = engine.createTrainer({ model: { dModel: 10, heads: 1, wo: false }, loss: { kind: 'regress' }, seed: 2 });
    const target = (x) => x.map((value) => value * 0.5);
    regress.setData(train.map((e) => ({ x: e.x, target: target(e.x) })));
    const before = regress.evaluate(train.map((e) => ({ x: e.x, target: target(e.x) })));
    regress.step(100);
    const after = regress.evaluate(train.map((e) => ({ x: e.x, target: target(e.x) })));
    assert.ok(after.loss < 0.5 * before.loss, `regress loss ${before.loss} -> ${after.loss}`);
    assert.ok(Number.isNaN(after.accuracy));
    regress.dispose();
  });
}

// dispose() and a diverging step
function lifetimeTests({ engine }) {
  it('dispose frees its WebAssembly memory, and a disposed trainer says so', () => {
    const cycle = () => {
      const t = engine.createTrainer({ ...options, model: { dModel: 10, heads: 2, vocabulary: 2000 }, train: ['wq', 'wk', 'embeddings'] });
      t.setData([{ tokens: [1, 2, 3, 4], query: 3, target: 0 }]);
      t.step(3);
      return t;
    };
    cycle().dispose();  // scratch buffers reach their steady size
    const before = engine.memory().allocatedBytes;
    const trainer = cycle();
    const alive = engine.memory().allocatedBytes;
    assert.ok(alive - before >= 2000 * 10 * 4 * 3, `a live trainer holds its embedding table, gradient and moments (${alive - before} bytes)`);
    trainer.dispose();
    assert.equal(engine.memory().allocatedBytes, before);
    assert.throws(() => trainer.step(1), (e) => e.field === 'trainer' && /disposed/.test(e.message));
    assert.throws(() => trainer.weights(), (e) => e.field === 'trainer');
    trainer.dispose();  // twice is harmless
    assert.equal(engine.attention({ x: [1, 0, 0, 1], n: 2, dModel: 2 }).output.length, 4, 'the engine is usable');
  });

  it('a diverging step is refused with the step number; the weights stay at the last good step', () => {
    const spec = { model: { dModel: 10, heads: 1 }, loss: { kind: 'regress' }, optimizer: { kind: 'sgd', learningRate: 1e4 }, seed: 4 };
    const data = train.slice(0, 4).map((e) => ({ x: e.x, target: e.x }));
    const trainer = engine.createTrainer(spec);
    trainer.setData(data);
    let refused;
    assert.throws(() => trainer.step(100), (e) => {
      refused = e;
      return e instanceof RangeError && e.field === 'optimizer.learningRate' && /^learning rate too large: the loss became ∞ at step \d+/.test(e.message);
    });
    const good = trainer.steps;
    assert.match(refused.message, new RegExp(`at step ${good + 1}; the weights are those of step ${good}`));
    assert.equal(refused.losses.length, good);
    const replay = engine.createTrainer(spec);
    replay.setData(data);
    if (good > 0) replay.step(good);
    assert.deepEqual(trainer.weights(), replay.weights());
    replay.dispose();
    trainer.dispose();
  });
}

// bad input names the field
function badInputTests({ engine }) {
  describe('bad input names the field, and the engine stays usable', () => {
    badDataTests(engine);
    allOrNothingTests(engine);
    createTrainerErrorTests(engine);
  });
}

// data and weights the trainer refuses, by field
function badDataTests(engine) {
  const cases = [
    ['examples of inconsistent width', (t) => t.setData([train[0], { x: new Float32Array(15), query: 0, target: 0 }]), RangeError, 'examples[1].x',
      /examples\[1\]\.x has 15 values, not a positive multiple of dModel \(10\)/],
    ['a target outside the sentence', (t) => t.setData([{ ...train[0], target: 11 }]), RangeError, 'examples[0].target',
      /examples\[0\]\.target \(11\) is outside the sentence of 11 tokens/],
    ['a query outside the sentence', (t) => t.setData([{ ...train[0], query: -1 }]), RangeError, 'examples[0].query', /outside the sentence/],
    ['NaN data', (t) => t.setData([train[0], { ...train[1], x: Float32Array.from(train[1].x, (v, i) => (i === 13 ? NaN : v)) }]), RangeError,
      'examples[1].x', /examples\[1\]\.x\[13\] is NaN/],
    ['a target missing', (t) => t.setData([{ x: train[0].x, query: 7 }]), TypeError, 'examples[0].target', /required/],
    ['no data yet', (t) => t.step(1), RangeError, 'examples', /setData/],
    ['setWeights of the wrong size', (t) => t.setWeights({ wq: [1, 2] }), RangeError, 'wq', /wq has 2 values; expected 100/],
    ['setWeights of a parameter the model lacks', (t) => t.setWeights({ bq: [1] }), RangeError, 'bq', /not a parameter/],
  ];
  for (const [what, call, Kind, field, pattern] of cases) {
    it(what, () => {
      const trainer = engine.createTrainer(options);
      assert.throws(() => call(trainer), (error) => {
        assert.ok(error instanceof Kind, `${error.constructor.name}: ${error.message}`);
        assert.equal(error.field, field);
        assert.match(error.message, pattern);
        return true;
      });
      trainer.setData(train.slice(0, 2));
      assert.equal(trainer.step(1).losses.length, 1, 'the trainer still trains after the error');
      trainer.dispose();
    });
  }
  it('a vocabulary model given x instead of tokens names tokens and says what it got', () => {
    const trainer = engine.createTrainer({ model: { dModel: 4, vocabulary: 10 }, loss: { kind: 'attend' }, seed: 1 });
    assert.throws(() => trainer.setData([{ x: new Float32Array(12), query: 0, target: 1 }]),
      (error) => error.field === 'examples[0].tokens' && /got nothing \(undefined\)$/.test(error.message));
    trainer.setData([{ tokens: [1, 3, 2], query: 0, target: 1 }]);
    assert.equal(trainer.step(1).losses.length, 1);
    trainer.dispose();
  });
}

// calls that fail change nothing; steps split over calls change nothing either
function allOrNothingTests(engine) {
  it('setWeights is all or none: one bad entry leaves every weight and the optimiser as they were', () => {
    const trainer = engine.createTrainer(options);
    const twin = engine.createTrainer(options);
    for (const t of [trainer, twin]) {
      t.setData(train.slice(0, 4));
      t.step(3);
    }
    const before = trainer.weights();
    for (const bad of [{ wq: new Float32Array(100).fill(7), wk: [1, 2] }, { wq: new Float32Array(100).fill(7), wk: new Float32Array(100).fill(NaN) },
      { wq: new Float32Array(100).fill(7), bq: [1] }, { wq: new Float32Array(100).fill(7), wk: 'abc' }]) {
      assert.throws(() => trainer.setWeights(bad), (error) => error.field === Object.keys(bad)[1]);
      assert.deepEqual(trainer.weights(), before, 'no weight changed');
    }
    // Adam's moments were not reset either: the next steps match the twin that never saw the calls
    trainer.step(3);
    twin.step(3);
    assert.deepEqual(trainer.weights(), twin.weights());
    trainer.dispose();
    twin.dispose();
  });
  it('steps taken one call at a time, with evaluate and weights between, give the bits of one call of all of them', () => {
    const one = engine.createTrainer({ ...options, optimizer: { ...options.optimizer, batchSize: 4 } });
    const many = engine.createTrainer({ ...options, optimizer: { ...options.optimizer, batchSize: 4 } });
    one.setData(train);
    many.setData(train);
    const losses = [];
    for (let k = 0; k < 12; k++) {
      losses.push(...one.step(1).losses);
      one.evaluate(heldOut);
      one.weights();
    }
    assert.deepEqual(losses, [...many.step(12).losses]);
    assert.deepEqual(one.weights(), many.weights());
    one.dispose();
    many.dispose();
    // new data between calls: the next step's loss is the new data's at the current weights
    const all = engine.createTrainer(options);  // every example each step
    all.setData(train);
    all.step(3);
    all.setData(heldOut);
    const expected = all.evaluate(heldOut).loss;
    assert.equal(all.step(1).losses[0], expected);
    all.dispose();
  });
  it('a step call never leaves weights whose loss is not finite: Adam at 1e30 is refused at step 1', () => {
    const trainer = engine.createTrainer({ ...options, optimizer: { kind: 'adam', learningRate: 1e30 } });
    trainer.setData(train.slice(0, 4));
    const before = trainer.weights();
    assert.throws(() => trainer.step(1), (error) => error.field === 'optimizer.learningRate' &&
      /^learning rate too large: .* at step 1; the weights are those of step 0/.test(error.message));
    assert.equal(trainer.steps, 0);
    assert.deepEqual(trainer.weights(), before);
    assert.ok(Number.isFinite(trainer.evaluate(train.slice(0, 4)).loss));
    trainer.dispose();
  });
}

// specs createTrainer refuses, leaving no memory behind
function createTrainerErrorTests(engine) {
  const createCases = [
    ['an unknown loss', { ...options, loss: { kind: 'hinge' } }, TypeError, 'loss.kind', /'attend', 'classify' or 'regress'/],
    ['a parameter the model lacks', { ...options, train: ['wq', 'bq'] }, RangeError, 'train', /train names 'bq', which this model does not have/],
    ['a negative learning rate', { ...options, optimizer: { learningRate: -1 } }, RangeError, 'optimizer.learningRate', /above 0/],
    ['a misspelt optimizer option', { ...options, optimizer: { learningrate: 1 } }, TypeError, 'optimizer.learningrate', /unknown option/],
    ['a head that is not there', { ...options, loss: { kind: 'attend', head: 2 } }, RangeError, 'loss.head', /from 0 to 1/],
    ['classify without classes', { ...options, loss: { kind: 'classify' } }, RangeError, 'loss.classes', /from 2/],
    ['a keep mask', { ...options, model: { dModel: 10, mask: [1, 0] } }, TypeError, 'model.mask', /'none' or 'causal'/],
  ];
  for (const [what, spec, Kind, field, pattern] of createCases) {
    it(`createTrainer: ${what}`, () => {
      const before = engine.memory().allocatedBytes;
      assert.throws(() => engine.createTrainer(spec), (error) => error instanceof Kind && error.field === field && pattern.test(error.message));
      assert.equal(engine.memory().allocatedBytes, before, 'nothing left behind');
    });
  }
}

describe('the same seed gives the same bits in both builds', () => {
  it('losses and weights after 60 steps are identical, SIMD and scalar', () => {
    assert.ok(results.true && results.false, 'both builds trained');
    assert.deepEqual(results.true.losses, results.false.losses);
    assert.deepEqual(results.true.weights, results.false.weights);
  });
});
