// The "Bring your own layer" section's controller: a file by picker or drop → the layers found →
// the chosen one (and its head count) as the lab's state; inputs X pasted or loaded; the lab's
// current weights saved as .safetensors or JSON. A bad file gets a message and changes nothing.
import markup from './layers.html';
import { readWeightsFile, parseInputs, inputsFromTensor, MAX_FILE_BYTES } from './load.mjs';
import { convertLayer } from './layouts.mjs';
import { parseNpy } from './formats.mjs';
import { stateWithLayer, stateWithInputs, saveSafetensors, saveJson } from './apply.mjs';
import { linkCarriesWeights, ownValueCount, buildRequest } from '../state.mjs';
import { settingsFromMetadata } from './settings.mjs';
import { applyTexts } from '../i18n.mjs';
import { own } from '../own.mjs';
import { isolate } from '../bidi.mjs';

/**
 *   useState: (state, status) => void, makes a state the lab's
 *   getState, getView: the lab's state and its last drawn computation
 */
export function createLayers({ after, getState, getView, useState, t }) {
  const holder = document.createRange().createContextualFragment(markup);
  const section = holder.querySelector('section');
  after.after(section);
  const $ = (id) => section.querySelector(`#${id}`);
  function relabel() {
    applyTexts(section, t);
    $('layers-cap').textContent = t('layers.cap', { size: `${MAX_FILE_BYTES >> 20} MB` });
  }
  relabel();

  let loaded = null;  // { name, layers } of the last good file
  let reads = 0;

  // a layer is named by its tensors' prefix in the file; the two names of ours are in the catalogue
  const labelOf = (layer) => own({ '(top level)': t('layers.topLevel'), '(the layer)': t('layers.theLayer') }, layer.label, layer.label);

  function say(problem, status = '') {
    $('layers-messages').replaceChildren(...(problem ? [Object.assign(document.createElement('p'), { textContent: problem })] : []));
    $('layers-status').textContent = status;
  }

  async function readFile(file) {
    const id = ++reads;
    say(null, t('layers.reading', { name: file.name }));
    let read;
    try {
      read = await readWeightsFile(file, file.name);
    } catch (error) {
      read = { problem: `${isolate(file.name)}: ${error.message}` };
    }
    if (id !== reads) return;
    if (read.problem) {
      say(read.problem);  // the last good file and the lab stay as they were
      return;
    }
    loaded = { name: file.name, layers: read.layers, metadata: read.metadata ?? {} };
    const layouts = [...new Set(read.layers.map((l) => t(`layers.layout.${l.kind}`)))].join(', ');
    say(null, t('layers.found', { name: file.name, count: read.tensorCount, layouts }));
    $('layers-layer').replaceChildren(...read.layers.map((layer, i) => {
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = t('layers.layerOption', { label: labelOf(layer), kind: t(`layers.layout.${layer.kind}`), dModel: layer.problem ? '?' : layer.dModel });
      return option;
    }));
    $('layers-choice').hidden = false;
    showLayer();
  }

  function chosenLayer() {
    return loaded?.layers[Number($('layers-layer').value) || 0] ?? null;
  }

  function showLayer() {
    const layer = chosenLayer();
    if (!layer) return;
    $('layers-names').textContent = t('layers.names', { names: layer.names.join(', ') });
    if (layer.problem) {
      say(layer.problem);
      $('layers-load').disabled = true;
      $('layers-heads-note').textContent = '';
      return;
    }
    say(null, $('layers-status').textContent);
    $('layers-load').disabled = false;
    $('layers-heads').value = String(layer.heads);
    $('layers-heads').disabled = layer.kind === 'lab';
    $('layers-heads-note').textContent = t(layer.headsInferred ? 'layers.headsKnown' : 'layers.headsGuess', { heads: layer.heads });
  }

  function loadLayer() {
    const layer = chosenLayer();
    if (!layer || layer.problem) return;
    const heads = Number($('layers-heads').value);
    const { params, problem } = convertLayer(layer, heads);
    if (problem) {
      $('layers-heads').setAttribute('aria-invalid', 'true');
      say(problem);
      return;
    }
    $('layers-heads').removeAttribute('aria-invalid');
    // the lab's own files carry the settings they were saved with (scale, mask, positions)
    const fromFile = layer.kind === 'lab' ? settingsFromMetadata(loaded.metadata) : { changes: {}, read: [] };
    const state = { ...stateWithLayer(getState(), params), ...fromFile.changes };
    // everything is checked before anything is replaced: a layer the lab cannot show (d_model 4096)
    // gets a message, and the lab keeps the layer it had
    const built = buildRequest(state);
    if (built.problems) {
      say(t('layers.cannotShow', { label: labelOf(layer), name: loaded.name, problem: built.problems.map(({ key, values }) => ({ key, values })) }));
      return;
    }
    let status = t('layers.loaded', {
      label: labelOf(layer), name: loaded.name, dModel: params.dModel, heads: params.heads, dK: params.dK,
      causal: params.causal ? t('layers.causal') : '',
    });
    if (fromFile.read.length) {
      const settings = fromFile.read.map(({ setting, value }) => ({ key: `layers.setting.${setting}`, values: { value } }));
      status += ` ${t('layers.settingsRead', { settings })}`;
    }
    if (!linkCarriesWeights(state)) status += ` ${t('layers.tooLargeForLink', { count: ownValueCount(state).toLocaleString('en') })}`;
    say(null, status);
    useState(state, status);
  }

  function applyInputs(result) {
    if (result.problem) {
      say(t('layers.inputsProblem', { problem: result.problem }));
      return;
    }
    say(null, t('layers.inputsUsed', { n: result.rows.length }));
    useState(stateWithInputs(getState(), result), t('layers.inputsUsed', { n: result.rows.length }));
  }

  async function readInputsFile(file) {
    const dModel = getState().dModel;
    if (file.size > MAX_FILE_BYTES) return applyInputs({ problem: `${isolate(file.name)} is larger than ${MAX_FILE_BYTES >> 20} MB` });
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (bytes[0] === 0x93) {
      try {
        return applyInputs(inputsFromTensor(parseNpy(bytes, file.name), dModel));
      } catch (error) {
        return applyInputs({ problem: error.message });
      }
    }
    const text = new TextDecoder().decode(bytes);
    $('layers-inputs-text').value = text.slice(0, 200_000);
    applyInputs(parseInputs(text, dModel));
  }

  function download(name, blob) {
    const url = URL.createObjectURL(blob);
    const a = Object.assign(document.createElement('a'), { href: url, download: name, hidden: true });
    section.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  function save(kind) {
    const view = getView();
    if (!view) return;
    const state = getState();
    const name = `attention-layer.${kind === 'json' ? 'json' : 'safetensors'}`;
    const body = kind === 'json' ? saveJson(view, state) : saveSafetensors(view, state);
    download(name, new Blob([body], { type: kind === 'json' ? 'application/json' : 'application/octet-stream' }));
    const count = 3 + (state.useWo ? 1 : 0) + ['bq', 'bk', 'bv'].filter((b) => view.weights[b]).length + (state.useWo && view.weights.bo ? 1 : 0);
    say(null, t('layers.saved', { name, count }));
  }

  // ---- wiring

  $('layers-file').addEventListener('change', (event) => {
    const file = event.target.files?.[0];
    if (file) readFile(file);
    event.target.value = '';
  });
  const drop = $('layers-drop');
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    const file = event.dataTransfer?.files?.[0];
    if (file) readFile(file);
  });
  $('layers-layer').addEventListener('change', showLayer);
  $('layers-load').addEventListener('click', loadLayer);
  $('layers-choice').addEventListener('submit', (event) => event.preventDefault());
  $('layers-inputs-apply').addEventListener('click', () => applyInputs(parseInputs($('layers-inputs-text').value, getState().dModel)));
  $('layers-inputs-file').addEventListener('change', (event) => {
    const file = event.target.files?.[0];
    if (file) readInputsFile(file);
    event.target.value = '';
  });
  $('layers-inputs-clear').addEventListener('click', () => useState({ ...getState(), inputs: null }, ''));
  $('layers-save-safetensors').addEventListener('click', () => save('safetensors'));
  $('layers-save-json').addEventListener('click', () => save('json'));

  return { readFile, relabel };
}
