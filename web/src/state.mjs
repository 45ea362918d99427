// The page's state and the pure functions over it: what a preset sets, and what the engine is asked.
// The state holds what the reader chose and typed; everything shown is derived from it.
import { tokenize, MAX_TOKENS, MAX_CHARS } from './tokenize.mjs';
import { embed, columnNames, wordKey } from './vocabulary.mjs';
import { presetById, DEFAULT_PRESET } from './presets.mjs';
import { checkPractice } from './practice/spec.mjs';
import { problemOf } from './i18n.mjs';
import { parseJson, JsonDepthError } from './json-depth.mjs';

// Caps of the page (the engine's are larger): tables past these stop being readable.
export const PAGE_LIMITS = { dModel: 128, heads: 16, dK: 128, dV: 128, padTo: MAX_TOKENS };
// The engine computes in float32: a typed value or a divisor outside this range is refused by name.
const FLOAT32_MAX = 3.4028234663852886e38;
const FLOAT32_MIN_NORMAL = 1.1754943508222875e-38;
const isFloat32 = (v) => Number.isFinite(v) && Math.abs(v) <= FLOAT32_MAX;
// A layer loaded from a file (web/src/layers/) is shown whatever its size, up to these.
const LOADED_LIMITS = { dModel: 2048, heads: 64, dK: 2048, dV: 2048 };
// Weights with more values than this are left out of links (a BERT-base layer has 2.4 million).
export const LINK_MAX_WEIGHTS = 100_000;
const PARAMETER_NAMES = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];

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
  custom: null,                 // { wq, wk, wv, wo, bq?, bk?, bv?, bo? }: number arrays, when weightsMode is 'custom'
  positions: 'none',            // 'none' | 'sinusoidal': added to X before the projections
  inputs: null,                 // { tokens, rows }: X given row by row (a loaded layer's hidden states), instead of the sentence
  embeddings: null,             // { word: number[] }: learned embeddings, used before the vocabulary's
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
  return { ...structuredClone(BASE), ...structuredClone(preset.state), preset: preset.id };
}

export function defaultState() {
  return presetState(DEFAULT_PRESET);
}

/** Tokens of the sentence (queries) and of the context (keys and values), with padding applied. */
export function tokensOf(state) {
  const queries = state.inputs ? { tokens: state.inputs.tokens, overflow: false } : tokenize(state.sentence);
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
    tooLong: queries.tooLong ? 'sentence' : context?.tooLong ? 'contextSentence' : null,
  };
}

const editKey = (row, token, col) => `${row}:${token}:${col}`;
const editedWord = (key) => {
  const [, token, col] = /^\d+:(.*):(\d+)$/s.exec(key) ?? [];
  return token === undefined ? null : { word: wordKey(token), col: Number(col) };
};

/**
 * An embedding matrix for tokens. The rule: a word has one vector wherever it appears, looked up by
 * its lower-case form (wordKey), so 'The' and 'the' share a row. It comes from the preset's rows
 * (words it lists), else learned rows, else the vocabulary; a cell the reader typed changes that word in every row.
 */
function embeddings(tokens, dModel, presetX, edits, learned = null) {
  const given = new Map();
  presetX?.tokens?.forEach((token, k) => {
    const row = presetX.rows[k];
    if (row?.length === dModel && !given.has(wordKey(token))) given.set(wordKey(token), row);
  });
  const typed = Object.entries(edits).map(([key, value]) => ({ ...editedWord(key), value })).filter((e) => e.word !== undefined && e.col < dModel);
  const x = new Float32Array(tokens.length * dModel);
  tokens.forEach((token, i) => {
    const word = wordKey(token);
    // learned embeddings (the Train section's "Use these weights") come before the vocabulary's
    const own = learned && Object.hasOwn(learned, word) && learned[word].length === dModel ? learned[word] : null;
    x.set(given.get(word) ?? own ?? embed(token, dModel), i * dModel);
    for (const edit of typed) if (edit.word === word) x[i * dModel + edit.col] = edit.value;
  });
  return x;
}

/** The state with one cell of X (or C) typed: the word's vector changes in every row it has. */
export function withCellEdit(state, which, row, token, col, value) {
  const field = which === 'context' ? 'contextEdits' : 'xEdits';
  const kept = Object.entries(state[field]).filter(([key]) => {
    const edit = editedWord(key);
    return !(edit && edit.word === wordKey(token) && edit.col === col);
  });
  return { ...state, [field]: { ...Object.fromEntries(kept), [editKey(row, token, col)]: value } };
}

const SIZES = ['dModel', 'heads', 'dK', 'dV'];
const identityMatrix = (size) => Array.from({ length: size * size }, (_, i) => (i % (size + 1) === 0 ? 1 : 0));

/**
 * The state after the reader changed settings ({ field: value }): identity weights stay square
 * (d_k and d_v follow d_model), and hand-set weights that no longer fit the sizes are replaced by
 * seeded random ones, which `replaced` reports ('sizes' or 'wo', else null) so the page can say so. Turning W_O on with hand-set
 * weights adds an identity W_O when the concatenation is as wide as d_model, else goes random too.
 */
export function withSettingChange(state, change) {
  const next = { ...change };
  if ('dModel' in next && state.weightsMode === 'identity' && Number.isInteger(next.dModel)) {
    Object.assign(next, { dK: next.dModel, dV: next.dModel });
  }
  let changed = { ...state, ...next };
  let replaced = null;
  if (SIZES.some((field) => field in next && next[field] !== state[field]) && changed.weightsMode === 'custom') {
    changed = { ...changed, weightsMode: 'random', custom: null };
    replaced = 'sizes';
  }
  if (next.useWo === true && changed.weightsMode === 'custom' && !changed.custom?.wo) {
    const width = changed.heads * changed.dV;
    if (width === changed.dModel) changed = { ...changed, custom: { ...changed.custom, wo: identityMatrix(width) } };
    else {
      changed = { ...changed, weightsMode: 'random', custom: null };
      replaced = 'wo';
    }
  }
  return { state: changed, replaced };
}

/**
 * The state with one parameter typed. Editing any weight makes the shown matrices (`weights`, as
 * the engine used them) the reader's own, then changes the one cell.
 */
export function withWeightEdit(state, weights, { matrix, head, row, col }, value) {
  let next = state;
  if (state.weightsMode !== 'custom') {
    const own = {};
    for (const name of ['wq', 'wk', 'wv', 'wo']) own[name] = weights[name] ? Array.from(weights[name]) : null;
    next = { ...state, weightsMode: 'custom', custom: own };
  }
  const width = { wq: next.dK, wk: next.dK, wv: next.dV, wo: next.dModel }[matrix];
  const index = matrix === 'wo' ? row * width + col : (head * next.dModel + row) * width + col;
  const values = [...next.custom[matrix]];
  values[index] = value;
  return { ...next, custom: { ...next.custom, [matrix]: values } };
}

// What a reader can change about an example, and the state fields behind each.
const ASPECTS = {
  sentence: ['sentence'],
  attention: ['attention', 'contextSentence'],
  sizes: ['dModel', 'heads', 'dK', 'dV'],
  scaling: ['scaleMode', 'scaleDivisor'],
  mask: ['maskMode', 'padTo'],
  parameters: ['weightsMode', 'seed', 'custom', 'useWo'],
  inputs: ['x', 'xEdits', 'contextEdits'],
};

/** Which aspects of the state differ from its preset's (['sentence', 'sizes', …]); [] when none or no preset. */
export function modifiedAspects(state) {
  if (!state.preset || !presetById(state.preset)) return [];
  const original = presetState(state.preset);
  const same = (field) => JSON.stringify(state[field] ?? null) === JSON.stringify(original[field] ?? null);
  return Object.entries(ASPECTS).filter(([, fields]) => !fields.every(same)).map(([aspect]) => aspect);
}

/** Column labels of X: a preset's own, or the vocabulary's features. */
export function columnsOf(state) {
  // given rows (a real model's hidden states) have no named features
  if (state.inputs) return Array.from({ length: state.dModel }, (_, c) => `d${c}`);
  if (state.x && state.x.columns.length === state.dModel && state.attention === 'self') return state.x.columns;
  return columnNames(state.dModel);
}

function integerField(state, field, problems) {
  const value = state[field];
  const limit = state.weightsMode === 'custom' && LOADED_LIMITS[field] ? LOADED_LIMITS[field] : PAGE_LIMITS[field];
  if (!Number.isInteger(value) || value < 1) {
    problems.push(problemOf(field, 'problem.wholeNumber', { field, value: JSON.stringify(value) }));
  } else if (value > limit) {
    problems.push(problemOf(field, 'problem.aboveLimit', { field, value, limit }));
  }
  return value;
}

/**
 * What the engine is asked for this state, or { problems } naming each field that is wrong.
 * The request carries the weights' recipe; the worker turns it into matrices.
 */
export function buildRequest(state) {
  const problems = [];
  const { tokens, contextTokens, overflow, tooLong } = tokensOf(state);
  if (overflow) problems.push(problemOf(overflow, 'problem.tooManyTokens', { max: MAX_TOKENS }));
  if (tooLong) problems.push(problemOf(tooLong, 'problem.tooLong', { max: MAX_CHARS.toLocaleString('en') }));
  if (tokens.length === 0) problems.push(problemOf('sentence', 'problem.noTokens'));
  if (contextTokens && contextTokens.length === 0) problems.push(problemOf('contextSentence', 'problem.noContextTokens'));
  const dModel = integerField(state, 'dModel', problems);
  const heads = integerField(state, 'heads', problems);
  const dK = integerField(state, 'dK', problems);
  const dV = integerField(state, 'dV', problems);
  if (state.maskMode === 'padding') integerField(state, 'padTo', problems);
  let scale = state.scaleMode;
  if (state.scaleMode === 'custom') {
    scale = state.scaleDivisor;
    if (typeof scale !== 'number' || !(scale >= FLOAT32_MIN_NORMAL && scale <= FLOAT32_MAX)) {
      problems.push(problemOf('scaleDivisor', 'problem.divisor', { value: JSON.stringify(String(scale).slice(0, 40)) }));
    }
  }
  if (!Number.isInteger(state.selectedToken) || state.selectedToken < 0) {
    problems.push(problemOf('query', 'problem.query', { value: JSON.stringify(String(state.selectedToken).slice(0, 40)) }));
  }
  if (state.selectedHead !== 'all' && !(Number.isInteger(state.selectedHead) && state.selectedHead >= 0)) {
    problems.push(problemOf('head', 'problem.head', { value: JSON.stringify(String(state.selectedHead).slice(0, 40)) }));
  }
  if (state.weightsMode === 'identity' && !(heads === 1 && dK === dModel && dV === dModel)) {
    problems.push(problemOf('weightsMode', 'problem.identity', { heads, dK, dV, dModel }));
  }
  if (state.weightsMode === 'random' && !(Number.isSafeInteger(state.seed) && state.seed >= 0)) {
    problems.push(problemOf('seed', 'problem.seed', { value: JSON.stringify(state.seed) }));
  }
  if (state.weightsMode === 'custom') {
    const c = state.custom;
    const sizes = { wq: heads * dModel * dK, wk: heads * dModel * dK, wv: heads * dModel * dV, wo: heads * dV * dModel, bq: heads * dK, bk: heads * dK, bv: heads * dV, bo: dModel };
    const optional = ['bq', 'bk', 'bv', ...(state.useWo ? ['bo'] : [])].filter((name) => c?.[name]);
    for (const name of ['wq', 'wk', 'wv', ...(state.useWo ? ['wo'] : []), ...optional]) {
      if (!c || !c[name] || c[name].length !== sizes[name]) {
        problems.push(problemOf('weightsMode', 'problem.customSize', { name, count: c?.[name]?.length ?? 0, need: sizes[name] }));
        break;
      }
    }
  }
  if (problems.length) return { problems };

  const x = state.inputs && state.inputs.rows.every((row) => row.length === dModel)
    ? withRowEdits(state.inputs, dModel, state.xEdits)
    : embeddings(tokens, dModel, state.attention === 'self' ? state.x : null, state.xEdits, state.embeddings);
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
      ...(state.positions === 'sinusoidal' ? { positions: 'sinusoidal' } : {}),
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

// Given rows of X, and the reader's edits of them (by row).
function withRowEdits(inputs, dModel, edits) {
  const x = Float32Array.from(inputs.rows.flat());
  inputs.tokens.forEach((token, i) => {
    for (let c = 0; c < dModel; c++) {
      const key = editKey(i, token, c);
      if (Object.hasOwn(edits, key)) x[i * dModel + c] = edits[key];
    }
  });
  return x;
}

/** How many numbers the custom weights, given inputs and learned embeddings hold (what a link would carry). */
export function ownValueCount(state) {
  const count = (arrays) => arrays.reduce((sum, a) => sum + (a?.length ?? 0), 0);
  return count(Object.values(state.custom ?? {})) + count(state.inputs?.rows ?? []) + count(Object.values(state.embeddings ?? {}));
}

// ---- the state in a link

const LINK_FIELDS = {
  preset: (v) => v === null || (typeof v === 'string' && presetById(v) !== null),
  sentence: (v) => typeof v === 'string' && v.length <= 4000,
  contextSentence: (v) => typeof v === 'string' && v.length <= 4000,
  attention: (v) => v === 'self' || v === 'cross',
  dModel: Number.isInteger, heads: Number.isInteger, dK: Number.isInteger, dV: Number.isInteger,
  scaleMode: (v) => ['sqrt_dk', 'none', 'custom'].includes(v),
  scaleDivisor: Number.isFinite,   // in range or not: buildRequest says which
  maskMode: (v) => ['none', 'causal', 'padding'].includes(v),
  padTo: Number.isInteger,
  weightsMode: (v) => ['identity', 'random', 'custom'].includes(v),
  seed: Number.isSafeInteger,
  custom: (v) => v === null || (typeof v === 'object' && !Array.isArray(v) &&
    Object.entries(v).every(([k, w]) => PARAMETER_NAMES.includes(k) && (w === null || (Array.isArray(w) && w.length <= 1 << 20 && w.every(isFloat32))))),
  positions: (v) => v === 'none' || v === 'sinusoidal',
  inputs: (v) => v === null || (typeof v === 'object' && Array.isArray(v.tokens) && v.tokens.length <= MAX_TOKENS &&
    v.tokens.every((t) => typeof t === 'string' && tokenize(t).tokens.length === 1 && tokenize(t).tokens[0] === t) &&
    Array.isArray(v.rows) && v.rows.length === v.tokens.length && v.rows.every((r) => Array.isArray(r) && r.every(isFloat32))),
  embeddings: (v) => v === null || (typeof v === 'object' && !Array.isArray(v) &&
    Object.values(v).every((r) => Array.isArray(r) && r.length <= 4096 && r.every(isFloat32))),
  useWo: (v) => typeof v === 'boolean',
  x: (v) => v === null || (typeof v === 'object' && Array.isArray(v.columns) && v.columns.every((c) => typeof c === 'string') &&
    Array.isArray(v.tokens) && v.tokens.every((t) => typeof t === 'string') &&
    Array.isArray(v.rows) && v.rows.every((r) => Array.isArray(r) && r.every(isFloat32))),
  xEdits: (v) => isEdits(v),
  contextEdits: (v) => isEdits(v),
  selectedToken: Number.isInteger,
  selectedHead: (v) => v === 'all' || Number.isInteger(v),
  practice: checkPractice,      // true, or a sentence saying what is wrong
};
const MAX_LINK = 2_000_000;
// "row:token:col" → a float32 value, no more than one per cell of the largest table the page shows.
const MAX_EDITS = MAX_TOKENS * PAGE_LIMITS.dModel;
function isEdits(v) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return entries.length <= MAX_EDITS && entries.every(([key, value]) => /^\d+:.*:\d+$/s.test(key) && isFloat32(value));
}

/**
 * The state as a URL fragment: "#lab=" and the JSON, percent-encoded. A preset's own data is left out.
 * Weights too many for a link (linkCarriesWeights) are left out too, and the link keeps the settings.
 */
export function stateToFragment(state) {
  return linkOf(state).fragment;
}

// The fragment with everything, unless the reader's own numbers are too many or it would be longer
// than a link may be (the page refuses to read more than MAX_LINK characters, and Chromium opens no
// address over 2 MB): then the fragment with the settings only.
function linkOf(state) {
  if (ownValueCount(state) <= LINK_MAX_WEIGHTS) {
    const fragment = fragmentOf(state, false);
    if (fragment.length - 1 <= MAX_LINK) return { fragment, carriesWeights: true };
  }
  return { fragment: fragmentOf(state, true), carriesWeights: false };
}

function fragmentOf(state, tooLarge) {
  const preset = state.preset ? presetState(state.preset) : null;
  const out = {};
  for (const key of Object.keys(LINK_FIELDS)) {
    if (tooLarge && ['custom', 'inputs', 'embeddings', 'weightsMode'].includes(key)) continue;
    // seeded random weights take the page's sizes only: a loaded layer's larger sizes stay out too
    if (tooLarge && SIZES.includes(key) && !SIZES.every((size) => state[size] <= PAGE_LIMITS[size])) continue;
    // fields equal to the preset's (or the defaults') add nothing to the link
    const reference = preset ?? BASE;
    if (JSON.stringify(state[key]) !== JSON.stringify(reference[key])) out[key] = state[key];
  }
  if (state.preset) out.preset = state.preset;
  if (tooLarge) out.weightsMode = 'random';
  return `#lab=${encodeURIComponent(JSON.stringify(out))}`;
}

/**
 * False when the reader's own numbers are too many for a link, or make it longer than MAX_LINK
 * characters (99,856 numbers wrote 2.28 MB): save them as a file instead.
 */
export function linkCarriesWeights(state) {
  return linkOf(state).carriesWeights;
}

/**
 * The state a fragment describes, or { problems } saying what is wrong with it. An empty fragment
 * is { state: null }. Nothing in a fragment is trusted: every field is checked, unknown ones refused.
 */
export function stateFromFragment(fragment) {
  const text = String(fragment ?? '').replace(/^#/, '');
  if (text === '') return { state: null };
  // why: a message of its own ({ key, values }), or English details of the link's format
  const problem = (why) => ({ problems: [problemOf('link', 'problem.link', { why })] });
  if (text.length > MAX_LINK) return problem({ key: 'problem.linkLength', values: { length: text.length, max: MAX_LINK } });
  if (!text.startsWith('lab=')) return problem('it does not start with "lab="');
  let data;
  try {
    data = parseJson(decodeURIComponent(text.slice(4)));
  } catch (error) {
    if (error instanceof JsonDepthError) return problem(error.message);
    return problem('it is not valid JSON');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return problem('it is not an object');
  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(LINK_FIELDS, key)) return problem({ key: 'problem.linkUnknown', values: { key: key.slice(0, 40) } });
    const verdict = LINK_FIELDS[key](value);
    if (verdict !== true) return problem(typeof verdict === 'string' ? verdict : { key: 'problem.linkInvalid', values: { key } });
  }
  const base = data.preset ? presetState(data.preset) : { ...structuredClone(BASE), preset: null };
  const state = { ...base, ...data };
  // well-formed, but can it be shown? ({}, negative sizes, weights of the wrong length, an empty context …)
  const built = buildRequest(state);
  if (built.problems) return problem(built.problems.map(({ key, values }) => ({ key, values })));
  return { state };
}

/**
 * The ?mode= parameter of the page and of the embed, read against the state a link opened: with
 * 'practice', that state in practice mode (the first example when the link gave none); with
 * 'explore' or no parameter, the state as it is; anything else, the state as it is and a problem
 * naming the parameter. Returns { state, problem }.
 */
export function withModeParameter(mode, state) {
  if (mode === 'practice') return { state: state ? { ...state, practice: state.practice ?? {} } : { ...defaultState(), practice: {} }, problem: null };
  const known = mode === null || mode === 'explore';
  return { state, problem: known ? null : problemOf('mode', 'problem.mode', { value: mode.slice(0, 40) }) };
}
