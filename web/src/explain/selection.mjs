// Which computed cell is explained, and its explanation drawn. Each function takes the panel's
// own object (made by explain/index.mjs):
//   panel: { root, container, getView(), t, guard(cell), render(explanation),
//            selected, stepHeaders, refocusing }
import { explainCell } from '../shared/explain-cell.mjs';
import { LAYER_TABLES } from '../shared/explain-layers.mjs';
import { uncover } from './sheet.mjs';

/** The address of a table cell: { matrix, head, row, col } (and the stream's token) from its data attributes. */
export function cellOf(td) {
  const cell = {
    matrix: td.dataset.matrix,
    head: td.dataset.head === undefined ? undefined : Number(td.dataset.head),
    row: Number(td.dataset.row),
    col: Number(td.dataset.col),
  };
  if (td.dataset.token !== undefined) cell.token = Number(td.dataset.token);
  return cell;
}

// the selector of the cell an address names, on the page now
const selectorOf = ({ matrix, row, col, head, token }) => `td[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]` +
  (head === undefined ? '' : `[data-head="${head}"]`) + (token === undefined ? '' : `[data-token="${token}"]`);

function clearMarks(panel) {
  for (const old of panel.container.querySelectorAll('td.selected')) old.classList.remove('selected');
}

export function select(panel, td) {
  if (!panel.getView()) return;
  clearMarks(panel);
  panel.selected = cellOf(td);
  // the step table lays a query's row out by key: say where the number sits there too
  const steps = td.closest('table.steps');
  panel.stepHeaders = steps ? { row: td.parentElement.cells[0].textContent, col: steps.tHead.rows[0].cells[td.cellIndex].textContent } : null;
  td.classList.add('selected');
  show(panel);
  uncover(panel, td);
}

export function show(panel) {
  const { selected, t } = panel;
  const view = panel.getView();
  if (!selected || !view) return panel.render(null);
  const { row, head = 0, matrix } = selected;
  // a link into another layer waits for that layer's tables (explain/index.mjs follow)
  if (selected.layer !== undefined && selected.layer !== view.layer) return panel.render(null);
  const rows = matrix === 'k' || matrix === 'v' || matrix === 'context' ? view.keyTokens.length : view.tokens.length;
  if ((!LAYER_TABLES.has(matrix) && row >= rows) || head >= view.heads) return panel.render(null);
  const explanation = explainCell(view, selected, t);
  if (!explanation) return panel.render(null);
  const withheld = panel.guard(selected);
  if (withheld) return panel.render({ title: explanation.title, lines: [withheld], value: null });
  if (panel.stepHeaders) explanation.lines.unshift(t('explain.inSteps', panel.stepHeaders));
  panel.render(explanation);
}

export function close(panel) {
  const cell = panel.selected && panel.container.querySelector('td.selected');
  forget(panel);
  clearMarks(panel);
  show(panel);
  // focus goes back to the number that was explained (without explaining it again)
  if (cell && !cell.contains(panel.root.activeElement)) {
    panel.refocusing = true;
    cell.focus?.();
    panel.refocusing = false;
  }
}

/** After a redraw: mark the selected cell again (tables may be new, or redrawn in place) and explain its new value. */
export function redraw(panel) {
  clearMarks(panel);
  const { selected } = panel;
  if (selected) panel.container.querySelector(selectorOf(selected))?.classList.add('selected');
  show(panel);
  arrive(panel);
}

// A link followed (explain/index.mjs): once its layer's tables are drawn, the cell takes the focus,
// as a cell clicked would (the keys go on from there)
function arrive(panel) {
  const { selected } = panel;
  if (!panel.following || !selected) return;
  const view = panel.getView();
  if (selected.layer !== undefined && selected.layer !== view?.layer) return;
  const td = panel.container.querySelector(selectorOf(selected));
  if (!td) return;
  panel.following = false;
  delete selected.layer;
  panel.refocusing = true;
  (td.querySelector('input') ?? td).focus({ preventScroll: true });  // a typed cell: its input
  panel.refocusing = false;
  td.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  uncover(panel, td);
}

/** Follows a link of the explanation: selects its cell, in its layer (a new view) or for its token. */
export function follow(panel, target, dispatch) {
  const view = panel.getView();
  if (!view) return;
  clearMarks(panel);
  panel.selected = { ...target };
  panel.stepHeaders = null;
  panel.following = true;
  if (target.layer !== undefined && target.layer !== view.layer) return dispatch({ type: 'settings', change: { selectedLayer: target.layer } });
  if (target.token !== undefined) return dispatch({ type: 'select', token: target.token });
  redraw(panel);
}

/** Forget the selection (a new example: its cells are other numbers). */
export function forget(panel) {
  panel.selected = null;
  panel.stepHeaders = null;
  panel.following = false;  // a link followed and not arrived yet is forgotten too
}
