// Column and row labels shared by the tables on the page and their exports.

/** "1", "2", … (or with a prefix: "c1", "c2", …). */
export const numbered = (count, prefix = '') => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

/** Columns of Q, K: the input's features when W = I, else 1 … d_k. */
export const keyColumns = (view) => (view.identity ? view.columns : numbered(view.dK));

/** Columns of V and Z: the input's features when W = I, else 1 … d_v. */
export const valueColumns = (view) => (view.identity ? view.columns : numbered(view.dV));

/** Columns of the concatenation [Z_1 | … | Z_h]: "h2:3" is column 3 of head 2. */
export function concatColumns(view) {
  if (view.identity) return view.columns;
  const width = view.heads * view.dV;
  return Array.from({ length: width }, (_, c) => (view.heads > 1 ? `h${Math.floor(c / view.dV) + 1}:${(c % view.dV) + 1}` : `${c + 1}`));
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
    case 'q': return { rows: view.tokens, columns: keyColumns(view) };
    case 'k': return { rows: view.keyTokens, columns: keyColumns(view) };
    case 'v': return { rows: view.keyTokens, columns: valueColumns(view) };
    case 'z': return { rows: view.tokens, columns: valueColumns(view) };
    case 'scores': case 'scaled': case 'weights': return square;
    case 'concat': return { rows: view.tokens, columns: concatColumns(view) };
    case 'output': return { rows: view.tokens, columns: view.weights.wo ? view.columns : concatColumns(view) };
    case 'wq': case 'wk': return { rows: view.columns, columns: numbered(view.dK) };
    case 'wv': return { rows: view.columns, columns: numbered(view.dV) };
    case 'wo': return { rows: outputProjectionRows(view), columns: view.columns };
    default: throw new Error(`no table called ${matrix}`);
  }
}
