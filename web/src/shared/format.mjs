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

// The lab's precision (issue 26): significant digits shown in tables, explanations, the walk and the
// notes' numbers; 0 shows each float32 exactly (formatFull). Each lab sets it from its state (`digits`,
// carried by links) at the start of every draw (lab/draw.mjs).
let significant = 4;
const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/** Sets the digits shown (1 … 9, or 0 for the exact float32); returns the setting now in force. */
export function setPrecision(digits) {
  if (Number.isInteger(digits) && digits >= 0 && digits <= 9) significant = digits;
  return significant;
}

export const precision = () => significant;

/** A number as a student writes it: `digits` significant digits, trailing zeros dropped, 1.68 × 10⁻⁷ for tiny or huge ones. */
export function formatNumber(value, digits = significant) {
  if (!Number.isFinite(value)) return formatCell(value);
  const text = digits === 0 ? formatFull(value) : String(Number(value.toPrecision(digits)));
  const [mantissa, exponent] = text.split('e');
  const plain = mantissa === '-0' ? '0' : mantissa;
  if (exponent === undefined) return plain;
  return `${plain} × 10${[...String(Number(exponent))].map((c) => SUPERSCRIPT[c]).join('')}`;
}

/** A vector of formatNumber's, in brackets, shortened past `limit` entries. */
export function formatNumbers(values, limit = Infinity) {
  const shown = Array.from(values.slice(0, limit), (v) => formatNumber(v));
  const more = values.length > limit ? `, … (${values.length})` : '';
  return `[${shown.join(', ')}${more}]`;
}
