// "Compare before and after" (issue 23): the compare view's link (index.html?view=compare#lab=…&lab=…)
// with lab A = the lab's state with the run's starting weights (the task's, from its seed) and lab B =
// the same state with the weights learned so far, both on the probe sentence. One-layer tasks as
// "Use these weights" makes them; the stack of "'tired' or 'wide'" as an attention-only stack of as many
// layers; induction as a two-layer attention-only stack with rotary positions (state/modern.mjs), X the
// model's own token-table rows of the probe sequence (its unembedding, the next-token logits, is not
// in a lab: the lab ends at the residual stream after layer 2).
import { pause } from './run.mjs';
import { stateWithWeights } from './use.mjs';
import { stateToFragment, linkCarriesWeights, MAX_LINK } from '../state/link.mjs';

/**
 * Whether a task's weights make a lab state: every one-layer task, a stack on fixed words without
 * positions, and an attention-only stack with rotary positions (induction).
 */
export const comparable = (task) => !task.stack || (task.fixedTokens && (task.model.positions ?? 'none') === 'none') ||
  (task.model.positions === 'rotary' && (task.model.block ?? 'attention-only') === 'attention-only');

const own = (weights, l) => Object.fromEntries(['wq', 'wk', 'wv', 'wo'].map((name) => [name, Array.from(weights[`layers.${l}.${name}`])]));

/** The lab's state with a stack trainer's weights: attention-only blocks with W_O, on `example`'s sentence. */
export function stackStateWithWeights(state, { model, weights, example }) {
  const d = model.dModel / model.heads;
  return {
    ...state,
    preset: null, sentence: example.sentence, attention: 'self',
    dModel: model.dModel, heads: model.heads, dK: d, dV: d,
    scaleMode: 'sqrt_dk', maskMode: model.mask === 'none' ? 'none' : 'causal', positions: 'none',
    weightsMode: 'custom', useWo: true,
    custom: own(weights, 0), layerWeights: model.layers > 1 ? Array.from({ length: model.layers - 1 }, (_, l) => own(weights, l + 1)) : null,
    layers: model.layers, block: 'attention', blockEdits: {}, selectedLayer: model.layers - 1,
    inputs: null, x: null, xEdits: {}, contextEdits: {}, embeddings: null,
    selectedToken: example.query, selectedHead: 0,
    kvHeads: null, rotary: false, window: 0,
    ...(model.positions === 'rotary' ? rotaryInputs(model, weights, example) : {}),
  };
}

// A stack with rotary positions and its own token table (induction): X is the table's rows of the
// sequence's ids; q and k turned on all d_k features with θ = 10000, as the stack trainer does
// (core/src/stack_trainer.cpp); causal.
function rotaryInputs(model, weights, example) {
  const d = model.dModel;
  const rows = example.ids.map((id) => Array.from(weights.tokens.subarray(id * d, (id + 1) * d)));
  return {
    inputs: { tokens: [...example.tokens], rows }, maskMode: 'causal',
    rotary: true, rotaryTheta: 10000, rotaryDims: null,
  };
}

// a one-layer run's state: its learned embeddings too, when they learn (as "Use these weights")
function oneLayerState({ run, vocabulary }, state, weights, example) {
  const { model } = run.config;
  const learnedEmbeddings = run.config.train.includes('embeddings') && vocabulary
    ? Object.fromEntries(vocabulary.words.map((w, i) => [w, Array.from(weights.embeddings.subarray(i * model.dModel, (i + 1) * model.dModel))]))
    : null;
  return stateWithWeights(state, { model, weights, learnedEmbeddings, example });
}

/** The states before and after: { a, b } for the lab's state `state`, the starting and the current weights. */
export function beforeAndAfter(training, state, initial, current) {
  const example = training.examples.heldOut[Number(training.$('train-probe').value) || 0];
  const make = (weights) => (training.run.config.stack
    ? stackStateWithWeights(state, { model: training.run.config.model, weights, example })
    : oneLayerState(training, state, weights, example));
  return { a: make(initial), b: make(current) };
}

/**
 * The compare view's address for states a and b, on the page at `href` (its other parameters kept),
 * or null when a link cannot carry their weights (too many numbers, or longer than MAX_LINK).
 */
export function compareAddress(href, a, b) {
  if (!linkCarriesWeights(a) || !linkCarriesWeights(b)) return null;
  const fragment = `${stateToFragment(a)}&${stateToFragment(b).slice(1)}`;
  if (fragment.length - 1 > MAX_LINK) return null;
  const url = new URL(href);
  url.searchParams.set('view', 'compare');
  return `${url.origin}${url.pathname}${url.search}${fragment}`;
}

// The button: the run paused, its weights now read, the link written under the buttons (or why not)
async function showCompare(training) {
  const { $ } = training;
  if (!training.run?.initial) return;
  pause(training);
  await training.busy;
  const current = await training.engine.weights();
  if (!current || !training.run?.initial) return;
  const { a, b } = beforeAndAfter(training, training.getState(), training.run.initial, current);
  const address = compareAddress(location.href, a, b);
  const link = $('train-compare-link');
  link.hidden = !address;
  if (address) link.href = address;
  else link.removeAttribute('href');
  training.compareSteps = address ? training.run.snapshot.steps : null;
  $('train-compare-note').hidden = false;
  relabelCompare(training);
  if (address) link.focus();
}

/** The link's text (or why there is none) in the lab's language now. */
export function relabelCompare({ $, t, compareSteps }) {
  if ($('train-compare-note').hidden) return;
  $('train-compare-link').textContent = compareSteps === null ? '' : t('train.compareOpen', { steps: compareSteps });
  $('train-compare-why').textContent = compareSteps === null ? t('train.compareTooLarge', { max: MAX_LINK.toLocaleString('en') }) : '';
}

/** Wires the button; shown for the tasks whose weights make a lab (comparable). */
export function wireCompare(training) {
  const { $ } = training;
  const show = () => {
    $('train-compare').hidden = !comparable(training.task);
    $('train-compare-note').hidden = true;
  };
  show();
  $('train-task').addEventListener('change', show);
  $('train-reset').addEventListener('click', () => { $('train-compare-note').hidden = true; });
  $('train-compare').addEventListener('click', () => showCompare(training));
}
