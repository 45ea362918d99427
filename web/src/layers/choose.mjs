// A weights file by picker or drop → the layers found in it → the chosen one (and its head count) as
// the lab's state. A bad file gets a message and changes nothing. Each function takes the section's
// `layers` object (index.mjs) and keeps the last good file in `layers.loaded`.
import { readWeightsFile } from './load.mjs';
import { convertLayer } from './layouts.mjs';
import { stateWithLayer } from './apply.mjs';
import { say } from './status.mjs';
import { linkCarriesWeights, ownValueCount, buildRequest } from '../state/index.mjs';
import { settingsFromMetadata } from './settings.mjs';
import { own } from '../shared/own.mjs';
import { isolate } from '../shared/bidi.mjs';
import { formatNumber } from '../shared/format.mjs';

// a layer is named by its tensors' prefix in the file; the two names of ours are in the catalogue
const labelOf = ({ t }, layer) => own({ '(top level)': t('layers.topLevel'), '(the layer)': t('layers.theLayer') }, layer.label, layer.label);

export async function readFile(layers, file) {
  const { $, t } = layers;
  const id = ++layers.reads;
  say(layers, null, t('layers.reading', { name: file.name }));
  let read;
  try {
    read = await readWeightsFile(file, file.name);
  } catch (error) {
    read = { problem: `${isolate(file.name)}: ${error.message}` };
  }
  if (id !== layers.reads) return;
  if (read.problem) {
    say(layers, read.problem);  // the last good file and the lab stay as they were
    return;
  }
  layers.loaded = { name: file.name, layers: read.layers, metadata: read.metadata ?? {} };
  const layouts = [...new Set(read.layers.map((l) => t(`layers.layout.${l.kind}`)))].join(', ');
  say(layers, null, t('layers.found', { name: file.name, count: read.tensorCount, layouts }));
  $('layers-layer').replaceChildren(...read.layers.map((layer, i) => {
    const option = document.createElement('option');
    option.value = String(i);
    option.textContent = t('layers.layerOption', { label: labelOf(layers, layer), kind: t(`layers.layout.${layer.kind}`), dModel: layer.problem ? '?' : layer.dModel });
    return option;
  }));
  $('layers-choice').hidden = false;
  showLayer(layers);
}

function chosenLayer({ $, loaded }) {
  return loaded?.layers[Number($('layers-layer').value) || 0] ?? null;
}

/** The chosen layer's tensors and head count, or its problem. */
export function showLayer(layers) {
  const { $, t } = layers;
  const layer = chosenLayer(layers);
  if (!layer) return;
  $('layers-names').textContent = t('layers.names', { names: layer.names.join(', ') });
  if (layer.problem) {
    say(layers, layer.problem);
    $('layers-load').disabled = true;
    $('layers-heads-note').textContent = '';
    return;
  }
  say(layers, null, $('layers-status').textContent);
  $('layers-load').disabled = false;
  $('layers-heads').value = String(layer.heads);
  $('layers-heads').disabled = layer.kind === 'lab';
  $('layers-heads-note').textContent = t(layer.headsInferred ? 'layers.headsKnown' : 'layers.headsGuess', { heads: layer.heads });
}

// The scaling the loaded layer uses, as the status line says it.
function scaleText(t, { scaleMode, scaleDivisor, dK }) {
  if (scaleMode === 'none') return t('layers.scale.none');
  if (scaleMode === 'custom') return t('layers.scale.custom', { value: formatNumber(scaleDivisor) });
  return t('layers.scale.sqrt_dk', { value: formatNumber(Math.sqrt(dK)) });
}

/** The chosen layer, with the heads asked for, as the lab's state. */
export function loadLayer(layers) {
  const { $, t } = layers;
  const layer = chosenLayer(layers);
  if (!layer || layer.problem) return;
  const heads = Number($('layers-heads').value);
  const { params, problem } = convertLayer(layer, heads);
  if (problem) {
    $('layers-heads').setAttribute('aria-invalid', 'true');
    say(layers, problem);
    return;
  }
  $('layers-heads').removeAttribute('aria-invalid');
  // the lab's own files carry the settings they were saved with (scale, mask, positions)
  const fromFile = layer.kind === 'lab' ? settingsFromMetadata(layers.loaded.metadata) : { changes: {}, read: [] };
  const state = { ...stateWithLayer(layers.getState(), params), ...fromFile.changes };
  // everything is checked before anything is replaced: a layer the lab cannot show (d_model 4096)
  // gets a message, and the lab keeps the layer it had
  const built = buildRequest(state);
  if (built.problems) {
    say(layers, t('layers.cannotShow', { label: labelOf(layers, layer), name: layers.loaded.name, problem: built.problems.map(({ key, values }) => ({ key, values })) }));
    return;
  }
  let status = t('layers.loaded', {
    label: labelOf(layers, layer), name: layers.loaded.name, dModel: params.dModel, heads: params.heads, dK: params.dK,
    width: params.heads * params.dK, mask: t(`layers.mask.${state.maskMode}`), scale: scaleText(t, state),
  });
  if (fromFile.read.length) {
    const settings = fromFile.read.map(({ setting, value }) => ({ key: `layers.setting.${setting}`, values: { value } }));
    status += ` ${t('layers.settingsRead', { settings })}`;
  }
  if (!linkCarriesWeights(state)) status += ` ${t('layers.tooLargeForLink', { count: ownValueCount(state).toLocaleString('en') })}`;
  say(layers, null, status);
  layers.useState(state, status);
}
