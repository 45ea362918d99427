// The lab's tables: the notes, the tokens, X (and C), the parameters, the step table, the per-head
// matrices, the heads put together, and the status and messages. Every renderer only writes DOM;
// the lab's controller decides what to show and reacts to the reader.
//   view: { tokens, keyTokens, columns, x, context, dModel, heads, dK, dV, m, self, identity, scaleMode,
//           result, weights }
// Each renderer takes the tables' own object first, page: { root, $(id), t(key, values), overlay }.
import { renderSteps } from './steps.mjs';
import { renderNotes } from './notes.mjs';
import { renderTokens, renderInputs } from './inputs.mjs';
import { renderWeights, fillWeightBlock } from './weights.mjs';
import { renderHeadTabs, renderHeadPanel, renderMultihead } from './heads.mjs';
import { renderMessages, renderStatus, renderEngine } from './status.mjs';
import { presetById, experimentOf } from '../state/presets.mjs';
import { modifiedAspects } from '../state/index.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { listenToTables } from './events.mjs';
import { setPrecision, precision, formatNumber } from '../shared/format.mjs';

/** The sections the tables draw, by their data-view names, in the order they are drawn. */
export const TABLE_SECTIONS = ['notes', 'tokens', 'inputs', 'parameters', 'steps', 'matrices', 'output'];

function rendererApi(page) {
  return {
    /** Practice mode's blanks: overlay(td, address, row, col) → true when it drew the cell; null for none. */
    setOverlay(next) { page.overlay = next; },
    renderNotes: (notes) => renderNotes(page, notes),
    renderTokens: (tokens, selected) => renderTokens(page, tokens, selected),
    renderInputs: (view) => renderInputs(page, view),
    renderWeights: (view, openBlocks) => renderWeights(page, view, openBlocks),
    fillWeightBlock: (details, view) => fillWeightBlock(page, details, view),
    renderStepTable: (view, query, head) => renderSteps(page.$('steps'), view, query, head, page.t),
    renderHeadTabs: (heads, selected) => renderHeadTabs(page, heads, selected),
    renderHeadPanel: (view, selected) => renderHeadPanel(page, view, selected),
    renderMultihead: (view) => renderMultihead(page, view),
    renderMessages: (problems) => renderMessages(page, problems),
    renderStatus: (text) => renderStatus(page, text),
    renderEngine: (text) => renderEngine(page, text),
  };
}

// The selected token's largest weight, from the engine: { token, weight, key }.
function strongest(state, view) {
  const { token, head } = selectionIn(state, view);
  const weights = view.result.heads[head === 'all' ? 0 : head].weights.subarray(token * view.m, (token + 1) * view.m);
  const top = Math.max(...weights);
  return { token: view.tokens[token], weight: formatNumber(top), key: view.keyTokens[weights.indexOf(top)] };
}

// What the reader should now see after a note's experiment: the selected token's largest weight.
function experimentLine(t, experiment, state, view) {
  if (!experiment || !view?.result) return null;
  const values = experiment.values ? experiment.values(view) : {};
  return t(`preset.${state.preset}.${experiment.key}`, { ...strongest(state, view), ...values });
}

// The example's one line to remember (issue 26, a wish), its numbers from the engine; only while the
// example is as given (or in the experiment a note proposes), where it holds.
function rememberLine(t, preset, aspects, experiment, state, view) {
  if (!preset || !view?.result || (aspects.length > 0 && !experiment)) return null;
  return t(`preset.${preset.id}.remember`, strongest(state, view));
}

// Layers added to an example (the only change): layer 1 is still the example as given while its
// attention reads x itself (attention only, or post-LN), so the notes hold for layer 1; a pre-LN block
// reads LN₁(x) and the notes no longer hold. { line, keep } or null.
function layersNote(t, state, aspects) {
  if (!aspects.includes('layers')) return null;
  if (state.block === 'full' && state.norm === 'pre') return { line: t('preset.layersPreLN'), keep: false };
  if (aspects.length > 1) return null;
  if (state.selectedLayer > 0) return { line: t('preset.layersOther', { layer: state.selectedLayer + 1 }), keep: false };
  return { line: t('preset.layersHold', { layers: state.layers }), keep: true };
}

// What the lab holds without an example: a real model's layer (its modelBlock's source, models/lab.mjs),
// rows given row by row, or null (the reader's sentence on the vocabulary)
function loadedOf(state) {
  const source = state.modelBlock?.source;
  if (!source) return state.inputs?.rows ? 'rows' : null;
  // the model's rows and block as opened; else what it was (a typed sentence lets the rows go)
  const intact = state.inputs?.rows && state.block === 'full' && !Object.keys(state.blockEdits ?? {}).length && !Object.keys(state.xEdits ?? {}).length;
  return { ...source, n: state.inputs?.rows?.length ?? 0, head: state.selectedHead + 1, changed: !intact };
}

// One section's drawing from the state and the view; tables: { api, t, openBlocks, replacedWeights }.
const SECTION_DRAWERS = {
  notes: ({ api, t, replacedWeights }, state, view) => {
    const preset = presetById(state.preset);
    const aspects = modifiedAspects(state);
    const experiment = experimentOf(preset, state, aspects);
    api.renderNotes({
      preset, aspects, replacedWeights: replacedWeights && t(replacedWeights.key, replacedWeights.values),
      experiment: experimentLine(t, experiment, state, view), view,
      remember: rememberLine(t, preset, aspects, experiment, state, view),
      layers: preset ? layersNote(t, state, aspects) : null,
      loaded: preset ? null : loadedOf(state),
    });
  },
  tokens: ({ api }, state, view) => api.renderTokens(view.tokens, selectionIn(state, view).token),
  inputs: ({ api }, state, view) => api.renderInputs(view),
  parameters: ({ api, openBlocks }, state, view) => api.renderWeights(view, openBlocks),
  steps: ({ api, $ }, state, view) => {
    const { token, head } = selectionIn(state, view);
    $('precision').value = String(precision());
    $('steps-scale').checked = state.scaleMode === 'sqrt_dk';
    api.renderStepTable(view, token, head === 'all' ? 0 : head);
  },
  matrices: ({ api }, state, view) => {
    const { head } = selectionIn(state, view);
    api.renderHeadTabs(view.heads, head);
    api.renderHeadPanel(view, head);
  },
  output: ({ api }, state, view) => api.renderMultihead(view),
};

/**
 * The feature contract (tools/CONTRACT.md). draw(state, view, sections = TABLE_SECTIONS) draws the
 * named sections (the lab may draw those out of view a frame later); relabel() draws them again in
 * the lab's language. The tables keep which parameter blocks are open (the toggle of #weights).
 * Extras: every renderer of the tables (setOverlay, renderStatus, … for ctx.services), and
 * setReplacedWeights({ key, values } | null): why hand-set parameters were replaced, said in the notes.
 */
export function mount(ctx) {
  const $ = (id) => ctx.root.getElementById(id);
  const api = rendererApi({ root: ctx.root, $, t: ctx.t, overlay: null });
  const tables = { api, $, t: ctx.t, openBlocks: new Set(), replacedWeights: null };
  $('weights').addEventListener('toggle', (event) => {
    const details = event.target;
    if (details.open) tables.openBlocks.add(details.dataset.block);
    else tables.openBlocks.delete(details.dataset.block);
    if (details.open && ctx.store.view) api.fillWeightBlock(details, ctx.store.view);
  }, true);
  const draw = (state, view, sections = TABLE_SECTIONS) => {
    for (const name of sections) SECTION_DRAWERS[name]?.(tables, state, view);
  };
  listenToTables(ctx);
  // one precision for the whole lab: tables, explanations, the walk, the notes' numbers
  $('precision').addEventListener('change', (event) => {
    const digits = setPrecision(Number(event.target.value));
    ctx.store.dispatch({ type: 'digits', digits, quiet: true });  // in the state, so a link carries it
    ctx.redrawAll();
  });
  return {
    ...api,
    sections: TABLE_SECTIONS,
    // what the other features may use of the tables (ctx.services)
    services: { setOverlay: api.setOverlay, renderStatus: api.renderStatus, renderMessages: api.renderMessages, renderEngine: api.renderEngine },
    draw,
    relabel() {
      // what is kept while unchanged is drawn again: its texts are another language's
      for (const name of TABLE_SECTIONS) {
        for (const part of ctx.section(name)?.querySelectorAll('[data-signature]') ?? []) delete part.dataset.signature;
      }
      if (ctx.store.view) draw(ctx.store.state, ctx.store.view);
    },
    setReplacedWeights(message) { tables.replacedWeights = message; },
  };
}
