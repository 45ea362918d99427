// The residual stream of a real model: each token's hidden state entering and leaving every layer
// (result.hidden: the embeddings with positions, then the stream after each block; the last after
// the model's final norm where it has one, as transformers returns it), one table per token chosen,
// every number at the lab's precision and exactly (formatFull) in its title and data-value; and
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
    const cells = Array.from({ length: d }, (_, j) => {
      const value = result.hidden[s][i * d + j];
      const td = element('td', '', formatNumber(value));
      td.title = td.dataset.value = formatFull(value);
      return td;
    });
    row.append(element('th', '', name), ...cells);
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
  const show = () => box.replaceChildren(streamTable(result, report, Number(picker.value), t));
  picker.addEventListener('change', show);
  show();
  // what "Open this layer in the lab" takes: the layer's whole block, the model's own
  const [order, norm, mlp] = report.family === 'llama' ? ['models.orderPre', 'models.norm.rmsnorm', 'models.mlp.swiglu']
    : [report.family === 'gpt2' ? 'models.orderPre' : 'models.orderPost', 'models.norm.layernorm', `models.mlp.${report.activation ?? 'gelu'}`];
  const why = element('p', 'model-note', t('models.blockOpens', { order: t(order), norm: t(norm), mlp: t(mlp), layers: report.layers }));
  container.replaceChildren(title, intro, label, picker, box, why);
}
