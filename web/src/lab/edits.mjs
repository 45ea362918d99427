// Cells of X, C and the parameters typed by the reader: a number becomes an action; anything else
// marks the cell and says why, while the last good tables stay.
import { parseNumber } from '../shared/format.mjs';
import { FLOAT32_MAX } from '../state/index.mjs';
import { cellOf } from '../explain/index.mjs';
import { cellKey } from './problems.mjs';

const tableName = (matrix) => (matrix === 'x' ? 'X' : matrix === 'context' ? 'C' : matrix.toUpperCase());

function refuse(input, cell, value, problems) {
  input.setAttribute('aria-invalid', 'true');
  problems.cells.set(cellKey(cell), {
    key: value === null ? 'problem.cellNotNumber' : 'problem.cellTooLarge',
    values: { table: tableName(cell.matrix), row: cell.row + 1, col: cell.col + 1, value: input.value.slice(0, 40) },
  });
  problems.show();
}

/** Listens to the editable tables of a lab; `getView()` is the computation the cells belong to. */
export function listenToEdits({ root, store, getView, problems }) {
  const onInput = (event) => {
    const input = event.target;
    problems.clearOutside();
    const td = input.closest('td[data-matrix]');
    const view = getView();
    if (!td || !view) return;
    const cell = cellOf(td);
    const value = parseNumber(input.value);
    if (value === null || Math.abs(value) > FLOAT32_MAX) return refuse(input, cell, value, problems);
    input.removeAttribute('aria-invalid');
    problems.cells.delete(cellKey(cell));
    if (cell.matrix === 'x' || cell.matrix === 'context') {
      const tokens = cell.matrix === 'x' ? view.tokens : view.keyTokens;
      return store.dispatch({ type: 'cell', which: cell.matrix, row: cell.row, token: tokens[cell.row], col: cell.col, value });
    }
    return store.dispatch({ type: 'weight', weights: view.weights, cell, value, layers: view.layerWeights ?? null });
  };
  for (const id of ['x-table', 'context-table', 'weights']) root.getElementById(id).addEventListener('input', onInput);
}
