// engine.transformer() and engine.transformerGradients() through the JavaScript API, both learning
// builds: Hugging Face's GPT-2 (../shared/models/gpt2) reproduced, every hidden state and layer, to
// 1e-4 relative; gradients that have a closed form; bad requests refused naming the field.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

import { loadAttention } from '../../../dist/lib/attention.node.mjs';
import { folder, gpt2Request, relativeError } from './gpt2-request.mjs';
import { forEachBuild } from './builds.mjs';

const haveModel = existsSync(new URL('reference.json', folder));

forEachBuild((build) => `${build} build: transformer()`, { learning: true }, ({ engine }) => {
  it('reproduces Hugging Face GPT-2: every hidden state, layer input, attention weights and output, the top-5 logits', { skip: !haveModel && 'no ../shared/models/gpt2' }, (t) => {
    const { request, reference } = gpt2Request();
    const result = engine.transformer(request);
    const L = request.layers.length;
    const hidden = [result.embeddings, ...result.layers.slice(0, -1).map((layer) => layer.output), result.output];
    let worst = 0;
    const check = (got, want, what) => {
      const error = relativeError(got, want);
      assert.ok(error <= 1e-4, `${what}: relative error ${error}`);
      worst = Math.max(worst, error);
    };
    hidden.forEach((state, i) => check(state, reference.hidden_states[i], `hidden_states[${i}]`));
    for (let l = 0; l < L; l++) {
      const layer = result.layers[l];
      check(layer.norm1.output, reference.layers[l].input, `layers[${l}].input`);
      const probs = layer.attention.heads.flatMap((head) => [...head.weights]);
      check(probs, reference.layers[l].probs, `layers[${l}].probs`);
      check(layer.attention.output, reference.layers[l].output, `layers[${l}].output`);
    }
    const n = result.n;
    const last = result.logits.subarray((n - 1) * request.vocab);
    check(reference.next_token_top5.map(([id]) => last[id]), reference.next_token_top5.map(([, logit]) => logit), 'top-5 logits');
    const order = [...last.keys()].sort((a, b) => last[b] - last[a]).slice(0, 5);
    assert.deepEqual(order, reference.next_token_top5.map(([id]) => id));
    assert.ok(worst > 0 && worst < 1e-5, `largest relative error ${worst}`);
    t.diagnostic(`${hidden.length + 3 * L + 1} arrays, largest relative error ${worst.toExponential(2)}`);
  });

  it('gives the gradients with a closed form: unembeddingBias = Σ rows of dLogits, finalNorm.bias = Σ rows of dOutput', () => {
    const request = smallStack();
    const n = request.ids.length;
    const dLogits = Float32Array.from({ length: n * request.vocab }, (_, i) => Math.sin(i));
    const dOutput = Float32Array.from({ length: n * request.dModel }, (_, i) => Math.cos(i));
    const { gradients, trace } = engine.transformerGradients({ ...request, dLogits, dOutput });
    assert.equal(trace.logits.length, n * request.vocab);
    const columnSums = (m, width) => Array.from({ length: width }, (_, j) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += m[i * width + j];
      return s;
    });
    assert.ok(relativeError(gradients.unembeddingBias, columnSums(dLogits, request.vocab)) < 1e-6);
    // d output / d finalNorm.bias is the identity; the logits add theirs through the unembedding
    const onlyOutput = engine.transformerGradients({ ...request, dOutput });
    assert.ok(relativeError(onlyOutput.gradients.finalNorm.bias, columnSums(dOutput, request.dModel)) < 1e-6);
    for (const name of ['wq', 'wk', 'wv', 'wo']) assert.equal(gradients.layers[0].attention[name].length, request.layers[0].attention[name].length);
    assert.equal(gradients.layers[1].mlp.wGate.length, 4 * 6);
  });

  it('refuses bad requests before any work, naming the field, and stays usable', () => {
    const refuses = (change, field) => {
      const request = smallStack();
      change(request);
      assert.throws(() => engine.transformer(request), (error) => {
        assert.equal(error.field, field, error.message);
        return true;
      });
    };
    refuses((r) => { r.layers[0].attention.kvHeads = 3; }, 'layers[0].attention.kvHeads');
    refuses((r) => { r.rotary.dims = 3; }, 'rotary.dims');
    refuses((r) => { r.layers[1].norm1.weight = new Float32Array(5); }, 'layers[1].norm1.weight');
    refuses((r) => { r.tokens[3] = NaN; }, 'tokens');
    refuses((r) => { r.ids[1] = 9; }, 'ids');
    refuses((r) => { r.layers = Array.from({ length: 10000 }, () => r.layers[0]); }, 'layers');
    refuses((r) => { r.layers[1].mlp.wUp = new Float32Array(24).fill(1e30); r.layers[1].mlp.wDown = new Float32Array(24).fill(1e30); }, 'layers[1]');
    refuses((r) => { r.layers[0].mlp.activation = 'swish'; }, 'layers[0].mlp.activation');
    refuses((r) => { r.layers[0].arrangment = 'pre'; }, 'layers[0].arrangment');
    refuses((r) => { r.finalNorm.kind = '__proto__'; }, 'finalNorm.kind');
    assert.equal(engine.transformer(smallStack()).layers.length, 2);
  });
});

// Two blocks, d_model 4, vocabulary 7: GQA with RoPE and a plain GELU MLP, then a post-LN SwiGLU block.
function smallStack() {
  const values = (count, seed) => Float32Array.from({ length: count }, (_, i) => 0.6 * Math.sin(seed * 7.3 + i * 1.7));
  const d = 4;
  const attention = (seed) => ({ heads: 2, kvHeads: 1, dK: 2, mask: 'causal', wq: values(16, seed), wk: values(8, seed + 1),
    wv: values(8, seed + 2), wo: values(16, seed + 3) });
  const norm = (seed) => ({ kind: 'layernorm', weight: values(d, seed).map((v) => 1 + v), bias: values(d, seed + 1) });
  return {
    ids: [1, 6, 0, 3], vocab: 7, dModel: d, tokens: values(28, 1), positions: 'rotary', rotary: { dims: 2 },
    layers: [
      { arrangement: 'pre', attention: attention(2), norm1: norm(3), norm2: norm(4),
        mlp: { kind: 'plain', activation: 'gelu', hidden: 5, w1: values(20, 5), b1: values(5, 6), w2: values(20, 7) } },
      { arrangement: 'post', attention: attention(8), norm1: { kind: 'rmsnorm', weight: values(d, 9) }, norm2: norm(10),
        mlp: { kind: 'swiglu', hidden: 6, wGate: values(24, 11), wUp: values(24, 12), wDown: values(24, 13) } },
    ],
    finalNorm: norm(14), unembedding: 'own', unembeddingWeight: values(28, 15), unembeddingBias: values(7, 16),
  };
}

describe('transformer() on the page\'s forward-only engine', () => {
  it('says it needs the learning engine', async () => {
    const engine = await loadAttention({ simd: false });
    assert.throws(() => engine.transformer(smallStack()), /needs the learning engine/);
  });
});
