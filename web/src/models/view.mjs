// The "Real models" view's renderers: the tokens as the tokenizer made them, the next-token list,
// and every layer's heads with the lab's heatmap (shared/heatmap.mjs) and table (shared/matrix.mjs)
// renderers. DOM nodes and textContent only; a token's text is the reader's model's, isolated.
import { renderHeatmap } from '../shared/heatmap.mjs';
import { renderMatrix } from '../shared/matrix.mjs';
import { formatNumber } from '../shared/format.mjs';

const element = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** The tokens, each with its id. */
export function renderTokens(container, { tokens, ids }, t) {
  const items = tokens.map((token, i) => {
    const chip = element('span', 'model-token', token);
    chip.dir = 'auto';
    chip.append(element('small', '', String(ids[i])));
    chip.title = t('models.tokenId', { id: ids[i] });
    return chip;
  });
  const list = element('div', 'model-token-list');
  list.append(...items);
  // byte-level BPE (GPT-2, Llama 3) writes a leading space as Ġ, SentencePiece as ▁: said once, when seen
  const marks = [...new Set(tokens.join('').match(/[Ġ▁]/gu) ?? [])];
  const note = marks.length ? [element('p', 'hint', t('models.spaceMark', { marks: marks.join(' ') }))] : [];
  container.replaceChildren(element('h3', '', t('models.tokens', { count: tokens.length })), ...note, list);
}

/** The next-token list (causal models), or nothing. */
export function renderNext(container, next, t) {
  if (!next) {
    container.replaceChildren();
    return;
  }
  const table = element('table', 'model-next');
  table.append(element('caption', '', t('models.next', { count: next.length })));
  const head = element('tr');
  head.append(element('th', '', t('models.nextToken')), element('th', '', t('models.nextId')), element('th', '', t('models.nextProbability')));
  table.append(head);
  for (const { id, token, probability } of next) {
    const row = element('tr');
    const cell = element('td', 'model-token', token);
    cell.dir = 'auto';
    row.append(cell, element('td', '', String(id)), element('td', '', formatNumber(probability)));
    table.append(row);
  }
  container.replaceChildren(table);
}

// One head: its weights as a heatmap, and as a table when its details are opened.
function headFigure(result, l, h, t, ink, onOpen) {
  const { n, tokens } = result;
  const weights = result.layers[l].heads[h].weights;
  const figure = element('figure', 'model-head');
  figure.dataset.layer = String(l);
  figure.dataset.head = String(h);
  const canvas = element('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', t('models.headLabel', { layer: l + 1, head: h + 1 }));
  // at most about 416 px of cells: the lab's 26 px up to 16 tokens, smaller beyond (128 tokens at 26 px
  // made 3328 px canvases, 44 MB each); token labels while a cell still holds a line of text
  const cell = Math.max(3, Math.min(26, Math.floor(416 / n)));
  const labels = cell >= 12 ? tokens : null;
  renderHeatmap(canvas, weights, n, n, { cell, rowLabels: labels, columnLabels: labels, numbers: n <= 12, ink });
  const table = element('details');
  table.append(element('summary', '', t('models.headTable')));
  table.addEventListener('toggle', () => {
    if (!table.open || table.childElementCount > 1) return;
    const holder = element('div');
    table.append(holder);
    renderMatrix(holder, { caption: t('models.headLabel', { layer: l + 1, head: h + 1 }), rowLabels: tokens, columnLabels: tokens,
      values: weights, shade: true, rowSums: true, address: { matrix: null }, t });
  });
  const open = element('button', 'model-open', t('models.openInLab'));
  open.type = 'button';
  open.setAttribute('aria-label', t('models.openInLabLabel', { layer: l + 1, head: h + 1 }));
  open.addEventListener('click', () => onOpen(l, h));
  figure.append(element('figcaption', '', t('models.head', { head: h + 1 })), canvas, table, open);
  return figure;
}

/**
 * Every layer, every head: the first layer open, the others a click away (a partial result, layer 1
 * alone, says how many layers the model has). onOpen(l, h): "Open this layer in the lab".
 */
export function renderLayers(container, result, t, ink, onOpen) {
  const count = result.partial?.of ?? result.layers.length;
  const sections = result.layers.map((layer, l) => {
    const details = element('details', 'model-layer');
    details.open = l === 0;
    details.dataset.layer = String(l);
    details.append(element('summary', '', t('models.layer', { layer: l + 1, count })));
    const heads = element('div', 'model-heads');
    const draw = () => heads.replaceChildren(...layer.heads.map((_, h) => headFigure(result, l, h, t, ink, onOpen)));
    if (details.open) draw();
    else details.addEventListener('toggle', () => details.open && !heads.childElementCount && draw());
    details.append(heads);
    return details;
  });
  container.replaceChildren(...sections);
}
