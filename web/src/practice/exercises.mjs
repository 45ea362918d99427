// The exercises: which cells to blank, and for each its true value (float64, from the live
// matrices), the values its typical mistakes give, the numbers shown beside it, and its hints.
// Pure: takes the lab's view (see app.mjs) and plain cell addresses; texts are message keys.
//   cell: { matrix, head, row, col } with matrix one of KINDS; for scores, scaled and weights
//         `col` is the key's index, for q, z, concat and output a column.
import { forward64 } from './forward64.mjs';
import { distinctMistakes, DEFAULT_TOLERANCE } from './check.mjs';
import { explainCell } from '../explain.mjs';
import { formatFull } from '../format.mjs';
import { keyColumns, valueColumns, concatColumns, numbered } from '../labels.mjs';

/** The kinds of blank, in the order of the computation. */
export const KINDS = ['q', 'scores', 'scaled', 'weights', 'z', 'concat', 'output'];
const MAX_TERMS = 16;

const f = formatFull;
const msg = (key, params = {}) => ({ key, params });

/** Products a_t × b_t as "a×b + …", shortened past MAX_TERMS (the rest counted). */
function productTerms(pairs) {
  const shown = pairs.slice(0, MAX_TERMS).map(([a, b]) => `${f(a)}×${f(b)}`).join(' + ');
  return pairs.length > MAX_TERMS ? [shown, msg('formula.more', { count: pairs.length - MAX_TERMS })] : [shown];
}

const dot = (n, a, b) => {
  let sum = 0;
  for (let t = 0; t < n; t++) sum += a(t) * b(t);
  return sum;
};

// The column whose value is not (nearly) zero, so an exercise is not a trivial 0; else column 0.
function lively(values, row, width) {
  for (let c = 0; c < width; c++) if (Math.abs(values[row * width + c]) > 0.01) return c;
  return 0;
}

/**
 * The sequence for a query token, in the order of the computation: a q entry, a score, its
 * scaling (when there is any), its softmax weight, a z entry; then, with several heads, a
 * concatenation entry from head 2, and with W_O an output entry. The key is the one the query
 * weighs most, other than itself (a pair where swapping query and key shows).
 */
export function defaultCells(view, { query = 0, head = 0 } = {}, f64 = forward64(view)) {
  const n = view.tokens.length;
  const i = Math.min(Math.max(query, 0), n - 1);
  const h = Math.min(Math.max(head, 0), view.heads - 1);
  const { weights, masked, q, z } = f64.heads[h];
  let key = -1;
  for (let j = 0; j < view.m; j++) {
    if (masked[i * view.m + j] || (j === i && view.m > 1)) continue;
    if (key < 0 || weights[i * view.m + j] > weights[i * view.m + key]) key = j;
  }
  if (key < 0) key = Math.min(i, view.m - 1);
  const cells = [
    { matrix: 'q', head: h, row: i, col: lively(q, i, view.dK) },
    { matrix: 'scores', head: h, row: i, col: key },
  ];
  if (f64.divisor !== 1) cells.push({ matrix: 'scaled', head: h, row: i, col: key });
  cells.push({ matrix: 'weights', head: h, row: i, col: key }, { matrix: 'z', head: h, row: i, col: lively(z, i, view.dV) });
  if (view.heads > 1) {
    const other = h === 0 ? 1 : 0;
    cells.push({ matrix: 'concat', head: other, row: i, col: other * view.dV + lively(f64.heads[other].z, i, view.dV) });
  }
  if (view.weights.wo) cells.push({ matrix: 'output', head: 0, row: i, col: lively(f64.output, i, view.dModel) });
  return cells;
}

/** Whether a cell exists in this view (a link's cells may not fit the lab's sentence or sizes). */
export function cellFits(view, { matrix, head, row, col }) {
  const n = view.tokens.length;
  if (!KINDS.includes(matrix) || row >= n || head >= view.heads) return false;
  const width = { q: view.dK, scores: view.m, scaled: view.m, weights: view.m, z: view.dV, concat: view.heads * view.dV, output: view.weights.wo ? view.dModel : 0 }[matrix];
  if (col >= width) return false;
  if (matrix === 'scaled' && view.result.heads[head].scaled[row * view.m + col] === -Infinity) return false;
  return true;
}

/** Every exercise of a list of cells, with its true value, mistakes, givens and hints. */
export function buildExercises(view, cells, tolerance = DEFAULT_TOLERANCE, f64 = forward64(view)) {
  return cells.map((cell) => buildExercise(view, f64, cell, tolerance));
}

function buildExercise(view, f64, cell, tolerance) {
  const { matrix, row: i, col } = cell;
  const head = matrix === 'output' ? 0 : matrix === 'concat' ? Math.floor(col / view.dV) : cell.head;
  const built = BUILDERS[matrix](view, f64, { ...cell, head }, tolerance);
  const explanation = explainCell(view, { ...cell, head });
  return {
    id: `${matrix}:${head}:${i}:${col}`,
    cell: { ...cell, head },
    ...built,
    mistakes: distinctMistakes(built.truth, built.mistakes, tolerance),
    explanation: explanation.lines,
    shown: explanation.value,   // the engine's value, as the tables show it
  };
}

const tokenParams = (view, i, j) => ({ query: view.tokens[i], key: view.keyTokens[j] });
// what the scores are divided by, as the mistake about skipping it names it
const divisorName = (view) => (view.scaleMode === 'sqrt_dk' ? msg('why.sqrtDk', { dK: view.dK }) : msg('why.divisor'));

const BUILDERS = {
  q(view, f64, { head, row: i, col: c }) {
    const { dModel, dK, x } = view;
    const w = view.weights.wq;
    const wAt = (t, col) => w[(head * dModel + t) * dK + col];
    const columns = keyColumns(view);
    const mistakes = [];
    if (dK === dModel) mistakes.push({ key: 'mistake.rowNotColumn', params: { matrix: 'W_q', col: columns[c] }, value: dot(dModel, (t) => x[i * dModel + t], (t) => wAt(c, t)) });
    return {
      label: msg('label.q', { query: view.tokens[i], col: columns[c], head: head + 1 }),
      truth: f64.heads[head].q[i * dK + c],
      mistakes,
      given: [
        { caption: msg('given.xRow', { token: view.tokens[i] }), rowLabels: [view.tokens[i]], columnLabels: view.columns, values: Array.from(x.subarray(i * dModel, (i + 1) * dModel)), sources: 'all' },
        { caption: msg('given.wColumn', { col: columns[c], matrix: 'W_q', head: head + 1 }), rowLabels: [columns[c]], columnLabels: view.columns, values: Array.from({ length: dModel }, (_, t) => wAt(t, c)), sources: 'all' },
      ],
      sources: [msg('source.xRow', { token: view.tokens[i] }), msg('source.wColumn', { col: columns[c], matrix: 'W_q' })],
      formula: msg('formula.q', { terms: productTerms(Array.from({ length: dModel }, (_, t) => [x[i * dModel + t], wAt(t, c)])) }),
    };
  },

  scores(view, f64, { head, row: i, col: j }) {
    const { dK, m } = view;
    const n = view.tokens.length;
    const { q, k } = f64.heads[head];
    const qi = (t) => q[i * dK + t];
    const mistakes = [];
    if (j < dK && dK <= m) mistakes.push({ key: 'mistake.kNotTransposed', params: tokenParams(view, i, j), value: dot(dK, qi, (t) => k[t * dK + j]) });
    if (i !== j && i < m) mistakes.push({ key: 'mistake.wrongKeyRow', params: tokenParams(view, i, j), value: dot(dK, qi, (t) => k[i * dK + t]) });
    if (j < n && i < m) mistakes.push({ key: 'mistake.swapped', params: tokenParams(view, i, j), value: dot(dK, (t) => q[j * dK + t], (t) => k[i * dK + t]) });
    const columns = keyColumns(view);
    return {
      label: msg('label.scores', { ...tokenParams(view, i, j), head: head + 1 }),
      truth: f64.heads[head].scores[i * m + j],
      mistakes,
      given: [
        { caption: msg('given.qRow', { token: view.tokens[i], head: head + 1 }), rowLabels: [view.tokens[i]], columnLabels: columns, values: Array.from(view.result.heads[head].q.subarray(i * dK, (i + 1) * dK)), sources: 'all' },
        { caption: msg('given.keys', { head: head + 1 }), rowLabels: view.keyTokens, columnLabels: columns, values: Array.from(view.result.heads[head].k), sources: Array.from({ length: dK }, (_, t) => [j, t]) },
      ],
      sources: [msg('source.qRow', { token: view.tokens[i] }), msg('source.kRow', { token: view.keyTokens[j] })],
      formula: msg('formula.scores', { ...tokenParams(view, i, j), terms: productTerms(Array.from({ length: dK }, (_, t) => [view.result.heads[head].q[i * dK + t], view.result.heads[head].k[j * dK + t]])) }),
    };
  },

  scaled(view, f64, { head, row: i, col: j }) {
    const { m, dK } = view;
    const score = view.result.heads[head].scores[i * m + j];
    const mistakes = [{ key: 'mistake.noScaling', params: { divisor: divisorName(view) }, value: f64.heads[head].scores[i * m + j] }];
    if (view.scaleMode === 'sqrt_dk') mistakes.push({ key: 'mistake.dividedByDk', params: {}, value: f64.heads[head].scores[i * m + j] / dK });
    const why = view.scaleMode === 'sqrt_dk' ? msg('why.sqrtDk', { dK }) : msg('why.divisor');
    return {
      label: msg('label.scaled', { ...tokenParams(view, i, j), head: head + 1 }),
      truth: f64.heads[head].scaled[i * m + j],
      mistakes,
      given: [{
        caption: msg('given.score', tokenParams(view, i, j)), rowLabels: [view.tokens[i]],
        columnLabels: [msg('given.scoreColumn'), view.scaleMode === 'sqrt_dk' ? 'd_k' : msg('given.divisorColumn')],
        values: [score, view.scaleMode === 'sqrt_dk' ? dK : f64.divisor], sources: 'all',
      }],
      sources: [msg('source.score', tokenParams(view, i, j)), msg('source.divisor', { divisor: view.scaleMode === 'sqrt_dk' ? `√${dK} = ${f(f64.divisor)}` : f(f64.divisor) })],
      formula: msg('formula.scaled', { why, score: f(score), divisor: f(f64.divisor) }),
    };
  },

  weights(view, f64, { head, row: i, col: j }) {
    const { m } = view;
    const n = view.tokens.length;
    const { scaled, scores, masked } = f64.heads[head];
    const shownScaled = view.result.heads[head].scaled;
    const own = scaled[i * m + j];
    const mistakes = [{ key: 'mistake.unnormalised', params: {}, value: Math.exp(own) }];
    let columnTotal = 0;
    for (let r = 0; r < n; r++) if (!masked[r * m + j]) columnTotal += Math.exp(scaled[r * m + j]);
    mistakes.push({ key: 'mistake.wrongAxis', params: {}, value: Math.exp(own) / columnTotal });
    if (f64.divisor !== 1) {
      let total = 0;
      for (let c = 0; c < m; c++) if (!masked[i * m + c]) total += Math.exp(scores[i * m + c] - scores[i * m + j]);
      mistakes.push({ key: 'mistake.noScaling', params: { divisor: divisorName(view) }, value: 1 / total });
    }
    const live = Array.from(shownScaled.subarray(i * m, (i + 1) * m)).filter((s) => s !== -Infinity);
    const terms = live.slice(0, MAX_TERMS).map((s) => `e^${f(s)}`).join(' + ');
    return {
      label: msg('label.weights', { ...tokenParams(view, i, j), head: head + 1 }),
      truth: f64.heads[head].weights[i * m + j],
      mistakes,
      given: [{
        caption: msg('given.scaled', { head: head + 1 }), rowLabels: view.tokens, columnLabels: view.keyTokens,
        values: Array.from(shownScaled), sources: Array.from({ length: m }, (_, c) => [i, c]),
      }],
      sources: [msg('source.scaledRow', { query: view.tokens[i] })],
      formula: msg('formula.weights', { own: f(shownScaled[i * m + j]), terms: live.length > MAX_TERMS ? [terms, msg('formula.more', { count: live.length - MAX_TERMS })] : [terms] }),
    };
  },

  z(view, f64, { head, row: i, col: c }) {
    const { m, dV } = view;
    const n = view.tokens.length;
    const { weights, v, scaled, scores, masked } = f64.heads[head];
    const vAt = (j) => v[j * dV + c];
    const mistakes = [];
    if (n === m) mistakes.push({ key: 'mistake.wrongAxisSum', params: {}, value: dot(m, (j) => weights[j * m + i], vAt) });
    mistakes.push({ key: 'mistake.unnormalisedSum', params: {}, value: dot(m, (j) => (masked[i * m + j] ? 0 : Math.exp(scaled[i * m + j])), vAt) });
    if (f64.divisor !== 1) {
      const raw = Float64Array.from(scores.subarray(i * m, (i + 1) * m), (s, j) => (masked[i * m + j] ? -Infinity : s));
      let max = -Infinity;
      for (const s of raw) max = Math.max(max, s);
      const e = raw.map((s) => Math.exp(s - max));
      const total = e.reduce((a, b) => a + b, 0);
      mistakes.push({ key: 'mistake.noScaling', params: { divisor: divisorName(view) }, value: dot(m, (j) => e[j] / total, vAt) });
    }
    const columns = valueColumns(view);
    const shown = view.result.heads[head];
    return {
      label: msg('label.z', { query: view.tokens[i], col: columns[c], head: head + 1 }),
      truth: f64.heads[head].z[i * dV + c],
      mistakes,
      given: [
        { caption: msg('given.weights', { head: head + 1 }), rowLabels: view.tokens, columnLabels: view.keyTokens, values: Array.from(shown.weights), sources: Array.from({ length: m }, (_, j) => [i, j]) },
        { caption: msg('given.values', { head: head + 1 }), rowLabels: view.keyTokens, columnLabels: columns, values: Array.from(shown.v), sources: Array.from({ length: m }, (_, j) => [j, c]) },
      ],
      sources: [msg('source.weightsRow', { query: view.tokens[i] }), msg('source.vColumn', { col: columns[c] })],
      formula: msg('formula.z', { terms: productTerms(Array.from({ length: m }, (_, j) => [shown.weights[i * m + j], shown.v[j * dV + c]])) }),
    };
  },

  concat(view, f64, { head, row: i, col }) {
    const { dV, heads } = view;
    const inHead = col % dV;
    const columns = valueColumns(view);
    const mistakes = [];
    for (let other = 0; other < heads; other++) {
      if (other !== head) mistakes.push({ key: 'mistake.otherHead', params: { head: head + 1 }, value: f64.heads[other].z[i * dV + inHead] });
    }
    return {
      label: msg('label.concat', { query: view.tokens[i], col: concatColumns(view)[col] }),
      truth: f64.concat[i * heads * dV + col],
      mistakes,
      given: [{
        caption: msg('given.zPerHead', { token: view.tokens[i] }),
        rowLabels: Array.from({ length: heads }, (_, h) => msg('given.headRow', { head: h + 1 })), columnLabels: columns,
        values: Array.from({ length: heads * dV }, (_, t) => view.result.heads[Math.floor(t / dV)].z[i * dV + (t % dV)]),
        sources: [[head, inHead]],
      }],
      sources: [msg('source.zCell', { query: view.tokens[i], col: columns[inHead], head: head + 1 })],
      formula: msg('formula.concat', { head: head + 1, col: concatColumns(view)[col], headCol: columns[inHead] }),
    };
  },

  output(view, f64, { row: i, col: c }) {
    const { dModel } = view;
    const width = view.heads * view.dV;
    const wo = view.weights.wo;
    const concat = view.result.concat;
    const columns = concatColumns(view);
    const outColumns = numbered(dModel);
    const mistakes = [];
    if (width === dModel) mistakes.push({ key: 'mistake.rowNotColumn', params: { matrix: 'W_O', col: outColumns[c] }, value: dot(width, (t) => f64.concat[i * width + t], (t) => wo[c * dModel + t]) });
    return {
      label: msg('label.output', { query: view.tokens[i], col: outColumns[c] }),
      truth: f64.output[i * dModel + c],
      mistakes,
      given: [
        { caption: msg('given.concatRow', { token: view.tokens[i] }), rowLabels: [view.tokens[i]], columnLabels: columns, values: Array.from(concat.subarray(i * width, (i + 1) * width)), sources: 'all' },
        { caption: msg('given.woColumn', { col: outColumns[c] }), rowLabels: [outColumns[c]], columnLabels: columns, values: Array.from({ length: width }, (_, t) => wo[t * dModel + c]), sources: 'all' },
      ],
      sources: [msg('source.concatRow', { query: view.tokens[i] }), msg('source.wColumn', { col: outColumns[c], matrix: 'W_O' })],
      formula: msg('formula.output', { terms: productTerms(Array.from({ length: width }, (_, t) => [concat[i * width + t], wo[t * dModel + c]])) }),
    };
  },
};
