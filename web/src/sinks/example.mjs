// The sinks chapter's example (pure): seven tokens, the first a start token '<s>', in d_model = 4
// features [a, b, start, one]: a and b the word's content, start = 1 on '<s>' only, one = 1 on every
// token. Two heads of d_k = d_v = 2, values v = [a, b] (so '<s>' carries the value 0):
//  head 1, "no-op": q = [3·one, a], k = [3·start, a]: every query meets '<s>' with a score of 9/√2
//          ≈ 6.4 and the words with a·a'/√2 (under 0.5), so the rows park their weight on '<s>' and the
//          output is nearly 0: the head does nothing, as StreamingLLM observed in trained models.
//  head 2, without that trick: q = k = [0, a]: every score is small, the weights spread over the words
//          and the output is their average, whether or not the head has anything to say. A sink logit
//          gives it somewhere else to put the weight.
export const TOKENS = ['<s>', 'the', 'cat', 'sat', 'on', 'the', 'mat'];

const CONTENT = [[0, 0], [0.3, -0.2], [0.8, 0.5], [-0.4, 0.9], [0.1, -0.7], [0.3, -0.2], [0.6, 0.4]];
const D_MODEL = 4, HEADS = 2, D_K = 2, D_V = 2;
const A = 0, B = 1, START = 2, ONE = 3;

// w[(head · d_model + feature) · width + column] = value, for each [head, feature, column, value]
function matrix(width, entries) {
  const w = new Float32Array(HEADS * D_MODEL * width);
  for (const [head, feature, column, value] of entries) w[(head * D_MODEL + feature) * width + column] = value;
  return w;
}

/** engine.attention()'s options for the example (causal; no W_O: the output is the heads' concatenation). */
export function exampleOptions() {
  const x = new Float32Array(TOKENS.length * D_MODEL);
  CONTENT.forEach(([a, b], i) => x.set([a, b, i === 0 ? 1 : 0, 1], i * D_MODEL));
  return {
    x, n: TOKENS.length, dModel: D_MODEL, heads: HEADS, dK: D_K, dV: D_V, scale: 'sqrt_dk', mask: 'causal',
    wq: matrix(D_K, [[0, ONE, 0, 3], [0, A, 1, 1], [1, A, 1, 1]]),
    wk: matrix(D_K, [[0, START, 0, 3], [0, A, 1, 1], [1, A, 1, 1]]),
    wv: matrix(D_V, [[0, A, 0, 1], [0, B, 1, 1], [1, A, 0, 1], [1, B, 1, 1]]),
  };
}
