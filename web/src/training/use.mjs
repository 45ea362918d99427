// "Use these weights": the run's learned parameters (and embeddings, when they learned) become the
// lab's state, on the probe sentence, with a status line saying so.
import { pause } from './run.mjs';

/** The lab's state with the learned layer: one self-attention layer on `example`'s sentence. */
export function stateWithWeights(state, { model, weights, learnedEmbeddings, example }) {
  const d = model.dModel / model.heads;
  return {
    ...state,
    preset: null, sentence: example.sentence, attention: 'self',
    dModel: model.dModel, heads: model.heads, dK: d, dV: d,
    scaleMode: 'sqrt_dk', maskMode: 'none', positions: model.positions ?? 'none', kvHeads: null, rotary: false, window: 0,
    weightsMode: 'custom', useWo: false,
    custom: { wq: Array.from(weights.wq), wk: Array.from(weights.wk), wv: Array.from(weights.wv), wo: null },
    inputs: null, x: null, xEdits: {}, contextEdits: {}, embeddings: learnedEmbeddings,
    selectedToken: example.query, selectedHead: 0,
  };
}

export async function useWeights(training) {
  if (!training.run) return;
  pause(training);
  await training.busy;
  const weights = await training.engine.weights();
  if (!weights) return;
  const { run, examples, vocabulary, t } = training;
  const { model } = run.config;
  const example = examples.heldOut[Number(training.$('train-probe').value) || 0];
  const learnedEmbeddings = run.config.train.includes('embeddings') && vocabulary
    ? Object.fromEntries(vocabulary.words.map((w, i) => [w, Array.from(weights.embeddings.subarray(i * model.dModel, (i + 1) * model.dModel))]))
    : null;
  const state = stateWithWeights(training.getState(), { model, weights, learnedEmbeddings, example });
  training.useState(state, t(learnedEmbeddings ? 'train.usedEmbeddings' : 'train.used', { sentence: example.sentence }));
  // the tables it changed, in view; the Train section says where they went
  training.$('train-stopped').textContent = t('train.usedHere', { sentence: example.sentence });
  // (after the lab has drawn them: sections out of view change height as they are laid out)
  const section = training.section.getRootNode().getElementById?.('weights')?.closest('section');
  const show = () => section?.scrollIntoView({ block: 'start' });
  show();
  requestAnimationFrame(() => requestAnimationFrame(show));
  setTimeout(show, 250);
}
