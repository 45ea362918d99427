// The residual stream of a real model: each token's hidden state entering and leaving every layer
// (result.hidden: the embeddings, then the stream after each block; the last after the model's final
// norm where it has one, as transformers returns it, and then also the last layer's state before that
// norm, result.layers[L - 1].hidden: streamStages): for the token chosen a summary
// (each stage's norm and first features) and, opened on demand, every feature; every number at the
// lab's precision and exactly (formatFull) in its title and data-value; and
// what "Open this layer in the lab" takes: the layer's whole block.
import { watchedScrollCue } from './scroll-cue.mjs';
import { formatFull, formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { streamStages, SUMMARY_FEATURES } from './stream-check.mjs';
import { renderExplanation, streamIntro, walkSteps, walkPanel } from './stream-explain.mjs';
import { STREAM_FORMATS } from './stream-export.mjs';
import { fileStem } from './table-export.mjs';
import { partOf, readableToken, rowName, tokenName } from './names.mjs';

export { SUMMARY_FEATURES };

const element = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

// A stage's name: hidden state 0 enters layer 1, hidden state s leaves layer s; a pre-LN model's last
// layer leaves its state before the final norm, and the last hidden state is after it.
function stageName({ key, layer, final }, t) {
  if (layer === 0) return t('models.streamEnters');
  if (key === 'before-norm') return t('models.streamBeforeNorm', { layer });
  return t(final ? 'models.streamLastNorm' : 'models.streamLeaves', { layer });
}

// A number as the tables show it: the lab's precision, the exact float32 in its title and data-value.
function numberCell(value) {
  const td = element('td', '', formatNumber(value));
  td.title = td.dataset.value = formatFull(value);
  return td;
}

// Token i's stages as a table: a row per stage (its name, then cells(values of the token's row))
// (`shown` < d: the caption says only the first `shown` features are there)
function stagesTable(className, result, report, i, t, { head, cells, shown = Infinity }) {
  const d = result.hidden[0].length / result.n;
  const table = element('table', className);
  table.dataset.token = String(i);
  // the token quoted as the walk names it (‘·it’; a byte piece with its character)
  const about = { token: tokenName(result, i, t), row: i + 1, d, shown };
  table.append(element('caption', '', t(shown < d ? 'models.streamCaptionFirst' : 'models.streamCaption', about)));
  const top = element('tr');
  top.append(element('th', '', ''), ...head.map((text) => element('th', '', text)));
  const body = element('tbody');
  for (const stage of streamStages(result, report)) {
    const row = element('tr');
    row.dataset.stage = stage.key;
    row.append(rowName(stageName(stage, t)), ...cells(stage.values.slice(i * d, (i + 1) * d)));
    body.append(row);
  }
  table.append(element('thead'), body);
  table.tHead.append(top);
  return table;
}

/**
 * Token i's hidden states in brief: a row per stage, its norm ‖h‖ (float64 sum of squares) and its first
 * SUMMARY_FEATURES features; the whole rows are drawn when the reader opens them (streamTable).
 */
export function streamSummary(result, report, i, t) {
  const d = result.hidden[0].length / result.n;
  const shown = Math.min(d, SUMMARY_FEATURES);
  return stagesTable('model-stream-summary', result, report, i, t, {
    shown,
    head: [t('models.streamNorm'), ...Array.from({ length: shown }, (_, j) => `e${j + 1}`)],
    cells: (values) => {
      let squares = 0;
      for (const value of values) squares += value * value;
      const norm = numberCell(Math.sqrt(squares));
      norm.className = 'model-stream-norm';
      return [norm, ...Array.from(values.slice(0, shown), numberCell)];
    },
  });
}

/** Token i's hidden states as a table: a row per stage, a column per feature of d_model. */
export function streamTable(result, report, i, t) {
  const d = result.hidden[0].length / result.n;
  return stagesTable('model-stream', result, report, i, t, {
    head: Array.from({ length: d }, (_, j) => `e${j + 1}`), cells: (values) => Array.from(values, numberCell),
  });
}

// The stream's files: a button per format, downloaded as <model>-residual-stream.<format> (the model's
// name from its config: only [a-z0-9-] kept)
function exportBar(result, report, t, download) {
  const bar = element('p', 'model-stream-export');
  bar.append(element('span', '', t('models.streamExport')));
  for (const [format, { type, write }] of Object.entries(STREAM_FORMATS)) {
    const button = element('button', '', format.toUpperCase());
    button.type = 'button';
    button.dataset.format = format;
    button.setAttribute('aria-label', t('models.streamExportLabel', { format: format.toUpperCase() }));
    button.addEventListener('click', () => download(`${fileStem(report.modelType)}-residual-stream.${format}`, new Blob([write(result, report)], { type })));
    bar.append(' ', button);
  }
  return bar;
}

// A labelled picker of `count` options
function picker(id, labelKey, options, t) {
  const label = element('label', '', t(labelKey));
  const select = element('select');
  select.id = id;
  label.htmlFor = id;
  options.forEach((text, i) => {
    const option = element('option', '', text);
    option.value = String(i);
    select.append(option);
  });
  return { label, select };
}

// The intro's sentence: BERT (learned positions, post-LN, no final norm), a pre-LN model with learned
// positions (GPT-2), or with rotary ones (Llama, Qwen2: no position in the embedding)
const introKey = (report) => (report.family === 'bert' ? 'models.streamIntro' : report.ropeLayout ? 'models.streamIntroRope' : 'models.streamIntroNorm');

// The check's block (its norms and MLP: 18 MiB for GPT-2 small, read again from the folder) asked for
// only once the check is wanted: the explanation within 400 px of the screen, or a token, a layer or a
// walk's step chosen; not at every run for a section the reader may not look at. { wanted (a promise),
// now() (wanted at once), stop() }. Without IntersectionObserver: wanted at once.
function whenWanted(target) {
  let now;
  const wanted = new Promise((resolve) => { now = resolve; });
  if (typeof IntersectionObserver !== 'function') {
    now();
    return { wanted, now, stop: () => {} };
  }
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) now();
  }, { rootMargin: '400px' });
  observer.observe(target);
  wanted.then(() => observer.disconnect());
  return { wanted, now, stop: () => observer.disconnect() };
}

/**
 * The residual stream section: what it is, a token picker over its table, a layer's parts with the
 * check that they add up, a walk through the stages, its exports, and why the lab takes one layer at a
 * time. `blockOf(l)`: the layer's block (a promise), `download(name, blob)`: saves a file.
 */
export function renderStream(container, result, t, report, { blockOf = async () => null, download = () => {} } = {}) {
  if (!result.hidden) {
    container.replaceChildren();
    return;
  }
  const title = element('h3', '', t('models.stream'));
  const intro = element('p', 'hint', t(introKey(report), { count: result.hidden.length - 1 }));
  const tokens = picker('models-stream-token', 'models.streamToken', result.tokens.map((token, i) => `${i + 1}: ${partOf(result, i) ? tokenName(result, i, t) : isolate(readableToken(token))}`), t);
  const layers = picker('models-stream-layer', 'models.streamLayer', result.layers.map((_, l) => String(l + 1)), t);
  const box = element('div', 'model-stream-box');
  // every feature of every stage (14 × 768 cells for GPT-2 small): drawn only while the reader has it open
  const d = result.hidden[0].length / result.n;
  const all = element('details', 'model-stream-all');
  all.append(element('summary', '', t('models.streamAll', { d, cells: streamStages(result, report).length * d })));
  const whole = element('div', 'model-stream-box');
  // a table wider than the screen says that it scrolls (review 8, finding 5)
  const cue = (table) => watchedScrollCue(table, t('models.streamScrollCue'));
  const boxCue = cue(box);
  all.append(cue(whole), whole);
  const explain = element('div', 'model-stream-explain');
  container.streamCheck?.stop();
  const check = container.streamCheck = whenWanted(explain);
  const blockWhenWanted = (l) => check.wanted.then(() => blockOf(l));
  let walk = null;
  let current = null;
  // the step's row in the summary and its parts' rows in the parts table (drawn again when the layer's weights are read)
  const markParts = () => {
    const here = current !== null && Number(layers.select.value) === current.layer;
    for (const row of explain.querySelectorAll('tr[data-part]')) row.classList.toggle('model-stream-current', here && current.parts.includes(row.dataset.part));
  };
  const mark = (step) => {
    current = step;
    for (const row of box.querySelectorAll('tr[data-stage]')) row.classList.toggle('model-stream-current', step !== null && row.dataset.stage === step.stage);
    markParts();
  };
  const showParts = () => {
    explain.dataset.key = `${tokens.select.value}:${layers.select.value}`;
    renderExplanation(explain, { result, report, t, token: Number(tokens.select.value), layer: Number(layers.select.value), blockOf: blockWhenWanted, onShown: markParts });
  };
  const show = () => {
    const i = Number(tokens.select.value);
    box.replaceChildren(streamSummary(result, report, i, t));
    whole.replaceChildren(...(all.open ? [streamTable(result, report, i, t)] : []));
    current = null;
    showParts();
    const next = walkPanel(walkSteps(result, report, i, t), t, (step) => {
      if (step) check.now();  // a step the reader chose (go(-1) at the start is none)
      if (step?.layer !== null && step?.layer !== undefined && Number(layers.select.value) !== step.layer) {
        layers.select.value = String(step.layer);
        showParts();
      }
      mark(step);
    });
    walk?.panel.replaceWith(next.panel);
    walk = next;
  };
  tokens.select.addEventListener('change', () => { check.now(); show(); });
  layers.select.addEventListener('change', () => { check.now(); showParts(); });
  all.addEventListener('toggle', () => whole.replaceChildren(...(all.open ? [streamTable(result, report, Number(tokens.select.value), t)] : [])));
  show();
  // the walk's bar above the parts table it points at
  container.replaceChildren(title, intro, tokens.label, tokens.select, boxCue, box, all, element('h4', '', t('models.streamHow')), ...streamIntro(result, report, t), layers.label, layers.select, walk.panel, explain,
    exportBar(result, report, t, download), blockNote(report, t));
}

// What "Open this layer in the lab" takes: the layer's whole block, the model's own
function blockNote(report, t) {
  const [order, norm, mlp] = report.family === 'llama' ? ['models.orderPreRms', 'models.norm.rmsnorm', 'models.mlp.swiglu']
    : [report.family === 'gpt2' ? 'models.orderPre' : 'models.orderPost', 'models.norm.layernorm', `models.mlp.${report.activation ?? 'gelu'}`];
  return element('p', 'model-note', t('models.blockOpens', { order: t(order), norm: t(norm), mlp: t(mlp), layers: report.layers }));
}
