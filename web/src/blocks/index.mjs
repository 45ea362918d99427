// Layers on the page (issue 23): how many blocks, what a block holds, which layer every table shows
// (the layer picker), and the residual stream of the chosen token. The stack itself is computed by
// the engine (engine/stack.mjs) for the state's `layers`, `block` and `norm` (state/stack.mjs); this
// feature only sets them and shows the stream.
import { renderMatrix } from '../shared/matrix.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { PAGE_LIMITS } from '../state/model.mjs';
import { arrangementOf } from '../state/stack.mjs';
import { streamRows } from './stream.mjs';
import { layerCount, layerNumber, modelLayerOf, stageValues } from '../shared/layer-name.mjs';
import { buildParams, drawParams, listenToParams } from './params.mjs';

const element = (tag, props = {}) => Object.assign(document.createElement(tag), props);

// A labelled control inside a field the problems can mark (data-field, as the settings' own); its id
// blocks-<name> (a test's or a reader's handle, wherever the field stands)
function field(name, control) {
  control.id = `blocks-${name}`;
  const label = element('label');
  const text = element('span');
  label.append(text, ' ', control);
  const box = element('div', { className: 'field' });
  box.dataset.field = name;
  box.append(label);
  return { box, text, control };
}

function choices(values) {
  const select = element('select');
  for (const value of values) select.append(element('option', { value }));
  return select;
}

function build() {
  const section = element('section', { className: 'blocks' });
  section.dataset.view = 'blocks';
  const title = element('h2', { id: 'blocks-title' });
  section.setAttribute('aria-labelledby', 'blocks-title');
  const layers = field('layers', element('input', { type: 'number', min: '1', max: String(PAGE_LIMITS.layers), step: '1', inputMode: 'numeric' }));
  const block = field('block', choices(['attention', 'full']));
  const norm = field('norm', choices(['pre', 'post']));
  const layer = field('layer', element('select'));
  const row = element('div', { className: 'blocks-controls' });
  row.append(layers.box, block.box, norm.box, layer.box);
  // the settings' own group of these four (review 5, finding 12: "set in the settings"), moved there
  // as one block when the lab has its settings (placeIn), else kept in this section
  const group = element('fieldset', { className: 'field wide blocks-settings' });
  const legend = element('legend');
  group.append(legend, row);
  const shown = element('p', { className: 'hint blocks-shown' });
  shown.setAttribute('aria-live', 'polite');
  const streamTitle = element('h3');
  const streamHint = element('p', { className: 'hint' });
  const stream = element('div', { className: 'scroll blocks-stream' });
  const params = buildParams();
  // where the controls are, once they move into the settings (review 6, finding 7)
  const open = element('button', { type: 'button', id: 'blocks-open-settings', className: 'blocks-open-settings', hidden: true });
  section.append(title, group, open, shown, streamTitle, streamHint, stream, params.box);
  return { section, title, group, legend, layers, block, norm, layer, open, shown, streamTitle, streamHint, stream, params };
}

function relabel(parts, t) {
  parts.title.textContent = t('blocks.title');
  parts.legend.textContent = t('blocks.settings');
  parts.layers.text.textContent = t('blocks.layers');
  parts.block.text.textContent = t('blocks.block');
  parts.norm.text.textContent = t('blocks.norm');
  parts.layer.text.textContent = t('blocks.show');
  for (const option of parts.block.control.options) option.textContent = t(`blocks.block.${option.value}`);
  for (const option of parts.norm.control.options) option.textContent = t(`blocks.norm.${option.value}`);
  parts.streamTitle.textContent = t('blocks.stream.title');
  parts.open.textContent = t('blocks.openSettings');
}

// The Layers section's button: the settings unfolded at the layers' controls, the first one focused
function openSettings(parts, details) {
  details.open = true;
  parts.group.scrollIntoView({ block: 'center' });
  (parts.layer.box.hidden ? parts.layers.control : parts.layer.control).focus({ preventScroll: true });
}

// The controls follow the state (not while the reader types in the number).
function follow(parts, state, t) {
  const { layers, block, norm, layer } = parts;
  if (layers.control !== layers.control.getRootNode().activeElement) layers.control.value = String(state.layers);
  block.control.value = state.block;
  norm.control.value = state.norm;
  norm.box.hidden = state.block !== 'full';
  const count = Number.isInteger(state.layers) && state.layers >= 1 && state.layers <= PAGE_LIMITS.layers ? state.layers : 1;
  if (layer.control.options.length !== count) {
    layer.control.replaceChildren(...Array.from({ length: count }, (_, l) => element('option', { value: String(l) })));
  }
  for (const option of layer.control.options) option.textContent = t('blocks.layerOption', { layer: Number(option.value) + 1 });
  layer.control.value = String(Math.min(state.selectedLayer, count - 1));
  layer.box.hidden = count === 1;
}

function drawStream(parts, state, view, t) {
  const stack = view.result.layers;
  // a real model's layer is named as the model numbers it (review 7, finding 5)
  const model = modelLayerOf(view);
  const named = { layer: layerNumber(view), layers: layerCount(view), model: model?.model ?? '' };
  // the reader's own sentence over the model's block: its weights, not its hidden states (review 8, 4)
  const which = model && !view.modelRows ? 'ModelTyped' : model ? 'Model' : '';
  parts.shown.textContent = !stack ? t('blocks.one') : t(`blocks.shown${which}`, named);
  parts.title.textContent = which ? t(`blocks.title${which}`, named) : t('blocks.title');
  if (!stack) {
    parts.streamHint.textContent = t('blocks.stream.none');
    parts.stream.replaceChildren();
    return;
  }
  const { token } = selectionIn(state, view);
  const rows = streamRows(stack, arrangementOf(state), token, view.dModel);
  const values = new Float32Array(rows.length * view.dModel);
  rows.forEach((row, i) => values.set(row.values, i * view.dModel));
  parts.streamHint.textContent = t('blocks.stream.hint');
  renderMatrix(parts.stream, {
    caption: t('blocks.stream.caption', { token: view.tokens[token] }), t,
    rowLabels: rows.map((row) => t(row.key, stageValues(view, row.layer - 1))), columnLabels: view.columns, values,
    address: { matrix: 'stream' },
  });
  // each cell explains itself ("Explain this number", shared/explain-layers.mjs) for this token
  for (const td of parts.stream.querySelectorAll('td[data-matrix="stream"]')) td.dataset.token = String(token);
}

/** mount(ctx): the feature contract (docs/architecture.md). */
export function mount(ctx) {
  const parts = build();
  // under the step table and its summary: the first screen stays the sentence and the step table (issue 26)
  (ctx.section('summary') ?? ctx.section('steps')).after(parts.section);
  // inside "Settings: sizes, layers, …" (the form's own input listener leaves them to this feature)
  const settingsForm = ctx.root.getElementById('settings');
  const settingsGrid = settingsForm?.querySelector('.settings-grid');
  if (settingsGrid) {
    settingsGrid.append(parts.group);
    parts.group.addEventListener('input', (event) => event.stopPropagation());
    parts.open.hidden = false;
    parts.open.addEventListener('click', () => openSettings(parts, settingsForm));
  }
  const settings = (change) => ctx.store.dispatch({ type: 'settings', change });
  parts.layers.control.addEventListener('change', () => {
    const value = parts.layers.control.value.trim();
    settings({ layers: value !== '' && Number.isFinite(Number(value)) ? Number(value) : value });
  });
  parts.block.control.addEventListener('change', () => settings({ block: parts.block.control.value }));
  parts.norm.control.addEventListener('change', () => settings({ norm: parts.norm.control.value }));
  // the chosen layer changes what the tables read (its X, weights and heads): a new view, not a selection
  parts.layer.control.addEventListener('change', () => settings({ selectedLayer: Number(parts.layer.control.value) }));
  relabel(parts, ctx.t);
  listenToParams(parts.params, { getView: () => ctx.store.view, getState: () => ctx.store.state, dispatch: ctx.store.dispatch, t: ctx.t });
  const draw = (state, view) => {
    follow(parts, state, ctx.t);
    drawStream(parts, state, view, ctx.t);
    drawParams(parts.params, view, ctx.t);
  };
  return {
    draw,
    relabel() {
      relabel(parts, ctx.t);
      if (ctx.store.view) draw(ctx.store.state, ctx.store.view);
    },
    destroy: () => { parts.section.remove(); parts.group.remove(); },
  };
}
