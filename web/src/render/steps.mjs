// The notes' step table (004) for one query token and one head:
//   token | q | k | v | q·k | q·k / scale | softmax | softmax·v, then the sum z.
import { formatCell, formatFull, formatVector } from '../format.mjs';
import { weightColour } from '../colour.mjs';
import { message } from '../messages.mjs';

/** `t(key, values)`: the lab's language (English without it). */
export function renderSteps(container, view, queryIndex, head, t = message) {
  const { tokens, keyTokens, dK, dV, result } = view;
  const h = result.heads[head];
  const m = view.m;
  const row = (values, width, r) => values.subarray(r * width, (r + 1) * width);
  const divisor = view.scaleMode === 'sqrt_dk' ? `√d_k = ${formatFull(result.shape.scale)}` : formatFull(result.shape.scale);

  const table = document.createElement('table');
  table.className = 'steps';
  const caption = document.createElement('caption');
  caption.textContent = t('steps.caption', { token: tokens[queryIndex], row: queryIndex + 1, head: head + 1, q: formatVector(row(h.q, dK, queryIndex), 3) });
  table.append(caption);

  const headRow = document.createElement('tr');
  const parts = [null, 'q', 'k', 'v', 'scores', 'scaled', 'weights', 'weighted'];
  for (const [c, label] of [t('steps.token'), 'q', 'k', 'v', 'q·k', `q·k / ${divisor}`, 'softmax', 'softmax · v'].entries()) {
    const th = document.createElement('th');
    th.scope = 'col';
    if (parts[c]) th.dataset.part = parts[c];
    th.textContent = label;
    headRow.append(th);
  }
  const thead = document.createElement('thead');
  thead.append(headRow);

  const body = document.createElement('tbody');
  // the query's own row carries q, as in the notes; in cross-attention the first row does
  const qRow = view.self ? queryIndex : 0;
  for (let j = 0; j < m; j++) {
    const tr = document.createElement('tr');
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = keyTokens[j];
    const weight = h.weights[queryIndex * m + j];
    const weightedValue = Array.from(row(h.v, dV, j), (v) => v * weight);
    const cells = [
      [j === qRow ? formatVector(row(h.q, dK, queryIndex), 2, 4) : '', null, 'q'],
      [formatVector(row(h.k, dK, j), 2, 4), null, 'k'],
      [formatVector(row(h.v, dV, j), 2, 4), null, 'v'],
      [formatCell(h.scores[queryIndex * m + j]), 'scores', 'scores'],
      [formatCell(h.scaled[queryIndex * m + j]), 'scaled', 'scaled'],
      [formatCell(weight, 4), 'weights', 'weights'],
      [formatVector(weightedValue, 3, 4), null, 'weighted'],
    ];
    tr.append(name);
    for (const [text, matrix, part] of cells) {
      const td = document.createElement('td');
      td.textContent = text;
      // the guided walk finds the step table's cells by column and key; q only on the query's row
      if (part !== 'q' || j === qRow) Object.assign(td.dataset, { part, key: String(j) });
      td.classList.add(`part-${part}`);
      if (matrix) {
        Object.assign(td.dataset, { matrix, head: String(head), row: String(queryIndex), col: String(j) });
        td.tabIndex = -1;
      }
      if (matrix === 'weights') {
        const { background, foreground } = weightColour(weight);
        td.style.backgroundColor = background;
        td.style.color = foreground;
      }
      if (matrix === 'scaled' && h.scaled[queryIndex * m + j] === -Infinity) td.classList.add('masked');
      tr.append(td);
    }
    body.append(tr);
  }
  const foot = document.createElement('tfoot');
  const sumRow = document.createElement('tr');
  const sumLabel = document.createElement('th');
  sumLabel.scope = 'row';
  sumLabel.colSpan = 7;
  sumLabel.textContent = t('steps.sum', { head: head + 1, token: tokens[queryIndex] });
  const sum = document.createElement('td');
  sum.textContent = formatVector(row(h.z, dV, queryIndex), 4, 8);
  sum.dataset.part = 'z';
  sumRow.append(sumLabel, sum);
  foot.append(sumRow);
  table.append(thead, body, foot);
  const first = body.querySelector('td[data-matrix]');
  if (first) first.tabIndex = 0;
  container.replaceChildren(table);
}
