// Every way a lab's state can change, as actions: reduce(state, action) → the new state (the same
// object when nothing changed). The controls, the tables, the notes and the features dispatch these;
// no one else writes a state.
import { BASE, presetState, tokensOf, withCellEdit, withSettingChange, withWeightEdit } from './model.mjs';
import { presetById } from './presets.mjs';
import { tokenize } from './tokenize.mjs';

// Fields a feature keeps, in its own way, when another example is chosen (practice mode keeps its
// settings but not its cells): field → keep(value) → the value the new example starts with.
// The lab's precision is the reader's, not the example's: it stays.
const KEPT_ACROSS_PRESETS = new Map([['digits', (digits) => digits]]);

/** Registers how a feature's field carries over to a newly chosen example (at the feature's module load). */
export function keepAcrossPresets(field, keep) {
  KEPT_ACROSS_PRESETS.set(field, keep);
}

// A preset chosen from the menu: its state, with what features keep; no id: the reader's own sentence.
function choosePreset(state, { id }) {
  if (!id) return { ...state, preset: null };
  const next = presetState(id);
  for (const [field, keep] of KEPT_ACROSS_PRESETS) next[field] = keep(state[field]);
  return next;
}

// One of the example's notes' buttons: an experiment it proposes, or back to the example.
function noteAction(state, { key }) {
  if (key === 'restore') return presetState(state.preset);
  const action = presetById(state.preset)?.actions?.find((a) => a.key === key);
  return action ? action.apply(state) : state;
}

// A token or head chosen: always a new state, so choosing the one shown draws it again (as a click expects).
function select(state, { token, head, layer }) {
  const next = { ...state };
  if (token !== undefined) next.selectedToken = token;
  if (head !== undefined) next.selectedHead = head;
  if (layer !== undefined) next.selectedLayer = layer;
  return next;
}

// What an example sets for its own sentence only (its sizes, hand-made weights and vectors): a sentence
// of the reader's own starts again from the vocabulary's (BASE), as a fresh sentence would (issue 26).
const EXAMPLE_ONLY = ['dModel', 'heads', 'dK', 'dV', 'scaleMode', 'scaleDivisor', 'weightsMode', 'seed', 'custom', 'useWo', 'x', 'xEdits'];
const sameTokens = (a, b) => tokenize(a).tokens.join('\u0001') === tokenize(b).tokens.join('\u0001');

// A sentence typed under a causal mask: a query on the last token stays on the last token (the one
// that sees every other; review 9, finding 8: a model's layer opens there); another query stays put.
function withQueryAtEnd(state, next) {
  if (next.maskMode !== 'causal' || !Number.isInteger(state.selectedToken)) return next;
  const was = tokensOf(state).tokens.length;
  const now = tokensOf(next).tokens.length;
  return was > 0 && now > 0 && state.selectedToken === was - 1 ? { ...next, selectedToken: now - 1 } : next;
}

// Settings typed: a sentence that is not the example's leaves the example (the menu then says "Your own
// sentence"), takes the vocabulary's d_model and weights, and keeps the query on the same word if it is there.
function settingsChange(state, { change }) {
  const next = withSettingChange(state, change).state;
  const preset = typeof change.sentence === 'string' && state.preset ? presetById(state.preset) : null;
  if (!preset || sameTokens(change.sentence, preset.state.sentence ?? '')) return typeof change.sentence === 'string' ? withQueryAtEnd(state, next) : next;
  const fresh = Object.fromEntries(EXAMPLE_ONLY.map((field) => [field, structuredClone(BASE[field])]));
  const word = tokensOf(state).tokens[state.selectedToken];
  const at = tokenize(change.sentence).tokens.indexOf(word);
  return { ...next, ...fresh, preset: null, selectedToken: at >= 0 ? at : 0 };
}

const REDUCERS = {
  // a whole new state: a link, attributes, a loaded layer, learned weights, practice's settings
  // (a state without a precision, a link's that carries none, keeps the reader's)
  replace: (state, action) => (Object.hasOwn(action.state, 'digits') ? action.state : { ...action.state, digits: state.digits }),
  preset: choosePreset,
  note: noteAction,
  // settings typed in the form: { field: value } (controls/read)
  settings: settingsChange,
  // a cell of X or of the context typed
  cell: (state, { which, row, token, col, value }) => withCellEdit(state, which, row, token, col, value),
  // a parameter typed: the matrices as the engine used them become the reader's own
  weight: (state, { weights, cell, value, layers }) => withWeightEdit(state, weights, cell, value, layers),
  scaling: (state, { on }) => ({ ...state, scaleMode: on ? 'sqrt_dk' : 'none' }),
  select,
  // the lab's precision ("Digits"): only a redraw, carried by the link (issue 26, point 6)
  digits: (state, { digits }) => ({ ...state, digits }),
};

// The chosen token and head stay within the tables (a shorter sentence, fewer heads).
function withSelectionInRange(state) {
  const last = tokensOf(state).tokens.length - 1;
  const token = last >= 0 && Number.isInteger(state.selectedToken) && state.selectedToken > last ? last : state.selectedToken;
  const { heads, selectedHead: head } = state;
  const tooHigh = head !== 'all' && Number.isInteger(heads) && heads >= 1 && Number.isInteger(head) && head >= heads;
  const { layers, selectedLayer: layer } = state;
  const layerTooHigh = Number.isInteger(layers) && layers >= 1 && Number.isInteger(layer) && layer >= layers;
  if (token === state.selectedToken && !tooHigh && !layerTooHigh) return state;
  return { ...state, selectedToken: token, selectedHead: tooHigh ? 0 : head, selectedLayer: layerTooHigh ? layers - 1 : layer };
}

/** The state after `action` ({ type, … }); an unknown type is a programming error. */
export function reduce(state, action) {
  if (!Object.hasOwn(REDUCERS, action.type)) throw new Error(`unknown action "${action.type}"`);
  const next = REDUCERS[action.type](state, action);
  return next === state ? state : withSelectionInRange(next);
}

/** Action types that only choose what is shown (no new computation). */
export const SELECTION_ACTIONS = new Set(['select', 'digits']);
