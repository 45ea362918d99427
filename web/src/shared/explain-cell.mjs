// "Explain this number": the arithmetic that produced one cell, with the actual values.
// Pure: takes the shown computation (`view`) and a cell address, returns text lines.
//   view: { tokens, keyTokens, columns, x, context, dModel, heads, dK, dV, result, weights }
//   cell: { matrix, head, row, col } with matrix one of x, context, q, k, v, scores, scaled,
//         weights, z, concat, output, wq, wk, wv, wo
// Rows and columns are named exactly as the tables' headers name them (tableLabels), every
// non-zero term is shown (zeros are left out and counted), and every float32 is printed as the
// shortest decimal that reads back to the same float32 (formatFull).
import { formatFull } from './format.mjs';
import { tableLabels } from './labels.mjs';
import { message } from '../i18n/index.mjs';

const f = formatFull;

// "a×b + c×d + …" over the pairs whose product is not zero, then how many zero terms were left out.
function sumOfProducts(pairs, t) {
  const kept = pairs.filter(([a, b]) => a !== 0 && b !== 0);
  const zeros = pairs.length - kept.length;
  const shown = kept.length ? kept.map(([a, b]) => `${f(a)}×${f(b)}`).join(' + ') : t('explain.allZero');
  return zeros === 0 ? shown : `${shown} ${zeros === 1 ? t('explain.zero') : t('explain.zeros', { count: zeros })}`;
}

function products(n, a, b) {
  return Array.from({ length: n }, (_, t) => [a(t), b(t)]);
}

export function explainCell(view, { matrix, head = 0, row, col }, t = message) {
  const { tokens, keyTokens, dModel, dK, dV, result, weights } = view;
  const h = result.heads?.[head];
  const perHead = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'z', 'wq', 'wk', 'wv'].includes(matrix);
  const labels = tableLabels(view, matrix);
  const rowName = labels.rows[row];
  const colName = labels.columns[col];
  const title = t(perHead ? 'explain.titleHead' : 'explain.title', { table: t(`table.${matrix}`), head: head + 1, row: rowName, col: colName });
  const token = tokens[row];
  const key = keyTokens[col];
  const context = view.context ?? view.x;
  const source = view.self ? 'X' : 'C';
  const at = (values, width, r, c) => values[r * width + c];

  switch (matrix) {
    case 'x':
    case 'context': {
      const values = matrix === 'x' ? view.x : context;
      return {
        title,
        lines: [t('explain.input', { row: rowName, col: colName })],
        value: f(at(values, dModel, row, col)),
      };
    }
    case 'q':
    case 'k':
    case 'v': {
      const width = matrix === 'v' ? dV : dK;
      const w = weights[`w${matrix}`];
      const rows = matrix === 'q' ? view.x : context;
      const from = matrix === 'q' ? 'X' : source;
      // positions (when on) are added to x (and to the context) before the projection; a bias after it
      const added = result.positions ? (matrix === 'q' || !view.context ? result.positions.x : result.positions.context) : null;
      const bias = weights[`b${matrix}`]?.[head * width + col];
      const pairs = products(dModel, (t) => at(rows, dModel, row, t) + (added ? at(added, dModel, row, t) : 0), (t) => w[(head * dModel + t) * width + col]);
      return {
        title,
        lines: [
          t('explain.projection', { table: t(`table.${matrix}`), source: from, weights: t(`table.w${matrix}`), row: rowName, col: colName }),
          ...(added ? [t('explain.positions', { source: from })] : []),
          sumOfProducts(pairs, t),
          ...(bias === undefined ? [] : [t('explain.bias', { bias: `b_${matrix}`, value: f(bias) })]),
        ],
        value: f(at(h[matrix], width, row, col)),
      };
    }
    case 'scores': {
      const pairs = products(dK, (t) => at(h.q, dK, row, t), (t) => at(h.k, dK, col, t));
      return {
        title,
        lines: [t('explain.score', { token, key, dK }), sumOfProducts(pairs, t)],
        value: f(at(h.scores, view.m, row, col)),
      };
    }
    case 'scaled': {
      const scaled = at(h.scaled, view.m, row, col);
      if (scaled === -Infinity) {
        return { title, lines: [t('explain.masked', { key, token })], value: '−∞' };
      }
      const divisor = result.shape.scale;
      const why = t(`explain.why.${view.scaleMode}`, { dK });
      return {
        title,
        lines: [t('explain.scaledBy', { why, divisor: f(divisor) }), `${f(at(h.scores, view.m, row, col))} / ${f(divisor)}`],
        value: f(scaled),
      };
    }
    case 'weights': {
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
    case 'z': {
      const pairs = products(view.m, (j) => at(h.weights, view.m, row, j), (j) => at(h.v, dV, j, col));
      return {
        title,
        lines: [t('explain.z', { token, col: colName }), sumOfProducts(pairs, t)],
        value: f(at(h.z, dV, row, col)),
      };
    }
    case 'concat': {
      const fromHead = Math.floor(col / dV);
      const headColumn = tableLabels(view, 'z').columns[col % dV];
      return {
        title,
        lines: [t('explain.concat', { col: colName, heads: view.heads, headCol: headColumn, head: fromHead + 1 })],
        value: f(at(result.concat, view.heads * dV, row, col)),
      };
    }
    case 'output': {
      if (!weights.wo) {
        return { title, lines: [t('explain.noWo')], value: f(at(result.output, result.dOut, row, col)) };
      }
      const width = view.heads * dV;
      const pairs = products(width, (t) => at(result.concat, width, row, t), (t) => weights.wo[t * dModel + col]);
      return {
        title,
        lines: [t('explain.wo', { token, col: colName }), sumOfProducts(pairs, t),
          ...(weights.bo ? [t('explain.bias', { bias: 'b_o', value: f(weights.bo[col]) })] : [])],
        value: f(at(result.output, result.dOut, row, col)),
      };
    }
    default: {
      const width = { wq: dK, wk: dK, wv: dV, wo: dModel }[matrix];
      const index = matrix === 'wo' ? row * dModel + col : (head * dModel + row) * width + col;
      return {
        title,
        lines: [t('explain.parameter')],
        value: f(weights[matrix][index]),
      };
    }
  }
}
