// "Explain this number": the arithmetic that produced one cell, with the actual values.
// Pure: takes the shown computation (`view`) and a cell address, returns text lines.
//   view: { tokens, keyTokens, columns, x, context, dModel, heads, dK, dV, result, weights }
//   cell: { matrix, head, row, col } with matrix one of x, context, q, k, v, scores, scaled,
//         weights, z, concat, output, wq, wk, wv, wo
import { formatFull } from './format.mjs';

const MAX_TERMS = 12;
const f = formatFull;

// "a×b + c×d + …" over the pairs, shortened past MAX_TERMS.
function sumOfProducts(pairs) {
  const shown = pairs.slice(0, MAX_TERMS).map(([a, b]) => `${f(a)}×${f(b)}`);
  const rest = pairs.length > MAX_TERMS ? ` + … (${pairs.length - MAX_TERMS} more terms)` : '';
  return shown.join(' + ') + rest;
}

function products(n, a, b) {
  return Array.from({ length: n }, (_, t) => [a(t), b(t)]);
}

export function explainCell(view, { matrix, head = 0, row, col }) {
  const { tokens, keyTokens, dModel, dK, dV, result, weights } = view;
  const h = result.heads?.[head];
  const hd = `head ${head + 1}`;
  const token = tokens[row];
  const key = keyTokens[col];
  const context = view.context ?? view.x;
  const at = (values, width, r, c) => values[r * width + c];

  switch (matrix) {
    case 'x':
    case 'context': {
      const source = matrix === 'x' ? view.x : context;
      const word = matrix === 'x' ? token : keyTokens[row];
      return {
        title: `${matrix === 'x' ? 'x' : 'c'}[${word}][${view.columns[col]}]`,
        lines: [`An input: the embedding of '${word}' in column ${view.columns[col]}, from the vocabulary, the preset, or typed by you.`],
        value: f(at(source, dModel, row, col)),
      };
    }
    case 'q':
    case 'k':
    case 'v': {
      const width = matrix === 'v' ? dV : dK;
      const w = weights[`w${matrix}`];
      const rows = matrix === 'q' ? view.x : context;
      const word = matrix === 'q' ? token : keyTokens[row];
      // positions (when on) are added to x (and to the context) before the projection; a bias after it
      const added = result.positions ? (matrix === 'q' || !view.context ? result.positions.x : result.positions.context) : null;
      const bias = weights[`b${matrix}`]?.[head * width + col];
      const pairs = products(dModel, (t) => at(rows, dModel, row, t) + (added ? at(added, dModel, row, t) : 0), (t) => w[(head * dModel + t) * width + col]);
      const source = `${matrix === 'q' ? 'x' : 'c'}${added ? ' + positions' : ''}`;
      return {
        title: `${matrix}[${word}][${col}], ${hd}`,
        lines: [`${matrix} = (${source}) · W_${matrix}${bias === undefined ? '' : ` + b_${matrix}`}: row '${word}' times column ${col} of W_${matrix}.`,
          `${sumOfProducts(pairs)}${bias === undefined ? '' : ` + ${f(bias)}`}`],
        value: f(at(h[matrix], width, row, col)),
      };
    }
    case 'scores': {
      const pairs = products(dK, (t) => at(h.q, dK, row, t), (t) => at(h.k, dK, col, t));
      return {
        title: `score(${token} → ${key}), ${hd}`,
        lines: [`q·k = q[${token}] · k[${key}], a sum over the ${dK} dimensions of the head.`, sumOfProducts(pairs)],
        value: f(at(h.scores, view.m, row, col)),
      };
    }
    case 'scaled': {
      const scaled = at(h.scaled, view.m, row, col);
      if (scaled === -Infinity) {
        return { title: `scaled(${token} → ${key}), ${hd}`, lines: [`Masked: '${key}' is hidden from '${token}', so its score is set to −∞ and its weight will be e^−∞ = 0.`], value: '−∞' };
      }
      const divisor = result.shape.scale;
      const why = view.scaleMode === 'sqrt_dk' ? `√d_k = √${dK}` : view.scaleMode === 'none' ? 'nothing (scaling is off)' : 'the chosen divisor';
      return {
        title: `scaled(${token} → ${key}), ${hd}`,
        lines: [`The score divided by ${why} = ${f(divisor)}.`, `${f(at(h.scores, view.m, row, col))} / ${f(divisor)}`],
        value: f(scaled),
      };
    }
    case 'weights': {
      const row_ = Array.from(h.scaled.subarray(row * view.m, (row + 1) * view.m));
      const live = row_.filter((s) => s !== -Infinity);
      if (live.length === 0) {
        return { title: `weight(${token} → ${key}), ${hd}`, lines: ['Every key is masked for this query: the row has no weight anywhere and its output is zero.'], value: '0' };
      }
      const max = Math.max(...live);
      // e^s with s up to ~700 fits a double; beyond, show the max-shifted form the engine computes
      const shift = max > 80 ? max : 0;
      const exps = row_.map((s) => (s === -Infinity ? 0 : Math.exp(s - shift)));
      const total = exps.reduce((a, b) => a + b, 0);
      const e = (s) => (shift ? `e^(${f(s)} − ${f(shift)})` : `e^${f(s)}`);
      const terms = row_.slice(0, MAX_TERMS).map((s) => (s === -Infinity ? 'e^−∞' : e(s))).join(' + ') +
        (row_.length > MAX_TERMS ? ` + … (${row_.length - MAX_TERMS} more)` : '');
      const scaled = row_[col];
      const lines = [
        `softmax over the row of '${token}': e^{x_j} / Σ_j e^{x_j}.`,
        `${scaled === -Infinity ? 'e^−∞' : e(scaled)} / (${terms})`,
        `= ${f(exps[col])} / ${f(total)}`,
      ];
      if (live.length < row_.length) lines.push('Masked keys contribute e^−∞ = 0.');
      return { title: `weight(${token} → ${key}), ${hd}`, lines, value: f(at(h.weights, view.m, row, col)) };
    }
    case 'z': {
      const pairs = products(view.m, (j) => at(h.weights, view.m, row, j), (j) => at(h.v, dV, j, col));
      return {
        title: `z[${token}][${col}], ${hd}`,
        lines: [`The weighted sum of the values: Σ_j weight(${token} → j) × v[j][${col}].`, sumOfProducts(pairs)],
        value: f(at(h.z, dV, row, col)),
      };
    }
    case 'concat': {
      const fromHead = Math.floor(col / dV);
      return {
        title: `concat[${token}][${col}]`,
        lines: [`Column ${col} of the concatenation is column ${col % dV} of head ${fromHead + 1}'s Z: [Z_1 | Z_2 | …].`],
        value: f(at(result.concat, view.heads * dV, row, col)),
      };
    }
    case 'output': {
      if (!weights.wo) {
        return { title: `output[${token}][${col}]`, lines: ['There is no W_O: the output is the concatenation of the heads.'], value: f(at(result.output, result.dOut, row, col)) };
      }
      const width = view.heads * dV;
      const pairs = products(width, (t) => at(result.concat, width, row, t), (t) => weights.wo[t * dModel + col]);
      return {
        title: `Z_f[${token}][${col}]`,
        lines: [`Z_f = concat · W_O${weights.bo ? ' + b_o' : ''}: row '${token}' of the concatenation times column ${col} of W_O.`,
          `${sumOfProducts(pairs)}${weights.bo ? ` + ${f(weights.bo[col])}` : ''}`],
        value: f(at(result.output, result.dOut, row, col)),
      };
    }
    default: {
      const name = { wq: 'W_q', wk: 'W_k', wv: 'W_v', wo: 'W_O' }[matrix];
      const width = { wq: dK, wk: dK, wv: dV, wo: dModel }[matrix];
      const index = matrix === 'wo' ? row * dModel + col : (head * dModel + row) * width + col;
      return {
        title: `${name}[${row}][${col}]${matrix === 'wo' ? '' : `, ${hd}`}`,
        lines: ['A parameter: set by the weights mode (identity, seeded random), by the preset, or typed by you.'],
        value: f(weights[matrix][index]),
      };
    }
  }
}
