// How the lab names a layer and its norms (pure). A real model's layer opened in the lab
// ("Open this layer in the lab", models/lab.mjs: state.modelBlock.source, the view's `model`) is the
// model's layer N of L, not "layer 1 of 1" (review 7, finding 5); an RMSNorm model's norms are
// RMSNorm₁ and RMSNorm₂, not LN₁ and LN₂ (finding 14).

/** The model's layer the view holds ({ layer (1-based), layers, model, tensors? }), or null: the lab's own stack. */
export const modelLayerOf = (view) => (view?.model && (view.result?.layers?.length ?? 1) === 1 ? view.model : null);

/** The number a reader sees for layer `l` (0-based) of the view's stack. */
export const layerNumber = (view, l = view.layer ?? 0) => modelLayerOf(view)?.layer ?? l + 1;

/** How many layers the reader is told there are: the model's, or the stack's. */
export const layerCount = (view) => modelLayerOf(view)?.layers ?? view.result?.layers?.length ?? 1;

/** Layer `l`'s norm `which` (0 or 1) named as the reader sees it: 'LN₁' or 'RMSNorm₁', 'LN₂' or 'RMSNorm₂'. */
export function normName(view, l, which) {
  const kind = view?.layerWeights?.[l]?.norms?.kind?.[which];
  return `${kind === 'rmsnorm' ? 'RMSNorm' : 'LN'}${which === 0 ? '₁' : '₂'}`;
}

/** The values a stream stage's label takes for layer `l`: its number and its norms' names. */
export const stageValues = (view, l) => ({ layer: layerNumber(view, l), n1: normName(view, l, 0), n2: normName(view, l, 1) });
