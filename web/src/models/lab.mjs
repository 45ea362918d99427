// "Open this layer in the lab": a real model's layer and head as the main lab's state, so that every
// lab feature (step table, explanations, walk, exports, practice) works on it. The inputs are the
// rows the model's attention received (the hidden states entering the layer, after the layer's norm
// for pre-LN models: result.layers[l].input), the weights W_q, W_k, W_v, W_O and biases those of the
// layer as the engine ran it (the worker's request: head-major, (in, out)), with its heads, mask and
// scale. A layer with rotary positions or grouped-query attention (Llama, Qwen2, Mistral) is refused
// with the reason: the one-layer lab rotates nothing and gives every head its own keys and values.
import { stateWithLayer, stateWithInputs } from '../layers/apply.mjs';
import { buildRequest, linkCarriesWeights, ownValueCount } from '../state/index.mjs';
import { formatNumber } from '../shared/format.mjs';

// Why the one-layer lab cannot show this layer as the model computes it, or null.
function refusal(layer, l, type, t) {
  const reasons = [];
  if (layer.rotary) reasons.push(t('models.labRotary'));
  if (layer.kvHeads !== layer.heads) reasons.push(t('models.labGrouped', { heads: layer.heads, kvHeads: layer.kvHeads }));
  if (layer.window > 0) reasons.push(t('models.labWindow', { window: layer.window }));
  return reasons.length ? t('models.labRefused', { layer: l + 1, type, reasons: reasons.join('; ') }) : null;
}

/** The lab's state for layer `l` (its attention `layer`, from compute.models.layer) and head `h` of `result`. */
export function labStateOf(state, layer, result, l, h) {
  const { dModel: d, heads, dK } = layer;
  const input = result.layers[l].input;
  const rows = Array.from({ length: result.n }, (_, i) => Array.from(input.subarray(i * d, (i + 1) * d)));
  const inputs = { tokens: [...result.tokens], rows };
  const params = { dModel: d, heads, dK, dV: dK, causal: layer.mask === 'causal' };
  for (const name of ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) params[name] = layer[name] ?? null;
  const withLayer = stateWithLayer(state, params, inputs);
  return {
    ...stateWithInputs(withLayer, inputs), selectedHead: h, scaleMode: layer.scale === 'none' ? 'none' : 'sqrt_dk',
    // one attention layer, whatever stack the lab showed before
    layers: 1, block: 'attention', layerWeights: null, blockEdits: {}, selectedLayer: 0,
  };
}

/**
 * Opens layer `l`, head `h` of the model's last result in the lab: { state, status } made the lab's
 * by models.useState, or { problem } (said in the section; the lab keeps what it showed).
 */
export async function openInLab(models, l, h) {
  const { t, result, report } = models;
  const layer = await models.compute.models.layer(models.key, l);
  if (layer.error) return { problem: layer.error.message };
  const refused = refusal(layer, l, report.modelType, t);
  if (refused) return { problem: refused };
  const state = labStateOf(models.getState(), layer, result, l, h);
  const built = buildRequest(state);
  if (built.problems) {
    return { problem: t('models.cannotOpen', { layer: l + 1, problem: built.problems.map(({ key, values }) => ({ key, values })) }) };
  }
  const status = t('models.openedInLab', {
    layer: l + 1, head: h + 1, type: report.modelType, n: result.n,
    input: t(layer.arrangement === 'pre' ? 'models.inputPre' : 'models.inputPost'),
    heads: layer.heads, dK: layer.dK, mask: t(`layers.mask.${state.maskMode}`),
    scale: state.scaleMode === 'none' ? t('layers.scale.none') : t('layers.scale.sqrt_dk', { value: formatNumber(Math.sqrt(layer.dK)) }),
  });
  // a layer of a large model is more numbers than a link carries: said, as the one-layer loader says it
  const said = linkCarriesWeights(state) ? status : `${status} ${t('layers.tooLargeForLink', { count: ownValueCount(state).toLocaleString('en') })}`;
  models.useState(state, said);
  return { state, status: said };
}
