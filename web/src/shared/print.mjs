// Printing a table wider than the page: while the page is printed (beforeprint, or the print
// media query turning on), each such table of the lab is hidden and followed by copies holding a
// run of its columns each, every copy with the row headers (the first column), the header rows and
// the caption (with the first and last column's names added). Afterwards the copies go. The
// widths are estimated from the cells' text (8 pt figures in print, styles.css), not measured: the
// layout while printing is the paper's, which a script cannot read.

// A4 or Letter, portrait, less the margins of styles.css's @page (10 mm each side): in CSS px
export const PAGE_WIDTH = 700;
const CHAR = 5.6;      // an 8 pt character, about
const PADDING = 10;    // a cell's padding and border

const widthOf = (cell) => Math.max(...String(cell?.textContent ?? '').split(/\s+/).map((word) => word.length), 1) * CHAR + PADDING;

/** Runs of column indices (1…n − 1; column 0 is repeated in each) that fit `width` beside column 0. */
export function columnRuns(widths, width = PAGE_WIDTH) {
  const runs = [];
  let run = [];
  let used = widths[0];
  for (let col = 1; col < widths.length; col++) {
    if (run.length && used + widths[col] > width) {
      runs.push(run);
      run = [];
      used = widths[0];
    }
    run.push(col);
    used += widths[col];
  }
  if (run.length) runs.push(run);
  return runs;
}

// the table's rows as arrays of cells, or null when a cell spans columns (left whole)
function grid(table) {
  const rows = [...table.rows];
  if (!rows.length || rows.some((row) => [...row.cells].some((cell) => cell.colSpan > 1))) return null;
  const count = rows[0].cells.length;
  return rows.every((row) => row.cells.length === count) ? rows : null;
}

function splitTable(table, width) {
  const rows = grid(table);
  if (!rows) return [];
  const count = rows[0].cells.length;
  const widths = Array.from({ length: count }, (_, col) => Math.max(...rows.map((row) => widthOf(row.cells[col]))));
  if (widths.reduce((a, b) => a + b, 0) <= width) return [];
  const head = rows[0].cells;
  return columnRuns(widths, width).map((run) => {
    const part = table.cloneNode(true);
    part.removeAttribute('id');
    for (const node of part.querySelectorAll('[id]')) node.removeAttribute('id');
    part.classList.add('print-part');
    for (const row of part.rows) {
      for (let col = count - 1; col >= 1; col--) if (!run.includes(col)) row.deleteCell(col);
    }
    if (part.caption) part.caption.textContent = `${table.caption?.textContent ?? ''} · ${head[run[0]].textContent.trim()} … ${head[run.at(-1)].textContent.trim()}`;
    return part;
  });
}

/** Splits the wide tables under `root` for print; returns a function that puts them back. */
export function splitForPrint(root, width = PAGE_WIDTH) {
  const made = [];
  for (const table of root.querySelectorAll('table')) {
    if (table.classList.contains('print-part') || table.closest('[hidden]')) continue;
    const parts = splitTable(table, width);
    if (!parts.length) continue;
    table.classList.add('print-split');
    table.after(...parts);
    made.push([table, parts]);
  }
  return () => {
    for (const [table, parts] of made) {
      table.classList.remove('print-split');
      for (const part of parts) part.remove();
    }
  };
}

/** While the page prints, the lab's wide tables are split (until `signal` aborts). */
export function watchPrint(root, signal) {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return;
  let undo = null;
  const start = () => { undo ??= splitForPrint(root); };
  const end = () => { undo?.(); undo = null; };
  // a draw while printing makes new tables: split those
  root.addEventListener('attention-lab:change', () => { if (undo) { end(); start(); } }, { signal });
  const query = window.matchMedia('print');
  query.addEventListener('change', (event) => (event.matches ? start() : end()), { signal });
  window.addEventListener('beforeprint', start, { signal });
  window.addEventListener('afterprint', end, { signal });
}
