// The RoPE and GQA chapters' passes (issue 25, views "rope" and "gqa"), on the forward engine: each
// runs engine.attention() a few times and hands back the traces; the chapters compute nothing the
// core computes (they only compare its numbers). Errors come back as data, as api.mjs's calls.

const MAX_DISTANCE = 64;

function failure(error) {
  return { error: { name: error.name, field: error.field ?? null, message: error.message } };
}

// x's n rows in the reverse order.
function reversedRows(x, n, width) {
  const out = new Float32Array(n * width);
  for (let i = 0; i < n; i++) out.set(x.subarray((n - 1 - i) * width, (n - i) * width), i * width);
  return out;
}

/**
 * The lab's sentence as self-attention (no mask, its weights), without and with RoPE, with every
 * position shifted by `shift`, and with the tokens in reverse order; and the core's score between
 * the chosen head's unrotated q (of token `query`) and k (of token `key`) with the key at position 0
 * and the query at positions 0 … distances − 1 (one query row per distance; identity projections).
 */
export function ropeLab(engine, request, weights, { theta, shift, head, query, key, distances = MAX_DISTANCE }) {
  try {
    const { x, n, dModel, heads, dK, dV, scale } = request;
    const dims = Math.floor(dK / 2) * 2;
    if (dims === 0) throw Object.assign(new RangeError(`RoPE rotates pairs of features: d_k must be at least 2, got ${dK}`), { field: 'dK' });
    const base = { x: Float32Array.from(x), n, dModel, heads, dK, dV, scale, ...weights, trace: true };
    const rotary = { dims, theta };
    const plain = engine.attention(base);
    const rotated = engine.attention({ ...base, rotary });
    const shifted = engine.attention({ ...base, rotary: { ...rotary, firstPosition: shift } });
    const back = reversedRows(base.x, n, dModel);
    const plainReversed = engine.attention({ ...base, x: back });
    const rotatedReversed = engine.attention({ ...base, x: back, rotary });
    const h = rotated.heads[head];
    const q = h.qUnrotated.slice(query * dK, (query + 1) * dK);
    const k = h.kUnrotated.slice(key * dK, (key + 1) * dK);
    const count = Math.max(2, Math.min(MAX_DISTANCE, distances));
    const rows = new Float32Array(count * dK);
    for (let d = 0; d < count; d++) rows.set(q, d * dK);
    const curve = engine.attention({ x: rows, n: count, dModel: dK, context: k, m: 1, heads: 1, dK, dV: dK, scale: 'none', rotary, trace: true });
    return { dims, theta, shift, plain, rotated, shifted, plainReversed, rotatedReversed, curve: curve.heads[0].scores, q, k };
  } catch (error) {
    return failure(error);
  }
}

// The mean of each group of heads / kvHeads consecutive heads' blocks (size values each).
export function averageHeads(w, heads, kvHeads, size) {
  const group = heads / kvHeads;
  const out = new Float32Array(kvHeads * size);
  for (let g = 0; g < kvHeads; g++) {
    for (let c = 0; c < size; c++) {
      let sum = 0;
      for (let member = 0; member < group; member++) sum += w[(g * group + member) * size + c];
      out[g * size + c] = sum / group;
    }
  }
  return out;
}

/** For each query head, its K/V head as the trace shows it: heads whose k holds the same numbers share one, numbered in order. */
function groupsOf(traceHeads) {
  const firsts = [];
  return traceHeads.map(({ k }) => {
    let g = firsts.findIndex((other) => other.length === k.length && other.every((value, i) => Object.is(value, k[i])));
    if (g < 0) g = firsts.push(k) - 1;
    return g;
  });
}

/**
 * One seeded random layer (W_O included) on the lab's sentence as multi-head attention, again with
 * kvHeads = heads given, and converted to kvHeads key/value heads by averaging W_K's and W_V's heads
 * in groups (query head i reads key/value head floor(i · kvHeads / heads)).
 */
export function gqaLab(engine, { x, n, dModel, heads, kvHeads, dHead, seed, scale }) {
  try {
    if (!Number.isInteger(heads) || heads < 1 || heads > 16) throw Object.assign(new RangeError(`heads must be a whole number from 1 to 16, got ${heads}`), { field: 'heads' });
    if (!Number.isInteger(kvHeads) || kvHeads < 1 || heads % kvHeads !== 0) {
      throw Object.assign(new RangeError(`kvHeads must divide heads (${heads}), got ${kvHeads}`), { field: 'kvHeads' });
    }
    if (!Number.isInteger(dHead) || dHead < 1 || dHead > 64) throw Object.assign(new RangeError(`d_head must be a whole number from 1 to 64, got ${dHead}`), { field: 'dHead' });
    const weights = engine.initWeights({ dModel, heads, dK: dHead, dV: dHead, seed });
    const common = { x: Float32Array.from(x), n, dModel, heads, dK: dHead, dV: dHead, scale, wq: weights.wq, wo: weights.wo };
    const mha = engine.attention({ ...common, wk: weights.wk, wv: weights.wv });
    const same = engine.attention({ ...common, wk: weights.wk, wv: weights.wv, kvHeads: heads });
    const wk = averageHeads(weights.wk, heads, kvHeads, dModel * dHead);
    const wv = averageHeads(weights.wv, heads, kvHeads, dModel * dHead);
    const gqa = engine.attention({ ...common, wk, wv, kvHeads, trace: true });
    return { heads, kvHeads, dHead, mha: mha.output, same: same.output, gqa: gqa.output, groupOf: groupsOf(gqa.heads) };
  } catch (error) {
    return failure(error);
  }
}
