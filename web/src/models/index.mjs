// The "Real models" section's controller: a Hugging Face folder (picked as a folder, as files, or
// dropped) is opened where the engine runs (ctx.compute.models: the worker reads the files slice by
// slice), what was recognised is said, then a sentence (or typed ids without tokenizer.json) is run
// and every layer and head drawn. A bad folder gets a message naming the file; the lab keeps working.
import markup from './models.html';
import css from './models.css';
import { MAX_MODEL_BYTES } from './open.mjs';
import { renderTokens, renderNext, renderMasked, renderLayers } from './view.mjs';
import { reportLines, smallModel } from './report.mjs';
import { openInLab, stillTheModel } from './lab.mjs';
import { renderStream } from './stream.mjs';
import { tokenName } from './names.mjs';
import { applyTexts } from '../i18n/page.mjs';
import { staticMarkup } from '../shared/markup.mjs';
import { stripControls } from '../shared/bidi.mjs';

let sheet = null;
let mounted = 0;

function adoptStyles(root) {
  if (typeof CSSStyleSheet !== 'function' || !('adoptedStyleSheets' in root)) return;
  sheet ??= new CSSStyleSheet();
  if (!sheet.cssRules.length) sheet.replaceSync(css);
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

// Real models is the page's last chapter, as in the contents bar: after "Bring your own layer" and after
// the modern-attention chapters (FlashAttention, KV cache, …), which the lab places after itself. It
// came before them, so that under its Run button, before the results, a student saw FlashAttention.
const BEFORE_MODELS = ['layers', 'train', 'flash', 'kv-cache', 'window', 'sinks', 'rope', 'gqa'];
function lastChapter(ctx) {
  const sections = BEFORE_MODELS.map((name) => ctx.section(name)).filter(Boolean);
  const later = (a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? b : a);
  return sections.length ? sections.reduce(later) : ctx.container.lastElementChild;
}

/** The feature contract: the page's last chapter (lastChapter). Extra: open(files), run(input), result, report. */
export function mount(ctx) {
  adoptStyles(ctx.root);
  const holder = staticMarkup(markup);
  const section = holder.querySelector('section');
  lastChapter(ctx).after(section);
  const lab = `models-${++mounted}`;
  const models = {
    section, t: ctx.t, compute: ctx.compute, lab, key: `${lab}-0`,
    // the lab's status line: where "Open this layer in the lab" takes the reader, and what it says
    labStatus: () => ctx.container.querySelector('#status'),
    afterLabDraw: (then) => ctx.container.addEventListener('attention-lab:change', then, { once: true, signal: ctx.signal }),
    renderLabStatus: (text) => ctx.services.renderStatus(text),
    inLab: null,
    $: (id) => section.querySelector(`#${id}`),
    report: null, result: null, reads: 0, failed: null,
    getState: () => ctx.store.state,
    useState: (state, status) => ctx.store.dispatch({ type: 'replace', state, status }),
    // what was drawn, in order ({ layers, of }: layer 1 alone first, then all): tests read it
    drawn: [],
  };
  relabel(models);
  wire(models, ctx.signal);
  ctx.signal.addEventListener('abort', () => ctx.compute.models?.close?.(models.key), { once: true });
  return {
    name: 'models',
    relabel: () => relabel(models),
    open: (files) => open(models, files),
    run: (input) => run(models, input),
    openInLab: (layer, head) => openLayer(models, layer, head),
    get drawn() { return models.drawn.map((d) => ({ ...d })); },
    get result() { return models.result; },
    get report() { return models.report; },
    // the reader and learning engine's load ahead of a model (wire: warm), once started: tests read it
    get warming() { return models.warming ?? null; },
    // the layers whose block (norms and MLP) the page holds for the stream's check, read when the check is wanted
    get blocksHeld() { return models.blocks?.key === models.key ? [...models.blocks.layers.keys()] : []; },
    // after every draw of the lab: a model's layer there whose sentence or numbers the reader changed is no longer the model's
    redraw: () => watchLab(models),
  };
}

// The lab's state no longer holds the model's layer (the reader typed another sentence, a cell, a
// setting): both status lines say so, once, instead of claiming the model's hidden states.
function watchLab(models) {
  const { inLab } = models;
  if (!inLab || inLab.left || stillTheModel(models.getState(), inLab.state)) return;
  inLab.left = true;
  const text = models.t('models.leftModel', { layer: inLab.layer + 1, head: inLab.head + 1, type: inLab.type });
  models.renderLabStatus(text);
  models.$('models-status').textContent = text;
  for (const note of models.section.querySelectorAll('.model-opened')) note.remove();
}

function relabel(models) {
  const { section, $, t } = models;
  applyTexts(section, t);
  $('models-cap').textContent = t('models.cap', { size: `${MAX_MODEL_BYTES >> 20} MB` });
  $('models-text-label').textContent = t(models.report && !models.report.tokenizer ? 'models.ids' : 'models.text');
  $('models-report').replaceChildren(...(models.report ? reportLines(models.report, t) : []));
  $('models-report').hidden = !models.report;
  // a sentence for a tokenizer, in the page's language (run when the box is left empty; English: the
  // models' reference sentence); typed ids have no example (they are the model's own)
  $('models-text').placeholder = models.report && !models.report.tokenizer ? '' : t('models.example');
  // a test-size model (the shared folders'): said as soon as it is opened, above its tokens' guesses
  // (which look broken otherwise), with its small vocabulary (why words split into small pieces)
  const small = models.report ? smallModel(models.report) : null;
  $('models-size').hidden = small === null;
  $('models-size').textContent = small === null ? '' : t('models.small', { count: small.toLocaleString('en'), vocab: models.report.vocab.toLocaleString('en') });
  if (models.result) draw(models);
  if (models.failed) say(models, models.failed, { stale: models.stale });
}

// The error an answer carries as the reader's message: { key, values } (said in the page's language),
// or its English message when it has none
const problemOf = (error) => (typeof error?.key === 'string' ? { key: error.key, values: error.values ?? {} } : String(error?.message ?? error));

// A problem above the results (a string, or a { key, values } message said in the page's language, so a
// change of language says it again); `stale`: a run was refused while the results of an earlier one stay
// shown, which says whose they are (review 9, finding 5)
function say(models, problem, { stale = false } = {}) {
  models.failed = problem;
  models.stale = Boolean(problem) && stale;
  const lines = [];
  if (problem) {
    const line = document.createElement('p');
    line.textContent = models.t('models.problem', { problem });
    lines.push(line);
  }
  if (models.stale && models.result) {
    const shown = document.createElement('p');
    shown.className = 'model-note models-shown-for';
    shown.textContent = models.t('models.shownFor', { text: shownText(models.result) });
    lines.push(shown);
  }
  models.$('models-messages').replaceChildren(...lines);
}

// What the results shown were computed on: the sentence typed, else the tokens ids (typed ids), one line
const SHOWN_CHARS = 80;
function shownText(result) {
  const text = stripControls(result.text || result.ids.join(' ')).replace(/\s+/g, ' ').trim();
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}

// A new folder opens under a key of its own: the model shown stays, in the worker and on the page,
// until the new one has opened; a bad folder's message is said above it.
async function open(models, files) {
  const { $, t } = models;
  const read = ++models.reads;
  const list = [...files];
  const key = `${models.lab}-${read}`;
  say(models, null);
  const bar = $('models-progress');
  Object.assign(bar, { hidden: false, value: 0 });
  // busy while reading: the model shown cannot be run meanwhile (tests wait on aria-busy too)
  models.section.setAttribute('aria-busy', 'true');
  $('models-run').disabled = true;
  $('models-status').textContent = t('models.reading', { count: list.length });
  const answer = await models.compute.models.open(key, list, ({ done, total }) => {
    if (read === models.reads && total > 0) bar.value = done / total;
  });
  if (read !== models.reads) {
    models.compute.models.close?.(key);
    return null;
  }
  bar.hidden = true;
  models.section.removeAttribute('aria-busy');
  $('models-run').disabled = false;
  if (answer.error) {
    models.compute.models.close?.(key);
    $('models-status').textContent = models.report ? t('models.kept', { type: models.report.modelType }) : '';
    say(models, problemOf(answer.error));
    return answer;
  }
  models.compute.models.close?.(models.key);
  Object.assign(models, { key, report: answer.report, result: null, shown: [], inLab: null });
  for (const id of ['models-tokens', 'models-next', 'models-layers', 'models-stream']) $(id).replaceChildren();
  $('models-status').textContent = t('models.opened', { type: answer.report.modelType, layers: answer.report.layers, heads: answer.report.heads });
  relabel(models);
  $('models-input').hidden = false;
  return answer;
}

// The typed text: a sentence, or (without a tokenizer) token ids separated by spaces or commas.
function inputOf(models) {
  const box = models.$('models-text');
  // an empty box runs the example shown in it, written into the box so that what ran stays in view
  // (a student ran it and saw an empty box over the results)
  if (box.value.trim() === '' && models.report?.tokenizer) box.value = box.placeholder;
  const text = box.value;
  if (models.report?.tokenizer) return { text };
  return { ids: text.split(/[\s,]+/).filter(Boolean).map(Number) };
}

// The ArrayBuffers of a result's arrays, each once
function buffersOf(result) {
  const arrays = [...(result?.hidden ?? []), ...(result?.layers ?? []).flatMap((l) => [l.input, l.output, l.hidden, ...l.heads.map((h) => h.weights)])];
  return [...new Set(arrays.filter((a) => ArrayBuffer.isView(a) && !a.buffer.detached).map((a) => a.buffer))];
}

// Layer 1 drawn as soon as the worker has it (its own one-block pass), then every layer. What was
// drawn before (the last result, and its layer 1's partial result) is then held by nothing on the
// page: its buffers are given back, each once, and the whole run's arrays written into them (models-calls.mjs).
function drawFirst(models, read, partial) {
  if (read !== models.reads || models.ran !== partial.ran) return [];
  say(models, null);
  const before = models.shown ?? [];
  models.result = partial;
  models.shown = [partial];
  draw(models);
  models.$('models-status').textContent = models.t('models.computing', { count: partial.partial.of - 1 });
  return [...new Set(before.flatMap(buffersOf))];
}

// Whether an array is the whole of its buffer (one that can be moved without taking another's numbers)
const owns = (a) => ArrayBuffer.isView(a) && !a.buffer.detached && a.byteOffset === 0 && a.byteLength === a.buffer.byteLength;
const same = (a, b) => owns(a) && ArrayBuffer.isView(b) && a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

// The whole run's layer 1 has the numbers of the partial result drawn (the same block on the same
// input): the drawing's arrays take their place in `answer`, and the whole run's own, held by
// nothing then, are spare: given with the next run, which writes its layer 1 into them. Returns
// those buffers ([] when a number differs, and nothing is changed).
function shareFirst(answer, partial) {
  const whole = answer.layers[0];
  const drawn = partial.layers[0];
  const pairs = [[whole.input, drawn.input], [whole.output, drawn.output], [whole.hidden, drawn.hidden], ...whole.heads.map((head, h) => [head.weights, drawn.heads[h]?.weights])];
  if (!pairs.every(([a, b]) => same(a, b))) return [];
  const swap = new Map(pairs);
  answer.layers[0] = { ...whole, input: drawn.input, output: drawn.output, hidden: drawn.hidden, heads: whole.heads.map((head, h) => ({ ...head, weights: drawn.heads[h].weights })) };
  answer.hidden = answer.hidden?.map((array) => swap.get(array) ?? array);
  return [...new Set(pairs.map(([array]) => array.buffer))];
}

async function run(models, input = inputOf(models)) {
  const read = models.reads;
  const ran = models.ran = (models.ran ?? 0) + 1;
  // the last whole result's own layer 1, which nothing holds (shareFirst)
  const spare = models.spare ?? [];
  models.spare = null;
  const answer = await models.compute.models.run(models.key, input, (partial) => drawFirst(models, read, { ...partial, ran, text: input.text ?? '' }), spare);
  if (read !== models.reads || ran !== models.ran) return null;
  if (answer.error) {
    say(models, problemOf(answer.error), { stale: true });
    // above the folder's report, it may be off screen while the reader looks at the box: brought into
    // view, else the results below looked like the new sentence's (review 9, finding 2)
    models.$('models-messages').scrollIntoView?.({ block: 'nearest' });
    return answer;
  }
  say(models, null);
  // layer 1 of this run already drawn (drawFirst): its tokens and heads stay, the rest is added
  const after = models.result?.partial && models.result.ran === ran;
  if (after) models.spare = shareFirst(answer, models.result);
  // the typed text kept with its result: [mask] in small letters is told apart from [MASK]
  models.result = Object.assign(answer, { text: input.text ?? '' });
  // the results the drawing holds: this one, and its layer 1's partial result when that stays drawn
  models.shown = after ? [...models.shown, answer] : [answer];
  draw(models, { after });
  return answer;
}

// after: the run's layer 1 is on the page (the same tokens, the same numbers), drawn once, not again.
function draw(models, { after = false } = {}) {
  const { $, t, result, report } = models;
  const ink = getComputedStyle(models.section).color;
  if (!after) renderTokens($('models-tokens'), result, t);
  // each next token's decoded text comes with it from the worker, whose tokenizer encoded the sentence
  // a masked language model (BERT with its cls.predictions head) guesses its [MASK] tokens instead
  // the tables' files: named by the model, the sentence as typed on a header line
  const exporting = { model: report.modelType, sentence: result.text ?? '', download: (name, blob) => download(models.section, name, blob) };
  if (report.maskedHead && !result.partial) renderMasked($('models-next'), result.masked, result.tokens, t, { text: result.text, exporting });
  else renderNext($('models-next'), result.next, t, { causal: report.causal || report.maskedHead, exporting, after: result.tokens?.length ? tokenName(result, result.tokens.length - 1, t) : null });
  renderLayers($('models-layers'), result, t, ink, (l, h) => openLayer(models, l, h), { causal: report.causal, keepFirst: after, exporting });
  renderStream($('models-stream'), result, t, report, { blockOf: (l) => blockOf(models, l), download: (name, blob) => download(models.section, name, blob) });
  const of = result.partial?.of ?? result.layers.length;
  if (!result.partial) $('models-status').textContent = t('models.opened', { type: report.modelType, layers: report.layers, heads: report.heads });
  models.drawn.push({ layers: result.layers.length, of });
  models.section.dispatchEvent(new CustomEvent('models-drawn', { detail: { layers: result.layers.length, of } }));
}

// Layer l's block (norms and MLP) as the engine runs it, read again from the folder (the stream's
// check recomputes the MLP from it); null when it cannot be read. The last two layers asked are kept:
// a GPT-2 small block is 7 million numbers, 28 MB, and a reader walking the stream asks for each.
const KEPT_BLOCKS = 2;
function blockOf(models, l) {
  const key = models.key;
  models.blocks = models.blocks?.key === key ? models.blocks : { key, layers: new Map() };
  const { layers } = models.blocks;
  if (!layers.has(l)) {
    // the block alone (norms and MLP, moved from the worker): not the layer's attention weights too
    const asked = models.compute.models.block ? models.compute.models.block(key, l) : models.compute.models.layer(key, l).then((layer) => layer?.block ?? layer);
    layers.set(l, asked.then((block) => (!block || block.error ? null : block), () => null));
    if (layers.size > KEPT_BLOCKS) layers.delete(layers.keys().next().value);
  }
  return layers.get(l);
}

// A file saved from the section: a link to its Blob, clicked, let go
function download(section, name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  Object.assign(a, { href: url, download: name, hidden: true });
  section.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// "Open this layer in the lab": the lab takes the layer, the page goes to the lab's status line
// (focused, so a screen reader says it too), and a note beside the button says where it went.
async function openLayer(models, l, h) {
  const read = models.reads;
  const opened = await openInLab(models, l, h);
  if (read !== models.reads) return null;
  if (opened.problem) {
    say(models, opened.problem);
    return opened;
  }
  say(models, null);
  models.$('models-status').textContent = opened.status;
  models.inLab = { state: opened.state, layer: l, head: h, type: models.report.modelType, left: false };
  for (const note of models.section.querySelectorAll('.model-opened')) note.remove();
  const button = models.section.querySelector(`#models-layers figure[data-layer="${l}"][data-head="${h}"] button.model-open`);
  const note = document.createElement('p');
  note.className = 'model-opened hint';
  note.setAttribute('role', 'status');
  note.textContent = models.t('models.openedThere', { layer: l + 1, head: h + 1 });
  button?.after(note);
  // once the lab has drawn the layer (a draw keeps the reader's scroll), and now
  const go = () => {
    const status = models.labStatus();
    if (!status) return;
    status.tabIndex = -1;
    status.scrollIntoView({ block: 'center' });
    status.focus({ preventScroll: true });
  };
  models.afterLabDraw(go);
  go();
  return opened;
}

// A dropped folder: its entries walked (webkitGetAsEntry), or the dropped files as they are.
async function droppedFiles(transfer) {
  const entries = [...(transfer.items ?? [])].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...(transfer.files ?? [])];
  const files = [];
  const walk = async (entry) => {
    if (entry.isFile) files.push(await new Promise((resolve, reject) => entry.file(resolve, reject)));
    else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (let batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject)); batch.length;
        batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject))) {
        for (const child of batch) await walk(child);
      }
    }
  };
  for (const entry of entries) await walk(entry);
  return files;
}

function wire(models, signal) {
  const { $ } = models;
  for (const id of ['models-folder', 'models-files']) {
    $(id).addEventListener('change', (event) => {
      const files = [...(event.target.files ?? [])];
      event.target.value = '';
      if (files.length) open(models, files);
    }, { signal });
  }
  const drop = $('models-drop');
  // the reader and the learning engine loaded when a model is about to be given (the pointer, a
  // focus or a drag on the drop zone or its buttons), not on every page's load: the opening then
  // starts reading the files at once (docs/performance.md)
  const warm = () => {
    models.warming ??= Promise.resolve(models.compute.models.warm?.()).catch((error) => ({ error }));
  };
  for (const type of ['pointerenter', 'focusin', 'dragenter']) drop.addEventListener(type, warm, { signal, once: true });
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  }, { signal });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'), { signal });
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    const pending = droppedFiles(event.dataTransfer);
    pending.then((files) => files.length && open(models, files));
  }, { signal });
  $('models-input').addEventListener('submit', (event) => {
    event.preventDefault();
    run(models);
  }, { signal });
}
