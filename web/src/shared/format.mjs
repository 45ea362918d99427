// Numbers for people: short in tables, exact in explanations, forgiving when typed.

/** A table cell: `digits` decimals, -0 shown as 0, -Infinity as −∞. */
export function formatCell(value, digits = 3) {
  if (value === -Infinity) return '−∞';
  if (value === Infinity) return '∞';
  if (Number.isNaN(value)) return 'NaN';
  const text = value.toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** The shortest decimal that reads back as the same float32: the value exactly as the engine holds it. */
export function formatFull(value) {
  if (!Number.isFinite(value)) return formatCell(value);
  const single = Math.fround(value);
  for (let precision = 1; precision <= 9; precision++) {
    const text = single.toPrecision(precision);
    if (Math.fround(Number(text)) === single) return String(Number(text));
  }
  return String(single);
}

/** A value typed by a reader, or null when it is not a finite number. Accepts −, commas as decimal points, 1e-3. */
export function parseNumber(text) {
  const cleaned = String(text).trim().replace(/[−–]/g, '-').replace(/^(-?\d*),(\d+)$/, '$1.$2');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : null;
}

/** A vector in brackets, shortened past `limit` entries. */
export function formatVector(values, digits = 2, limit = 6) {
  const shown = Array.from(values.slice(0, limit), (v) => formatCell(v, digits));
  const more = values.length > limit ? `, … (${values.length})` : '';
  return `[${shown.join(', ')}${more}]`;
}
