// A loaded layer (or given inputs) as the lab's state, and the lab's state as a file to save.
import { labTensors } from './layouts.mjs';
import { writeSafetensors, writeTensorJson } from './formats.mjs';
import { openingQuery } from '../state/model.mjs';

const plain = (values) => (values ? Array.from(values) : null);

/**
 * The state that shows `params` (convertLayer's output) on the current sentence, or on `inputs`
 * ({ tokens, rows }) when given or already there at the right width. GPT-2 layers are causal; any
 * other starts unmasked, scaled by √d_k, whatever the lab showed before.
 */
export function stateWithLayer(state, params, inputs = null) {
  const next = layerOnly(state, params, inputs);
  // the query: the last token under a causal mask, or the one shown on the same tokens (review 9)
  return { ...next, selectedToken: openingQuery(state, next) };
}

function layerOnly(state, params, inputs) {
  const custom = {};
  for (const name of ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) if (params[name]) custom[name] = plain(params[name]);
  const keptInputs = inputs ?? (state.inputs?.rows[0]?.length === params.dModel ? state.inputs : null);
  return {
    ...state,
    preset: null,
    attention: 'self',
    dModel: params.dModel, heads: params.heads, dK: params.dK, dV: params.dV,
    weightsMode: 'custom', custom, useWo: Boolean(params.wo),
    // the file's own settings, never the previous layer's: a BERT layer after a GPT-2 one is not causal
    scaleMode: 'sqrt_dk', maskMode: params.causal ? 'causal' : 'none',
    positions: 'none',
    // nor its key/value heads (the file's own, when it has fewer than heads), rotary positions or window
    kvHeads: params.kvHeads && params.kvHeads !== params.heads ? params.kvHeads : null, rotary: false, window: 0,
    inputs: keptInputs,
    x: null, xEdits: {}, contextEdits: {}, embeddings: null,
    selectedToken: 0, selectedHead: 0,
  };
}

/** The state with given inputs X (the sentence's tokens are replaced by their labels); its query as stateWithLayer's. */
export function stateWithInputs(state, inputs) {
  const next = { ...state, preset: null, attention: 'self', inputs, x: null, xEdits: {}, sentence: inputs.tokens.join(' ') };
  return { ...next, selectedToken: openingQuery(state, next) };
}

/** The weights the lab is showing (view.weights and its shape) as named tensors in the lab's layout. */
export function currentTensors(view, state) {
  const w = view.weights;
  return labTensors({
    dModel: view.dModel, heads: view.heads, kvHeads: view.kvHeads ?? view.heads, dK: view.dK, dV: view.dV,
    wq: w.wq, wk: w.wk, wv: w.wv, wo: state.useWo ? w.wo : null,
    bq: w.bq ?? null, bk: w.bk ?? null, bv: w.bv ?? null, bo: state.useWo ? w.bo ?? null : null,
  });
}

function metadataOf(view, state) {
  return {
    format: 'attention-lab', heads: String(view.heads), dModel: String(view.dModel), dK: String(view.dK), dV: String(view.dV),
    scale: String(state.scaleMode === 'custom' ? state.scaleDivisor : state.scaleMode), mask: state.maskMode, positions: state.positions ?? 'none',
    // attention as real models have it (state/modern.mjs), when on
    ...(view.kvHeads && view.kvHeads !== view.heads ? { kvHeads: String(view.kvHeads) } : {}),
    ...(state.rotary ? { rotaryTheta: String(state.rotaryTheta), rotaryDims: String(state.rotaryDims ?? view.dK) } : {}),
    ...(state.window > 0 ? { window: String(state.window) } : {}),
  };
}

export function saveSafetensors(view, state) {
  return writeSafetensors(currentTensors(view, state), metadataOf(view, state));
}

export function saveJson(view, state) {
  return writeTensorJson(currentTensors(view, state), metadataOf(view, state));
}
