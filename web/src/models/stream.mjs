// The residual stream of a real model: each token's hidden state entering and leaving every layer
// (result.hidden: the embeddings with positions, then the stream after each block; the last after
// the model's final norm where it has one, as transformers returns it): for the token chosen a summary
// (each stage's norm and first features) and, opened on demand, every feature; every number at the
// lab's precision and exactly (formatFull) in its title and data-value; and
// what "Open this layer in the lab" takes: the layer's whole block.
import { formatFull, formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';

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

// The first features shown in the summary (a model's d_model is 768 and more: the whole row on demand).
export const SUMMARY_FEATURES = 8;

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

/** The residual stream section: a token picker over its table, and why the lab takes one layer at a time. */
export function renderStream(container, result, t, report) {
  if (!result.hidden) {
    container.replaceChildren();
    return;
  }
  const title = element('h3', '', t('models.stream'));
  const intro = element('p', 'hint', t(report.family !== 'bert' ? 'models.streamIntroNorm' : 'models.streamIntro', { count: result.hidden.length - 1 }));
  const label = element('label', '', t('models.streamToken'));
  const picker = element('select');
  picker.id = 'models-stream-token';
  label.htmlFor = picker.id;
  result.tokens.forEach((token, i) => {
    const option = element('option', '', `${i + 1}: ${isolate(token)}`);
    option.value = String(i);
    picker.append(option);
  });
  const box = element('div', 'model-stream-box');
  // every feature of every stage (14 × 768 cells for GPT-2 small): drawn only while the reader has it open
  const d = result.hidden[0].length / result.n;
  const all = element('details', 'model-stream-all');
  all.append(element('summary', '', t('models.streamAll', { d, cells: result.hidden.length * d })));
  const whole = element('div', 'model-stream-box');
  all.append(whole);
  const show = () => {
    const i = Number(picker.value);
    box.replaceChildren(streamSummary(result, report, i, t));
    whole.replaceChildren(...(all.open ? [streamTable(result, report, i, t)] : []));
  };
  picker.addEventListener('change', show);
  all.addEventListener('toggle', show);
  show();
  // what "Open this layer in the lab" takes: the layer's whole block, the model's own
  const [order, norm, mlp] = report.family === 'llama' ? ['models.orderPre', 'models.norm.rmsnorm', 'models.mlp.swiglu']
    : [report.family === 'gpt2' ? 'models.orderPre' : 'models.orderPost', 'models.norm.layernorm', `models.mlp.${report.activation ?? 'gelu'}`];
  const why = element('p', 'model-note', t('models.blockOpens', { order: t(order), norm: t(norm), mlp: t(mlp), layers: report.layers }));
  container.replaceChildren(title, intro, label, picker, box, all, why);
}
