// engine.transformer() and transformerGradients() with a padding mask (padding: { keep } or
// { masked }, one flag per token), both learning builds: against a float64 attention-only stack
// written here (padded keys get exactly zero weight), the kept tokens of a right-padded request equal
// the unpadded run (outputs, logits, every weight's gradient), and a mask of the wrong length or shape
// refused naming the field.
import { it } from 'node:test';
import assert from 'node:assert/strict';

import { relativeError } from './gpt2-request.mjs';
import { forEachBuild } from './builds.mjs';

const values = (count, seed) => Float32Array.from({ length: count }, (_, i) => 0.6 * Math.sin(seed * 7.3 + i * 1.7));

// Two attention-only blocks, dModel 4, 2 heads, learned positions, an own unembedding.
function attentionOnly(ids, mask) {
  const attention = (seed) => ({ heads: 2, mask, wq: values(16, seed), wk: values(16, seed + 1), wv: values(16, seed + 2), wo: values(16, seed + 3) });
  return { ids, vocab: 7, dModel: 4, tokens: values(28, 1), positions: 'learned', positionTable: values(4 * 8, 2),
    layers: [{ arrangement: 'attention-only', attention: attention(3) }, { arrangement: 'attention-only', attention: attention(7) }],
    unembedding: 'own', unembeddingWeight: values(28, 11) };
}

// The float64 stack (Vaswani et al. 2017): x = tokens[id] + positions[i]; per block x += concat_h(a_h · v_h) · wo,
// a_h = softmax over the visible keys (j kept, and j ≤ i when causal) of q·kᵀ/√dK, 0 elsewhere (a row with no
// visible key, a padded query before the first kept token, is all 0, as the engine documents); logits = x · U.
function reference(request, kept) {
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
function blocks(ids) {
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

// every Float32Array in a gradients object, by path
function leaves(object, path = '', out = new Map()) {
  for (const [key, value] of Object.entries(object)) {
    if (value instanceof Float32Array) out.set(`${path}${key}`, value);
    else if (value && typeof value === 'object') leaves(value, `${path}${key}.`, out);
  }
  return out;
}

forEachBuild((build) => `${build} build: transformer() with a padding mask`, { learning: true }, ({ engine }) => {
  it('equals a float64 stack written here; padded keys get zero weight (causal and not, padding anywhere)', () => {
    for (const mask of ['causal', 'none']) {
      for (const keep of [[1, 0, 1, 1, 0, 1], [0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]]) {
        const request = attentionOnly([3, 0, 5, 1, 6, 2], mask);
        const want = reference(request, keep.map(Boolean));
        const got = engine.transformer({ ...request, padding: { keep } });
        const what = `mask ${mask}, keep ${keep}`;
        assert.ok(relativeError(got.output, want.output) < 1e-5, `${what}: output ${relativeError(got.output, want.output)}`);
        assert.ok(relativeError(got.logits, want.logits) < 1e-5, `${what}: logits`);
        got.layers.forEach((layer, l) => layer.attention.heads.forEach((head, h) => {
          assert.ok(relativeError(head.weights, want.weights[l][h]) < 1e-5, `${what}: layers[${l}] head ${h} weights`);
          for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) if (!keep[j]) assert.equal(head.weights[i * 6 + j], 0);
        }));
        // the same mask in the other convention
        const masked = engine.transformer({ ...request, padding: { masked: keep.map((k) => !k) } });
        assert.deepEqual(masked.output, got.output);
      }
    }
  });

  it('kept tokens of a right-padded request equal the unpadded run: outputs, logits and every gradient', () => {
    const ids = [1, 6, 0, 3], padded = [...ids, 2, 5], n = ids.length, d = 4, vocab = 7;
    const short = engine.transformer(blocks(ids));
    const long = engine.transformer({ ...blocks(padded), padding: { keep: [1, 1, 1, 1, 0, 0] } });
    assert.ok(relativeError(long.output.subarray(0, n * d), short.output) < 1e-6);
    assert.ok(relativeError(long.logits.subarray(0, n * vocab), short.logits) < 1e-6);
    // a causal stack without the mask would differ only after the kept rows; with mask 'none' it differs
    const dOutput = Float32Array.from({ length: n * d }, (_, i) => Math.cos(i));
    const dLogits = Float32Array.from({ length: n * vocab }, (_, i) => Math.sin(i));
    const padRows = (m, width) => Float32Array.from({ length: padded.length * width }, (_, i) => (i < n * width ? m[i] : 0));
    const g1 = leaves(engine.transformerGradients({ ...blocks(ids), dOutput, dLogits }).gradients);
    const g2 = leaves(engine.transformerGradients({ ...blocks(padded), padding: { keep: [1, 1, 1, 1, 0, 0] },
      dOutput: padRows(dOutput, d), dLogits: padRows(dLogits, vocab) }).gradients);
    assert.deepEqual([...g2.keys()], [...g1.keys()]);
    assert.ok(g1.size >= 20, `${g1.size} gradients`);
    for (const [name, g] of g1) assert.ok(relativeError(g2.get(name), g) < 1e-5, `${name}: ${relativeError(g2.get(name), g)}`);
  });

  it('refuses a mask of the wrong length or shape, naming the field, and stays usable', () => {
    const refuses = (padding, field, text, layers) => {
      const request = attentionOnly([3, 0, 5, 1], 'causal');
      if (layers) request.layers[1].attention.mask = 'none';
      assert.throws(() => engine.transformer({ ...request, padding }), (error) => {
        assert.equal(error.field, field, error.message);
        assert.match(error.message, text);
        return true;
      });
    };
    refuses({ keep: [1, 1, 0] }, 'padding.keep', /padding\.keep has 3 flags; ids has 4 tokens/);
    refuses({ masked: [0, 0, 0, 0, 1] }, 'padding.masked', /has 5 flags/);
    refuses([1, 1, 1, 0], 'padding', /padding must be \{ keep: flags \}/);
    refuses({ keep: [1, 2, 1, 1] }, 'padding.keep', /padding\.keep\[1\] must be 1, 0, true or false/);
    refuses({ keep: 'yes' }, 'padding.keep', /must be an array/);
    refuses({ keep: [1, 1, 1, 1] }, 'padding', /every layer's attention\.mask/, true);
    assert.throws(() => engine.transformerGradients({ ...attentionOnly([3, 0, 5, 1], 'none'), padding: { keep: [1] }, dOutput: new Float32Array(16) }),
      (error) => error.field === 'padding.keep');
    assert.equal(engine.transformer({ ...attentionOnly([3, 0, 5, 1], 'none'), padding: { keep: [1, 1, 1, 0] } }).layers.length, 2);
  });
});
