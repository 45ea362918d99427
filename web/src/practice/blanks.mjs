// Which cells of the lab's computed tables practice mode draws itself, and how: a blank (the input
// of an exercise) or hidden ("?", a number that would give an unanswered exercise away). Pure:
// exercises from exercises.mjs, their status from the progress, no DOM.
//
// What an exercise hides until it is answered (correct or shown), for query i in head h:
//   q        the query's row of scores, scaled scores and weights, and everything after them; in
//            self-attention also its own row of K (with W_q = W_k, as in the notes' W = I, it is q)
//   score    its scaled score, the query's weights and everything after them; in self-attention
//            also the score and scaled score of the key with the query (the same when Q = K)
//   scaled   the same, less its score (its source)
//   weight   the rest of the query's weights row (1 minus the others is the answer), and after
//   softmax  the row's sum, and after
//   z        its entry of the concatenation, and the output row (or the same output entry without W_O)
//   concat   the output row (or the same output entry without W_O)
// "Everything after" the weights is the query's z row in that head, its block of the concatenation
// and its output row. A row of weights with a blank or a hidden cell also hides its Σ, which
// would say what the hidden cells add up to.

import { DEFAULT_TOLERANCE, allowance } from './check.mjs';

/** The key of a table cell; the concatenation and the output have no head in the tables. */
export function cellKey({ matrix, head, row, col }) {
  return `${matrix}:${matrix === 'concat' || matrix === 'output' || head === undefined ? '' : head}:${row}:${col}`;
}

const range = (from, to) => Array.from({ length: Math.max(to - from, 0) }, (_, t) => from + t);

/** The cells exercise `exercise` hides until it is answered. */
export function concealedBy(view, { cell }) {
  const { matrix, head: h, row: i, col } = cell;
  const { m, dV } = view;
  const hasWo = Boolean(view.weights.wo);
  const at = (name, head, row, cols) => cols.map((c) => ({ matrix: name, head, row, col: c }));
  const outputOf = (cols) => at('output', undefined, i, hasWo ? range(0, view.dModel) : cols);
  const block = range(h * dV, (h + 1) * dV);
  const afterWeights = () => [...at('z', h, i, range(0, dV)), ...at('concat', undefined, i, block), ...outputOf(block)];
  const weightsRow = () => [...at('weights', h, i, range(0, m + 1))];  // m + 1: the row's Σ
  // the key's row at the query's column: the same number when Q = K (self-attention with W_q = W_k)
  const mirrored = (names) => (view.self && col !== i ? names.map((name) => ({ matrix: name, head: h, row: col, col: i })) : []);
  switch (matrix) {
    case 'q':
      return [...(view.self ? at('k', h, i, range(0, view.dK)) : []), ...at('scores', h, i, range(0, m)), ...at('scaled', h, i, range(0, m)), ...weightsRow(), ...afterWeights()];
    case 'scores':
      return [...at('scaled', h, i, [col]), ...mirrored(['scores', 'scaled']), ...weightsRow(), ...afterWeights()];
    case 'scaled':
      return [...mirrored(['scaled']), ...weightsRow(), ...afterWeights()];
    case 'weights':
      return [...weightsRow(), ...afterWeights()];
    case 'softmax':
      return [...at('weights', h, i, [m]), ...afterWeights()];
    case 'z': {
      const place = h * dV + col;
      return [...at('concat', undefined, i, [place]), ...outputOf([place])];
    }
    case 'concat':
      return outputOf([col]);
    default:
      return [];
  }
}

/**
 * The plan for the tables: Map cellKey → { exercise, blank } for a blank, { hidden: true } for a
 * hidden cell. status(index) is 'open', 'locked', 'correct' or 'revealed'. Besides what each
 * unanswered exercise hides (concealedBy), a computed cell showing a number that one of its blanks
 * would accept is hidden too (lookalikes).
 */
export function planBlanks(view, exercises, status, tolerance = DEFAULT_TOLERANCE) {
  const plan = new Map();
  exercises.forEach((exercise, index) => {
    exercise.blanks.forEach((blank, k) => plan.set(cellKey(blank.cell), { exercise: index, blank: k }));
  });
  const unanswered = exercises.filter((_, index) => status(index) !== 'correct' && status(index) !== 'revealed');
  for (const exercise of unanswered) {
    for (const cell of concealedBy(view, exercise)) {
      const key = cellKey(cell);
      if (!plan.has(key)) plan.set(key, { hidden: true });
    }
  }
  const open = exercises.filter((_, index) => status(index) === 'open');
  for (const key of lookalikes(view, unanswered, open, tolerance)) if (!plan.has(key)) plan.set(key, { hidden: true });
  return plan;
}

// The computed tables a reader sees: { matrix, head (undefined: none), rows, cols, values, byToken }
// (byToken: row r is token r's, so that a blank's row can be looked along it).
function computedTables(view) {
  const { heads, dK, dV, m, result } = view;
  const n = view.tokens.length;
  const tables = [];
  const add = (matrix, head, rows, cols, values, byToken = true) => tables.push({ matrix, head, rows, cols, values, byToken });
  for (let h = 0; h < heads; h++) {
    const trace = result.heads[h];
    add('q', h, n, dK, trace.q);
    add('k', h, m, dK, trace.k, view.self);  // in cross-attention K's and V's rows are the context's
    add('v', h, m, dV, trace.v, view.self);
    add('scores', h, n, m, trace.scores);
    add('scaled', h, n, m, trace.scaled);
    add('weights', h, n, m, trace.weights);
    add('z', h, n, dV, trace.z);
  }
  add('concat', undefined, n, heads * dV, result.concat);
  add('output', undefined, n, result.output.length / n, result.output);
  return tables;
}

// Where else a blank's number is carried, by the blank's table, and how much of that table to look
// at: a q entry in its token's rows of K and V (the same numbers when W_k = W_v = W_q, as with the
// notes' W = I); a z entry in all of the concatenation, which copies every Z, and of the output when
// there is no W_O (the output is the concatenation), else in its token's output row; a concatenation
// entry likewise in the output.
function carried(view, matrix) {
  const output = ['output', view.weights.wo ? 'row' : 'all'];
  return { q: [['k', 'row'], ['v', 'row']], z: [['concat', 'all'], output], concat: [output] }[matrix] ?? [];
}

/**
 * The keys of computed cells showing a number a blank would accept: anywhere in the blank's own
 * table (a scaled score of 2.828 two rows up, z's other entries of 0.788 beside the one asked), and
 * in the tables that carry its number on (carried(); K and V only in self-attention). Left shown: the cells the open exercises (`working`) are made from (the student
 * needs them, as an output entry needs the concatenation entry a unit column of W_O copies), and any
 * match for a blank that 0 would pass (tiny weights are everywhere and say nothing).
 */
export function lookalikes(view, exercises, working = exercises, tolerance = DEFAULT_TOLERANCE) {
  const tables = computedTables(view);
  const needed = new Set(working.flatMap((exercise) => exercise.sourceCells.map(cellKey)));
  const keys = new Set();
  const consider = (table, row, col, truth) => {
    const v = table.values[row * table.cols + col];
    if (!Number.isFinite(v) || Math.abs(v - truth) > allowance(truth, tolerance)) return;
    const key = cellKey({ matrix: table.matrix, head: table.head, row, col });
    if (!needed.has(key)) keys.add(key);
  };
  const tableKey = (matrix, head) => cellKey({ matrix, head, row: 0, col: 0 });
  for (const exercise of exercises) {
    for (const { cell, truth } of exercise.blanks) {
      if (Math.abs(truth) <= allowance(truth, tolerance)) continue;  // 0 would pass
      const home = tableKey(cell.matrix, cell.head);
      const onward = new Map(carried(view, cell.matrix));
      for (const table of tables) {
        const how = tableKey(table.matrix, table.head) === home ? 'all' : onward.get(table.matrix);
        if (!how || (table.head !== undefined && table.head !== cell.head)) continue;
        if (how === 'all') {
          for (let row = 0; row < table.rows; row++) for (let col = 0; col < table.cols; col++) consider(table, row, col, truth);
        } else if (table.byToken && cell.row < table.rows) {
          for (let col = 0; col < table.cols; col++) consider(table, cell.row, col, truth);
        }
      }
    }
  }
  return [...keys];
}

/** Exercises whose blanks do not overlap an earlier one's (a weight and its row's softmax). */
export function withoutOverlaps(exercises) {
  const taken = new Set();
  return exercises.filter((exercise) => {
    const keys = exercise.blanks.map((blank) => cellKey(blank.cell));
    if (keys.some((key) => taken.has(key))) return false;
    keys.forEach((key) => taken.add(key));
    return true;
  });
}
