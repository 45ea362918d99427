// The MLP of a block as a formula, for the explanations and the walk: the lab's own (GELU, no biases)
// or a real model's (engine/stack.mjs's `norms` of the layer's weights: GELU erf or tanh with
// biases, or Llama's SwiGLU).
const ACTIVATIONS = { gelu: 'GELU', 'gelu-tanh': 'GELU_tanh', relu: 'ReLU', silu: 'SiLU' };

/** The formula of layer `layer`'s MLP on `reads` (such as 'a' or 'LN₂(a)'), or null for the lab's own MLP. */
export function modelMlpFormula(view, layer, reads) {
  const model = view.layerWeights?.[layer]?.norms;
  if (!model) return null;
  if (model.mlp === 'swiglu') return `(SiLU(${reads}·W_gate) ⊙ ${reads}·W_up)·W_down`;
  return `${ACTIVATIONS[model.activation] ?? model.activation}(${reads}·w1 + b1)·w2 + b2`;
}
