// One training run, where the engine is (the worker, or the page when there is none). The page
// sends the examples once; each step() call runs k optimiser steps inside WebAssembly and returns
// what the pictures need: the losses, held-out loss and accuracy, W_q, W_k, W_v, and the attention
// of one held-out sentence. Errors come back as data ({ error: { field, message } }), like run().
//
// A session is one object, { getEngine, trainer, run }, and the functions below take it.

const strip = (e, ids) => ({
  ...(ids ? { tokens: ids(e) } : { x: e.x }),
  query: e.query, target: e.target,
  ...(e.head === undefined ? {} : { head: e.head }),
});

// a stack's example: its token ids (given, or looked up in the run's words), where scoring starts, the query and target
const stackExample = (e, ids) => ({ ids: e.ids ?? ids(e), first: e.first ?? 0, query: e.query, target: e.target });

const asError = (error) => ({ error: { name: error.name, field: error.field ?? null, message: error.message, losses: error.losses ? Array.from(error.losses) : [] } });

export function createTrainingSession(getEngine) {
  const session = { getEngine, trainer: null, run: null };  // run: { model, heldOut, heldOutData, vocabulary, probe }
  return {
    /**
     * config: { model, loss, optimizer, train, seed, examples: { train, heldOut }, probe, embeddings? }
     * where embeddings = { words, table } makes the embedding table trainable (examples by token id).
     */
    start: (config) => start(session, config),
    /**
     * k optimiser steps, then a snapshot (or, with `quiet`, only { losses, stepMs }: a slice of a
     * frame's steps). A refused step: the error, with the weights of the last good step kept.
     */
    step: (k, quiet = false) => step(session, k, quiet),
    /** Held-out accuracy with the heads [[layer, head], …] switched off (this call only). */
    ablate(heads) {
      if (!session.trainer || !session.run.stack) return null;
      try {
        return session.trainer.evaluate(session.run.heldOutData, { ablate: heads });
      } catch (error) {
        return asError(error);
      }
    },
    /** Which held-out sentence the heatmap shows. */
    probe(index) {
      if (!session.trainer) return null;
      session.run.probe = Math.max(0, Math.min(session.run.heldOut.length - 1, index));
      return snapshot(session);
    },
    /** One weight's gradient of the training loss, with the loss at w and w ± h (gradient.mjs). */
    gradient: (request) => oneGradient(session, request),
    /** Every learned parameter (Float32Array copies), for "Use these weights". */
    weights: () => (session.trainer ? session.trainer.weights() : null),
    dispose() {
      session.trainer?.dispose();
      session.trainer = null;
      session.run = null;
    },
  };
}

function start(session, config) {
  if (config.stack) return startStack(session, config);
  try {
    session.trainer?.dispose();
    session.trainer = null;
    const engine = session.getEngine();
    let vocabulary = null;
    const model = { ...config.model };
    if (config.embeddings) {
      const index = new Map(config.embeddings.words.map((w, i) => [w, i]));
      vocabulary = { words: config.embeddings.words, ids: (e) => e.tokens.map((t) => index.get(t.toLowerCase())) };
      model.vocabulary = config.embeddings.words.length;
    }
    session.trainer = engine.createTrainer({ model, loss: config.loss, optimizer: config.optimizer, train: config.train, seed: config.seed });
    if (config.embeddings) session.trainer.setWeights({ embeddings: config.embeddings.table });
    const ids = vocabulary?.ids;
    session.trainer.setData(config.examples.train.map((e) => strip(e, ids)));
    session.run = { model, heldOut: config.examples.heldOut, heldOutData: config.examples.heldOut.map((e) => strip(e, ids)), vocabulary, probe: config.probe ?? 0,
      loss: config.loss, trainData: config.examples.train.map((e) => strip(e, ids)) };
    return snapshot(session);
  } catch (error) {
    session.trainer?.dispose();
    session.trainer = null;
    return asError(error);
  }
}

// A stack's run (engine.createStackTrainer): the token table fixed from the given words' vectors when
// the config carries them (config.tokens: { words, table }), else learned from the seed.
function startStack(session, config) {
  try {
    session.trainer?.dispose();
    session.trainer = null;
    const model = { ...config.model };
    let ids = null;
    if (config.tokens) {
      const index = new Map(config.tokens.words.map((w, i) => [w, i]));
      ids = (e) => e.tokens.map((t) => index.get(t.toLowerCase()));
      model.vocab = config.tokens.words.length;
    }
    session.trainer = session.getEngine().createStackTrainer({
      model, loss: config.loss, optimizer: config.optimizer, train: config.train, seed: config.seed,
      ...(config.tokens ? { weights: { tokens: config.tokens.table } } : {}),
    });
    session.trainer.setData(config.examples.train.map((e) => stackExample(e, ids)));
    const { heldOut } = config.examples;
    session.run = { stack: true, model, heldOut, heldOutData: heldOut.map((e) => stackExample(e, ids)), ids, probe: config.probe ?? 0 };
    return snapshot(session);
  } catch (error) {
    session.trainer?.dispose();
    session.trainer = null;
    return asError(error);
  }
}

// One weight's gradient of the training loss over every training sentence (issue 26, a wish), at the
// run's weights now: the engine's backward pass, read from one step of plain gradient descent (SGD,
// rate 1, no momentum, all sentences) on a twin trainer, whose change in the weight is −dLoss/dw; and
// the loss at w and at w ± h, each from the engine's forward pass alone (evaluate), to check it by.
// request: { name, index, h }. The run's own trainer is not touched.
function oneGradient(session, { name, index, h = 0.01 }) {
  const { trainer, run } = session;
  if (!trainer || run.stack) return { error: { name: 'Error', field: 'trainer', message: 'no one-layer training run: choose a task first' } };
  const weights = trainer.weights();
  const w = weights[name];
  if (!w) return { error: { name: 'RangeError', field: 'name', message: `name: this run has no parameter '${String(name).slice(0, 40)}'` } };
  if (!Number.isInteger(index) || index < 0 || index >= w.length) return { error: { name: 'RangeError', field: 'index', message: `index must be a whole number from 0 to ${w.length - 1}` } };
  let twin = null;
  try {
    twin = session.getEngine().createTrainer({ model: run.model, loss: run.loss, optimizer: { kind: 'sgd', learningRate: 1, momentum: 0, batchSize: 0 }, train: [name], seed: 0 });
    twin.setWeights(weights);
    twin.setData(run.trainData);
    const lossAt = (value) => {
      const moved = Float32Array.from(w);
      moved[index] = value;
      twin.setWeights({ [name]: moved });
      return twin.evaluate(run.trainData).loss;
    };
    const value = w[index];
    const [plus, minus, loss] = [lossAt(value + h), lossAt(value - h), lossAt(value)];
    twin.step(1);
    return { name, index, value, gradient: value - twin.weights()[name][index], loss, plus, minus, h };
  } catch (error) {
    return asError(error);
  } finally {
    twin?.dispose();
  }
}

function step(session, k, quiet) {
  const { trainer } = session;
  if (!trainer) return { error: { name: 'Error', field: 'trainer', message: 'no training run: choose a task and press Train' } };
  try {
    const started = performance.now();
    const { losses } = trainer.step(k);
    const stepMs = (performance.now() - started) / k;
    return quiet ? { losses: Array.from(losses), stepMs } : { ...snapshot(session, losses), stepMs };
  } catch (error) {
    return { ...asError(error), snapshot: snapshot(session, error.losses ?? []) };
  }
}

// the attention of the probe sentence (its heads' weights) with these weights
function probeAttention({ getEngine, run }, weights) {
  const { model } = run;
  const e = run.heldOut[run.probe];
  const n = e.tokens.length;
  let x = e.x;
  if (run.vocabulary) {
    // the sentence's rows of the learned embedding table
    x = new Float32Array(n * model.dModel);
    run.vocabulary.ids(e).forEach((id, i) => x.set(weights.embeddings.subarray(id * model.dModel, (id + 1) * model.dModel), i * model.dModel));
  }
  const result = getEngine().attention({
    x, n, dModel: model.dModel, heads: model.heads, wq: weights.wq, wk: weights.wk, wv: weights.wv,
    wo: model.wo === false ? null : weights.wo,
    ...(model.biases ? { bq: weights.bq, bk: weights.bk, bv: weights.bv, ...(model.wo === false ? {} : { bo: weights.bo }) } : {}),
    positions: model.positions ?? 'none',
  });
  return result.heads.map((h) => h.weights);
}

// Every head's standard score over (up to 64 of) the held-out sequences (Olsson et al. 2022):
// previous-token, the mean weight from i to i − 1; induction, from a repeated token to the one after
// its earlier copy. [layer][head] → { previous, induction }.
function headScores({ trainer, run }) {
  const { layers, heads } = run.model;
  const sums = Array.from({ length: layers }, () => Array.from({ length: heads }, () => ({ previous: 0, induction: 0 })));
  let previousCount = 0;
  let inductionCount = 0;
  for (const e of run.heldOut.slice(0, 64)) {
    const trace = trainer.trace({ ids: e.ids, first: e.first });
    const n = e.ids.length;
    trace.layers.forEach((layer, l) => layer.attention.heads.forEach(({ weights: a }, h) => {
      for (let i = 1; i < n; i++) sums[l][h].previous += a[i * n + i - 1];
      for (let i = e.k; i < n; i++) sums[l][h].induction += a[i * n + (i - e.k + e.r + 1)];
    }));
    previousCount += n - 1;
    inductionCount += n - e.k;
  }
  return sums.map((row) => row.map(({ previous, induction }) => ({ previous: previous / previousCount, induction: induction / inductionCount })));
}

// 'it' in the probe sentence and its twin (the same sentence with the other adjective, i ^ 1):
// layer 1's weight on the adjective, and how far each layer's query of 'it' moves between the two,
// |q − q_twin| / |q| with the heads' queries side by side
function twinFindings({ trainer, run }) {
  const e = run.heldOut[run.probe];
  const twin = run.heldOutData[run.probe ^ 1];
  if (!twin || e.query < 0) return null;
  const a = trainer.trace(run.heldOutData[run.probe]);
  const b = trainer.trace(twin);
  const n = e.tokens.length;
  const adjective = n - 1;
  const heads = a.layers[0].attention.heads;
  const onAdjective = heads.reduce((sum, h) => sum + h.weights[e.query * n + adjective], 0) / heads.length;
  const moved = a.layers.map((layer, l) => {
    let diff = 0;
    let norm = 0;
    layer.attention.heads.forEach((head, h) => {
      const d = head.q.length / n;
      for (let c = 0; c < d; c++) {
        const q = head.q[e.query * d + c];
        diff += (q - b.layers[l].attention.heads[h].q[e.query * d + c]) ** 2;
        norm += q * q;
      }
    });
    return norm > 0 ? Math.sqrt(diff / norm) : 0;
  });
  return { adjective: e.tokens[adjective], onAdjective, moved };
}

function stackSnapshot(session, losses) {
  const { trainer, run } = session;
  const heldOut = trainer.evaluate(run.heldOutData);
  let probe = null;
  let scores = null;
  let twin = null;
  try {
    const trace = trainer.trace(run.heldOutData[run.probe]);
    probe = trace.layers.map((layer) => layer.attention.heads.map((h) => h.weights));
    scores = run.heldOut[0].k === undefined ? null : headScores(session);
    twin = run.heldOut[0].k === undefined && run.model.layers > 1 ? twinFindings(session) : null;
  } catch {
    // weights so large that the scores overflow (a diverged run): no picture, the numbers say why
  }
  return { steps: trainer.steps, losses: Array.from(losses), heldOut, probe, scores, twin, stack: true };
}

function snapshot(session, losses = []) {
  if (session.run.stack) return stackSnapshot(session, losses);
  const weights = session.trainer.weights();
  const heldOut = session.trainer.evaluate(session.run.heldOutData);
  let probe = null;
  try {
    probe = probeAttention(session, weights);
  } catch {
    // weights so large that the scores overflow (a diverged run): no picture, the numbers say why
  }
  return {
    steps: session.trainer.steps, losses: Array.from(losses), heldOut,
    weights: { wq: weights.wq, wk: weights.wk, wv: weights.wv },
    probe,
  };
}
