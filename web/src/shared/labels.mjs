// Column and row labels shared by the tables on the page and their exports.

/** "1", "2", … (or with a prefix: "c1", "c2", …). */
export const numbered = (count, prefix = '') => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

// One naming rule per kind of axis (issue 26): tokens by their text; model dimensions by the
// input's features (the vocabulary's names, a preset's own, or e1 … e_d); head dimensions by their
// number, 1 … d_k or 1 … d_v, in W_q, W_k, W_v, Q, K, V and Z alike, whatever the weights. While
// W = I a head dimension is a model dimension: a named one follows the number in brackets.
const unnamed = (columns) => columns.every((c) => /^e\d+$/.test(c));

/** A head's columns: 1 … width, "1 (finance)" while W = I and the features have names. */
export function headColumns(view, width) {
  const gloss = view.identity && !unnamed(view.columns);
  return numbered(width).map((n, i) => (gloss && view.columns[i] ? `${n} (${view.columns[i]})` : n));
}

/** Columns of Q, K (and of W_q, W_k). */
export const keyColumns = (view) => headColumns(view, view.dK);

/** Columns of V and Z (and of W_v). */
export const valueColumns = (view) => headColumns(view, view.dV);

/** Columns of the concatenation [Z_1 | … | Z_h]: "h2:3" is column 3 of head 2. */
export function concatColumns(view) {
  if (view.heads === 1) return valueColumns(view);
  const width = view.heads * view.dV;
  return Array.from({ length: width }, (_, c) => `h${Math.floor(c / view.dV) + 1}:${(c % view.dV) + 1}`);
}

/** Rows of W_O: one per column of the concatenation, labelled as those columns are. */
export const outputProjectionRows = (view) => concatColumns(view);

/**
 * The row and column labels of each table, as its headers print them: the one place that names
 * them, for the tables, their explanations and their exports.
 */
export function tableLabels(view, matrix) {
  const square = { rows: view.tokens, columns: view.keyTokens };
  switch (matrix) {
    case 'x': return { rows: view.tokens, columns: view.columns };
    case 'context': return { rows: view.keyTokens, columns: view.columns };
    case 'q': case 'qUnrotated': return { rows: view.tokens, columns: keyColumns(view) };
    case 'k': case 'kUnrotated': return { rows: view.keyTokens, columns: keyColumns(view) };
    case 'v': return { rows: view.keyTokens, columns: valueColumns(view) };
    case 'z': return { rows: view.tokens, columns: valueColumns(view) };
    case 'scores': case 'scaled': case 'weights': return square;
    case 'concat': return { rows: view.tokens, columns: concatColumns(view) };
    case 'output': return { rows: view.tokens, columns: view.weights.wo ? view.columns : concatColumns(view) };
    case 'wq': case 'wk': return { rows: view.columns, columns: keyColumns(view) };
    case 'wv': return { rows: view.columns, columns: valueColumns(view) };
    case 'wo': return { rows: outputProjectionRows(view), columns: view.columns };
    default: throw new Error(`no table called ${matrix}`);
  }
}
