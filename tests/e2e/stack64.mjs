// A float64 stack of blocks for the browser tests of layers (blocks.test.mjs, explain-layers.test.mjs):
// its own attention, LayerNorm, GELU with its own erf, and residuals, written here from the papers'
// formulas, independent of the engine and of the page.
import assert from 'node:assert/strict';

// erf by its Taylor series (|x| < 5; float64 keeps about 1e-9 there), ±1 beyond (erfc(5) < 2e-12)
export function erf(x) {
  if (Math.abs(x) >= 5) return Math.sign(x);
  let term = x;
  let sum = x;
  for (let k = 1; k < 200 && Math.abs(term) > 1e-17; k++) {
    term *= (-x * x) / k;
    sum += term / (2 * k + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}
export const gelu = (v) => 0.5 * v * (1 + erf(v / Math.SQRT2));

// a (rows × inner) · b (inner × cols), all row-major
export function matmul(a, b, rows, inner, cols) {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let k = 0; k < inner; k++) for (let j = 0; j < cols; j++) out[i * cols + j] += a[i * inner + k] * b[k * cols + j];
  return out;
}

// multi-head self-attention: W_q, W_k (heads × d × dK), W_v (heads × d × dV) head-major, W_O (heads·dV × d)
export function attention64(x, n, d, w, { heads, dK, dV, causal }) {
  const concat = new Float64Array(n * heads * dV);
  const headWeights = [];
  for (let h = 0; h < heads; h++) {
    const slice = (m, width) => Array.from(m).slice(h * d * width, (h + 1) * d * width);
    const q = matmul(x, slice(w.wq, dK), n, d, dK);
    const k = matmul(x, slice(w.wk, dK), n, d, dK);
    const v = matmul(x, slice(w.wv, dV), n, d, dV);
    const weights = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      const row = [];
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let c = 0; c < dK; c++) s += q[i * dK + c] * k[j * dK + c];
        row.push(causal && j > i ? -Infinity : s / Math.sqrt(dK));
      }
      const top = Math.max(...row);
      const e = row.map((s) => Math.exp(s - top));
      const sum = e.reduce((a, b) => a + b, 0);
      e.forEach((value, j) => { weights[i * n + j] = value / sum; });
      for (let j = 0; j < n; j++) for (let c = 0; c < dV; c++) concat[i * heads * dV + h * dV + c] += weights[i * n + j] * v[j * dV + c];
    }
    headWeights.push(weights);
  }
  return { output: matmul(concat, Array.from(w.wo), n, heads * dV, d), weights: headWeights, concat };
}

// LayerNorm of each row, eps 1e-5: weight 1 and bias 0 (the lab's norms), or `table` = [γ (d values), β (d values)]
export function layerNorm(x, n, d, table = null) {
  const out = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const row = Array.from(x.slice(i * d, (i + 1) * d));
    const mean = row.reduce((a, b) => a + b, 0) / d;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / d;
    row.forEach((value, c) => {
      const normed = (value - mean) / Math.sqrt(variance + 1e-5);
      out[i * d + c] = table ? normed * table[c] + table[d + c] : normed;
    });
  }
  return out;
}

export const add = (a, b) => a.map((value, i) => value + b[i]);

/** Every layer of a stack: { input, attention, concat, attended, middle, hidden, mlpOut, output, weights } in float64. */
export function stack64(x0, n, d, layerWeights, { arrangement, ...sizes }) {
  const layers = [];
  let x = Float64Array.from(x0);
  for (const w of layerWeights) {
    const layer = { input: x };
    const f = w.w1 ? w.w1.length / d : 0;
    const mlp = (a) => {
      layer.hidden = matmul(a, Array.from(w.w1), n, d, f).map(gelu);
      layer.mlpOut = matmul(layer.hidden, Array.from(w.w2), n, f, d);
      return layer.mlpOut;
    };
    // a norm's γ and β: the layer's `ln1`, `ln2` tables (2 × d) when given, else 1 and 0
    const [ln1, ln2] = [w.ln1 ?? null, w.ln2 ?? null];
    const seen = arrangement === 'pre' ? layerNorm(x, n, d, ln1) : x;
    const { output, weights, concat } = attention64(seen, n, d, w, sizes);
    Object.assign(layer, { attention: output, weights, concat, attended: add(x, output) });
    if (arrangement === 'attention-only') layer.output = layer.attended;
    if (arrangement === 'pre') {
      layer.middle = layer.attended;
      layer.output = add(layer.middle, mlp(layerNorm(layer.middle, n, d, ln2)));
    }
    if (arrangement === 'post') {
      layer.middle = layerNorm(layer.attended, n, d, ln1);
      layer.output = layerNorm(add(layer.middle, mlp(layer.middle)), n, d, ln2);
    }
    layers.push(layer);
    x = layer.output;
  }
  return layers;
}

export function assertClose(actual, expected, what, tolerance = 1e-4) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const allowed = Math.max(tolerance, tolerance * Math.abs(expected[i]));
    assert.ok(Math.abs(actual[i] - expected[i]) <= allowed, `${what}[${i}]: ${actual[i]} vs float64 ${expected[i]}`);
  }
}
