// The "Bring your own layer" section's controller: a file by picker or drop → the layers found →
// the chosen one (and its head count) as the lab's state; inputs X pasted or loaded; the lab's
// current weights saved as .safetensors or JSON. A bad file gets a message and changes nothing.
//
// The controller's state is one `layers` object (made here); choose.mjs, inputs.mjs and save.mjs
// are its functions, by concept.
import markup from './layers.html';
import { MAX_FILE_BYTES } from './load.mjs';
import { readFile, showLayer, loadLayer } from './choose.mjs';
import { applyPasted, readInputsFile } from './inputs.mjs';
import { save } from './save.mjs';
import { applyTexts } from '../i18n/page.mjs';
import { staticMarkup } from '../shared/markup.mjs';

/**
 * The feature contract (tools/CONTRACT.md): the section after the lab's Train section.
 * Extra: readFile(file), as the file picker reads one.
 */
export function mount(ctx) {
  return createLayers({
    after: ctx.section('train'), t: ctx.t,
    getState: () => ctx.store.state,
    getView: () => ctx.store.view,
    useState: (state, status) => ctx.store.dispatch({ type: 'replace', state, status }),
  });
}

/**
 *   useState: (state, status) => void, makes a state the lab's
 *   getState, getView: the lab's state and its last drawn computation
 */
export function createLayers({ after, getState, getView, useState, t }) {
  const holder = staticMarkup(markup);
  const section = holder.querySelector('section');
  after.after(section);
  const layers = {
    section, getState, getView, useState, t,
    $: (id) => section.querySelector(`#${id}`),
    loaded: null,  // { name, layers } of the last good file
    reads: 0,
  };
  relabel(layers);
  wire(layers);
  return { readFile: (file) => readFile(layers, file), relabel: () => relabel(layers) };
}

function relabel({ section, $, t }) {
  applyTexts(section, t);
  $('layers-cap').textContent = t('layers.cap', { size: `${MAX_FILE_BYTES >> 20} MB` });
}

// a file input's file, read by `read`; the input is emptied so that the same file can come again
const onFile = (input, read) => input.addEventListener('change', (event) => {
  const file = event.target.files?.[0];
  if (file) read(file);
  event.target.value = '';
});

function wire(layers) {
  const { $ } = layers;
  onFile($('layers-file'), (file) => readFile(layers, file));
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
    if (file) readFile(layers, file);
  });
  $('layers-layer').addEventListener('change', () => showLayer(layers));
  $('layers-load').addEventListener('click', () => loadLayer(layers));
  $('layers-choice').addEventListener('submit', (event) => event.preventDefault());
  $('layers-inputs-apply').addEventListener('click', () => applyPasted(layers));
  onFile($('layers-inputs-file'), (file) => readInputsFile(layers, file));
  $('layers-inputs-clear').addEventListener('click', () => layers.useState({ ...layers.getState(), inputs: null }, ''));
  $('layers-save-safetensors').addEventListener('click', () => save(layers, 'safetensors'));
  $('layers-save-json').addEventListener('click', () => save(layers, 'json'));
}
