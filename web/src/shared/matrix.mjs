// One matrix as a real <table>: a caption, column and row headers, a cell per value. Cells can be
// shaded by value, masked (−∞), summed per row, or editable (<input>). Built with DOM nodes and
// textContent only. Re-rendering a table of the same shape updates its cells in place, so an input
// being typed in keeps its focus and caret.
import { formatCell, formatFull, formatNumber } from './format.mjs';
import { weightColour } from './colour.mjs';
import { message } from '../i18n/index.mjs';

/**
 * spec: { caption, rowLabels, columnLabels, values, digits?, shade?, rowSums?, editable?,
 *         address: { matrix, head }, label? (for inputs' accessible names), overlay?, t? (the
 *         lab's language: t(key, values); English without it) }
 * address.matrix names the matrix for selection and explanation; null makes a plain table.
 * overlay(td, address, row, col), when given, is asked first for each computed cell (col = the
 * number of columns for a row sum): true means it drew the cell itself (practice mode's blanks).
 */
export function renderMatrix(container, spec) {
  const signature = [spec.caption, spec.rowLabels.join('\u0001'), spec.columnLabels.join('\u0001'),
    spec.editable ? 'e' : '', spec.rowSums ? 's' : '', spec.address.matrix, spec.address.head ?? ''].join('|');
  let table = container.firstElementChild;
  if (!table || table.dataset.signature !== signature) {
    table = buildTable(spec);
    table.dataset.signature = signature;
    container.replaceChildren(table);
  }
  fillTable(table, spec);
  return table;
}

function buildTable(spec) {
  const { rowLabels, columnLabels, address } = spec;
  const table = document.createElement('table');
  table.className = 'matrix';
  const caption = document.createElement('caption');
  caption.textContent = spec.caption;
  table.append(caption);

  const head = document.createElement('thead');
  const headRow = document.createElement('tr');
  const corner = document.createElement('td');
  corner.className = 'corner';
  headRow.append(corner);
  for (const label of columnLabels) headRow.append(headerCell(label, 'col'));
  const t = spec.t ?? message;
  if (spec.rowSums) headRow.append(headerCell(t('caption.rowSum'), 'col'));
  head.append(headRow);

  const body = document.createElement('tbody');
  rowLabels.forEach((label, r) => {
    const tr = document.createElement('tr');
    tr.append(headerCell(label, 'row'));
    columnLabels.forEach((columnLabel, c) => {
      const td = document.createElement('td');
      // cells of a named matrix can be selected and explained; a plain table's cannot
      if (address.matrix) {
        td.dataset.matrix = address.matrix;
        if (address.head !== undefined) td.dataset.head = String(address.head);
        td.dataset.row = String(r);
        td.dataset.col = String(c);
      }
      if (spec.editable) {
        const input = document.createElement('input');
        input.type = 'text';
        input.inputMode = 'decimal';
        input.autocomplete = 'off';
        input.spellcheck = false;
        input.setAttribute('aria-label', t('caption.cell', { table: spec.label ?? spec.caption, row: label, col: columnLabel }));
        // the whole matrix is one Tab stop; arrow keys move inside it (moveFocus)
        input.tabIndex = r === 0 && c === 0 ? 0 : -1;
        td.append(input);
      } else if (address.matrix) {
        td.tabIndex = r === 0 && c === 0 ? 0 : -1;
      }
      tr.append(td);
    });
    if (spec.rowSums) {
      const sum = document.createElement('td');
      sum.className = 'row-sum';
      tr.append(sum);
    }
    body.append(tr);
  });
  table.append(head, body);
  if (spec.editable) {
    table.classList.add('editable');
    caption.dataset.note = t('caption.editable');  // shown after the caption by the styles
  }
  if (address.matrix) table.addEventListener('keydown', moveFocus);
  return table;
}

function headerCell(text, scope) {
  const th = document.createElement('th');
  th.scope = scope;
  th.textContent = text;
  return th;
}

function fillTable(table, spec) {
  const cols = spec.columnLabels.length;
  // decimals when the table asks for them, else the lab's precision (formatNumber)
  const shown = (value) => (spec.digits === undefined ? formatNumber(value) : formatCell(value, spec.digits));
  const rows = table.tBodies[0].rows;
  for (let r = 0; r < rows.length; r++) {
    const cells = rows[r].cells;  // cells[0] is the row header
    let sum = 0;
    for (let c = 0; c < cols; c++) {
      const value = spec.values[r * cols + c];
      const td = cells[c + 1];
      sum += value === -Infinity ? 0 : value;
      if (spec.overlay?.(td, spec.address, r, c)) continue;
      if (spec.editable) {
        const input = td.firstElementChild;
        // never overwrite what the reader is typing, nor a cell marked invalid
        const text = formatFull(value);
        if (input.value !== text && input !== input.getRootNode().activeElement && !input.hasAttribute('aria-invalid')) input.value = text;
        continue;
      }
      // touch the DOM only where something changed: every write invalidates styles
      setText(td, shown(value));
      if ((value === -Infinity) !== td.classList.contains('masked')) td.classList.toggle('masked');
      if (spec.shade) {
        const { background, foreground } = weightColour(value);
        if (td.dataset.shade !== background) {
          td.dataset.shade = background;
          td.style.backgroundColor = background;
          td.style.color = foreground;
        }
      }
    }
    if (spec.rowSums && !spec.overlay?.(cells[cols + 1], spec.address, r, cols)) setText(cells[cols + 1], shown(sum));
  }
}

// Each cell keeps one text node; its text is rewritten only when it changes.
function setText(node, text) {
  const child = node.firstChild;
  if (!child) node.append(text);
  else if (child.data !== text) child.data = text;
}

// Arrow keys move between the cells of a table, like a spreadsheet; one cell per table is in the
// tab order (a roving tabindex). In an editable cell, left and right first move the caret, and
// leave the cell only from its start or end (a cell entered by keyboard has all its text selected).
function moveFocus(event) {
  const td = event.target.closest('td[data-row]');
  if (!td) return;
  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  const move = moves[event.key];
  if (!move) return;
  const input = event.target.closest('input');
  if (input && move[1] !== 0) {
    const atStart = input.selectionStart === 0;
    const atEnd = input.selectionEnd === input.value.length;
    if ((move[1] < 0 && !atStart) || (move[1] > 0 && !atEnd)) return;
  }
  const row = Number(td.dataset.row) + move[0];
  const col = Number(td.dataset.col) + move[1];
  const next = event.currentTarget.querySelector(`td[data-row="${row}"][data-col="${col}"]`);
  if (!next) return;
  event.preventDefault();
  const from = input ?? td;
  const to = next.querySelector('input') ?? next;
  from.tabIndex = -1;
  to.tabIndex = 0;
  to.focus();
  if (to !== next) to.select();
}
