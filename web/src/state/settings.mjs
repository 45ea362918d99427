// One way from a host's settings to a lab's state: the full page and the embed read them from the
// address (?preset=…&heads=2&mode=practice#lab=…), the component from its attributes (preset="…"
// heads="2" mode="practice" state="lab=…"). Both call stateFromSettings with a getter, so the rules
// (identity weights stay square, hand-set weights that no longer fit are replaced, a mode) are
// written once. Nothing is trusted: a value that cannot be used gives a problem naming its setting.
import { problemOf } from '../i18n/page.mjs';
import { presetState, defaultState } from './model.mjs';
import { stateFromFragment } from './link.mjs';
import { BLOCKS, NORMS } from './stack.mjs';

// Settings whose text is a number, and the state field each sets.
const NUMBER_SETTINGS = { 'd-model': 'dModel', heads: 'heads', 'd-k': 'dK', 'd-v': 'dV', seed: 'seed', query: 'selectedToken' };
const MASKS = ['none', 'causal', 'padding'];

// A setting's text as a number when it is one; otherwise the text itself, so that the lab's own
// checks name the field and show what was given.
function numberOrText(text) {
  const value = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(value) ? value : text;
}

// The starting point: a link's state ('state'), else a preset, else the first example.
function startingState(get, problems) {
  const link = get('state');
  const preset = get('preset');
  if (link) {
    const parsed = stateFromFragment(link);
    if (parsed.problems) problems.push(...parsed.problems);
    return parsed.state ?? defaultState();
  }
  if (!preset) return defaultState();
  const chosen = presetState(preset);
  if (chosen.preset !== preset) problems.push(problemOf('preset', 'problem.preset', { value: preset.slice(0, 40), shown: chosen.preset }));
  return chosen;
}

// Sentences and sizes; identity weights are square, so a d-model alone takes d_k and d_v with it.
function withTextAndSizes(state, get) {
  let next = state;
  if (get('sentence') !== null) next = { ...next, sentence: get('sentence'), preset: null };
  if (get('context') !== null) next = { ...next, attention: 'cross', contextSentence: get('context') };
  for (const [name, field] of Object.entries(NUMBER_SETTINGS)) {
    if (get(name) !== null) next = { ...next, [field]: numberOrText(get(name)) };
  }
  if ((get('weights') ?? next.weightsMode) === 'identity' && get('d-model') !== null && Number.isInteger(next.dModel)) {
    if (get('d-k') === null) next = { ...next, dK: next.dModel };
    if (get('d-v') === null) next = { ...next, dV: next.dModel };
  }
  return next;
}

// Scaling, mask, weights and W_O.
function withComputation(state, get, problems) {
  let next = state;
  const scale = get('scale');
  if (scale === 'sqrt_dk' || scale === 'none') next = { ...next, scaleMode: scale };
  else if (scale !== null) next = { ...next, scaleMode: 'custom', scaleDivisor: numberOrText(scale) };
  const mask = get('mask');
  if (MASKS.includes(mask)) next = { ...next, maskMode: mask };
  else if (mask !== null) problems.push(problemOf('mask', 'problem.mask', { value: mask.slice(0, 40) }));
  const weights = get('weights');
  if (weights === 'identity' || weights === 'random') next = { ...next, weightsMode: weights, custom: null };
  else if (weights !== null) problems.push(problemOf('weightsMode', 'problem.weights', { value: weights.slice(0, 40) }));
  const wo = get('wo');
  if (wo !== null) next = { ...next, useWo: wo === 'on' || wo === 'true' || wo === '' };
  return withModern(withBlocks(next, get, problems), get);
}

// Attention as real models have it: kv-heads="2", window="4", rotary="10000" (on, with θ; "on" keeps
// θ, "off" turns it off; other text is kept as θ for the lab to name), rotary-dims="8".
function withModern(state, get) {
  let next = state;
  for (const [name, field] of [['kv-heads', 'kvHeads'], ['window', 'window'], ['rotary-dims', 'rotaryDims']]) {
    if (get(name) !== null) next = { ...next, [field]: numberOrText(get(name)) };
  }
  const rotary = get('rotary');
  if (rotary === null) return next;
  const text = rotary.trim().toLowerCase();
  if (text === 'off' || text === 'false' || text === 'none') return { ...next, rotary: false };
  if (text === 'on' || text === 'true' || text === '') return { ...next, rotary: true };
  return { ...next, rotary: true, rotaryTheta: numberOrText(rotary) };
}

// The stack (issue 23): layers="2" (checked by the lab, which names the setting), block="attention"
// or "full", norm="pre" or "post", layer="2" (the layer shown, counted from 1).
function withBlocks(state, get, problems) {
  let next = state;
  if (get('layers') !== null) next = { ...next, layers: numberOrText(get('layers')) };
  const block = get('block');
  if (BLOCKS.includes(block)) next = { ...next, block };
  else if (block !== null) problems.push(problemOf('block', 'blocks.problem.block', { value: JSON.stringify(block.slice(0, 40)) }));
  const norm = get('norm');
  if (NORMS.includes(norm)) next = { ...next, norm };
  else if (norm !== null) problems.push(problemOf('norm', 'blocks.problem.norm', { value: JSON.stringify(norm.slice(0, 40)) }));
  const layer = get('layer');
  if (layer !== null) {
    const chosen = numberOrText(layer);
    if (Number.isInteger(chosen) && chosen >= 1) next = { ...next, selectedLayer: chosen - 1 };
    else problems.push(problemOf('layer', 'blocks.problem.layer', { value: JSON.stringify(layer.slice(0, 40)) }));
  }
  return next;
}

// 'practice' opens practice mode on the state; 'explore' (or nothing) leaves it as it is.
function withMode(state, mode, problems) {
  if (mode === 'practice') return { ...state, practice: state.practice ?? {} };
  if (mode !== null && mode !== 'explore') problems.push(problemOf('mode', 'problem.mode', { value: mode.slice(0, 40) }));
  return state;
}

/**
 * The state a host's settings describe, and the problems met on the way: { state, problems }.
 * `get(name)` gives a setting's text or null: state, preset, sentence, context, d-model, heads, d-k,
 * d-v, scale, mask, weights, seed, wo, query, mode, layers, block, norm, layer, kv-heads, rotary,
 * rotary-dims, window.
 */
export function stateFromSettings(get) {
  const problems = [];
  const start = startingState(get, problems);
  let state = withComputation(withTextAndSizes(start, get), get, problems);
  const sizes = (s) => [s.dModel, s.heads, s.dK, s.dV].join();
  // sizes that no longer fit hand-set weights: seeded random ones instead
  if (state.weightsMode === 'custom' && (sizes(state) !== sizes(start) || state.kvHeads !== start.kvHeads)) {
    state = { ...state, weightsMode: 'random', custom: null, layerWeights: null };
    problems.push(problemOf('weightsMode', 'weights.replaced', { seed: state.seed }));
  }
  return { state: withMode(state, get('mode'), problems), problems };
}

/** A getter over an address: the fragment is the 'state' setting, the query parameters the others. */
export function settingsOfAddress(address) {
  const url = new URL(address);
  return (name) => (name === 'state' ? url.hash.replace(/^#/, '') || null : url.searchParams.get(name));
}
