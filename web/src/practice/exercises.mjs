// The exercises: which cells to blank, and for each its true value (float64, from the live
// matrices), the values its typical mistakes give, the cells it is made from, and its hints.
// Pure: takes the lab's view (lab/run.mjs: viewOf) and plain cell addresses; texts are message keys.
//   cell: { matrix, head, row, col } with matrix one of KINDS; for scores, scaled and weights
//         `col` is the key's index, for q, z, concat and output a column; 'softmax' is the whole
//         row of weights of query `row` (col 0), one blank per key that is not masked.
// An exercise has one blank or more (`blanks`, each with its true value); a mistake gives a value
// for each blank. A mistake that gives the true value, or the same as another mistake, cannot be
// told from it here: the exercise lists it in `blind` (the card says so), and the sequence
// generator prefers queries, keys, heads and columns where there is none.
import { forward64 } from './forward64.mjs';
import { DEFAULT_TOLERANCE, near } from './check.mjs';
import { explainCell } from '../shared/explain-cell.mjs';
import { message } from '../i18n/index.mjs';
import { formatNumber } from '../shared/format.mjs';
import { keyColumns, valueColumns, concatColumns, tableLabels } from '../shared/labels.mjs';

/** The kinds of blank, in the order of the computation. */
export const KINDS = ['q', 'scores', 'scaled', 'weights', 'softmax', 'z', 'concat', 'output'];
const MAX_TERMS = 16;
// how many queries, and columns of each kind, the generator tries (a long sentence stays quick)
const MAX_TRIED = 16;

// every number of a message at the lab's one precision (Digits; 4 significant digits by default)
const f = (value) => formatNumber(value);
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
const range = (n) => Array.from({ length: n }, (_, t) => t);

// Columns worth asking about, the ones whose value is not (nearly) zero first (a trivial 0 teaches nothing).
function livelyColumns(values, row, width) {
  const columns = range(width);
  const lively = columns.filter((c) => Math.abs(values[row * width + c]) > 0.01);
  return [...lively, ...columns.filter((c) => !lively.includes(c))].slice(0, MAX_TRIED);
}

/** How many of a cell's typical mistakes cannot be told apart from the true value or each other. */
function blindCount(view, f64, cell, tolerance) {
  const { truths, mistakes } = valuesOf(view, f64, cell);
  return blindMistakes(truths, mistakes, tolerance).length;
}

// The cell (of those given) with the fewest blind mistakes; the first among equals.
function leastBlind(view, f64, cells, tolerance) {
  let best = null;
  for (const cell of cells) {
    const blind = blindCount(view, f64, cell, tolerance);
    if (!best || blind < best.blind) best = { cell, blind };
    if (blind === 0) break;
  }
  return best;
}

/**
 * The sequence for a query token, in the order of the computation: a q entry (none when every
 * column of W_q only copies a number of X), a score, its
 * scaling (when there is any), the softmax of the query's row, a z entry; then, with several
 * heads, a concatenation entry from another head, and with W_O an output entry.
 * Keys are tried from the one the query weighs most (other than itself: a pair where swapping
 * query and key shows), heads from `head`, columns from the lively ones; the first choice where
 * every typical mistake gives its own value is taken, else the one with the fewest that do not.
 * With anyQuery, other query tokens are tried too (after `query`). With stayOnHead, every query on
 * `head` is tried before any other head (the head the reader chose, review 6 finding 13).
 */
export function defaultCells(view, { query = 0, head = 0, anyQuery = false, stayOnHead = false } = {}, f64 = forward64(view), tolerance = DEFAULT_TOLERANCE) {
  const n = view.tokens.length;
  const first = Math.min(Math.max(query, 0), n - 1);
  const firstHead = Math.min(Math.max(head, 0), view.heads - 1);
  const others = range(n).filter((i) => i !== first && view.tokens[i] !== '[PAD]');
  const queries = anyQuery ? [first, ...others].slice(0, MAX_TRIED) : [first];
  const heads = [firstHead, ...range(view.heads).filter((h) => h !== firstHead)];
  let best = null;
  if (stayOnHead) {
    for (const i of queries) {
      const found = sequenceFor(view, f64, i, firstHead, tolerance);
      if (!best || found.blind < best.blind) best = found;
      if (found.blind === 0) return found.cells;
    }
  }
  for (const i of queries) {
    for (const h of heads) {
      const found = sequenceFor(view, f64, i, h, tolerance);
      if (!best || found.blind < best.blind) best = found;
      if (found.blind === 0) return found.cells;
    }
  }
  return best.cells;
}

/** Whether column `col` of head h's W_q holds one 1 and zeros: its q entry is a copy of one number of X. */
export function copiesX(view, h, col) {
  const { dModel, dK } = view;
  let ones = 0;
  for (let t = 0; t < dModel; t++) {
    const w = view.weights.wq[(h * dModel + t) * dK + col];
    if (w === 1) ones++;
    else if (w !== 0) return false;
  }
  return ones === 1;
}

function sequenceFor(view, f64, i, h, tolerance) {
  const { m } = view;
  const { weights, masked, q, z } = f64.heads[h];
  const keys = range(m).filter((j) => !masked[i * m + j] && !(j === i && m > 1)).sort((a, b) => weights[i * m + b] - weights[i * m + a]);
  if (!keys.length) keys.push(Math.min(i, m - 1));
  const pick = (cells) => leastBlind(view, f64, cells, tolerance);
  // a q entry that only copies a number of X (W_q's column one 1, the notes' W = I) teaches nothing: not asked
  // with rotary positions q is x·W_q turned by the position, which the exercise's row and column do not show: not asked
  const qColumns = view.rotary ? [] : livelyColumns(q, i, view.dK).filter((col) => !copiesX(view, h, col));
  const qCell = qColumns.length ? pick(qColumns.map((col) => ({ matrix: 'q', head: h, row: i, col }))) : null;
  // a key whose score and scaling both tell their mistakes apart
  let key = null;
  for (const j of keys.slice(0, MAX_TRIED)) {
    const blind = blindCount(view, f64, { matrix: 'scores', head: h, row: i, col: j }, tolerance) +
      (f64.divisor !== 1 ? blindCount(view, f64, { matrix: 'scaled', head: h, row: i, col: j }, tolerance) : 0);
    if (!key || blind < key.blind) key = { j, blind };
    if (blind === 0) break;
  }
  const softmax = { matrix: 'softmax', head: h, row: i, col: 0 };
  const zCell = pick(livelyColumns(z, i, view.dV).map((col) => ({ matrix: 'z', head: h, row: i, col })));
  const cells = [...(qCell ? [qCell.cell] : []), { matrix: 'scores', head: h, row: i, col: key.j }];
  if (f64.divisor !== 1) cells.push({ matrix: 'scaled', head: h, row: i, col: key.j });
  cells.push(softmax, zCell.cell);
  let blind = (qCell?.blind ?? 0) + key.blind + blindCount(view, f64, softmax, tolerance) + zCell.blind;
  if (view.heads > 1) {
    const other = h === 0 ? 1 : 0;
    const concat = pick(livelyColumns(f64.heads[other].z, i, view.dV).map((c) => ({ matrix: 'concat', head: other, row: i, col: other * view.dV + c })));
    cells.push(concat.cell);
    blind += concat.blind;
  }
  if (view.weights.wo) {
    const output = pick(livelyColumns(f64.output, i, view.dModel).map((col) => ({ matrix: 'output', head: 0, row: i, col })));
    cells.push(output.cell);
    blind += output.blind;
  }
  return { cells, blind };
}

/** Whether a cell exists in this view (a link's cells may not fit the lab's sentence or sizes). */
export function cellFits(view, { matrix, head, row, col }) {
  const n = view.tokens.length;
  if (!KINDS.includes(matrix) || row >= n || head >= view.heads) return false;
  const width = { q: view.dK, scores: view.m, scaled: view.m, weights: view.m, softmax: 1, z: view.dV, concat: view.heads * view.dV, output: view.weights.wo ? view.dModel : 0 }[matrix];
  if (col >= width) return false;
  if (matrix === 'scaled' && view.result.heads[head].scaled[row * view.m + col] === -Infinity) return false;
  return true;
}

/** The mistakes that cannot be told apart here: [{ key, params, like: null | the other mistake }]. */
export function blindMistakes(truths, mistakes, tolerance = DEFAULT_TOLERANCE) {
  const finite = mistakes.filter((m) => m.values.every(Number.isFinite));
  const blind = [];
  finite.forEach((mistake, a) => {
    if (near(mistake.values, truths, tolerance)) {
      blind.push({ key: mistake.key, params: mistake.params, like: null });
      return;
    }
    const twin = finite.find((other, b) => b !== a && other.key !== mistake.key && !near(other.values, truths, tolerance) && near(mistake.values, other.values, tolerance));
    if (twin) blind.push({ key: mistake.key, params: mistake.params, like: { key: twin.key, params: twin.params } });
  });
  return blind;
}

/** Every exercise of a list of cells, with its true values, mistakes, sources and hints. */
export function buildExercises(view, cells, tolerance = DEFAULT_TOLERANCE, f64 = forward64(view)) {
  return cells.map((cell) => buildExercise(view, f64, cell, tolerance));
}

// The blanks of a cell (one, or a row of weights) with their true values, and the mistakes' values.
function valuesOf(view, f64, cell) {
  const { matrix, row: i, col } = cell;
  const head = matrix === 'output' ? 0 : matrix === 'concat' ? Math.floor(col / view.dV) : cell.head;
  const built = BUILDERS[matrix](view, f64, { ...cell, head });
  const blanks = built.blanks ?? [{ matrix, head, row: i, col }];
  const truths = built.truths ?? [built.truth];
  const mistakes = built.mistakes.map((m) => ({ ...m, values: m.values ?? [m.value] }));
  return { head, built, blanks, truths, mistakes };
}

function buildExercise(view, f64, cell, tolerance) {
  const { matrix, row: i, col } = cell;
  const { head, built, blanks, truths, mistakes } = valuesOf(view, f64, cell);
  // an answered blank shows the engine's value at the lab's precision (every digit of the float32 when chosen)
  const explained = blanks.map((blank) => explainCell(view, { ...blank, matrix: blank.matrix === 'softmax' ? 'weights' : blank.matrix }));
  const single = blanks.length === 1 && matrix !== 'softmax';
  return {
    id: `${matrix}:${head}:${i}:${col}`,
    cell: { ...cell, head },
    ...built,
    formula: built.formula(),  // made only for the exercises shown, not for every choice the generator weighs
    sourceCells: sourceCellsOf(view, { ...cell, head }),
    // each blank: where it is, its accessible name, its true value and the engine's (shown once answered)
    blanks: blanks.map((blank, k) => ({ cell: blank, label: built.blankLabels?.[k] ?? built.label, truth: truths[k], shown: explained[k].value })),
    truth: single ? truths[0] : undefined,
    mistakes: mistakes.filter((m) => m.values.every(Number.isFinite) && !near(m.values, truths, tolerance))
      .map((m) => (single ? { ...m, value: m.values[0] } : m)),
    blind: blindMistakes(truths, mistakes, tolerance),
    // the full arithmetic, said by t(key, values) (the lab's, in its language): the first blank's,
    // then the last line of each other's
    explanation(t = message) {
      const lines = blanks.map((blank) => explainCell(view, { ...blank, matrix: blank.matrix === 'softmax' ? 'weights' : blank.matrix }, t).lines);
      // each other blank's last line named by its key ("'sat': 0.42 = …"), so a row's lines say which weight is which
      if (lines.length === 1) return lines[0];
      const named = (k, line) => `'${view.keyTokens[blanks[k].col]}': ${line}`;
      return [...lines[0].slice(0, -1), named(0, lines[0].at(-1)), ...lines.slice(1).map((each, k) => named(k + 1, each.at(-1)))];
    },
    shown: single ? explained[0].value : explained.map((e) => e.value).join(', '),
    // the same in a sentence, a float32 value that is a short decimal's neighbour followed by it:
    // "6.2999997 (≈ 6.3)", so that a student who typed 6.3 sees why the two differ
    said: explained.map((e) => withNearest(e.value)).join(', '),
  };
}

/** "6.2999997 (≈ 6.3)": a shown value with its 6-digit rounding when that is much shorter; else as it is. */
export function withNearest(shown) {
  const value = Number(shown);
  if (!Number.isFinite(value)) return shown;
  const nearest = String(Number(value.toPrecision(6)));
  return nearest.length <= shown.length - 4 ? `${shown} (≈ ${nearest})` : shown;
}

const tokenParams = (view, i, j) => ({ query: view.tokens[i], key: view.keyTokens[j] });
// what the scores are divided by, as the mistake about skipping it names it
// z's column c with one term of its sum only, weight × value of one word (review 4, finding 11: the
// weight of 'sat' typed for z, the other words' terms not added); words whose value is 0 add nothing
function oneTermMistakes(view, { weights, v, masked }, i, c) {
  const { m, dV } = view;
  return range(m).filter((j) => !masked[i * m + j] && v[j * dV + c] !== 0).map((j) => ({
    key: 'mistake.oneTerm', params: { key: view.keyTokens[j], weight: f(weights[i * m + j]), value: f(v[j * dV + c]) },
    value: weights[i * m + j] * v[j * dV + c],
  }));
}

const divisorName = (view) => (view.scaleMode === 'sqrt_dk' ? msg('why.sqrtDk', { dK: view.dK }) : msg('why.divisor'));

// A run of cells of one table, for the first hint to light up: { matrix, head?, row, col }.
const rowOf = (matrix, head, row, width, keep = () => true) => range(width).filter(keep).map((col) => ({ matrix, head, row, col }));
const columnOf = (matrix, head, col, height) => range(height).map((row) => ({ matrix, head, row, col }));

/**
 * The cells a computed cell is made from: what a first hint lights, and what "explain this number"
 * prints (practice mode withholds an explanation that would print a hidden number). A q entry: its
 * token's row of X and the column of W_q; a score: the q and k rows; a scaled score: its score; a
 * weight, or a row of them: the row's scaled scores that are not masked; a z entry: the row of
 * weights and the column of V; a concatenation entry: its z entry; an output entry: the row of the
 * concatenation and the column of W_O (without W_O, the concatenation's entry). K and V: none here
 * (made from the inputs alone, which practice mode never hides).
 */
export function sourceCellsOf(view, { matrix, head, row: i, col }) {
  const { dModel, dK, dV, m } = view;
  const width = view.heads * dV;
  switch (matrix) {
    case 'q': return [...rowOf('x', undefined, i, dModel), ...columnOf('wq', head, col, dModel)];
    case 'scores': return [...rowOf('q', head, i, dK), ...rowOf('k', head, col, dK)];
    case 'scaled': return [{ matrix: 'scores', head, row: i, col }];
    case 'weights':
    case 'softmax': {
      const scaled = view.result.heads[head].scaled;  // −∞ where masked, as forward64 reads it
      return rowOf('scaled', head, i, m, (j) => scaled[i * m + j] !== -Infinity);
    }
    case 'z': return [...rowOf('weights', head, i, m), ...columnOf('v', head, col, m)];
    case 'concat': return [{ matrix: 'z', head: Math.floor(col / dV), row: i, col: col % dV }];
    case 'output': return view.weights.wo ? [...rowOf('concat', undefined, i, width), ...columnOf('wo', undefined, col, width)] : [{ matrix: 'concat', row: i, col }];
    default: return [];
  }
}

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
      sources: [msg('source.xRow', { token: view.tokens[i] }), msg('source.wColumn', { col: columns[c], matrix: 'W_q' })],
      formula: () => msg('formula.q', { terms: productTerms(Array.from({ length: dModel }, (_, t) => [x[i * dModel + t], wAt(t, c)])) }),
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
    return {
      label: msg('label.scores', { ...tokenParams(view, i, j), head: head + 1 }),
      truth: f64.heads[head].scores[i * m + j],
      mistakes,
      sources: [msg('source.qRow', { token: view.tokens[i] }), msg('source.kRow', { token: view.keyTokens[j] })],
      formula: () => msg('formula.scores', { ...tokenParams(view, i, j), terms: productTerms(Array.from({ length: dK }, (_, t) => [view.result.heads[head].q[i * dK + t], view.result.heads[head].k[j * dK + t]])) }),
    };
  },

  scaled(view, f64, { head, row: i, col: j }) {
    const { m, dK } = view;
    const score = view.result.heads[head].scores[i * m + j];
    const mistakes = [{ key: 'mistake.noScaling', params: { divisor: divisorName(view) }, value: f64.heads[head].scores[i * m + j] }];
    if (view.scaleMode === 'sqrt_dk') mistakes.push({ key: 'mistake.dividedByDk', params: {}, value: f64.heads[head].scores[i * m + j] / dK });
    // the 000 notes' d_k = 2 carried over: divided by √2 = 1.414 whatever d_k is (review 4, finding 11)
    if (view.scaleMode === 'sqrt_dk' && dK !== 2) mistakes.push({ key: 'mistake.rootOfTwo', params: { dK, root: f(Math.sqrt(dK)) }, value: f64.heads[head].scores[i * m + j] / Math.SQRT2 });
    const why = view.scaleMode === 'sqrt_dk' ? msg('why.sqrtDk', { dK }) : msg('why.divisor');
    return {
      label: msg('label.scaled', { ...tokenParams(view, i, j), head: head + 1 }),
      truth: f64.heads[head].scaled[i * m + j],
      mistakes,
      sources: [msg('source.score', tokenParams(view, i, j)), msg('source.divisor', { divisor: view.scaleMode === 'sqrt_dk' ? `√${dK} = ${f(f64.divisor)}` : f(f64.divisor) })],
      formula: () => msg('formula.scaled', { why, score: f(score), divisor: f(f64.divisor) }),
    };
  },

  weights(view, f64, cell) {
    const row = BUILDERS.softmax(view, f64, cell, [cell.col]);
    return { ...row, blanks: undefined, blankLabels: undefined, truth: row.truths[0], truths: undefined, mistakes: row.mistakes.map(({ values, ...m }) => ({ ...m, value: values[0] })) };
  },

  // the whole row of weights of query i (its keys that are not masked), or only the columns given
  softmax(view, f64, { head, row: i }, only = null) {
    const { m } = view;
    const n = view.tokens.length;
    const { scaled, scores, masked, weights } = f64.heads[head];
    const shownScaled = view.result.heads[head].scaled;
    const keys = only ?? range(m).filter((j) => !masked[i * m + j]);
    const live = range(m).filter((j) => !masked[i * m + j]);
    const mistakes = [{ key: 'mistake.unnormalised', params: {}, values: keys.map((j) => Math.exp(scaled[i * m + j])) }];
    mistakes.push({
      key: 'mistake.wrongAxis', params: {},
      values: keys.map((j) => {
        let columnTotal = 0;
        for (let r = 0; r < n; r++) if (!masked[r * m + j]) columnTotal += Math.exp(scaled[r * m + j]);
        return Math.exp(scaled[i * m + j]) / columnTotal;
      }),
    });
    if (f64.divisor !== 1) {
      const total = (j) => live.reduce((sum, c) => sum + Math.exp(scores[i * m + c] - scores[i * m + j]), 0);
      mistakes.push({ key: 'mistake.noScaling', params: { divisor: divisorName(view) }, values: keys.map((j) => 1 / total(j)) });
    }
    const liveScaled = live.map((j) => shownScaled[i * m + j]);
    const terms = liveScaled.slice(0, MAX_TERMS).map((s) => `e^${f(s)}`).join(' + ');
    const sum = live.length > MAX_TERMS ? [terms, msg('formula.more', { count: live.length - MAX_TERMS })] : [terms];
    const one = only?.length === 1;
    return {
      label: one ? msg('label.weights', { ...tokenParams(view, i, only[0]), head: head + 1 }) : msg('label.softmax', { query: view.tokens[i], head: head + 1 }),
      blanks: keys.map((j) => ({ matrix: 'weights', head, row: i, col: j })),
      blankLabels: keys.map((j) => msg('label.weights', { ...tokenParams(view, i, j), head: head + 1 })),
      truths: keys.map((j) => weights[i * m + j]),
      mistakes,
      sources: [msg('source.scaledRow', { query: view.tokens[i] })],
      formula: () => (one ? msg('formula.weights', { own: f(shownScaled[i * m + only[0]]), terms: sum }) : msg('formula.softmax', { terms: sum })),
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
    mistakes.push(...oneTermMistakes(view, f64.heads[head], i, c));
    const columns = valueColumns(view);
    const shown = view.result.heads[head];
    return {
      label: msg('label.z', { query: view.tokens[i], col: columns[c], head: head + 1 }),
      truth: f64.heads[head].z[i * dV + c],
      mistakes,
      sources: [msg('source.weightsRow', { query: view.tokens[i] }), msg('source.vColumn', { col: columns[c] })],
      formula: () => msg('formula.z', { terms: productTerms(Array.from({ length: m }, (_, j) => [shown.weights[i * m + j], shown.v[j * dV + c]])) }),
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
      // the column by its head and its place in that head's z (h2:1 is head 2, column 1)
      label: msg('label.concat', { query: view.tokens[i], col: concatColumns(view)[col], head: head + 1, headCol: columns[inHead] }),
      truth: f64.concat[i * heads * dV + col],
      mistakes,
      sources: [msg('source.zCell', { query: view.tokens[i], col: columns[inHead], head: head + 1 })],
      formula: () => msg('formula.concat', { head: head + 1, col: concatColumns(view)[col], headCol: columns[inHead] }),
    };
  },

  output(view, f64, { row: i, col: c }) {
    const { dModel } = view;
    const width = view.heads * view.dV;
    const wo = view.weights.wo;
    const concat = view.result.concat;
    const outColumns = tableLabels(view, 'output').columns;  // as the output table's header (issue 26, point 5)
    const mistakes = [];
    if (width === dModel) mistakes.push({ key: 'mistake.rowNotColumn', params: { matrix: 'W_O', col: outColumns[c] }, value: dot(width, (t) => f64.concat[i * width + t], (t) => wo[c * dModel + t]) });
    return {
      label: msg('label.output', { query: view.tokens[i], col: outColumns[c] }),
      truth: f64.output[i * dModel + c],
      mistakes,
      sources: [msg('source.concatRow', { query: view.tokens[i] }), msg('source.wColumn', { col: outColumns[c], matrix: 'W_O' })],
      formula: () => msg('formula.output', { terms: productTerms(Array.from({ length: width }, (_, t) => [concat[i * width + t], wo[t * dModel + c]])) }),
    };
  },
};
