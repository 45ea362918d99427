// The settings form of a lab: filled from the state, read back into changes. DOM only; what a
// change means for the state is decided in state/ (withSettingChange, state/model.mjs; actions.mjs).
import { PRESETS } from '../state/presets.mjs';
import { parseNumber } from '../shared/format.mjs';
import { ownWeights } from '../state/model.mjs';

export const SIZE_FIELDS = ['dModel', 'heads', 'dK', 'dV'];
// the Example menu's value for a model's layer from Real models (not a preset: never dispatched)
const MODEL_ENTRY = 'model-layer';

// The menu's entry for a model's layer: named and shown while the lab runs the model's own tokens
// (the model's name is config.json's text: textContent, isolated by t); true when it is shown.
function modelEntry(select, t, state) {
  const entry = [...select.options].find((option) => option.value === MODEL_ENTRY);
  const source = state?.modelBlock?.source;
  const on = Boolean(source && state.inputs && !state.preset);
  if (!entry) return on;
  entry.hidden = !on;
  if (on) entry.textContent = t('controls.modelLayer', { model: source.model, layer: source.layer });
  return on;
}
// The Example menu's entries: the presets, "Your own sentence", and a model's layer from Real models,
// shown while the lab holds its tokens and never chosen (review 10, F); texts set by relabel.
function presetOptions() {
  const option = (value, text) => {
    const each = document.createElement('option');
    each.value = value;
    if (text) each.dataset.text = text;
    return each;
  };
  const model = option(MODEL_ENTRY);
  model.disabled = true;
  model.hidden = true;
  return [...PRESETS.map((preset) => option(preset.id, `preset.${preset.id}.title`)), option('', 'controls.ownSentence'), model];
}
const HINTED = ['attention', 'dModel', 'heads', 'dK', 'dV', 'maskMode', 'useWo', 'kvHeads', 'rotary', 'window'];
// attention as real models have it (state/modern.mjs): an empty box is the default (null: as many
// key/value heads as heads; every feature of d_k rotated)
const MODERN_NUMBERS = ['kvHeads', 'rotaryDims', 'window'];

/** `t(key, values)`: the lab's language, read each time a text is set. */
export function createControls({ root, container, t }) {
  const $ = (id) => root.getElementById(id);
  const field = (name) => container.querySelector(`.field[data-field="${name}"]`);
  let lastState = null;  // what sync showed last, for relabel

  function fillPresetMenu() {
    $('preset').append(...presetOptions());
    relabel();
  }

  // The texts set here, in the lab's language now (after a switch of language too).
  function relabel() {
    for (const option of $('preset').options) if (option.dataset.text) option.textContent = t(option.dataset.text);
    modelEntry($('preset'), t, lastState);
    for (const name of HINTED) {
      const tip = root.getElementById(`tip-${name}`);
      if (tip) tip.textContent = t(`hint.${name}`);
    }
  }

  // Short hints on the settings, shown on hover and focus (styles.css), read out as descriptions.
  function addHints() {
    for (const name of HINTED) {
      const tip = document.createElement('span');
      tip.className = 'tip';
      tip.id = `tip-${name}`;
      tip.setAttribute('role', 'tooltip');
      tip.textContent = t(`hint.${name}`);
      field(name).append(tip);
      for (const input of field(name).querySelectorAll('input, select')) input.setAttribute('aria-describedby', tip.id);
    }
    // the settings (masks, positions, cross attention: nothing the notes have met first) start folded,
    // so that the first screen shows the sentence, the formula and the step table (issue 26)
    $('settings').open = false;
  }

  /** Every control shows the state, but the one being typed in (`except`, an id), which keeps its text. */
  function sync(state, except = null) {
    // a field is written only when it shows something else: writing a value (the sentence's above
    // all) makes the browser lay the form out again, on every edit of a cell
    const set = (id, value) => {
      if (id !== except && $(id).value !== value) $(id).value = value;
    };
    lastState = state;
    set('preset', modelEntry($('preset'), t, state) ? MODEL_ENTRY : state.preset ?? '');
    set('sentence', state.sentence);
    set('contextSentence', state.contextSentence);
    for (const radio of container.querySelectorAll('input[name="attention"]')) {
      if (radio.checked !== (radio.value === state.attention)) radio.checked = radio.value === state.attention;
    }
    for (const name of [...SIZE_FIELDS, 'padTo', 'seed']) set(name, String(state[name]));
    set('scaleMode', state.scaleMode);
    set('scaleDivisor', String(state.scaleDivisor));
    set('maskMode', state.maskMode);
    set('weightsMode', state.weightsMode);
    if ($('useWo').checked !== state.useWo) $('useWo').checked = state.useWo;
    set('positions', state.positions ?? 'none');
    for (const name of MODERN_NUMBERS) set(name, state[name] === null ? '' : String(state[name]));
    set('rotaryTheta', String(state.rotaryTheta));
    if ($('rotary').checked !== (state.rotary === true)) $('rotary').checked = state.rotary === true;
    showDependent(state);
  }

  /** Fields that only matter for some settings (the context, the divisor, padding, the seed). */
  function showDependent(state) {
    field('contextSentence').hidden = state.attention !== 'cross';
    field('scaleDivisor').hidden = state.scaleMode !== 'custom';
    field('padTo').hidden = state.maskMode !== 'padding';
    field('seed').hidden = state.weightsMode !== 'random';
    field('rotaryTheta').hidden = state.rotary !== true;
    field('rotaryDims').hidden = state.rotary !== true;
  }

  return { fillPresetMenu, addHints, relabel, sync, showDependent, read: readControl };
}

/** The change a control asks for: { field: value }, numbers as numbers, text kept when it is not one. */
export function readControl(target) {
  const id = target.id || target.name;
  if (SIZE_FIELDS.includes(id) || id === 'padTo' || id === 'seed') {
    const text = target.value.trim();
    return { [id]: text === '' ? text : Number(text) };
  }
  if (id === 'scaleDivisor') return { scaleDivisor: parseNumber(target.value) ?? target.value };
  if (id === 'useWo' || id === 'rotary') return { [id]: target.checked };
  if (MODERN_NUMBERS.includes(id)) {
    const text = target.value.trim();
    // empty: the default (window 0); else a number, or the text for the lab to name
    if (text === '') return { [id]: id === 'window' ? 0 : null };
    return { [id]: Number.isFinite(Number(text)) ? Number(text) : text };
  }
  if (id === 'rotaryTheta') return { rotaryTheta: parseNumber(target.value) ?? target.value };
  if (id === 'attention') return { attention: target.value };
  return { [id]: target.value };
}


// An input in the form: a preset chosen, or a setting changed (typed words replace given rows of X;
// "edited by hand" chosen makes the parameters on screen the reader's own, as typing in one does).
function actionOf(controls, target, { state, view }) {
  if (target.id === 'preset') return target.value === MODEL_ENTRY ? null : { type: 'preset', id: target.value };
  const change = controls.read(target);
  if (target.id === 'sentence') change.inputs = null;
  if (change.weightsMode === 'custom' && !state.custom && view) change.custom = ownWeights(view.weights);
  return { type: 'settings', change, field: target.id };
}

/**
 * The settings form as a feature: fills itself, turns each input into an action, and shows every
 * state (the field being typed in keeps its text; the others follow: d_k after d_model, …).
 */
export function mount(ctx) {
  const controls = createControls({ root: ctx.root, container: ctx.container, t: ctx.t });
  controls.fillPresetMenu();
  controls.addHints();
  controls.sync(ctx.store.state);
  const form = ctx.root.getElementById('controls');
  form.addEventListener('input', (event) => {
    const action = actionOf(controls, event.target, ctx.store);
    if (action) ctx.store.dispatch(action);
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  // the example's notes (its corrections of the lecture notes) are far below: one click away (issue 26 review 4)
  ctx.root.getElementById('to-notes')?.addEventListener('click', () => {
    const notes = ctx.root.getElementById('notes-section');
    if (notes && !notes.hidden) notes.scrollIntoView({ block: 'start' });
  });
  // a real model's layer: the sentence box shows the model's own tokens, spaces as · (review 7, finding 13)
  const modelTokens = (state) => ctx.root.getElementById('sentence-model')?.toggleAttribute('hidden', !(state.inputs && state.modelBlock?.source));
  modelTokens(ctx.store.state);
  return {
    /** After each new state: `action` is what made it (the field it came from keeps its text). */
    follow(state, action) {
      controls.sync(state, action?.type === 'settings' ? action.field : null);
      modelTokens(state);
    },
    relabel: controls.relabel,
  };
}
