// The state in a link ("#lab=" and its JSON): written with what differs from the preset, read with
// every field checked. Features add fields of their own (registerLinkField), so the codec needs no
// feature's code.
import { tokenize, MAX_TOKENS } from './tokenize.mjs';
import { presetById } from './presets.mjs';
import { problemOf } from '../i18n/page.mjs';
import { BASE, PAGE_LIMITS, PARAMETER_NAMES, isFloat32, presetState, ownValueCount } from './model.mjs';
import { buildRequest } from './request.mjs';
import { BLOCKS, NORMS, BLOCK_EDIT_KEY } from './stack.mjs';
import { parseJson, JsonDepthError } from '../shared/json-depth.mjs';
import { formatFull } from '../shared/format.mjs';

// Weights with more values than this are left out of links (a BERT-base layer has 2.4 million).
export const LINK_MAX_WEIGHTS = 100_000;

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
  custom: (v) => v === null || isParameters(v),
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
  digits: (v) => Number.isInteger(v) && v >= 0 && v <= 9,
  layers: Number.isInteger,
  block: (v) => BLOCKS.includes(v),
  norm: (v) => NORMS.includes(v),
  layerWeights: (v) => v === null || (Array.isArray(v) && v.length < PAGE_LIMITS.layers && v.every((w) => w === null || isParameters(w))),
  selectedLayer: Number.isInteger,
  blockEdits: (v) => isBlockEdits(v),
  // in range or not: buildRequest names the field (state/modern.mjs)
  kvHeads: (v) => v === null || Number.isInteger(v),
  rotary: (v) => typeof v === 'boolean',
  rotaryTheta: Number.isFinite,
  rotaryDims: (v) => v === null || Number.isInteger(v),
  window: Number.isInteger,
  // a real model's block (models/lab.mjs); its sizes are checked against d_model by buildRequest (state/stack.mjs)
  modelBlock: (v) => v === null || isModelBlock(v),
};

const isFloats = (v, max = 1 << 24) => Array.isArray(v) && v.length <= max && v.every(isFloat32);
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNorm = (v) => isObject(v) && ['layernorm', 'rmsnorm'].includes(v.kind) && Number.isFinite(v.eps) && v.eps > 0 &&
  isFloats(v.weight) && (v.bias === null || v.bias === undefined || isFloats(v.bias));
const MLP_ARRAYS = { plain: ['w1', 'w2'], swiglu: ['wGate', 'wUp', 'wDown'] };
function isMlp(v) {
  if (!isObject(v) || !Object.hasOwn(MLP_ARRAYS, v.kind) || !Number.isInteger(v.hidden) || v.hidden < 1) return false;
  if (v.kind === 'plain' && !['gelu', 'gelu-tanh', 'relu', 'silu'].includes(v.activation)) return false;
  const biases = ['b1', 'b2'].every((name) => v[name] === null || v[name] === undefined || (v.kind === 'plain' && isFloats(v[name])));
  return biases && MLP_ARRAYS[v.kind].every((name) => isFloats(v[name]));
}
// A model's block: its arrangement, two norms and its MLP (state/model.mjs's modelBlock)
// (with, from "Open this layer in the lab", where it came from: short texts and whole numbers)
const isText = (v) => typeof v === 'string' && v.length <= 200;
const TENSOR_NAMES = ['w1', 'w2', 'wGate', 'wUp', 'wDown', 'ln1', 'ln2'];
const isTensors = (v) => v === undefined || (isObject(v) && Object.entries(v).every(([k, name]) => TENSOR_NAMES.includes(k) && isText(name)));
/** The longest sentence a model's block keeps as where it came from (modelBlock.source.text). */
export const MAX_SOURCE_TEXT = 2000;
const isSourceText = (v) => v === undefined || (typeof v === 'string' && v.length <= MAX_SOURCE_TEXT);
const isSource = (v) => v === undefined || (isObject(v) && isText(v.model) && isText(v.architectures) && [v.layer, v.layers].every((n) => Number.isInteger(n) && n >= 1 && n <= 4096) && isTensors(v.tensors) && isSourceText(v.text));
// the attention's cells typed over the model's ("wq:index" → true, state/model.mjs, withWeightEdit)
const isWeightEdits = (v) => v === undefined || (isObject(v) && Object.keys(v).length <= MAX_EDITS && Object.entries(v).every(([k, on]) => on === true && /^w[qkvo]:\d{1,9}$/.test(k)));
const isModelBlock = (v) => isObject(v) && NORMS.includes(v.arrangement) && isNorm(v.norm1) && isNorm(v.norm2) && isMlp(v.mlp) && isSource(v.source) && isWeightEdits(v.weightEdits);

// Hand-set parameters: named matrices of float32 values (or null).
function isParameters(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v) &&
    Object.entries(v).every(([k, w]) => PARAMETER_NAMES.includes(k) && (w === null || (Array.isArray(w) && w.length <= 1 << 20 && w.every(isFloat32))));
}

/**
 * A feature's own field in links (practice mode's settings): `check(value)` is true, or a sentence
 * saying what is wrong. Registered when the feature's module loads, before any link is read.
 */
export function registerLinkField(name, check) {
  if (Object.hasOwn(BASE, name) && !Object.hasOwn(LINK_FIELDS, name)) LINK_FIELDS[name] = check;
}
/** The longest fragment the page reads (Chromium opens no address over 2 MB). */
export const MAX_LINK = 2_000_000;
/** The longest fragment written for a real model's layer (modelBlock.source): what e-mail, chat and learning platforms take. */
export const MODEL_LINK = 8000;
// "row:token:col" → a float32 value, no more than one per cell of the largest table the page shows.
const MAX_EDITS = MAX_TOKENS * PAGE_LIMITS.dModel;
function isEdits(v) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return entries.length <= MAX_EDITS && entries.every(([key, value]) => /^\d+:.*:\d+$/s.test(key) && isFloat32(value));
}

// "layer:table:index" → a float32 value: typed cells of a full block's MLP and norms (state/stack.mjs)
function isBlockEdits(v) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return entries.length <= 1 << 18 && entries.every(([key, value]) => BLOCK_EDIT_KEY.test(key) && isFloat32(value));
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
    // a real model's layer ("Open this layer in the lab": modelBlock.source) made a fragment of 130,000
    // characters, written into the address at every draw: over MODEL_LINK it is not written at all
    // (its weights come from the model's files), and the reader is told so (issue #24, review 8)
    const tooLong = fragment.length - 1 > (state.modelBlock?.source ? MODEL_LINK : MAX_LINK);
    if (!tooLong) return { fragment, carriesWeights: true };
  }
  return { fragment: fragmentOf(state, true), carriesWeights: false };
}

const SIZES = ['dModel', 'heads', 'dK', 'dV'];

// The fields whose numbers the engine reads as float32 (weights, rows, a model's block): written as the
// shortest decimal that reads back as the same float32 (formatFull), not a double's 17 digits (review 6,
// finding 1: a model layer's link was 101,801 characters).
const FLOAT32_FIELDS = ['custom', 'layerWeights', 'inputs', 'embeddings', 'modelBlock', 'x', 'xEdits', 'contextEdits', 'blockEdits'];
function asFloat32Text(value) {
  if (typeof value === 'number') return Number.isFinite(value) && !Number.isInteger(value) ? Number(formatFull(value)) : value;
  if (Array.isArray(value)) return value.map(asFloat32Text);
  if (ArrayBuffer.isView(value)) return Array.from(value, asFloat32Text);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asFloat32Text(item)]));
  return value;
}

function fragmentOf(state, tooLarge) {
  const preset = state.preset ? presetState(state.preset) : null;
  const out = {};
  for (const key of Object.keys(LINK_FIELDS)) {
    if (tooLarge && ['custom', 'layerWeights', 'inputs', 'embeddings', 'weightsMode', 'modelBlock'].includes(key)) continue;
    // seeded random weights take the page's sizes only: a loaded layer's larger sizes stay out too
    if (tooLarge && SIZES.includes(key) && !SIZES.every((size) => state[size] <= PAGE_LIMITS[size])) continue;
    // fields equal to the preset's (or the defaults') add nothing to the link
    const reference = preset ?? BASE;
    if (JSON.stringify(state[key]) !== JSON.stringify(reference[key])) out[key] = FLOAT32_FIELDS.includes(key) ? asFloat32Text(state[key]) : state[key];
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

const PLAIN_ANCHOR = /^[A-Za-z][\w-]{0,63}$/;

/**
 * The state a fragment describes, or { problems } saying what is wrong with it. An empty fragment
 * is { state: null }. Nothing in a fragment is trusted: every field is checked, unknown ones refused.
 */
export function stateFromFragment(fragment) {
  const text = String(fragment ?? '').replace(/^#/, '');
  if (text === '') return { state: null };
  // a plain anchor (#models, #top: a section a reader bookmarks or types) is a place, not a lab's settings
  if (PLAIN_ANCHOR.test(text)) return { state: null };
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
  // a link without a precision keeps the reader's (a link written at the default 4 leaves it out)
  if (!Object.hasOwn(data, 'digits')) delete state.digits;
  // well-formed, but can it be shown? ({}, negative sizes, weights of the wrong length, an empty context …)
  const built = buildRequest(state);
  if (built.problems) return problem(built.problems.map(({ key, values }) => ({ key, values })));
  return { state };
}
