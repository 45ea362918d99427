// A float64 attention layer as Llama, Qwen2 and Mistral compute it, written for the tests and sharing
// nothing with the engine: grouped-query attention (query head h reads key/value head
// floor(h / (heads / kvHeads))), rotary positions (rotate-half, as transformers' apply_rotary_pos_emb:
// the first `dims` features of each head in two halves, pair i = (i, i + dims/2) turned by
// position · θ^(−2i/dims)), a causal mask and a sliding window (key j seen by query i when i − j < window).

/** Row i of a head's q or k (length dK) turned for position `position`. */
export function rotate(row, position, dims, theta) {
  const out = [...row];
  const half = dims / 2;
  for (let i = 0; i < half; i++) {
    const angle = position * theta ** (-2 * i / dims);
    const [a, b] = [row[i], row[i + half]];
    out[i] = a * Math.cos(angle) - b * Math.sin(angle);
    out[i + half] = b * Math.cos(angle) + a * Math.sin(angle);
  }
  return out;
}

// rows (n × dIn, an array of arrays) times head `h`'s block of w (heads × dIn × width, row-major) plus its bias
function project(rows, w, h, width, bias = null) {
  const dIn = rows[0].length;
  return rows.map((x) => Array.from({ length: width }, (_, c) => {
    let sum = bias ? bias[h * width + c] : 0;
    for (let i = 0; i < dIn; i++) sum += x[i] * w[(h * dIn + i) * width + c];
    return sum;
  }));
}

/**
 * One layer: x (n rows of dModel), weights { wq, wk, wv, wo?, bq?, bk?, bv? }, options { heads,
 * kvHeads, dK, dV, causal, window, rotary: { dims, theta } | null }. Returns per head q, k (turned),
 * qUnrotated, kUnrotated, v, weights (n × n) and z, and the output (concat · W_O, or the concat).
 */
export function attention64(x, weights, { heads, kvHeads = heads, dK, dV = dK, causal = false, window = 0, rotary = null }) {
  const group = heads / kvHeads;
  const result = { heads: [] };
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / group);
    const qUnrotated = project(x, weights.wq, h, dK, weights.bq);
    const kUnrotated = project(x, weights.wk, g, dK, weights.bk);
    const v = project(x, weights.wv, g, dV, weights.bv);
    const q = rotary ? qUnrotated.map((row, i) => rotate(row, i, rotary.dims, rotary.theta)) : qUnrotated;
    const k = rotary ? kUnrotated.map((row, j) => rotate(row, j, rotary.dims, rotary.theta)) : kUnrotated;
    const probs = q.map((qi, i) => {
      const scores = k.map((kj, j) => {
        const seen = (!causal || j <= i) && (window === 0 || i - j < window);
        return seen ? qi.reduce((s, a, c) => s + a * kj[c], 0) / Math.sqrt(dK) : -Infinity;
      });
      const top = Math.max(...scores);
      const e = scores.map((s) => (s === -Infinity ? 0 : Math.exp(s - top)));
      const total = e.reduce((a, b) => a + b, 0);
      return e.map((a) => a / total);
    });
    const z = probs.map((p) => Array.from({ length: dV }, (_, c) => p.reduce((s, pj, j) => s + pj * v[j][c], 0)));
    result.heads.push({ q, k, qUnrotated, kUnrotated, v, weights: probs, z });
  }
  const concat = x.map((_, i) => result.heads.flatMap((head) => head.z[i]));
  result.output = weights.wo ? project(concat, weights.wo, 0, x[0].length) : concat;
  return result;
}

/** An attention-only stack: x_{l+1} = x_l + attention_l(x_l); every layer's attention and output. */
export function stackModern64(x, layerWeights, options) {
  let stream = x;
  return layerWeights.map((weights) => {
    const layer = attention64(stream, weights, options);
    const output = stream.map((row, i) => row.map((value, c) => value + layer.output[i][c]));
    stream = output;
    return { ...layer, output };
  });
}

/** The largest |a − b| over two (nested) arrays of the same shape. */
export function largest(got, want) {
  const a = [got].flat(Infinity);
  const b = [want].flat(Infinity);
  if (a.length !== b.length) throw new Error(`${a.length} values, expected ${b.length}`);
  return a.reduce((worst, value, i) => Math.max(worst, Math.abs(value - b[i])), 0);
}
