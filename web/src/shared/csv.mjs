// One CSV field as the lab writes it (RFC 4180 quoting; OWASP's rule against formula injection), and
// reader text on one line: shared by the lab's table exports (exports/formats.mjs) and the real models'
// residual-stream export (models/stream-export.mjs).

// Every line break a reader could paste, Unicode's included: none survives inside a cell or a comment.
const LINE_BREAKS = /\r\n|[\r\n\v\f\u0085\u2028\u2029]/g;
export const oneLine = (text) => String(text).replace(LINE_BREAKS, ' ');

// ---- CSV (RFC 4180 quoting; OWASP's rule against formula injection)

// A number as written by PRECISIONS: plain decimal notation, the only fields left bare at the start of a cell.
const CSV_NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * One CSV field. A number (a JavaScript number, or a cell written by PRECISIONS) stays a number, a
 * negative one included; text that a spreadsheet would run as a formula gets a ' first, and is quoted.
 */
export function csvField(value, { number = false } = {}) {
  if ((number || typeof value === 'number') && CSV_NUMBER.test(String(value))) return String(value);
  // one line per row, so that every line is a whole record; spaces before = count as a formula start too
  const text = oneLine(value);
  const safe = /^\s*[=+\-@]|^[\t\r]/.test(text) ? `'${text}` : text;
  // quoted: separators, quotes, a ' we added, a leading # (a comment line to many readers), edge spaces
  return /[",]|^[#']|^\s|\s$/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

