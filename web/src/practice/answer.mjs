// What a student typed, read as a number or refused with a message about the format: never a
// guess that could turn a right answer into a wrong verdict.
//
// Accepted: 0.42, .42, -1.5, +2, 3e-2, 1/3, -2/7, ½ and 1½ (the Unicode fractions), a Unicode minus
// (−0.5, U+2212) or dash, spaces around the sign and the slash.
// The comma rule: one comma and no point is a decimal comma (0,5 = 0.5; 2,75 = 2.75), except a
// comma followed by exactly three digits after 1–3 leading digits (1,000), which could be a
// thousands separator and is refused as ambiguous. Commas mixed with points (1,234.5) are refused.
// Refused with a message: '', text, '3e' (an exponent with no digits), a zero denominator, '42 %',
// spaces inside a number, Infinity and NaN.
// Expressions as the explanations write them (e^1/(2e^1+e^2), 2/√4, exp(1)/3): expression.mjs, tried
// only when the text is not one plain number and looks like a sum, product or power.
// Digits: every Unicode decimal digit (Nd) reads as its value, so the digits a keyboard types count:
// Devanagari ०.५, Arabic-Indic ٠٫٥ (with the Arabic decimal separator), full-width ０．５.

const MAX_LENGTH = 96;
const MINUS = /[\u2212\u2012\u2013\u2014\uFE63\uFF0D]/g;
const SLASH = /[\u2044\u2215\u00F7]/g;
const VULGAR = {
  '½': 1 / 2, '⅓': 1 / 3, '⅔': 2 / 3, '¼': 1 / 4, '¾': 3 / 4, '⅕': 1 / 5, '⅖': 2 / 5, '⅗': 3 / 5, '⅘': 4 / 5,
  '⅙': 1 / 6, '⅚': 5 / 6, '⅐': 1 / 7, '⅛': 1 / 8, '⅜': 3 / 8, '⅝': 5 / 8, '⅞': 7 / 8, '⅑': 1 / 9, '⅒': 1 / 10,
};
import { looksLikeExpression, readExpression } from './expression.mjs';

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

const problem = (key, text) => ({ problem: key, params: { text } });

// Unicode lays every set of decimal digits out as ten consecutive code points, 0 to 9, and sets
// follow each other in whole tens: a digit's value is its distance from the start of its run, mod 10.
const DIGIT = /\p{Nd}/u;
function digitValue(digit) {
  const code = digit.codePointAt(0);
  let start = code;
  while (start > 0 && DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}
// separators and signs of other scripts and of full width, as the ASCII ones they stand for
const SEPARATORS = { '\u066B': '.', '\u066C': ',', '\uFF0E': '.', '\uFF0C': ',', '\uFF05': '%', '\uFF0F': '/', '\u066A': '%', '\uFF45': 'e', '\uFF25': 'E' };

/** `text` with every decimal digit in ASCII, and the separators above as ASCII ones. */
export function asciiDigits(text) {
  return text.replace(/\p{Nd}/gu, (d) => (d >= '0' && d <= '9' ? d : String(digitValue(d))))
    .replace(/[\u066A-\u066C\uFF05\uFF0C\uFF0E\uFF0F\uFF25\uFF45]/g, (c) => SEPARATORS[c]);
}

/** One decimal number (no slash): { value } or { problem, params }. */
function readDecimal(part, original) {
  let text = part;
  const commas = (text.match(/,/g) ?? []).length;
  if (commas > 0) {
    if (commas > 1 || text.includes('.')) return problem('answer.thousands', original);
    if (/^[+-]?[1-9]\d{0,2},\d{3}$/.test(text)) return problem('answer.ambiguousComma', original);
    text = text.replace(',', '.');
  }
  if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?$/i.test(text)) return problem('answer.exponent', original);
  if (!DECIMAL.test(text)) return problem('answer.notNumber', original);
  const value = Number(text);
  return Number.isFinite(value) ? { value } : problem('answer.notNumber', original);
}

function readVulgar(text) {
  const match = /^([+-]?)(\d*)(.)$/u.exec(text);
  if (!match || !Object.hasOwn(VULGAR, match[3])) return null;
  const magnitude = (match[2] === '' ? 0 : Number(match[2])) + VULGAR[match[3]];
  return { value: match[1] === '-' ? -magnitude : magnitude };
}

/** The number in `typed`: { value } or { problem: message key, params: { text } }. */
export function parseAnswer(typed) {
  const original = String(typed ?? '').trim();
  if (original === '') return { problem: 'answer.empty', params: {} };
  if (original.length > MAX_LENGTH) return { problem: 'answer.tooLong', params: {} };
  const shown = original.slice(0, 40);
  let text = asciiDigits(original).replace(MINUS, '-').replace(/\uFF0B/g, '+').replace(SLASH, '/')
    .replace(/\s*\/\s*/g, '/').replace(/^([+-])\s+/, '$1');
  if (text.endsWith('%')) {
    const inner = parseAnswer(text.slice(0, -1));
    if (inner.value === undefined) return inner;
    return { problem: 'answer.percent', params: { text: shown, suggestion: String(Number((inner.value / 100).toPrecision(12))) } };
  }
  const plain = readPlain(text, shown);
  if (plain.problem !== 'answer.notNumber' && plain.problem !== 'answer.space') return plain;
  const expression = looksLikeExpression(text) ? readExpression(text) : null;
  return expression === null ? plain : { value: expression };
}

/** One number with at most one slash, spaces already trimmed around it: { value } or a problem. */
function readPlain(text, shown) {
  if (/\s/.test(text)) return problem('answer.space', shown);
  const vulgar = readVulgar(text);
  if (vulgar) return vulgar;
  const parts = text.split('/');
  if (parts.length > 2) return problem('answer.notNumber', shown);
  const numerator = readDecimal(parts[0], shown);
  if (numerator.value === undefined) return numerator;
  if (parts.length === 1) return numerator;
  const denominator = readDecimal(parts[1], shown);
  if (denominator.value === undefined) return denominator;
  if (denominator.value === 0) return problem('answer.zeroDenominator', shown);
  return { value: numerator.value / denominator.value };
}
