// The residual stream of a real model: each token's hidden state entering and leaving every layer
// (result.hidden: the embeddings with positions, then the stream after each block; the last after
// the model's final norm where it has one, as transformers returns it): for the token chosen a summary
// (each stage's norm and first features) and, opened on demand, every feature; every number at the
// lab's precision and exactly (formatFull) in its title and data-value; and
// what "Open this layer in the lab" takes: the layer's whole block.
import { formatFull, formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { SUMMARY_FEATURES } from './stream-check.mjs';
import { renderExplanation, streamIntro, walkSteps, walkPanel } from './stream-explain.mjs';
import { STREAM_FORMATS } from './stream-export.mjs';

export { SUMMARY_FEATURES };

const element = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

// The stages' names: hidden state 0 enters layer 1, hidden state l + 1 leaves layer l + 1.
function stageNames(count, report, t) {
  return Array.from({ length: count + 1 }, (_, s) => {
    if (s === 0) return t('models.streamEnters');
    const last = s === count && report.family !== 'bert';
    return t(last ? 'models.streamLastNorm' : 'models.streamLeaves', { layer: s });
  });
}

// A number as the tables show it: the lab's precision, the exact float32 in its title and data-value.
function numberCell(value) {
  const td = element('td', '', formatNumber(value));
  td.title = td.dataset.value = formatFull(value);
  return td;
}

/**
 * Token i's hidden states in brief: a row per stage, its norm ‖h‖ (float64 sum of squares) and its first
 * SUMMARY_FEATURES features; the whole rows are drawn when the reader opens them (streamTable).
 */
export function streamSummary(result, report, i, t) {
  const d = result.hidden[0].length / result.n;
  const shown = Math.min(d, SUMMARY_FEATURES);
  const table = element('table', 'model-stream-summary');
  table.dataset.token = String(i);
  table.append(element('caption', '', t('models.streamCaption', { token: isolate(result.tokens[i]), row: i + 1, d })));
  const head = element('tr');
  head.append(element('th', '', ''), element('th', '', t('models.streamNorm')), ...Array.from({ length: shown }, (_, j) => element('th', '', `e${j + 1}`)));
  const body = element('tbody');
  stageNames(result.hidden.length - 1, report, t).forEach((name, s) => {
    const row = element('tr');
    row.dataset.stage = String(s);
    const values = result.hidden[s].slice(i * d, (i + 1) * d);
    let squares = 0;
    for (const value of values) squares += value * value;
    const norm = numberCell(Math.sqrt(squares));
    norm.className = 'model-stream-norm';
    row.append(element('th', '', name), norm, ...Array.from(values.slice(0, shown), numberCell));
    body.append(row);
  });
  table.append(element('thead'), body);
  table.tHead.append(head);
  return table;
}

/** Token i's hidden states as a table: a row per stage, a column per feature of d_model. */
export function streamTable(result, report, i, t) {
  const d = result.hidden[0].length / result.n;
  const table = element('table', 'model-stream');
  table.dataset.token = String(i);
  table.append(element('caption', '', t('models.streamCaption', { token: isolate(result.tokens[i]), row: i + 1, d })));
  const head = element('tr');
  head.append(element('th', '', ''), ...Array.from({ length: d }, (_, j) => element('th', '', `e${j + 1}`)));
  const body = element('tbody');
  stageNames(result.hidden.length - 1, report, t).forEach((name, s) => {
    const row = element('tr');
    row.dataset.stage = String(s);
    row.append(element('th', '', name), ...Array.from(result.hidden[s].slice(i * d, (i + 1) * d), numberCell));
    body.append(row);
  });
  table.append(element('thead'), body);
  table.tHead.append(head);
  return table;
}

// The stream's files: a button per format, downloaded as residual-stream.<format>
function exportBar(result, report, t, download) {
  const bar = element('p', 'model-stream-export');
  bar.append(element('span', '', t('models.streamExport')));
  for (const [format, { type, write }] of Object.entries(STREAM_FORMATS)) {
    const button = element('button', '', format.toUpperCase());
    button.type = 'button';
    button.dataset.format = format;
    button.setAttribute('aria-label', t('models.streamExportLabel', { format: format.toUpperCase() }));
    button.addEventListener('click', () => download(`residual-stream.${format}`, new Blob([write(result, report)], { type })));
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
  const intro = element('p', 'hint', t(report.family !== 'bert' ? 'models.streamIntroNorm' : 'models.streamIntro', { count: result.hidden.length - 1 }));
  const tokens = picker('models-stream-token', 'models.streamToken', result.tokens.map((token, i) => `${i + 1}: ${isolate(token)}`), t);
  const layers = picker('models-stream-layer', 'models.streamLayer', result.layers.map((_, l) => String(l + 1)), t);
  const box = element('div', 'model-stream-box');
  // every feature of every stage (14 × 768 cells for GPT-2 small): drawn only while the reader has it open
  const d = result.hidden[0].length / result.n;
  const all = element('details', 'model-stream-all');
  all.append(element('summary', '', t('models.streamAll', { d, cells: result.hidden.length * d })));
  const whole = element('div', 'model-stream-box');
  all.append(whole);
  const explain = element('div', 'model-stream-explain');
  let walk = null;
  const mark = (step) => {
    for (const row of box.querySelectorAll('tr[data-stage]')) row.classList.toggle('model-stream-current', step !== null && row.dataset.stage === String(step.stage));
  };
  const showParts = () => {
    explain.dataset.key = `${tokens.select.value}:${layers.select.value}`;
    renderExplanation(explain, { result, report, t, token: Number(tokens.select.value), layer: Number(layers.select.value), blockOf });
  };
  const show = () => {
    const i = Number(tokens.select.value);
    box.replaceChildren(streamSummary(result, report, i, t));
    whole.replaceChildren(...(all.open ? [streamTable(result, report, i, t)] : []));
    showParts();
    const next = walkPanel(walkSteps(result, report, i, t), t, (step) => {
      mark(step);
      if (step?.layer !== null && step?.layer !== undefined && Number(layers.select.value) !== step.layer) {
        layers.select.value = String(step.layer);
        showParts();
      }
    });
    walk?.panel.replaceWith(next.panel);
    walk = next;
  };
  tokens.select.addEventListener('change', show);
  layers.select.addEventListener('change', showParts);
  all.addEventListener('toggle', () => whole.replaceChildren(...(all.open ? [streamTable(result, report, Number(tokens.select.value), t)] : [])));
  show();
  container.replaceChildren(title, intro, tokens.label, tokens.select, box, all, element('h4', '', t('models.streamHow')), ...streamIntro(result, report, t), layers.label, layers.select, explain, walk.panel,
    exportBar(result, report, t, download), blockNote(report, t));
}

// What "Open this layer in the lab" takes: the layer's whole block, the model's own
function blockNote(report, t) {
  const [order, norm, mlp] = report.family === 'llama' ? ['models.orderPre', 'models.norm.rmsnorm', 'models.mlp.swiglu']
    : [report.family === 'gpt2' ? 'models.orderPre' : 'models.orderPost', 'models.norm.layernorm', `models.mlp.${report.activation ?? 'gelu'}`];
  return element('p', 'model-note', t('models.blockOpens', { order: t(order), norm: t(norm), mlp: t(mlp), layers: report.layers }));
}
