// What the engine is asked for a state: the embeddings of its tokens (with the reader's edits),
// the sizes, scaling, mask and weights' recipe, or the problems that stop it, each naming its field.
import { MAX_TOKENS, MAX_CHARS } from './tokenize.mjs';
import { embed, wordKey } from './vocabulary.mjs';
import { problemOf } from '../i18n/page.mjs';
import { PAGE_LIMITS, LOADED_LIMITS, FLOAT32_MAX, FLOAT32_MIN_NORMAL, tokensOf, editKey, editedWord, ownX, isStack } from './model.mjs';
import { stackProblems, stackOf } from './stack.mjs';
import { modernProblems, modernRequest } from './modern.mjs';

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


// A setting's name as its control's label says it, in the lab's language (a message: i18n/index.mjs).
export const labelOf = (field) => ({ key: `controls.${field}` });

function integerField(state, field, problems) {
  const value = state[field];
  const limit = state.weightsMode === 'custom' && LOADED_LIMITS[field] ? LOADED_LIMITS[field] : PAGE_LIMITS[field];
  if (!Number.isInteger(value) || value < 1) {
    problems.push(problemOf(field, 'problem.wholeNumber', { field: labelOf(field), value: JSON.stringify(value) }));
  } else if (value > limit) {
    problems.push(problemOf(field, 'problem.aboveLimit', { field: labelOf(field), value, limit }));
  }
  return value;
}

// The sentences: too many tokens, too long, or none.
function tokenProblems({ tokens, contextTokens, overflow, tooLong }, problems) {
  if (overflow) problems.push(problemOf(overflow, 'problem.tooManyTokens', { max: MAX_TOKENS }));
  if (tooLong) problems.push(problemOf(tooLong, 'problem.tooLong', { max: MAX_CHARS.toLocaleString('en') }));
  if (tokens.length === 0) problems.push(problemOf('sentence', 'problem.noTokens'));
  if (contextTokens && contextTokens.length === 0) problems.push(problemOf('contextSentence', 'problem.noContextTokens'));
}

const quoted = (value) => JSON.stringify(String(value).slice(0, 40));

// The divisor (when chosen) and the selected token and head.
function scaleAndSelectionProblems(state, problems) {
  const scale = state.scaleDivisor;
  if (state.scaleMode === 'custom' && (typeof scale !== 'number' || !(scale >= FLOAT32_MIN_NORMAL && scale <= FLOAT32_MAX))) {
    problems.push(problemOf('scaleDivisor', 'problem.divisor', { field: labelOf('scaleDivisor'), value: quoted(scale) }));
  }
  if (!Number.isInteger(state.selectedToken) || state.selectedToken < 0) {
    problems.push(problemOf('query', 'problem.query', { value: quoted(state.selectedToken) }));
  }
  if (state.selectedHead !== 'all' && !(Number.isInteger(state.selectedHead) && state.selectedHead >= 0)) {
    problems.push(problemOf('head', 'problem.head', { value: quoted(state.selectedHead) }));
  }
}

// Hand-set weights: each matrix (and each bias given) as long as the sizes need; the first that is not, named.
function customWeightProblems(state, { dModel, heads, dK, dV }, problems) {
  const c = state.custom;
  // W_k, W_v (and b_k, b_v) hold the key/value heads (grouped-query attention: fewer than heads)
  const kv = state.kvHeads ?? heads;
  const sizes = { wq: heads * dModel * dK, wk: kv * dModel * dK, wv: kv * dModel * dV, wo: heads * dV * dModel, bq: heads * dK, bk: kv * dK, bv: kv * dV, bo: dModel };
  const optional = ['bq', 'bk', 'bv', ...(state.useWo ? ['bo'] : [])].filter((name) => c?.[name]);
  const wrong = ['wq', 'wk', 'wv', ...(state.useWo ? ['wo'] : []), ...optional].find((name) => !c || !c[name] || c[name].length !== sizes[name]);
  if (wrong) problems.push(problemOf('weightsMode', 'problem.customSize', { name: wrong, count: c?.[wrong]?.length ?? 0, need: sizes[wrong] }));
}

// The weights' recipe: identity needs square sizes, random a seed, custom the right lengths.
function weightProblems(state, sizes, problems) {
  const { dModel, heads, dK, dV } = sizes;
  if (state.weightsMode === 'identity' && !(heads === 1 && dK === dModel && dV === dModel)) {
    problems.push(problemOf('weightsMode', 'problem.identity', { heads, dK, dV, dModel }));
  }
  if (state.weightsMode === 'random' && !(Number.isSafeInteger(state.seed) && state.seed >= 0)) {
    problems.push(problemOf('seed', 'problem.seed', { field: labelOf('seed'), value: JSON.stringify(state.seed) }));
  }
  if (state.weightsMode === 'custom') customWeightProblems(state, sizes, problems);
}

// Padding masks the [PAD] keys (1 = keep); the other masks are named for the engine.
function maskOf(state, tokens, keyTokens) {
  if (state.maskMode !== 'padding') return state.maskMode;
  const mask = new Uint8Array(tokens.length * keyTokens.length);
  for (let i = 0; i < tokens.length; i++) {
    for (let j = 0; j < keyTokens.length; j++) mask[i * keyTokens.length + j] = keyTokens[j] === '[PAD]' ? 0 : 1;
  }
  return mask;
}

// The request for a state whose every field is fine.
function requestOf(state, { tokens, contextTokens }, { dModel, heads, dK, dV }) {
  const x = state.inputs && state.inputs.rows.every((row) => row.length === dModel)
    ? withRowEdits(state.inputs, dModel, state.xEdits)
    : embeddings(tokens, dModel, ownX(state), state.xEdits, state.embeddings);
  const context = contextTokens ? embeddings(contextTokens, dModel, null, state.contextEdits) : null;
  const keyTokens = contextTokens ?? tokens;
  const request = {
    x, n: tokens.length, dModel, heads, dK, dV,
    scale: state.scaleMode === 'custom' ? state.scaleDivisor : state.scaleMode,
    mask: maskOf(state, tokens, keyTokens),
    ...(state.positions === 'sinusoidal' ? { positions: 'sinusoidal' } : {}),
    ...(context ? { context, m: contextTokens.length } : {}),
    weights: { mode: state.weightsMode, seed: state.seed, ...(state.weightsMode === 'custom' ? state.custom : {}) },
    useWo: state.useWo,
    ...modernRequest(state),
    ...(isStack(state) ? { stack: stackOf(state) } : {}),
  };
  return { request, tokens, keyTokens };
}

/**
 * What the engine is asked for this state, or { problems } naming each field that is wrong.
 * The request carries the weights' recipe; the worker turns it into matrices.
 */
export function buildRequest(state) {
  const problems = [];
  const tokens = tokensOf(state);
  tokenProblems(tokens, problems);
  const sizes = {
    dModel: integerField(state, 'dModel', problems), heads: integerField(state, 'heads', problems),
    dK: integerField(state, 'dK', problems), dV: integerField(state, 'dV', problems),
  };
  if (state.maskMode === 'padding') integerField(state, 'padTo', problems);
  scaleAndSelectionProblems(state, problems);
  modernProblems(state, sizes, problems);
  if (!problems.some((p) => p.field === 'kvHeads')) weightProblems(state, sizes, problems);
  if (isStack(state)) stackProblems(state, sizes, problems);
  return problems.length ? { problems } : requestOf(state, tokens, sizes);
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

