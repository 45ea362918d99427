// An answer written as the explanations and the notes write it (review 4, finding 11):
// "e^1/(2e^1+e^2)", "e^1 / (e^1 + e^0 + e^1)", "2/√4", "exp(1)/3", "0.5 × 1 + 0.25 × 0".
// Read by a small recursive-descent parser: numbers with a decimal point (and 3e-2), the constant e,
// exp(…), √, ^ (right-associative, above unary minus: -e^2 is -(e^2)), × · * /, + -, brackets ( ) [ ] { },
// and a factor written next to a number (2e^1, 2(3), 2√2). Anything else, or a result that is not
// finite, is null: the caller then says the text is not a number.

const TOKEN = /\s*(\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|exp|e|[-+*×·/^()[\]{}√])/iy;
const OPEN = { '(': ')', '[': ']', '{': '}' };

function tokenize(text) {
  const tokens = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) return /^\s*$/.test(text.slice(start)) ? tokens : null;
    tokens.push(match[1].toLowerCase());
  }
  return tokens;
}

const isNumber = (token) => token !== undefined && /^[\d.]/.test(token);
// a factor that may follow another with no sign between them: 2e^1, 2(3), 2√2, 2exp(1)
const startsFactor = (token) => token === 'e' || token === 'exp' || token === '√' || Object.hasOwn(OPEN, token ?? '');

function parser(tokens) {
  let at = 0;
  const peek = () => tokens[at];
  const fail = () => { throw new SyntaxError('not an expression'); };
  const take = (token) => (tokens[at] === token ? (at++, true) : false);
  function bracket() {
    const close = OPEN[tokens[at++]];
    const inner = sum();
    if (!take(close)) fail();
    return inner;
  }
  function atom() {
    const token = peek();
    if (isNumber(token)) { at++; return Number(token); }
    if (token === 'e') { at++; return Math.E; }
    if (token === 'exp') { at++; if (peek() !== '(') fail(); return Math.exp(bracket()); }
    if (token === '√') { at++; return Math.sqrt(power()); }
    if (Object.hasOwn(OPEN, token ?? '')) return bracket();
    return fail();
  }
  function power() {
    const base = atom();
    return take('^') ? base ** unary() : base;
  }
  function unary() {
    if (take('-')) return -unary();
    if (take('+')) return unary();
    return power();
  }
  function product() {
    let value = unary();
    for (;;) {
      if (take('*') || take('×') || take('·')) value *= unary();
      else if (take('/')) value /= unary();
      else if (startsFactor(peek())) value *= power();
      else return value;
    }
  }
  function sum() {
    let value = product();
    for (;;) {
      if (take('+')) value += product();
      else if (take('-')) value -= product();
      else return value;
    }
  }
  return { sum, done: () => at === tokens.length };
}

/** Whether `text` is meant as a sum, product or power rather than one number. */
export function looksLikeExpression(text) {
  return /[\^()[\]{}*×·√]|exp|(^|[^e])e($|[^\d+-])/i.test(text) || /[\d.)]\s*[+-]/.test(text.replace(/^\s*[+-]/, ''));
}

/** The value of the expression `text`, or null when it is not one (or not finite). */
export function readExpression(text) {
  const tokens = tokenize(text);
  if (!tokens || tokens.length === 0) return null;
  try {
    const read = parser(tokens);
    const value = read.sum();
    return read.done() && Number.isFinite(value) ? value : null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}
