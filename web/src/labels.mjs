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
