// The forward pass again, in float64, from the live matrices the engine used (its float32 inputs
// and parameters): the practice mode's true values and the values of the typical mistakes are
// computed here, not read from the engine's tables. Masked pairs are the ones the engine set to −∞.
// Letters: n queries, m keys, h heads, d_k, d_v; layouts as in attention.d.ts.

/**
 * view: { x, context, dModel, heads, dK, dV, m, weights: { wq, wk, wv, wo }, result }
 * Returns { divisor, heads: [{ q, k, v, scores, scaled, weights, z, masked }], concat, output }.
 */
export function forward64(view) {
  const { dModel, heads, dK, dV, m, weights } = view;
  const n = view.tokens.length;
  const x = view.x;
  const context = view.context ?? view.x;
  const divisor = view.result.shape.scale;

  // rows (rows × d_model) · W_h (d_model × width), + the head's bias b (h · width …) when the layer has
  // one (a real model's: BERT, GPT-2, Qwen2; review 10, finding C: without it every true value was off)
  const project = (source, rows, w, h, width, bias) => {
    const out = new Float64Array(rows * width);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < width; c++) {
        let sum = bias ? bias[h * width + c] : 0;
        for (let t = 0; t < dModel; t++) sum += source[r * dModel + t] * w[(h * dModel + t) * width + c];
        out[r * width + c] = sum;
      }
    }
    return out;
  };

  const concatWidth = heads * dV;
  const concat = new Float64Array(n * concatWidth);
  const perHead = [];
  // grouped-query attention: head h reads key/value head g; rotary positions turn q and k (lab/run.mjs's view)
  const group = heads / (view.kvHeads ?? heads);
  const turn = (rows, count) => (view.rotary ? rotated(rows, count, dK, view.rotary) : rows);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / group);
    const q = turn(project(x, n, weights.wq, h, dK, weights.bq), n);
    const k = turn(project(context, m, weights.wk, g, dK, weights.bk), m);
    const v = project(context, m, weights.wv, g, dV, weights.bv);
    const engineScaled = view.result.heads[h].scaled;
    const masked = Uint8Array.from(engineScaled, (s) => (s === -Infinity ? 1 : 0));
    const scores = new Float64Array(n * m);
    const scaled = new Float64Array(n * m);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        let dot = 0;
        for (let t = 0; t < dK; t++) dot += q[i * dK + t] * k[j * dK + t];
        scores[i * m + j] = dot;
        scaled[i * m + j] = masked[i * m + j] ? -Infinity : dot / divisor;
      }
    }
    const attention = softmaxRows(scaled, n, m);
    const z = new Float64Array(n * dV);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < dV; c++) {
        let sum = 0;
        for (let j = 0; j < m; j++) sum += attention[i * m + j] * v[j * dV + c];
        z[i * dV + c] = sum;
        concat[i * concatWidth + h * dV + c] = sum;
      }
    }
    perHead.push({ q, k, v, scores, scaled, weights: attention, z, masked });
  }

  let output = null;
  if (weights.wo) {
    output = new Float64Array(n * dModel);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < dModel; c++) {
        let sum = weights.bo ? weights.bo[c] : 0;
        for (let t = 0; t < concatWidth; t++) sum += concat[i * concatWidth + t] * weights.wo[t * dModel + c];
        output[i * dModel + c] = sum;
      }
    }
  }
  return { divisor, heads: perHead, concat, output };
}

// RoPE, rotate-half: row r (position r) of `rows` (count × dK), its first `dims` features in pairs
// (c, c + dims/2) turned by r · θ^(−2c/dims), in float64
function rotated(rows, count, dK, { dims, theta }) {
  const out = Float64Array.from(rows);
  const half = dims / 2;
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < half; c++) {
      const angle = r * theta ** (-2 * c / dims);
      const [a, b] = [rows[r * dK + c], rows[r * dK + c + half]];
      out[r * dK + c] = a * Math.cos(angle) - b * Math.sin(angle);
      out[r * dK + c + half] = b * Math.cos(angle) + a * Math.sin(angle);
    }
  }
  return out;
}

/** softmax along each row of (rows × cols); a row that is all −∞ gives zeros. */
export function softmaxRows(values, rows, cols) {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let max = -Infinity;
    for (let c = 0; c < cols; c++) max = Math.max(max, values[r * cols + c]);
    if (max === -Infinity) continue;
    // subtract the row max: exp() cannot overflow
    let total = 0;
    for (let c = 0; c < cols; c++) total += (out[r * cols + c] = Math.exp(values[r * cols + c] - max));
    for (let c = 0; c < cols; c++) out[r * cols + c] /= total;
  }
  return out;
}
