// An independent float64 reference for multi-head attention in plain JavaScript loops, for the
// engine tests. Layouts as in attention.d.ts.

export function referenceAttention({ x, n, dModel, context, m, heads = 1, dK, dV, wq, wk, wv, wo, scale = 'sqrt_dk', mask = 'none' }) {
  const c = context ?? x;
  m = context ? m : n;
  dK ??= dModel / heads;
  dV ??= dK;
  const divisor = scale === 'sqrt_dk' ? Math.sqrt(dK) : scale === 'none' ? 1 : scale;
  const keeps = (i, j) => (mask === 'causal' ? j <= i : mask === 'none' ? true : mask[i * m + j] === 1);

  const project = (a, rows, w, h, width) => {
    const y = new Float64Array(rows * width);
    for (let r = 0; r < rows; r++) {
      for (let col = 0; col < width; col++) {
        if (!w) { y[r * width + col] = a[r * dModel + col]; continue; }
        let sum = 0;
        for (let t = 0; t < dModel; t++) sum += a[r * dModel + t] * w[(h * dModel + t) * width + col];
        y[r * width + col] = sum;
      }
    }
    return y;
  };

  const concat = new Float64Array(n * heads * dV);
  const traces = [];
  for (let h = 0; h < heads; h++) {
    const q = project(x, n, wq, h, dK), k = project(c, m, wk, h, dK), v = project(c, m, wv, h, dV);
    const trace = attendOneHead({ q, k, v, n, m, dK, dV, divisor, keeps });
    for (let i = 0; i < n; i++) {
      for (let t = 0; t < dV; t++) concat[i * heads * dV + h * dV + t] = trace.z[i * dV + t];
    }
    traces.push(trace);
  }
  const output = wo ? outputProjection(concat, wo, n, dModel, heads * dV) : concat;
  return { output, concat, heads: traces };
}

// One head: scores q·kᵀ, scaled and masked, softmax weights per row, and z = weights · v.
function attendOneHead({ q, k, v, n, m, dK, dV, divisor, keeps }) {
  const scores = new Float64Array(n * m), scaled = new Float64Array(n * m), weights = new Float64Array(n * m);
  const z = new Float64Array(n * dV);
  for (let i = 0; i < n; i++) {
    let best = -Infinity;
    for (let j = 0; j < m; j++) {
      let dot = 0;
      for (let t = 0; t < dK; t++) dot += q[i * dK + t] * k[j * dK + t];
      scores[i * m + j] = dot;
      scaled[i * m + j] = keeps(i, j) ? dot / divisor : -Infinity;
      best = Math.max(best, scaled[i * m + j]);
    }
    let total = 0;
    for (let j = 0; j < m; j++) total += (weights[i * m + j] = best === -Infinity ? 0 : Math.exp(scaled[i * m + j] - best));
    for (let j = 0; j < m; j++) {
      if (total > 0) weights[i * m + j] /= total;
      for (let t = 0; t < dV; t++) z[i * dV + t] += weights[i * m + j] * v[j * dV + t];
    }
  }
  return { q, k, v, scores, scaled, weights, z };
}

// output (n, dModel) = concat (n, width) · wo (width, dModel)
function outputProjection(concat, wo, n, dModel, width) {
  const output = new Float64Array(n * dModel);
  for (let i = 0; i < n; i++) {
    for (let col = 0; col < dModel; col++) {
      let sum = 0;
      for (let t = 0; t < width; t++) sum += concat[i * width + t] * wo[t * dModel + col];
      output[i * dModel + col] = sum;
    }
  }
  return output;
}

// mulberry32: a small seeded generator, so every run draws the same problems.
export function randomSource(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    matrix: (count, spread = 1) => Float32Array.from({ length: count }, () => (next() * 2 - 1) * spread),
  };
}

// Fails with the matrix name, index and values when |got - want| > max(atol, rtol·|want|).
export function assertClose(what, got, want, { atol = 1e-4, rtol = 1e-4 } = {}) {
  if (got.length !== want.length) throw new Error(`${what}: ${got.length} values, expected ${want.length}`);
  for (let i = 0; i < got.length; i++) {
    const ok = want[i] === -Infinity ? got[i] === -Infinity : Math.abs(got[i] - want[i]) <= Math.max(atol, rtol * Math.abs(want[i]));
    if (!ok) throw new Error(`${what}[${i}]: got ${got[i]}, reference ${want[i]}`);
  }
}
