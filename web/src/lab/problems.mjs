// The messages above a lab's tables: notices from outside (a broken link), why the first example is
// shown instead of the one asked for, the engine's or the request's problems, and cells typed wrong.
// Each is said in the lab's language when shown, and only while what it is about is on screen.

export const cellKey = ({ matrix, head, row, col }) => `${matrix}:${head ?? ''}:${row}:${col}`;

/** createProblems({ container, t, render(list) }) → the lab's messages, and show() to draw them. */
export function createProblems({ container, t, render }) {
  const problems = {
    notices: [],          // from outside (a link, attributes), kept until the reader acts
    fallback: [],         // why the first example is shown instead of the state given
    request: [],          // the state's own (buildRequest) or the engine's
    cells: new Map(),     // cellKey → { key, values }, for cells typed wrong
    /** The reader acted: messages from outside are answered. */
    clearOutside() {
      problems.notices = [];
      problems.fallback = [];
    },
    show() {
      dropCellsGone(container, problems.cells);
      const controlShown = (problem) => !container.querySelector(`#controls .field[data-field="${CSS.escape(problem.field ?? '')}"]`)?.hidden;
      const all = [...problems.fallback, ...problems.notices, ...problems.request.filter(controlShown),
        ...[...problems.cells.values()].map((problem) => ({ field: 'cell', ...problem }))];
      // a problem with a key is said in this lab's language; an engine's own message comes in English
      render(all.map((problem) => ({ field: problem.field, message: problem.key ? t(problem.key, problem.values) : problem.message })));
    },
  };
  return problems;
}

// A cell's message goes with its cell: gone, typed right, or in a table no longer shown (the context in self-attention).
function dropCellsGone(container, cells) {
  for (const [key] of cells) {
    const [matrix, head, row, col] = key.split(':');
    const td = container.querySelector(`td[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]${head === '' ? '' : `[data-head="${head}"]`}`);
    if (!td?.querySelector('input[aria-invalid="true"]') || !td.getClientRects().length) cells.delete(key);
  }
}
