// "Explain this number": the arithmetic that produced one cell, with the actual values.
// Pure: takes the shown computation (`view`) and a cell address, returns text lines.
//   view: { tokens, keyTokens, columns, x, context, dModel, heads, dK, dV, result, weights }
//   cell: { matrix, head, row, col, token? } with matrix one of x, context, q, k, v, scores, scaled,
//         weights, z, concat, output, wq, wk, wv, wo, or stream (the residual stream's table, of token),
//         w1, w2, ln1, ln2 (a full block's MLP and norms, blocks/params.mjs)
// Rows and columns are named exactly as the tables' headers name them (tableLabels), every
// non-zero term is shown (zeros are left out and counted past four terms), and every float32 is printed at
// the lab's precision (formatNumber: 4 significant digits, or the exact float32 on request).
import { formatNumber } from './format.mjs';
import { tableLabels } from './labels.mjs';
import { isolate } from './bidi.mjs';
import { message } from '../i18n/index.mjs';
import { explainLayerInput, explainStream, explainBlockParameter } from './explain-layers.mjs';
import { modelLayerOf } from './layer-name.mjs';

// the lab's precision (4 significant digits unless the reader asks for more)
const f = (value) => formatNumber(value);

// "a×b + c×d + …" over the pairs whose product is not zero, then how many zero terms were left out.
// A short sum (at most FEW terms) is written out whole, zeros too, as the notes write it. A longer one
// names each term it keeps by what it runs over (`names`: the feature, head column or key), since the
// reader can no longer count its place: "object: 1 × 3 (9 zero terms left out)" (review 4, finding 6).
const FEW = 4;
function sumOfProducts(pairs, t, names = null) {
  const kept = pairs.map((pair, i) => [...pair, i]).filter(([a, b]) => pairs.length <= FEW || (a !== 0 && b !== 0));
  const zeros = pairs.length - kept.length;
  const term = ([a, b, i]) => (zeros > 0 && names ? `${names[i]}: ${f(a)} × ${f(b)}` : `${f(a)}×${f(b)}`);
  const shown = kept.length ? kept.map(term).join(' + ') : t('explain.allZero');
  return zeros === 0 ? shown : `${shown} ${zeros === 1 ? t('explain.zero') : t('explain.zeros', { count: zeros })}`;
}

// the row of X (or C) a projection reads, quoted whole up to QUOTED numbers (review 4, finding 6)
const QUOTED = 12;
function sourceRow(values, dModel, row) {
  const all = Array.from({ length: dModel }, (_, i) => f(values[row * dModel + i]));
  return all.length <= QUOTED ? `[${all.join(', ')}]` : `[${all.slice(0, QUOTED - 2).join(', ')}, … (${dModel})]`;
}

function products(n, a, b) {
  return Array.from({ length: n }, (_, i) => [a(i), b(i)]);
}

// One explainer per kind of table. Each gets the cell and what every explanation names (`cell`:
// view, t, matrix, head, row, col, h (the head's trace), title, rowName, colName, token, key,
// context (the keys' rows), source ('X' or 'C')) and returns { title, lines, value }.
const at = (values, width, r, c) => values[r * width + c];

function explainInput(cell) {
  const { view, t, matrix, row, col, title, rowName, colName, context } = cell;
  const values = matrix === 'x' ? view.x : context;
  // in a stack, X past layer 1's own input is computed: the stream entering the layer, or its LN₁,
  // explained from the layer before (explain-layers.mjs)
  const stream = matrix === 'x' && view.typedX === false;
  const across = stream && view.result.layers ? explainLayerInput(cell) : null;
  if (across) return across;
  const key = !stream ? 'explain.input' : view.x === view.result.layers?.[view.layer]?.input ? 'explain.stream' : 'explain.streamNorm';
  // a real model's rows: its hidden states entering its layer N (review 7)
  const model = matrix === 'x' && view.modelRows ? modelLayerOf(view) : null;
  return {
    title,
    lines: [model ? t('explain.inputModel', { row: rowName, col: colName, model: model.model, layer: model.layer, layers: model.layers })
      : t(key, { row: rowName, col: colName, layer: view.layer + 1 })],
    value: f(at(values, view.dModel, row, col)),
  };
}

function explainProjection({ view, t, matrix: shown, head: queryHead, row, col, h, title, rowName, colName, context, source }) {
  const { dModel, dK, dV, result, weights } = view;
  // q and k before rotation ('qUnrotated') are the projection; q and k with rotary positions are it turned
  const matrix = shown.replace('Unrotated', '');
  const turned = matrix !== 'v' && Boolean(h[`${matrix}Unrotated`]);
  // grouped-query attention: K and V of query head h are those of its key/value head
  const kvHeads = view.kvHeads ?? view.heads;
  const head = matrix === 'q' ? queryHead : Math.floor(queryHead / (view.heads / kvHeads));
  const width = matrix === 'v' ? dV : dK;
  const w = weights[`w${matrix}`];
  const rows = matrix === 'q' ? view.x : context;
  const from = matrix === 'q' ? 'X' : source;
  // positions (when on) are added to x (and to the context) before the projection; a bias after it
  const added = result.positions ? (matrix === 'q' || !view.context ? result.positions.x : result.positions.context) : null;
  const bias = weights[`b${matrix}`]?.[head * width + col];
  const pairs = products(dModel, (i) => at(rows, dModel, row, i) + (added ? at(added, dModel, row, i) : 0), (i) => w[(head * dModel + i) * width + col]);
  return {
    title,
    lines: [
      t('explain.projection', { table: t(`table.${matrix}`), source: from, weights: t(`table.w${matrix}`), row: rowName, col: colName }),
      t('explain.sourceRow', { source: from, row: rowName, values: sourceRow(rows, dModel, row) }),
      ...(added ? [t('explain.positions', { source: from })] : []),
      sumOfProducts(pairs, t, view.columns),
      ...(bias === undefined ? [] : [t('explain.bias', { bias: `b_${matrix}`, value: f(bias) })]),
      ...(turned && shown === matrix ? [t('modern.explainRotated', { table: t(`table.${matrix}`), value: f(at(h[`${matrix}Unrotated`], width, row, col)), position: row })] : []),
    ],
    value: f(at(h[shown], width, row, col)),
  };
}

function explainScore({ view, t, row, col, h, title, token, key }) {
  const { dK } = view;
  const pairs = products(dK, (i) => at(h.q, dK, row, i), (i) => at(h.k, dK, col, i));
  return {
    title,
    lines: [t('explain.score', { token, key, dK }), sumOfProducts(pairs, t, tableLabels(view, 'q').columns)],
    value: f(at(h.scores, view.m, row, col)),
  };
}

function explainScaled({ view, t, row, col, h, title, token, key }) {
  const scaled = at(h.scaled, view.m, row, col);
  if (scaled === -Infinity) {
    return { title, lines: [t('explain.masked', { key, token })], value: '−∞' };
  }
  // no scaling: the score itself, not "divided by nothing = 1" (review 6, finding 11)
  if (view.scaleMode === 'none') return { title, lines: [t('explain.scaledNone')], value: f(scaled) };
  const divisor = view.result.shape.scale;
  const why = t(`explain.why.${view.scaleMode}`, { dK: view.dK });
  return {
    title,
    lines: [t('explain.scaledBy', { why, divisor: f(divisor) }), `${f(at(h.scores, view.m, row, col))} / ${f(divisor)}`],
    value: f(scaled),
  };
}

function explainWeight({ view, t, row, col, h, title, token }) {
  const scores = Array.from(h.scaled.subarray(row * view.m, (row + 1) * view.m));
  const live = scores.filter((s) => s !== -Infinity);
  if (live.length === 0) {
    return { title, lines: [t('explain.allMasked')], value: '0' };
  }
  const max = Math.max(...live);
  // e^s with s up to ~700 fits a double; beyond, show the max-shifted form the engine computes
  const shift = max > 80 ? max : 0;
  const exps = scores.map((s) => (s === -Infinity ? 0 : Math.exp(s - shift)));
  const total = exps.reduce((a, b) => a + b, 0);
  const e = (s) => (shift ? `e^(${f(s)} − ${f(shift)})` : `e^${f(s)}`);
  const masked = scores.length - live.length;
  const terms = live.map(e).join(' + ') + (masked === 0 ? '' : ` ${t('explain.maskedTerms', { count: masked })}`);
  const scaled = scores[col];
  const lines = [
    t('explain.softmax', { token, count: scores.length }),
    `${scaled === -Infinity ? 'e^−∞' : e(scaled)} / (${terms})`,
    `= ${f(exps[col])} / ${f(total)}`,
  ];
  return { title, lines, value: f(at(h.weights, view.m, row, col)) };
}

function explainHeadOutput({ view, t, row, col, h, title, token, colName }) {
  const { dV } = view;
  const pairs = products(view.m, (j) => at(h.weights, view.m, row, j), (j) => at(h.v, dV, j, col));
  return {
    title,
    lines: [t('explain.z', { token, col: colName }), sumOfProducts(pairs, t, view.keyTokens.map((k) => `'${isolate(k)}'`))],
    value: f(at(h.z, dV, row, col)),
  };
}

function explainConcat({ view, t, row, col, title, colName }) {
  const { dV } = view;
  const fromHead = Math.floor(col / dV);
  const headColumn = tableLabels(view, 'z').columns[col % dV];
  return {
    title,
    // one head: its Z is the concatenation ("[Z_1 | … | Z_1]" read wrong: review 6, finding 11)
    lines: [t(view.heads === 1 ? 'explain.concatOne' : 'explain.concat', { col: colName, heads: view.heads, headCol: headColumn, head: fromHead + 1 })],
    value: f(at(view.result.concat, view.heads * dV, row, col)),
  };
}

function explainOutput({ view, t, row, col, title, token, colName }) {
  const { dModel, dV, result, weights } = view;
  if (!weights.wo) {
    return { title, lines: [t('explain.noWo')], value: f(at(result.output, result.dOut, row, col)) };
  }
  const width = view.heads * dV;
  const pairs = products(width, (i) => at(result.concat, width, row, i), (i) => weights.wo[i * dModel + col]);
  return {
    title,
    lines: [t('explain.wo', { token, col: colName }), sumOfProducts(pairs, t, tableLabels(view, 'concat').columns),
      ...(weights.bo ? [t('explain.bias', { bias: 'b_o', value: f(weights.bo[col]) })] : [])],
    value: f(at(result.output, result.dOut, row, col)),
  };
}

// W_q, W_k, W_v, W_O: parameters, set rather than computed
function explainParameter({ view, t, matrix, head, row, col, title }) {
  const { dModel, dK, dV, weights } = view;
  const width = { wq: dK, wk: dK, wv: dV, wo: dModel }[matrix];
  const index = matrix === 'wo' ? row * dModel + col : (head * dModel + row) * width + col;
  return {
    title,
    lines: [t('explain.parameter')],
    value: f(weights[matrix][index]),
  };
}

const EXPLAINERS = {
  x: explainInput, context: explainInput,
  q: explainProjection, k: explainProjection, v: explainProjection, qUnrotated: explainProjection, kUnrotated: explainProjection,
  scores: explainScore, scaled: explainScaled, weights: explainWeight, z: explainHeadOutput,
  concat: explainConcat, output: explainOutput,
};
const PER_HEAD = ['q', 'k', 'v', 'qUnrotated', 'kUnrotated', 'scores', 'scaled', 'weights', 'z', 'wq', 'wk', 'wv'];

/** { title, lines, value, links? } for a cell, or null for a cell of the stream that is not there. */
export function explainCell(view, { matrix, head = 0, row, col, token }, t = message) {
  if (matrix === 'stream') return explainStream(view, { row, col, token }, t);
  if (['w1', 'w2', 'wGate', 'wUp', 'wDown', 'ln1', 'ln2'].includes(matrix)) return explainBlockParameter(view, { matrix, row, col }, t);
  const labels = tableLabels(view, matrix);
  const rowName = labels.rows[row];
  const colName = labels.columns[col];
  // in a stack the title names the layer: a layer-2 cell reads as layer 1's otherwise (review 6, finding 5)
  const layered = view.result.layers?.length > 1 ? 'Layer' : '';
  const title = t(`${PER_HEAD.includes(matrix) ? 'explain.titleHead' : 'explain.title'}${layered}`,
    { table: t(`table.${matrix}`), head: head + 1, row: rowName, col: colName, layer: (view.layer ?? 0) + 1 });
  const cell = {
    view, t, matrix, head, row, col, h: view.result.heads?.[head], title, rowName, colName,
    token: view.tokens[row], key: view.keyTokens[col], context: view.context ?? view.x, source: view.self ? 'X' : 'C',
  };
  return (Object.hasOwn(EXPLAINERS, matrix) ? EXPLAINERS[matrix] : explainParameter)(cell);
}
