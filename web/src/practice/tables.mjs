// Practice mode inside the lab's computed tables: the overlay that draws blanks and hidden cells
// into them (renderMatrix's spec.overlay, set through page.setOverlay), the cells a first hint
// lights, and each exercise's card beside the table of its blanks. DOM only; what goes where comes
// from the plan (blanks.mjs).
import { cellKey } from './blanks.mjs';

// a block of parameters with more cells than this is not opened by a hint: drawing d_model 64's
// 12,288 inputs at once takes seconds; the reader opens it, and its cells light up then
const MAX_OPENED_CELLS = 2048;

/**
 * container: the lab's element; t(key, values): its messages; signal: ends the listener it adds.
 * Returns the overlay and what practice does with the tables (the methods below).
 */
export function createTables({ container, t, signal }) {
  const tables = {
    container,
    t,
    plan: new Map(),          // cellKey → { exercise, blank } | { hidden: true }
    inputOf: () => null,      // (exercise, blank) → the blank's <input>
    lit: [],                  // the source cells of the first hint being worked on
  };
  // a block of parameters opened (by a hint, or the reader) is filled after its toggle event: light it then
  container.addEventListener('toggle', () => setTimeout(() => relight(tables), 0), { capture: true, signal });
  return {
    /** renderMatrix's overlay: draws a blank or a hidden cell (true), or gives a cell back to its table (false). */
    overlay: (td, address, row, col) => overlay(tables, td, address, row, col),
    /** The plan the overlay draws from, and where each blank's input is. */
    use(plan, inputOf) {
      tables.plan = plan;
      tables.inputOf = inputOf;
    },
    /** Lights `cells` (a first hint) in place of the cells lit before, opening the block of parameters they are in when it is small. */
    light: (cells, view) => light(tables, cells, view),
    relight: () => relight(tables),
    /**
     * Each card beside the table of its first blank; with that table not shown (another head's
     * tab), in its line of the list of steps, saying where its blanks are.
     */
    place: (exercises, cards, steps) => place(tables, exercises, cards, steps),
    /** Forgets the lit cells (new exercises). */
    unlight() {
      tables.lit = [];
      relight(tables);
    },
    /** Back to exploring: every cell given back to its table, nothing lit, an empty plan. */
    clear() {
      for (const td of container.querySelectorAll('td[data-practice]')) release(td);
      tables.plan = new Map();
      tables.lit = [];
      relight(tables);
    },
  };
}

function overlay(tables, td, address, row, col) {
  const entry = tables.plan.get(cellKey({ ...address, row, col }));
  if (!entry) {
    if (td.dataset.practice !== undefined) release(td);
    return false;
  }
  if (entry.hidden) {
    if (td.dataset.practice !== 'hidden') {
      td.dataset.practice = 'hidden';
      td.replaceChildren('?');
    }
    td.title = tables.t('practice.hiddenCell');  // in the lab's language now
  } else {
    const input = tables.inputOf(entry.exercise, entry.blank);
    if (td.firstChild !== input) td.replaceChildren(input);
    td.dataset.practice = 'blank';
    td.removeAttribute('title');
  }
  // no shade either: a weight's colour would say how big it is
  if (td.dataset.shade !== undefined) {
    delete td.dataset.shade;
    td.style.backgroundColor = '';
    td.style.color = '';
  }
  td.classList.remove('masked');
  return true;
}

// the table writes its number into an empty cell again
function release(td) {
  delete td.dataset.practice;
  td.removeAttribute('title');
  td.replaceChildren();
}

// Hint 1's cells, lit in the tables (again after each draw: a table may have been rebuilt)
function relight({ container, lit }) {
  for (const old of container.querySelectorAll('td.practice-source')) old.classList.remove('practice-source');
  for (const cell of lit) {
    const head = cell.head === undefined ? ':not([data-head])' : `[data-head="${cell.head}"]`;
    // every table showing the cell (the step table, hidden in practice mode, has some of them too)
    for (const td of container.querySelectorAll(`td[data-matrix="${cell.matrix}"]${head}[data-row="${cell.row}"][data-col="${cell.col}"]`)) td.classList.add('practice-source');
  }
}

function light(tables, cells, view) {
  tables.lit = [...cells];  // in place of an earlier hint's: only the cells of the hint being worked on
  const { dModel, dK, dV, heads } = view;
  if (dModel * Math.max(2 * dK + dV, heads * dV) <= MAX_OPENED_CELLS) {
    for (const cell of cells) {
      const block = cell.matrix === 'wo' ? 'wo' : /^w[qkv]$/.test(cell.matrix) ? `head-${cell.head}` : null;
      const details = block && tables.container.querySelector(`#weights details[data-block="${block}"]`);
      if (details && !details.open) details.open = true;
    }
  }
  relight(tables);
}

function place(tables, exercises, cards, steps) {
  exercises.forEach((exercise, index) => {
    const parts = cards[index];
    const input = parts.inputs[0];
    const slot = input.isConnected ? input.closest('.scroll') : null;
    if (slot) {
      if (parts.card.previousElementSibling !== slot) slot.after(parts.card);
      parts.where.textContent = '';
    } else {
      if (parts.card.parentElement !== steps[index]) steps[index].append(parts.card);
      parts.where.textContent = tables.t('practice.otherTab', { head: exercise.cell.head + 1 });
    }
  });
}
