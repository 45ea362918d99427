// engine.transformer() and transformerGradients() with a padding mask (padding: { keep } or
// { masked }, one flag per token), both learning builds: against a float64 attention-only stack
// written here (padded keys get exactly zero weight), the kept tokens of a right-padded request equal
// the unpadded run (outputs, logits, every weight's gradient), and a mask of the wrong length or shape
// refused naming the field.
import { it } from 'node:test';
import assert from 'node:assert/strict';

import { relativeError } from './gpt2-request.mjs';
import { forEachBuild } from './builds.mjs';
import { attentionOnly, blocks, reference } from './padding-stacks.mjs';

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
