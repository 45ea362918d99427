// The notes' step table (004) for one query token and one head:
//   token | q | k | v | q·k | q·k / scale | softmax | softmax·v, then the sum z.
// The table is built once per shape (the keys, self or cross) and its cells rewritten in place when
// only the numbers change: a table rebuilt on every edit is styled, laid out and painted anew, its
// sticky token cells composited anew, where most cells have not changed.
import { formatNumber, formatNumbers, precision } from '../shared/format.mjs';
import { weightColour } from '../shared/colour.mjs';
import { message } from '../i18n/index.mjs';
import { layerCount, layerNumber, modelLayerOf, normName } from '../shared/layer-name.mjs';
import { projectionFormula, rotated } from '../shared/formula-text.mjs';

const PARTS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'weighted'];
// vectors up to this long are shown whole (wrapping in their cell); longer ones shortened until the
// reader opens them (the button under the table)
const WHOLE = 12;
const SHORT = 8;
const MATRIX_OF_PART = { scores: 'scores', scaled: 'scaled', weights: 'weights' };

/** `t(key, values)`: the lab's language (English without it). */
export function renderSteps(container, view, queryIndex, head, t = message) {
  const { keyTokens } = view;
  const signature = `${view.self}|${keyTokens.join('\u0001')}`;
  let table = container.firstElementChild;
  if (!table || table.dataset.signature !== signature) {
    table = buildSteps(keyTokens);
    table.dataset.signature = signature;
    const whole = document.createElement('button');
    whole.type = 'button';
    whole.className = 'whole-vectors';
    whole.addEventListener('click', () => {
      table.dataset.whole = table.dataset.whole ? '' : '1';
      fillSteps(table, ...table.lastFill);
    });
    container.replaceChildren(table, whole);
  }
  table.lastFill = [view, queryIndex, head, t];
  fillSteps(table, view, queryIndex, head, t);
}

// the whole-vectors button: shown when a vector is longer than WHOLE, its text saying what it does
function fillWholeButton(table, view, t) {
  const button = table.nextElementSibling;
  if (!button) return;
  const longest = Math.max(view.dK, view.dV);
  button.hidden = longest <= WHOLE;
  setText(button, t(table.dataset.whole ? 'steps.shortVectors' : 'steps.wholeVectors', { n: longest }));
  button.setAttribute('aria-pressed', table.dataset.whole ? 'true' : 'false');
}

function buildSteps(keyTokens) {
  const table = document.createElement('table');
  table.className = 'steps';
  table.append(document.createElement('caption'));
  const headRow = document.createElement('tr');
  // the token's and the scaling's headers are written with the numbers (fillSteps)
  for (const [c, label] of ['', 'q', 'k', 'v', 'q·k', '', 'softmax', 'softmax · v'].entries()) {
    const th = document.createElement('th');
    th.scope = 'col';
    if (c > 0) th.dataset.part = PARTS[c - 1];
    th.textContent = label;
    headRow.append(th);
  }
  const thead = document.createElement('thead');
  thead.append(headRow);
  const body = document.createElement('tbody');
  keyTokens.forEach((token) => {
    const tr = document.createElement('tr');
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = token;
    tr.append(name);
    for (const part of PARTS) {
      const td = document.createElement('td');
      td.classList.add(`part-${part}`);
      td.append('');
      tr.append(td);
    }
    body.append(tr);
  });
  const foot = document.createElement('tfoot');
  const sumRow = document.createElement('tr');
  // the row is named in the token column, which stays on screen as the table scrolls sideways, and
  // says whose output it is above its vector: no sentence spans the columns to be cut by the sticky
  // column (review 4, finding 5)
  const name = document.createElement('th');
  name.scope = 'row';
  name.textContent = 'z = Σ softmax · v';
  const gap = document.createElement('td');
  gap.colSpan = 6;
  const sum = document.createElement('td');
  sum.dataset.part = 'z';
  const whose = document.createElement('span');
  whose.className = 'z-whose';
  sum.append(whose, document.createElement('span'));
  sumRow.append(name, gap, sum);
  foot.append(sumRow);
  table.append(thead, body, foot);
  return table;
}

// Writes only what differs: every write invalidates styles.
const setText = (node, text) => {
  if (node.textContent !== text) node.textContent = text;
};
const setData = (element, key, value) => {
  if (value === undefined) delete element.dataset[key];
  else if (element.dataset[key] !== value) element.dataset[key] = value;
};

// The q column's cell on the other keys' rows: empty
const NOTHING = [];

// Whether a cell shows these numbers already, in this way (the vectors' shortening, the digits)
function sameShown(td, values, stamp) {
  if (td.shownStamp !== stamp || td.shown === undefined) return false;
  if (typeof values === 'number') return Object.is(td.shown, values);
  if (typeof td.shown === 'number' || td.shown.length !== values.length) return false;
  for (let i = 0; i < values.length; i++) if (!Object.is(td.shown[i], values[i])) return false;
  return true;
}

// A cell's place for the guided walk, the explanations and the keyboard, written when it moves
function placeCell(td, part, { j, qRow, head, queryIndex }) {
  const place = `${j}|${qRow}|${head}|${queryIndex}`;
  if (td.shownPlace === place) return;
  td.shownPlace = place;
  // the guided walk finds the step table's cells by column and key; q only on the query's row
  const walked = part !== 'q' || j === qRow;
  setData(td, 'part', walked ? part : undefined);
  setData(td, 'key', walked ? String(j) : undefined);
  const matrix = MATRIX_OF_PART[part];
  if (!matrix) return;
  setData(td, 'matrix', matrix);
  setData(td, 'head', String(head));
  setData(td, 'row', String(queryIndex));
  setData(td, 'col', String(j));
  // one Tab stop in the table; the others focusable by click (a cell without the attribute is not)
  const tabIndex = matrix === 'scores' && j === 0 ? '0' : '-1';
  if (td.getAttribute('tabindex') !== tabIndex) td.setAttribute('tabindex', tabIndex);
}

// The caption: the query, the layer, and the formula of the q shown, as computed: its norm, its bias
// and its rotation with the position it is turned by (review 8, findings 1 and 5)
function captionOf(view, queryIndex, head, q, t) {
  const layers = layerCount(view);
  const formula = projectionFormula(view, 'q', view.readsNorm ? `${normName(view, view.layer, 0)}(x)` : 'x', head);
  const plain = formula === 'x · W_q';
  const caption = { token: view.tokens[queryIndex], row: queryIndex + 1, head: head + 1, q, formula };
  const named = layers > 1 || view.readsNorm || modelLayerOf(view);
  const key = view.readsNorm ? 'steps.captionLayerNorm'
    : named ? (plain ? 'steps.captionLayer' : 'steps.captionLayerFormula') : (plain ? 'steps.caption' : 'steps.captionFormula');
  const text = t(key, named ? { ...caption, layer: layerNumber(view), layers } : caption);
  return rotated(view, head) ? `${text}. ${t('steps.captionRotary', { position: queryIndex, row: queryIndex + 1 })}` : text;
}

function fillSteps(table, view, queryIndex, head, t) {
  const { tokens, dK, dV, result } = view;
  const h = result.heads[head];
  const m = view.m;
  const row = (values, width, r) => values.subarray(r * width, (r + 1) * width);
  const limit = table.dataset.whole ? Infinity : WHOLE;
  const vector = (values) => formatNumbers(values, values.length > limit ? SHORT : Infinity);
  fillWholeButton(table, view, t);
  const divisor = view.scaleMode === 'sqrt_dk' ? `√d_k = ${formatNumber(result.shape.scale)}` : formatNumber(result.shape.scale);
  // with layers, the caption names the layer the picker chose: the table changes with it
  // (a real model's layer: the model's number, "layer 2 of 2", and its norm's name: shared/layer-name.mjs)
  setText(table.caption, captionOf(view, queryIndex, head, vector(row(h.q, dK, queryIndex)), t));
  const headers = table.tHead.rows[0].cells;
  setText(headers[0], t('steps.token'));
  // with RoPE, the q and k shown are the turned ones, as the caption says (review 9, finding 6)
  const turned = rotated(view, head);
  setText(headers[1], turned ? t('steps.qRotated') : 'q');
  setText(headers[2], turned ? t('steps.kRotated') : 'k');
  setText(headers[5], view.scaleMode === 'none' ? t('steps.notScaled') : `q·k / ${divisor}`);  // not '/ 1' (issue 26 review)
  // the query's own row carries q, as in the notes; in cross-attention the first row does
  const qRow = view.self ? queryIndex : 0;
  const rows = table.tBodies[0].rows;
  // a cell's text is made and written only when its numbers (or how they are shown) changed: an
  // edit of one input changes one key's row and the query's column, not most of the table
  const stamp = `${limit}|${precision()}`;
  for (let j = 0; j < m; j++) {
    const cells = rows[j].cells;  // cells[0] is the key's token
    const weight = h.weights[queryIndex * m + j];
    const shown = [
      j === qRow ? row(h.q, dK, queryIndex) : NOTHING,
      row(h.k, dK, j),
      row(h.v, dV, j),
      h.scores[queryIndex * m + j],
      h.scaled[queryIndex * m + j],
      weight,
      Array.from(row(h.v, dV, j), (v) => v * weight),
    ];
    PARTS.forEach((part, c) => {
      const td = cells[c + 1];
      if (!sameShown(td, shown[c], stamp)) {
        td.shown = typeof shown[c] === 'number' ? shown[c] : Array.from(shown[c]);
        td.shownStamp = stamp;
        setText(td, typeof shown[c] === 'number' ? formatNumber(shown[c]) : shown[c] === NOTHING ? '' : vector(shown[c]));
        if (part === 'weights') {
          const { background, foreground } = weightColour(weight);
          if (td.dataset.shade !== background) {
            td.dataset.shade = background;
            td.style.backgroundColor = background;
            td.style.color = foreground;
          }
        }
        if (part === 'scaled') td.classList.toggle('masked', shown[c] === -Infinity);
      }
      placeCell(td, part, { j, qRow, head, queryIndex });
    });
  }
  const [whose, z] = table.tFoot.rows[0].cells[2].children;
  setText(whose, t('steps.sum', { head: head + 1, token: tokens[queryIndex] }));
  setText(z, vector(row(h.z, dV, queryIndex)));
}
