// Small statistics for the scaling lab.

/** Shannon entropy of a row of weights, in bits. */
export function entropyBits(weights) {
  let h = 0;
  for (const w of weights) if (w > 0) h -= w * Math.log2(w);
  return h;
}

/** Population variance. */
export function variance(values) {
  let mean = 0;
  for (const v of values) mean += v;
  mean /= values.length;
  let sum = 0;
  for (const v of values) sum += (v - mean) ** 2;
  return sum / values.length;
}

/** mulberry32: a small seeded generator of 32-bit unsigned integers, the same in every engine. */
export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Unit normal draws (Box–Muller over mulberry32), seeded: the same numbers on every run. */
export function normalDraws(count, seed) {
  const next = mulberry32(seed);
  const uniform = () => (next() + 0.5) / 4294967296;  // (0, 1): log() stays finite
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const radius = Math.sqrt(-2 * Math.log(uniform()));
    const angle = 2 * Math.PI * uniform();
    out[i] = radius * Math.cos(angle);
    if (i + 1 < count) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}
