// "Explain this number" in a lab: which computed cell is selected (click, focus, arrow keys), its
// explanation drawn in the panel, and the ways to close it (the button, Esc), after which focus
// returns to the number that was explained.
import { explainCell } from '../shared/explain-cell.mjs';

/** The address of a table cell: { matrix, head, row, col } from its data attributes. */
export function cellOf(td) {
  return {
    matrix: td.dataset.matrix,
    head: td.dataset.head === undefined ? undefined : Number(td.dataset.head),
    row: Number(td.dataset.row),
    col: Number(td.dataset.col),
  };
}

/**
 * page: the renderers (renderExplanation); getView: the computation on screen, or null; guard(cell):
 * null, or a sentence said instead of the arithmetic (practice mode: a number that would give an
 * answer away, or whose arithmetic would).
 */
export function createExplainPanel({ root, container, page, getView, t, guard = () => null }) {
  let selected = null;      // { matrix, head, row, col } being explained
  let stepHeaders = null;   // { row, col }: the headers of a cell chosen in the step table
  let refocusing = false;   // focus returning to a cell after its explanation closed

  function clearMarks() {
    for (const old of container.querySelectorAll('td.selected')) old.classList.remove('selected');
  }

  function select(td) {
    if (!getView()) return;
    clearMarks();
    selected = cellOf(td);
    // the step table lays a query's row out by key: say where the number sits there too
    const steps = td.closest('table.steps');
    stepHeaders = steps ? { row: td.parentElement.cells[0].textContent, col: steps.tHead.rows[0].cells[td.cellIndex].textContent } : null;
    td.classList.add('selected');
    show();
  }

  function show() {
    const view = getView();
    if (!selected || !view) return page.renderExplanation(null);
    const { row, head = 0, matrix } = selected;
    const rows = matrix === 'k' || matrix === 'v' || matrix === 'context' ? view.keyTokens.length : view.tokens.length;
    if (row >= rows || head >= view.heads) return page.renderExplanation(null);
    const explanation = explainCell(view, selected, t);
    const withheld = guard(selected);
    if (withheld) return page.renderExplanation({ title: explanation.title, lines: [withheld], value: null });
    if (stepHeaders) explanation.lines.unshift(t('explain.inSteps', stepHeaders));
    page.renderExplanation(explanation);
  }

  function close() {
    const cell = selected && container.querySelector('td.selected');
    selected = null;
    stepHeaders = null;
    clearMarks();
    show();
    // focus goes back to the number that was explained (without explaining it again)
    if (cell && !cell.contains(root.activeElement)) {
      refocusing = true;
      cell.focus?.();
      refocusing = false;
    }
  }

  // selecting a computed number explains it: click, or focus (Tab, arrow keys) on a cell
  container.addEventListener('click', (event) => {
    const td = event.target.closest('td[data-matrix]');
    // a practice blank is for typing in (an input's cell is selected by its focus); a hidden cell
    // (and one whose arithmetic shows a hidden number) says why it is not explained (guard)
    if (td && !td.querySelector('input')) select(td);
  });
  container.addEventListener('focusin', (event) => {
    const td = !refocusing && event.target.closest('td[data-matrix]');
    if (td && td.dataset.practice !== 'blank') select(td);  // an editable input's cell too
  });
  root.getElementById('explain-close').addEventListener('click', close);
  container.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && selected) close();
  });

  return {
    /** After a redraw: mark the selected cell again (tables may be new, or redrawn in place) and explain its new value. */
    redraw() {
      clearMarks();
      if (selected) {
        const td = container.querySelector(`td[data-matrix="${selected.matrix}"][data-row="${selected.row}"][data-col="${selected.col}"]` +
          (selected.head === undefined ? '' : `[data-head="${selected.head}"]`));
        td?.classList.add('selected');
      }
      show();
    },
    /** Forget the selection (a new example: its cells are other numbers). */
    reset() {
      selected = null;
      stepHeaders = null;
    },
  };
}
