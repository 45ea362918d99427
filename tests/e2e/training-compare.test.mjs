// "Compare before and after" (issue 23) in headless Chromium: after a training run, the Train
// section's link opens the compare view with lab A = the run's starting weights and lab B = the
// trained ones. Checked against the trainer itself: B's W_q, W_k, W_v are the run's snapshot's (one
// layer); for the two-layer "'tired' or 'wide'", A's and B's matrices are those of a stack trainer made
// and stepped as many steps in Node from the same task, and B's attention in every layer and head is
// the trainer's trace of the probe sentence; for induction (rotary positions), A is a stack trainer's
// step 0 made in Node, X its token rows, and B's attention the page trainer's trace of the probe
// sequence. The difference tables equal B − A of the two labs' results.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage, checkDifference } from './browser.mjs';
import { loadAttention } from '../../dist/lib/attention.node.mjs';
import { taskById, vocabularyOf } from '../../web/src/training/tasks.mjs';
import { embed } from '../../web/src/state/vocabulary.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;

async function chooseTask(id) {
  await page().selectOption('#train-task', id);
  await page().waitForFunction((id) => globalThis.attentionLab.training.run?.snapshot.steps === 0 &&
    document.querySelector('#train-task').value === id, id);
}

// Train until held-out accuracy reaches `goal` or `steps` steps have run, then pause
async function trainTo({ goal, steps }) {
  await page().click('#train-run');
  await page().waitForFunction(([goal, steps]) => {
    const run = globalThis.attentionLab.training.run;
    return run && (run.snapshot.heldOut.accuracy >= goal || run.snapshot.steps >= steps);
  }, [goal, steps], { timeout: 120_000 });
  if (await page().evaluate(() => globalThis.attentionLab.training.running)) await page().click('#train-run');
  await page().waitForFunction(() => !globalThis.attentionLab.training.running);
}

// the compare link, opened in a new page of the same browser: { compare (that page), shown }
async function openComparison() {
  await page().click('#train-compare');
  await page().waitForSelector('#train-compare-link[href]', { state: 'visible' });
  const href = await page().getAttribute('#train-compare-link', 'href');
  assert.match(href, /\?view=compare#lab=.*&lab=/);
  const compare = await page().context().browser().newPage();
  await compare.goto(href);
  await compare.waitForFunction(() => {
    const c = globalThis.attentionCompare;
    return c?.a.lab?.view && c.b.lab?.view && c.a.lab.idle && c.b.lab.idle && document.querySelector('.compare-weights table');
  }, null, { timeout: 60_000 });
  await compare.evaluate(() => globalThis.attentionCompare.update());
  const shown = await compare.evaluate(() => {
    const cells = (selector) => [...document.querySelectorAll(`${selector} tbody td`)].map((td) => ({
      value: Number(td.textContent), sign: td.classList.contains('diff-pos') ? 1 : td.classList.contains('diff-neg') ? -1 : 0,
    }));
    const labOf = (l) => ({
      state: l.state, head: Array.from(l.result.heads[0].weights), output: Array.from(l.result.output),
      layers: l.result.layers?.map((layer) => layer.heads.map((h) => Array.from(h.weights))) ?? null,
      heads: l.result.heads.map((h) => Array.from(h.weights)),
    });
    const { a, b } = globalThis.attentionCompare;
    return { weights: cells('.compare-weights'), output: cells('.compare-output'), a: labOf(a.lab), b: labOf(b.lab), caption: document.querySelector('.compare-weights caption')?.textContent };
  });
  return { compare, shown };
}

// as float32 (what the engine reads): a link writes each number as the shortest decimal of its float32,
// which reads back as a double a part in 10^8 away; so tolerance 0 means "the same float32"
const f32 = (values) => Array.from(values, Math.fround);

function close(actual, expected, tolerance, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  let worst = 0;
  actual.forEach((v, i) => { worst = Math.max(worst, Math.abs(Math.fround(v) - Math.fround(expected[i]))); });
  assert.ok(worst <= tolerance, `${what}: largest difference ${worst}`);
}

// The two-layer task's trainer, made in Node from the task as the page makes it (its words' fixed
// vectors, every attention matrix learning) and stepped `steps` steps: its weights
async function nodeStackWeights(steps) {
  const task = taskById('tired-or-wide-layers');
  const examples = task.build(task.model.dModel);
  const { words, ids } = vocabularyOf([...examples.train, ...examples.heldOut]);
  const learner = await loadAttention({ learning: true });
  const matrices = [0, 1].flatMap((l) => ['wq', 'wk', 'wv', 'wo'].map((w) => `layers.${l}.${w}`));
  const trainer = learner.createStackTrainer({
    model: { ...task.model, vocab: words.length }, loss: { ...task.loss, layer: 1 }, optimizer: task.optimizer,
    train: matrices, seed: task.seed, weights: { tokens: Float32Array.from(words.flatMap((w) => Array.from(embed(w, task.model.dModel)))) },
  });
  trainer.setData(examples.train.map((e) => ({ ids: ids(e), first: 0, query: e.query, target: e.target })));
  const initial = trainer.weights();
  if (steps) trainer.step(steps);
  const trained = trainer.weights();
  trainer.dispose();
  return { initial, trained };
}

// a lab state's hand-set matrices of layer l
const matricesOf = (state, l) => (l === 0 ? state.custom : state.layerWeights[l - 1]);

describe('Compare before and after training', () => {
  it('one layer (who is it): A has the starting W_q, W_k, W_v, B the trained ones; the table is B − A', async () => {
    await page().locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await page().waitForFunction(() => globalThis.attentionLab.training.run?.snapshot.steps === 0, null, { timeout: 30_000 });
    const weightsNow = () => page().evaluate(() => {
      const { snapshot } = globalThis.attentionLab.training.run;
      return { steps: snapshot.steps, wq: Array.from(snapshot.weights.wq), wk: Array.from(snapshot.weights.wk), wv: Array.from(snapshot.weights.wv), probe: snapshot.probe.map((h) => Array.from(h)) };
    });
    const start = await weightsNow();
    await trainTo({ goal: 0.95, steps: 300 });
    const trained = await weightsNow();
    assert.ok(trained.steps > 0);
    const { compare, shown } = await openComparison();
    for (const name of ['wq', 'wk', 'wv']) {
      assert.deepEqual(f32(shown.a.state.custom[name]), f32(start[name]), `A's ${name} is the run's at step 0`);
      assert.deepEqual(f32(shown.b.state.custom[name]), f32(trained[name]), `B's ${name} is the trainer's after ${trained.steps} steps`);
    }
    assert.notDeepEqual(shown.a.state.custom.wq, shown.b.state.custom.wq, 'training changed W_q');
    assert.equal(shown.a.state.sentence, shown.b.state.sentence);
    // B's attention on the probe sentence is the trainer's own (its snapshot), head by head
    shown.b.heads.forEach((weights, h) => close(weights, trained.probe[h], 1e-5, `B head ${h + 1} vs the trainer`));
    checkDifference(shown.weights, shown.a.head, shown.b.head, 'weights B − A');
    checkDifference(shown.output, shown.a.output, shown.b.output, 'output B − A');
    assert.ok(shown.weights.some((c) => c.sign !== 0), 'training moved the weights');
    await compare.close();
  });

  it("two layers ('tired' or 'wide'): A and B are the Node trainer's matrices at step 0 and after as many steps", async () => {
    await chooseTask('tired-or-wide-layers');
    assert.equal(await page().isVisible('#train-compare'), true);
    assert.equal(await page().isHidden('#train-compare-note'), true, 'the last task\'s link is gone');
    await trainTo({ goal: 0.95, steps: 100 });
    const run = await page().evaluate(() => {
      const { snapshot } = globalThis.attentionLab.training.run;
      return { steps: snapshot.steps, accuracy: snapshot.heldOut.accuracy, probe: snapshot.probe.map((layer) => layer.map((h) => Array.from(h))) };
    });
    assert.ok(run.accuracy >= 0.95, `held out ${run.accuracy}`);
    const { compare, shown } = await openComparison();
    const node = await nodeStackWeights(run.steps);
    for (const [which, weights] of [['a', node.initial], ['b', node.trained]]) {
      const { state } = shown[which];
      assert.equal(state.layers, 2);
      assert.equal(state.useWo, true);
      for (let l = 0; l < 2; l++) {
        for (const name of ['wq', 'wk', 'wv', 'wo']) {
          close(matricesOf(state, l)[name], Array.from(weights[`layers.${l}.${name}`]), which === 'a' ? 0 : 1e-4, `${which.toUpperCase()} layer ${l + 1} ${name}`);
        }
      }
    }
    // B's attention in every layer and head is the trainer's trace of the probe sentence
    run.probe.forEach((heads, l) => heads.forEach((weights, h) => close(shown.b.layers[l][h], weights, 1e-5, `B layer ${l + 1} head ${h + 1}`)));
    // the tables show layer 2 (the chosen layer of both), B − A
    assert.equal(shown.b.state.selectedLayer, 1);
    checkDifference(shown.weights, shown.a.head, shown.b.head, 'layer 2 weights B − A');
    close(shown.a.head, shown.a.layers[1][0], 0, 'the table is layer 2, head 1');
    checkDifference(shown.output, shown.a.output, shown.b.output, 'output B − A');
    await compare.close();
  });

  it('the link says what it opens in the lab\'s language, Hindi after the menu changes it', async () => {
    assert.match(await page().textContent('#train-compare-link'), /^Open the comparison: .* after \d+ steps/);
    await page().selectOption('#language', 'hi');
    await page().waitForFunction(() => /[\u0900-\u097F]/.test(document.querySelector('#train-compare-link').textContent));
    assert.match(await page().textContent('#train-compare-link'), /तुलना खोलें: .* \d+ चरणों/);
    await page().selectOption('#language', 'en');
    await page().waitForFunction(() => /^Open the comparison/.test(document.querySelector('#train-compare-link').textContent));
  });

});

describe('Compare before and after training with rotary positions', () => {
  it('induction (two attention-only layers with rotary positions): A is the trainer\'s step 0, B now; X the token table\'s rows; B\'s attention is the trainer\'s trace; the table is B − A', async () => {
    await chooseTask('induction');
    assert.equal(await page().isVisible('#train-compare'), true);
    await trainTo({ goal: 0.6, steps: 200 });
    const run = await page().evaluate(() => {
      const { snapshot, config } = globalThis.attentionLab.training.run;
      return { steps: snapshot.steps, model: config.model, probe: snapshot.probe.map((layer) => layer.map((h) => Array.from(h))) };
    });
    assert.ok(run.steps > 0);
    const { compare, shown } = await openComparison();
    // A: the trainer's weights at step 0, made here in Node from the task's seed
    const task = taskById('induction');
    const learner = await loadAttention({ learning: true });
    const trainer = learner.createStackTrainer({ model: run.model, loss: task.loss, optimizer: task.optimizer, train: [], seed: task.seed });
    const initial = trainer.weights();
    const example = task.build(run.model.dModel).heldOut[0];
    for (const which of ['a', 'b']) {
      const { state } = shown[which];
      assert.deepEqual([state.layers, state.block, state.useWo, state.rotary, state.rotaryTheta, state.rotaryDims, state.maskMode], [2, 'attention', true, true, 10000, null, 'causal']);
      assert.deepEqual(state.inputs.tokens, example.tokens, `${which.toUpperCase()} reads the probe sequence`);
    }
    const a = shown.a.state;
    for (let l = 0; l < 2; l++) {
      for (const name of ['wq', 'wk', 'wv', 'wo']) close(matricesOf(a, l)[name], Array.from(initial[`layers.${l}.${name}`]), 0, `A layer ${l + 1} ${name}`);
    }
    const d = run.model.dModel;
    close(a.inputs.rows.flat(), example.ids.flatMap((id) => Array.from(initial.tokens.subarray(id * d, (id + 1) * d))), 0, 'A\'s X: the step-0 token rows');
    const b = shown.b.state;
    assert.notDeepEqual(b.custom.wq, a.custom.wq, 'training changed W_q');
    // B's attention in every layer and head (the lab's rotary stack) is the stack trainer's own trace
    // of the probe sequence with B's weights (its token rows written over the step-0 table)
    const tokens = Float32Array.from(initial.tokens);
    example.ids.forEach((id, i) => tokens.set(b.inputs.rows[i], id * d));
    const own = Object.fromEntries([0, 1].flatMap((l) => ['wq', 'wk', 'wv', 'wo'].map((name) => [`layers.${l}.${name}`, Float32Array.from(matricesOf(b, l)[name])])));
    trainer.setWeights({ ...own, tokens });
    const trace = trainer.trace({ ids: example.ids, first: example.first });
    trainer.dispose();
    trace.layers.forEach((layer, l) => layer.attention.heads.forEach(({ weights }, h) => close(shown.b.layers[l][h], Array.from(weights), 1e-5, `B layer ${l + 1} head ${h + 1}`)));
    assert.ok(run.probe.length === 2, 'the page\'s run traced both layers');
    checkDifference(shown.weights, shown.a.head, shown.b.head, 'layer 2 weights B − A');
    checkDifference(shown.output, shown.a.output, shown.b.output, 'output B − A');
    await compare.close();
    await chooseTask('who-is-it');
    assert.equal(await page().isVisible('#train-compare'), true);
  });
});
