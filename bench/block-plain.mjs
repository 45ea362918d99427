// One pre-LN transformer block in plain JavaScript: Float32Array and straightforward loops (i-k-j
// matrix products, row-wise LayerNorm, softmax with the causal mask by skipping j > i).
// The problem's layout is bench/block-graphs.mjs's.

function matmulBias(a, b, bias, rows, inner, cols) {
  const c = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const row = i * cols;
    for (let j = 0; j < cols; j++) c[row + j] = bias[j];
    for (let k = 0; k < inner; k++) {
      const aik = a[i * inner + k];
      const bRow = k * cols;
      for (let j = 0; j < cols; j++) c[row + j] += aik * b[bRow + j];
    }
  }
  return c;
}

function layerNorm(x, g, b, n, d) {
  const out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    let mean = 0;
    for (let c = 0; c < d; c++) mean += x[i * d + c];
    mean /= d;
    let variance = 0;
    for (let c = 0; c < d; c++) variance += (x[i * d + c] - mean) ** 2;
    const rstd = 1 / Math.sqrt(variance / d + 1e-5);
    for (let c = 0; c < d; c++) out[i * d + c] = (x[i * d + c] - mean) * rstd * g[c] + b[c];
  }
  return out;
}

// q, k, v: n × d with head `head` in columns head·dK … (head + 1)·dK − 1; writes that head's z into concat
function causalHead(q, k, v, concat, { n, d, dK }, head) {
  const weights = new Float32Array(n);
  const scale = 1 / Math.sqrt(dK);
  const offset = head * dK;
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j <= i; j++) {
      let dot = 0;
      for (let t = 0; t < dK; t++) dot += q[i * d + offset + t] * k[j * d + offset + t];
      weights[j] = dot * scale;
      if (weights[j] > max) max = weights[j];
    }
    let total = 0;
    for (let j = 0; j <= i; j++) total += weights[j] = Math.exp(weights[j] - max);
    for (let j = 0; j <= i; j++) {
      const w = weights[j] / total;
      for (let t = 0; t < dK; t++) concat[i * d + offset + t] += w * v[j * d + offset + t];
    }
  }
}

export function plainBlock(p, wqkv) {
  const { n, d, f } = p;
  const a = layerNorm(p.x, p.ln1g, p.ln1b, n, d);
  const [q, k, v] = wqkv.map(({ w, b }) => matmulBias(a, w, b, n, d, d));
  const concat = new Float32Array(n * d);
  for (let head = 0; head < p.h; head++) causalHead(q, k, v, concat, p, head);
  const y = matmulBias(concat, p.wo, p.bo, n, d, d);
  for (let i = 0; i < n * d; i++) y[i] += p.x[i];
  const u = matmulBias(layerNorm(y, p.ln2g, p.ln2b, n, d), p.w1, p.b1, n, d, f);
  const c = Math.sqrt(2 / Math.PI);
  for (let i = 0; i < n * f; i++) u[i] = 0.5 * u[i] * (1 + Math.tanh(c * (u[i] + 0.044715 * u[i] ** 3)));
  const out = matmulBias(u, p.w2, p.b2, n, f, d);
  for (let i = 0; i < n * d; i++) out[i] += y[i];
  return out;
}
