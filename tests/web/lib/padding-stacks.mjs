// The stacks of the padding tests (transformer-padding.test.mjs, prepared-padding.test.mjs) and their
// float64 reference, written here from the papers, not from the engine.

export const values = (count, seed) => Float32Array.from({ length: count }, (_, i) => 0.6 * Math.sin(seed * 7.3 + i * 1.7));

// Two attention-only blocks, dModel 4, 2 heads, learned positions, an own unembedding.
export function attentionOnly(ids, mask) {
  const attention = (seed) => ({ heads: 2, mask, wq: values(16, seed), wk: values(16, seed + 1), wv: values(16, seed + 2), wo: values(16, seed + 3) });
  return { ids, vocab: 7, dModel: 4, tokens: values(28, 1), positions: 'learned', positionTable: values(4 * 8, 2),
    layers: [{ arrangement: 'attention-only', attention: attention(3) }, { arrangement: 'attention-only', attention: attention(7) }],
    unembedding: 'own', unembeddingWeight: values(28, 11) };
}

// The float64 stack (Vaswani et al. 2017): x = tokens[id] + positions[i]; per block x += concat_h(a_h · v_h) · wo,
// a_h = softmax over the visible keys (j kept, and j ≤ i when causal) of q·kᵀ/√dK, 0 elsewhere (a row with no
// visible key, a padded query before the first kept token, is all 0, as the engine documents); logits = x · U.
export function reference(request, kept) {
  const { ids, dModel: d, vocab } = request;
  const n = ids.length;
  let x = ids.map((id, i) => Array.from({ length: d }, (_, c) => request.tokens[id * d + c] + request.positionTable[i * d + c]));
  const weights = [];
  for (const { attention: a } of request.layers) {
    const dk = d / a.heads;
    const concat = x.map(() => new Array(d).fill(0));
    const layerWeights = [];
    for (let h = 0; h < a.heads; h++) {
      const project = (w) => x.map((row) => Array.from({ length: dk }, (_, c) => row.reduce((s, v, k) => s + v * w[h * d * dk + k * dk + c], 0)));
      const [q, k, v] = [project(a.wq), project(a.wk), project(a.wv)];
      const head = Array.from({ length: n }, (_, i) => {
        const visible = Array.from({ length: n }, (_, j) => kept[j] && (a.mask !== 'causal' || j <= i));
        const s = visible.map((on, j) => (on ? q[i].reduce((sum, qc, c) => sum + qc * k[j][c], 0) / Math.sqrt(dk) : -Infinity));
        const top = Math.max(...s);
        const e = s.map((value) => (value === -Infinity ? 0 : Math.exp(value - top)));
        const total = e.reduce((p, b) => p + b, 0);
        return e.map((value) => (total > 0 ? value / total : 0));  // no visible key (left padding, causal): no weight
      });
      head.forEach((row, i) => row.forEach((weight, j) => { for (let c = 0; c < dk; c++) concat[i][h * dk + c] += weight * v[j][c]; }));
      layerWeights.push(head.flat());
    }
    weights.push(layerWeights);
    x = x.map((row, i) => row.map((value, c) => value + concat[i].reduce((s, z, k) => s + z * a.wo[k * d + c], 0)));
  }
  const logits = x.flatMap((row) => Array.from({ length: vocab }, (_, t) => row.reduce((s, v, k) => s + v * request.unembeddingWeight[k * vocab + t], 0)));
  return { output: x.flat(), logits, weights };
}

// smallStack of transformer.test.mjs's kind: GQA with RoPE and a GELU MLP (pre-LN), then post-LN SwiGLU
export function blocks(ids) {
  const d = 4;
  const attention = (seed) => ({ heads: 2, kvHeads: 1, dK: 2, mask: 'causal', wq: values(16, seed), wk: values(8, seed + 1),
    wv: values(8, seed + 2), wo: values(16, seed + 3) });
  const norm = (seed) => ({ kind: 'layernorm', weight: values(d, seed).map((v) => 1 + v), bias: values(d, seed + 1) });
  return { ids, vocab: 7, dModel: d, tokens: values(28, 1), positions: 'rotary', rotary: { dims: 2 },
    layers: [
      { arrangement: 'pre', attention: attention(2), norm1: norm(3), norm2: norm(4),
        mlp: { kind: 'plain', activation: 'gelu', hidden: 5, w1: values(20, 5), b1: values(5, 6), w2: values(20, 7) } },
      { arrangement: 'post', attention: attention(8), norm1: { kind: 'rmsnorm', weight: values(d, 9) }, norm2: norm(10),
        mlp: { kind: 'swiglu', hidden: 6, wGate: values(24, 11), wUp: values(24, 12), wDown: values(24, 13) } },
    ],
    finalNorm: norm(14), unembedding: 'own', unembeddingWeight: values(28, 15), unembeddingBias: values(7, 16) };
}
