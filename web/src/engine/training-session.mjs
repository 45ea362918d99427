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
    /** Which held-out sentence the heatmap shows. */
    probe(index) {
      if (!session.trainer) return null;
      session.run.probe = Math.max(0, Math.min(session.run.heldOut.length - 1, index));
      return snapshot(session);
    },
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
    session.run = { model, heldOut: config.examples.heldOut, heldOutData: config.examples.heldOut.map((e) => strip(e, ids)), vocabulary, probe: config.probe ?? 0 };
    return snapshot(session);
  } catch (error) {
    session.trainer?.dispose();
    session.trainer = null;
    return asError(error);
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

function snapshot(session, losses = []) {
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
