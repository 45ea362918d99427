// The residual stream of one token (pure): its vector entering each layer, what each sub-layer adds,
// and the sums, as rows of one table ("x + a = …"), read from result.layers (engine/stack.mjs). One
// notation with "Real models" (review 7, finding 4): x enters, a is attention's output, m the MLP's;
// pre-LN leaves x + a + m, post-LN u = LN₁(x + a) and leaves LN₂(u + m).
// Shared by the stream's table (blocks/) and its explanations (shared/explain-layers.mjs).

// The rows of one block, by arrangement: [message key, the layer's array].
export const STREAM_STAGES = {
  'attention-only': [['blocks.stream.enter', 'input'], ['blocks.stream.attention', 'attention'], ['blocks.stream.output', 'output']],
  pre: [['blocks.stream.enter', 'input'], ['blocks.stream.attentionPre', 'attention'], ['blocks.stream.attendedPre', 'attended'],
    ['blocks.stream.mlpPre', 'mlpOut'], ['blocks.stream.outputPre', 'output']],
  post: [['blocks.stream.enter', 'input'], ['blocks.stream.attention', 'attention'], ['blocks.stream.attended', 'attended'],
    ['blocks.stream.norm1', 'middle'], ['blocks.stream.mlp', 'mlpOut'], ['blocks.stream.summed', 'summed'],
    ['blocks.stream.outputPost', 'output']],
};

/**
 * Token `token`'s stream through every layer: [{ key, layer (1-based), name, values (d_model) }].
 * arrangement: 'attention-only', 'pre' or 'post' (state/stack.mjs arrangementOf).
 */
export function streamRows(layers, arrangement, token, dModel) {
  return layers.flatMap((layer, l) => STREAM_STAGES[arrangement].map(([key, name]) => ({
    key, layer: l + 1, name, values: layer[name].subarray(token * dModel, (token + 1) * dModel),
  })));
}
