// "Open this layer in the lab": a real model's layer and head as the main lab's state, so that every
// lab feature (step table, explanations, walk, exports, practice) works on it. The inputs are the
// rows the model's attention received (the hidden states entering the layer, after the layer's norm
// for pre-LN models: result.layers[l].input), the weights W_q, W_k, W_v, W_O and biases those of the
// layer as the engine ran it (the worker's request: head-major, (in, out)), with its heads, mask and
// scale; a layer with rotary positions, grouped-query attention or a sliding window (Llama, Qwen2,
// Mistral) with its θ and rotated features, its key/value heads and its window (state/modern.mjs).
import { stateWithLayer, stateWithInputs } from '../layers/apply.mjs';
import { buildRequest, linkCarriesWeights, ownValueCount } from '../state/index.mjs';
import { formatNumber } from '../shared/format.mjs';
import { stripControls } from '../shared/bidi.mjs';
import { MAX_SOURCE_TEXT } from '../state/link.mjs';
import { tokenLabel } from './names.mjs';

// What the status says of the rotary positions, key/value heads and window the lab took from the
// layer, in words a student follows, not as a settings dump (review 9, finding 6)
function modernStatus(layer, t) {
  const rotary = layer.rotary ? t('modern.summary.rotary', { theta: formatNumber(layer.rotary.theta), dims: layer.rotary.dims }) : t('modern.summary.noRotary');
  const kvHeads = layer.kvHeads && layer.kvHeads !== layer.heads ? t('modern.summary.kvShared', { kvHeads: layer.kvHeads, heads: layer.heads }) : t('modern.summary.kvOwn', { heads: layer.heads });
  const window = layer.window > 0 ? t('modern.summary.window', { window: layer.window }) : t('modern.summary.noWindow');
  return t('modern.summary', { rotary, kvHeads, window });
}

// The stream entering block l (result.hidden[l]: the embeddings for l = 0, then after block l), or
// null while only layer 1's partial result is there.
const streamInto = (result, l) => result.hidden?.[l] ?? null;

// The model's block as the lab's state keeps it (plain arrays, as its custom weights): norms and MLP.
function modelBlockOf(block) {
  const plain = (value) => (ArrayBuffer.isView(value) ? Array.from(value) : value);
  const norm = ({ kind, eps, weight, bias }) => ({ kind, eps, weight: plain(weight), bias: bias ? plain(bias) : null });
  const mlp = Object.fromEntries(Object.entries(block.mlp).map(([key, value]) => [key, plain(value)]));
  return { arrangement: block.arrangement, norm1: norm(block.norm1), norm2: norm(block.norm2), mlp };
}

/**
 * The lab's state for layer `l` (its attention `layer`, from compute.models.layer) and head `h` of
 * `result`: with the layer's whole block (its norms and MLP, state.modelBlock) on the stream entering
 * it when the result has it, else its attention alone on what the attention received.
 */
export function labStateOf(state, layer, result, l, h, report = null) {
  const { dModel: d, heads, dK } = layer;
  const stream = layer.block ? streamInto(result, l) : null;
  const input = stream ?? result.layers[l].input;
  const rows = Array.from({ length: result.n }, (_, i) => Array.from(input.subarray(i * d, (i + 1) * d)));
  // the tokens as the heatmaps label them: a byte piece as its character and place, ‘ब 2/3’
  const inputs = { tokens: result.tokens.map((_, i) => tokenLabel(result, i, { joined: true })), rows };
  const params = { dModel: d, heads, dK, dV: dK, causal: layer.mask === 'causal' };
  for (const name of ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) params[name] = layer[name] ?? null;
  const withLayer = stateWithLayer(state, params, inputs);
  return {
    ...stateWithInputs(withLayer, inputs), selectedHead: h, scaleMode: layer.scale === 'none' ? 'none' : 'sqrt_dk',
    // one block: the model's whole block (LN1 → attention → + → LN2 → MLP → +, or BERT's post-LN order), or its attention alone
    layers: 1, layerWeights: null, blockEdits: {}, selectedLayer: 0,
    ...(stream ? { block: 'full', norm: layer.block.arrangement, modelBlock: { ...modelBlockOf(layer.block), ...(report ? { source: sourceOf(report, l, result.text) } : {}) } } : { block: 'attention', modelBlock: null }),
    // as the model computes it: its key/value heads, rotary positions (from position 0) and window
    kvHeads: layer.kvHeads === heads ? null : layer.kvHeads, window: layer.window ?? 0,
    rotary: Boolean(layer.rotary), rotaryTheta: layer.rotary?.theta ?? 10000, rotaryDims: layer.rotary ? layer.rotary.dims : null,
  };
}

// The folder's tensor names of layer l's MLP and norms (a norm's without .weight / .bias), as
// models/request.mjs reads them under the folder's prefix ('bert.', 'transformer.', 'model.' or none)
function tensorsOf(report, l) {
  const p = String(report.prefix ?? '');
  if (report.family === 'bert') {
    const b = `${p}encoder.layer.${l}.`;
    return { w1: `${b}intermediate.dense.weight`, w2: `${b}output.dense.weight`, ln1: `${b}attention.output.LayerNorm`, ln2: `${b}output.LayerNorm` };
  }
  if (report.family === 'gpt2') {
    const b = `${p}h.${l}.`;
    return { w1: `${b}mlp.c_fc.weight`, w2: `${b}mlp.c_proj.weight`, ln1: `${b}ln_1`, ln2: `${b}ln_2` };
  }
  const b = `${p}layers.${l}.`;
  return { wGate: `${b}mlp.gate_proj.weight`, wUp: `${b}mlp.up_proj.weight`, wDown: `${b}mlp.down_proj.weight`, ln1: `${b}input_layernorm`, ln2: `${b}post_attention_layernorm` };
}

// Where the block came from, for "About this example" and every text that names the layer or a
// parameter: the model's type, architectures, the layer (1-based) of how many, its tensors' names
// (and the sentence typed under Real models, `text`, which the lab's exports write as their sentence)
const sourceOf = (report, l, text) => ({
  model: String(report.modelType), architectures: (report.architectures ?? []).map(String).join(', '), layer: l + 1, layers: report.layers,
  ...(text ? { text: stripControls(text).slice(0, MAX_SOURCE_TEXT) } : {}),
  ...(report.family ? { tensors: tensorsOf(report, l) } : {}),
});

// The layer's attention weights as the status names them: with the biases it has (GPT-2 and BERT all
// four, Qwen2 those of q, k and v), or saying it has none (Llama, Mistral)
function weightsText(layer, t) {
  const names = [['bq', 'b_q'], ['bk', 'b_k'], ['bv', 'b_v'], ['bo', 'b_O']].filter(([key]) => layer[key]).map(([, name]) => name);
  return names.length ? t('models.weightsBiases', { names: names.join(', ') }) : t('models.weightsNoBiases');
}

// What the status says of the model's block the lab took (its order, norms and MLP), or ''
function blockStatus(state, l, t) {
  const block = state.modelBlock;
  if (!block) return '';
  const { kind, activation, hidden } = block.mlp;
  return ' ' + t('models.blockInLab', {
    layer: l + 1, order: t(block.arrangement === 'post' ? 'models.orderPost' : block.norm1.kind === 'rmsnorm' ? 'models.orderPreRms' : 'models.orderPre'), norm: t(`models.norm.${block.norm1.kind}`),
    eps: formatNumber(block.norm1.eps), mlp: t(`models.mlp.${kind === 'swiglu' ? 'swiglu' : activation}`), hidden,
  });
}

/**
 * Opens layer `l`, head `h` of the model's last result in the lab: { state, status } made the lab's
 * by models.useState, or { problem } (said in the section; the lab keeps what it showed).
 */
export async function openInLab(models, l, h) {
  const { t, result, report } = models;
  // a run still on its way (or none yet) has not given this layer's rows: said, nothing thrown
  if (!result?.layers?.[l]?.input) return { problem: t('models.layerNotRun', { layer: l + 1 }) };
  const layer = await models.compute.models.layer(models.key, l);
  if (layer.error) return { problem: typeof layer.error.key === 'string' ? { key: layer.error.key, values: layer.error.values ?? {} } : layer.error.message };
  const state = labStateOf(models.getState(), layer, result, l, h, report);
  const built = buildRequest(state);
  if (built.problems) {
    return { problem: t('models.cannotOpen', { layer: l + 1, problem: built.problems.map(({ key, values }) => ({ key, values })) }) };
  }
  const status = t('models.openedInLab', {
    layer: l + 1, head: h + 1, type: report.modelType, n: result.n,
    // the block's norms: before each sub-layer (pre-LN), or after each addition (post-LN, BERT: review 7, finding 7)
    input: t(state.modelBlock ? (state.modelBlock.arrangement === 'post' ? 'models.inputBlockPost' : 'models.inputBlock') : layer.arrangement === 'pre' ? 'models.inputPre' : 'models.inputPost'),
    heads: layer.heads, dK: layer.dK, mask: t(`layers.mask.${state.maskMode}`), weights: weightsText(layer, t),
    scale: state.scaleMode === 'none' ? t('layers.scale.none') : t('layers.scale.sqrt_dk', { value: formatNumber(Math.sqrt(layer.dK)) }),
  }) + ' ' + modernStatus(layer, t) + blockStatus(state, l, t);
  // a layer of a large model is more numbers than a link carries: said, as the one-layer loader says it
  // (a model's whole block: no link carries it, the address keeps the settings only; said once here)
  const noLink = state.modelBlock?.source ? t('models.noLink') : t('layers.tooLargeForLink', { count: ownValueCount(state).toLocaleString('en') });
  const said = linkCarriesWeights(state) ? status : `${status} ${noLink}`;
  models.useState(state, said);
  // the state as the lab holds it: what later changes are measured against
  return { state: models.getState(), status: said };
}

// Equal numbers, arrays element by element (a model's weights are long: no copies, no strings).
function same(a, b) {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
  return true;
}

const KEPT = ['dModel', 'heads', 'dK', 'dV', 'maskMode', 'scaleMode', 'kvHeads', 'window', 'rotary', 'rotaryTheta', 'rotaryDims', 'layers', 'block', 'norm', 'useWo', 'modelBlock'];

/** True while the lab's `state` still holds what "Open this layer in the lab" put there (`opened`). */
export function stillTheModel(state, opened) {
  if (KEPT.some((key) => state[key] !== opened[key])) return false;
  // a typed cell of the block's MLP or norms makes it the reader's
  if (Object.keys(state.blockEdits ?? {}).length) return false;
  if (!same(state.inputs?.tokens, opened.inputs?.tokens) || !same(state.inputs?.rows, opened.inputs?.rows)) return false;
  const names = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];
  return state.weightsMode === opened.weightsMode && names.every((name) => same(state.custom?.[name] ?? null, opened.custom?.[name] ?? null));
}
