// The page's state and the pure functions over it: what a preset sets, and what the engine is asked.
// The state holds what the reader chose and typed; everything shown is derived from it.
import { tokenize, MAX_TOKENS } from './tokenize.mjs';
import { embed, columnNames } from './vocabulary.mjs';
import { presetById, DEFAULT_PRESET } from './presets.mjs';
import { checkPractice } from './practice/spec.mjs';

// Caps of the page (the engine's are larger): tables past these stop being readable.
export const PAGE_LIMITS = { dModel: 128, heads: 16, dK: 128, dV: 128, padTo: MAX_TOKENS };

const BASE = {
  preset: null,
  sentence: '',
  contextSentence: 'The river bank was steep',
  attention: 'self',            // 'self' | 'cross'
  dModel: 10, heads: 1, dK: 10, dV: 10,
  scaleMode: 'sqrt_dk',         // 'sqrt_dk' | 'none' | 'custom'
  scaleDivisor: 2,
  maskMode: 'none',             // 'none' | 'causal' | 'padding'
  padTo: 8,
  weightsMode: 'identity',      // 'identity' | 'random' | 'custom'
  seed: 1,
  custom: null,                 // { wq, wk, wv, wo }: number arrays, when weightsMode is 'custom'
  useWo: false,
  x: null,                      // { columns, rows } given by a preset instead of the vocabulary
  xEdits: {},                   // "row:token:col" → number, cells of X typed by the reader
  contextEdits: {},
  selectedToken: 0,
  selectedHead: 0,              // a head index, or 'all'
  practice: null,               // practice mode's settings (practice/spec.mjs), null when exploring
};

export function presetState(id) {
  const preset = presetById(id) ?? presetById(DEFAULT_PRESET);
  const state = { ...structuredClone(BASE), ...structuredClone(preset.state), preset: preset.id };
  // a preset's rows of X belong to its own tokens: edit the sentence and the vocabulary takes over
  if (state.x) state.x.tokens = tokenize(state.sentence).tokens;
  return state;
}

export function defaultState() {
  return presetState(DEFAULT_PRESET);
}

/** Tokens of the sentence (queries) and of the context (keys and values), with padding applied. */
export function tokensOf(state) {
  const queries = tokenize(state.sentence);
  const context = state.attention === 'cross' ? tokenize(state.contextSentence) : null;
  const pad = (tokens) => {
    if (state.maskMode !== 'padding') return tokens;
    const target = Math.min(Math.max(tokens.length, Number(state.padTo) || 0), MAX_TOKENS);
    return [...tokens, ...new Array(target - tokens.length).fill('[PAD]')];
  };
  return {
    tokens: pad(queries.tokens),
    contextTokens: context ? pad(context.tokens) : null,
    overflow: queries.overflow ? 'sentence' : context?.overflow ? 'contextSentence' : null,
  };
}

const editKey = (row, token, col) => `${row}:${token}:${col}`;

/** An embedding matrix for tokens: preset rows where they match, else the vocabulary, then the reader's edits. */
function embeddings(tokens, dModel, presetX, edits) {
  const x = new Float32Array(tokens.length * dModel);
  tokens.forEach((token, i) => {
    const given = presetX && presetX.tokens?.[i] === token && presetX.rows[i]?.length === dModel ? presetX.rows[i] : null;
    x.set(given ?? embed(token, dModel), i * dModel);
    for (let c = 0; c < dModel; c++) {
      const key = editKey(i, token, c);
      if (Object.hasOwn(edits, key)) x[i * dModel + c] = edits[key];
    }
  });
  return x;
}

export function withCellEdit(state, which, row, token, col, value) {
  const field = which === 'context' ? 'contextEdits' : 'xEdits';
  return { ...state, [field]: { ...state[field], [editKey(row, token, col)]: value } };
}

/** Column labels of X: a preset's own, or the vocabulary's features. */
export function columnsOf(state) {
  if (state.x && state.x.columns.length === state.dModel && state.attention === 'self') return state.x.columns;
  return columnNames(state.dModel);
}

function integerField(state, field, problems) {
  const value = state[field];
  const limit = PAGE_LIMITS[field];
  if (!Number.isInteger(value) || value < 1) {
    problems.push({ field, message: `${field} must be a whole number of at least 1, got ${JSON.stringify(value)}` });
  } else if (value > limit) {
    problems.push({ field, message: `${field} (${value}) is above this page's limit of ${limit}` });
  }
  return value;
}

/**
 * What the engine is asked for this state, or { problems } naming each field that is wrong.
 * The request carries the weights' recipe; the worker turns it into matrices.
 */
export function buildRequest(state) {
  const problems = [];
  const { tokens, contextTokens, overflow } = tokensOf(state);
  if (overflow) problems.push({ field: overflow, message: `The text has more than ${MAX_TOKENS} tokens; this page takes at most ${MAX_TOKENS}` });
  if (tokens.length === 0) problems.push({ field: 'sentence', message: 'The sentence has no tokens: type a few words' });
  if (contextTokens && contextTokens.length === 0) problems.push({ field: 'contextSentence', message: 'The context sentence has no tokens' });
  const dModel = integerField(state, 'dModel', problems);
  const heads = integerField(state, 'heads', problems);
  const dK = integerField(state, 'dK', problems);
  const dV = integerField(state, 'dV', problems);
  let scale = state.scaleMode;
  if (state.scaleMode === 'custom') {
    scale = state.scaleDivisor;
    if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0) {
      problems.push({ field: 'scaleDivisor', message: `The divisor must be a number above 0, got ${JSON.stringify(scale)}` });
    }
  }
  if (state.weightsMode === 'identity' && !(heads === 1 && dK === dModel && dV === dModel)) {
    problems.push({
      field: 'weightsMode',
      message: `Identity weights need heads = 1 and d_k = d_v = d_model (now heads ${heads}, d_k ${dK}, d_v ${dV}, d_model ${dModel}): choose seeded random or set the sizes`,
    });
  }
  if (state.weightsMode === 'random' && !(Number.isSafeInteger(state.seed) && state.seed >= 0)) {
    problems.push({ field: 'seed', message: `The seed must be a whole number from 0, got ${JSON.stringify(state.seed)}` });
  }
  if (state.weightsMode === 'custom') {
    const c = state.custom;
    const sizes = { wq: heads * dModel * dK, wk: heads * dModel * dK, wv: heads * dModel * dV, wo: heads * dV * dModel };
    for (const name of ['wq', 'wk', 'wv', ...(state.useWo ? ['wo'] : [])]) {
      if (!c || !c[name] || c[name].length !== sizes[name]) {
        problems.push({ field: 'weightsMode', message: `The custom ${name} does not fit the sizes (${c?.[name]?.length ?? 0} values, need ${sizes[name]}): choose seeded random` });
        break;
      }
    }
  }
  if (problems.length) return { problems };

  const x = embeddings(tokens, dModel, state.attention === 'self' ? state.x : null, state.xEdits);
  const context = contextTokens ? embeddings(contextTokens, dModel, null, state.contextEdits) : null;
  const keyTokens = contextTokens ?? tokens;
  let mask = state.maskMode === 'padding' ? 'none' : state.maskMode;
  if (state.maskMode === 'padding') {
    mask = new Uint8Array(tokens.length * keyTokens.length);
    for (let i = 0; i < tokens.length; i++) {
      for (let j = 0; j < keyTokens.length; j++) mask[i * keyTokens.length + j] = keyTokens[j] === '[PAD]' ? 0 : 1;
    }
  }
  return {
    request: {
      x, n: tokens.length, dModel, heads, dK, dV, scale, mask,
      ...(context ? { context, m: contextTokens.length } : {}),
      weights: {
        mode: state.weightsMode,
        seed: state.seed,
        ...(state.weightsMode === 'custom' ? state.custom : {}),
      },
      useWo: state.useWo,
    },
    tokens,
    keyTokens,
  };
}

// ---- the state in a link

const LINK_FIELDS = {
  preset: (v) => v === null || (typeof v === 'string' && presetById(v) !== null),
  sentence: (v) => typeof v === 'string' && v.length <= 4000,
  contextSentence: (v) => typeof v === 'string' && v.length <= 4000,
  attention: (v) => v === 'self' || v === 'cross',
  dModel: Number.isInteger, heads: Number.isInteger, dK: Number.isInteger, dV: Number.isInteger,
  scaleMode: (v) => ['sqrt_dk', 'none', 'custom'].includes(v),
  scaleDivisor: Number.isFinite,
  maskMode: (v) => ['none', 'causal', 'padding'].includes(v),
  padTo: Number.isInteger,
  weightsMode: (v) => ['identity', 'random', 'custom'].includes(v),
  seed: Number.isSafeInteger,
  custom: (v) => v === null || (typeof v === 'object' && !Array.isArray(v) &&
    Object.entries(v).every(([k, w]) => ['wq', 'wk', 'wv', 'wo'].includes(k) && (w === null || (Array.isArray(w) && w.length <= 1 << 20 && w.every(Number.isFinite))))),
  useWo: (v) => typeof v === 'boolean',
  x: (v) => v === null || (typeof v === 'object' && Array.isArray(v.columns) && v.columns.every((c) => typeof c === 'string') &&
    Array.isArray(v.tokens) && v.tokens.every((t) => typeof t === 'string') &&
    Array.isArray(v.rows) && v.rows.every((r) => Array.isArray(r) && r.every(Number.isFinite))),
  xEdits: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(Number.isFinite),
  contextEdits: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(Number.isFinite),
  selectedToken: Number.isInteger,
  selectedHead: (v) => v === 'all' || Number.isInteger(v),
  practice: checkPractice,      // true, or a sentence saying what is wrong
};
const MAX_LINK = 2_000_000;

/** The state as a URL fragment: "#lab=" and the JSON, percent-encoded. A preset's own data is left out. */
export function stateToFragment(state) {
  const preset = state.preset ? presetState(state.preset) : null;
  const out = {};
  for (const key of Object.keys(LINK_FIELDS)) {
    // fields equal to the preset's (or the defaults') add nothing to the link
    const reference = preset ?? BASE;
    if (JSON.stringify(state[key]) !== JSON.stringify(reference[key])) out[key] = state[key];
  }
  if (state.preset) out.preset = state.preset;
  return `#lab=${encodeURIComponent(JSON.stringify(out))}`;
}

/**
 * The state a fragment describes, or { problems } saying what is wrong with it. An empty fragment
 * is { state: null }. Nothing in a fragment is trusted: every field is checked, unknown ones refused.
 */
export function stateFromFragment(fragment) {
  const text = String(fragment ?? '').replace(/^#/, '');
  if (text === '') return { state: null };
  const problem = (message) => ({ problems: [{ field: 'link', message: `This link's settings could not be read (${message}); showing the first example instead.` }] });
  if (text.length > MAX_LINK) return problem(`it is ${text.length} characters long, more than ${MAX_LINK}`);
  if (!text.startsWith('lab=')) return problem('it does not start with "lab="');
  let data;
  try {
    data = JSON.parse(decodeURIComponent(text.slice(4)));
  } catch {
    return problem('it is not valid JSON');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return problem('it is not an object');
  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(LINK_FIELDS, key)) return problem(`unknown setting "${key.slice(0, 40)}"`);
    const verdict = LINK_FIELDS[key](value);
    if (verdict !== true) return problem(typeof verdict === 'string' ? verdict : `the value of "${key}" is not valid`);
  }
  const base = data.preset ? presetState(data.preset) : { ...structuredClone(BASE), preset: null };
  return { state: { ...base, ...data } };
}
