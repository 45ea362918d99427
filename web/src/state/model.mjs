// The lab's state and the pure rules over it: what a preset sets and what an edit changes. The state
// holds what the reader chose and typed; everything shown is derived from it (request.mjs builds
// what the engine is asked, link.mjs what a link carries). Every function returns a new state.
import { tokenize, MAX_TOKENS } from './tokenize.mjs';
import { columnNames, wordKey } from './vocabulary.mjs';
import { presetById, DEFAULT_PRESET } from './presets.mjs';

// Caps of the page (the engine's are larger): tables past these stop being readable.
export const PAGE_LIMITS = { dModel: 128, heads: 16, dK: 128, dV: 128, padTo: MAX_TOKENS, layers: 6 };
// The engine computes in float32: a typed value or a divisor outside this range is refused by name.
export const FLOAT32_MAX = 3.4028234663852886e38;
export const FLOAT32_MIN_NORMAL = 1.1754943508222875e-38;
export const isFloat32 = (v) => Number.isFinite(v) && Math.abs(v) <= FLOAT32_MAX;
// A layer loaded from a file (web/src/layers/) is shown whatever its size, up to these.
export const LOADED_LIMITS = { dModel: 2048, heads: 64, dK: 2048, dV: 2048 };
export const PARAMETER_NAMES = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];

export const BASE = {
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
  digits: 4,                    // the lab's precision ("Digits"): significant digits shown, 0 every float32 digit
  layers: 1,                    // blocks in the stack, 1 to PAGE_LIMITS.layers (issue 23; web/src/blocks/)
  block: 'attention',           // 'attention' (x + attention(x)) | 'full' (norms, MLP and residuals)
  norm: 'pre',                  // a full block's norms: 'pre' (GPT-2) | 'post' (BERT)
  layerWeights: null,           // hand-set W_q, W_k, W_v, W_O of layers 2 … (index l − 1), each null or as `custom`
  blockEdits: {},               // "layer:table:index" → number, cells of a full block's w1, w2, ln1, ln2 typed (state/stack.mjs)
  modelBlock: null,             // a real model's block for layer 1 of a full block ("Open this layer in the lab", models/lab.mjs):
                                //   { arrangement, norm1, norm2 ({ kind, eps, weight, bias }), mlp ({ kind, activation, hidden, w1, b1, w2, b2 } | SwiGLU's wGate, wUp, wDown) }
  selectedLayer: 0,             // the layer every table shows (0-based)
  kvHeads: null,                // key/value heads (grouped-query attention), dividing heads; null: as many as heads
  rotary: false,                // rotary positions (RoPE, rotate-half) on q and k
  rotaryTheta: 10000,           // RoPE's base θ
  rotaryDims: null,             // the rotated features of each head (even); null: all d_k
  window: 0,                    // sliding window: query i sees key j only when i − j < window; 0: none
};

/** The key/value heads a state's W_k and W_v hold. */
export const kvHeadsOf = (state) => state.kvHeads ?? state.heads;

/** True when the state asks for a stack of blocks rather than today's single attention layer. */
export const isStack = (state) => state.layers !== 1 || state.block !== 'attention';

export function presetState(id) {
  const preset = presetById(id) ?? presetById(DEFAULT_PRESET);
  return { ...structuredClone(BASE), ...structuredClone(preset.state), preset: preset.id };
}

export function defaultState() {
  return presetState(DEFAULT_PRESET);
}

/**
 * The query the lab shows when a layer or given rows replace its tokens (review 9, findings 1 and 8):
 * under a causal mask the last token, which sees every token (and, with RoPE, is turned by an angle
 * above 0: the first token's q is not turned at all, and it sees only itself, weight 1); without a
 * mask the first. On the same tokens as `before` (another head or layer of the same text), the query
 * shown before stays: the reader's choice.
 */
export function openingQuery(before, after) {
  const now = tokensOf(after).tokens;
  const was = before ? tokensOf(before).tokens : [];
  const same = was.length === now.length && was.every((token, i) => token === now[i]);
  if (same && Number.isInteger(before.selectedToken) && before.selectedToken >= 0 && before.selectedToken < now.length) return before.selectedToken;
  return after.maskMode === 'causal' && now.length > 0 ? now.length - 1 : 0;
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

export const editKey = (row, token, col) => `${row}:${token}:${col}`;
export const editedWord = (key) => {
  const [, token, col] = /^\d+:(.*):(\d+)$/s.exec(key) ?? [];
  return token === undefined ? null : { word: wordKey(token), col: Number(col) };
};

/** The state with one cell of X (or C) typed: the word's vector changes in every row it has. */
export function withCellEdit(state, which, row, token, col, value) {
  const field = which === 'context' ? 'contextEdits' : 'xEdits';
  const kept = Object.entries(state[field]).filter(([key]) => {
    const edit = editedWord(key);
    return !(edit && edit.word === wordKey(token) && edit.col === col);
  });
  return { ...state, [field]: { ...Object.fromEntries(kept), [editKey(row, token, col)]: value } };
}

const SIZES = ['dModel', 'heads', 'dK', 'dV', 'kvHeads'];
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
  // typed MLP and norm cells are at places of a d_model that is no more
  if ('dModel' in next && next.dModel !== state.dModel && Object.keys(state.blockEdits ?? {}).length) changed.blockEdits = {};
  // a model's norms and MLP are d_model wide
  if ('dModel' in next && next.dModel !== state.dModel) changed.modelBlock = null;
  if (SIZES.some((field) => field in next && next[field] !== state[field]) && changed.weightsMode === 'custom') {
    changed = { ...changed, weightsMode: 'random', custom: null, layerWeights: null };
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

/** The matrices as the engine used them (`weights` of a computation), as hand-set parameters. */
export function ownWeights(weights) {
  const own = {};
  for (const name of ['wq', 'wk', 'wv', 'wo']) own[name] = weights[name] ? Array.from(weights[name]) : null;
  return own;
}

// a cell of a model's attention typed over (the exports say how many: exports/formats.mjs, editedCells)
const withModelEdit = (state, key) => (state.modelBlock?.source
  ? { ...state, modelBlock: { ...state.modelBlock, weightEdits: { ...state.modelBlock.weightEdits, [key]: true } } }
  : state);

/**
 * The state with one parameter typed. Editing any weight makes the shown matrices (`weights`, as
 * the engine used them) the reader's own, then changes the one cell: in a stack, of the chosen layer.
 */
export function withWeightEdit(state, weights, { matrix, head, row, col }, value, layers = null) {
  let next = state;
  if (state.weightsMode !== 'custom') {
    // a stack's every layer (`layers`: each layer's matrices as used) becomes the reader's own at
    // once, so the other layers keep what they showed
    const others = layers ? layers.slice(1).map(ownWeights) : null;
    next = { ...state, weightsMode: 'custom', custom: ownWeights(layers?.[0] ?? weights), layerWeights: others };
  }
  const width = { wq: next.dK, wk: next.dK, wv: next.dV, wo: next.dModel }[matrix];
  // W_k's and W_v's `head` is a key/value head (grouped-query attention holds kvHeads of them)
  const index = matrix === 'wo' ? row * width + col : (head * next.dModel + row) * width + col;
  const layer = isStack(next) ? next.selectedLayer : 0;
  if (layer === 0) {
    const values = [...next.custom[matrix]];
    values[index] = value;
    return withModelEdit({ ...next, custom: { ...next.custom, [matrix]: values } }, `${matrix}:${index}`);
  }
  const layerWeights = [...(next.layerWeights ?? [])];
  while (layerWeights.length < layer) layerWeights.push(null);
  const own = layerWeights[layer - 1] ?? ownWeights(weights);
  const values = [...own[matrix]];
  values[index] = value;
  layerWeights[layer - 1] = { ...own, [matrix]: values };
  return { ...next, layerWeights };
}

// What a reader can change about an example, and the state fields behind each.
const ASPECTS = {
  sentence: ['sentence'],
  attention: ['attention', 'contextSentence'],
  sizes: ['dModel', 'heads', 'dK', 'dV', 'kvHeads'],
  scaling: ['scaleMode', 'scaleDivisor'],
  mask: ['maskMode', 'padTo', 'window'],
  parameters: ['weightsMode', 'seed', 'custom', 'useWo', 'layerWeights'],
  layers: ['layers', 'block', 'norm', 'blockEdits'],
  inputs: ['x', 'xEdits', 'contextEdits'],
};

/** Which aspects of the state differ from its preset's (['sentence', 'sizes', …]); [] when none or no preset. */
export function modifiedAspects(state) {
  if (!state.preset || !presetById(state.preset)) return [];
  const original = presetState(state.preset);
  const same = (field) => JSON.stringify(state[field] ?? null) === JSON.stringify(original[field] ?? null);
  return Object.entries(ASPECTS).filter(([, fields]) => !fields.every(same)).map(([aspect]) => aspect);
}

/**
 * A preset's hand-made X, while the sentence is the preset's own; null for any other sentence, whose
 * words then all take the vocabulary's vectors (one source, issue 26).
 */
export function ownX(state) {
  if (!state.x || state.attention !== 'self') return null;
  const preset = state.preset && presetById(state.preset);
  if (preset && preset.state.sentence !== state.sentence) return null;
  return state.x;
}

/** Column labels of X: a preset's own, or the vocabulary's features. */
export function columnsOf(state) {
  // given rows (a real model's hidden states) and learned embeddings (Train's "Use these weights",
  // "Compare before and after") have no named features: a learned axis is not 'finance' (review 5, finding 14)
  // (and a real model's block over a typed sentence: its norms' γ are the model's dimensions, not the
  // vocabulary's features: review 7, finding 6)
  if (state.inputs || state.embeddings || state.modelBlock) return Array.from({ length: state.dModel }, (_, c) => `e${c + 1}`);  // one rule for model dimensions: e1 … e_d (issue 26, point 5)
  if (ownX(state) && state.x.columns.length === state.dModel) return state.x.columns;
  return columnNames(state.dModel);
}
/** How many numbers the custom weights, given inputs and learned embeddings hold (what a link would carry). */
export function ownValueCount(state) {
  const count = (arrays) => arrays.reduce((sum, a) => sum + (a?.length ?? 0), 0);
  const layers = (state.layerWeights ?? []).flatMap((own) => Object.values(own ?? {}));
  const block = state.modelBlock ? [state.modelBlock.norm1.weight, state.modelBlock.norm1.bias, state.modelBlock.norm2.weight, state.modelBlock.norm2.bias, ...Object.values(state.modelBlock.mlp).filter(Array.isArray)] : [];
  return count(Object.values(state.custom ?? {})) + count(layers) + count(state.inputs?.rows ?? []) + count(Object.values(state.embeddings ?? {})) + count(block);
}

