// engine.prepareTransformer(...).run({ ids or x, padding }) with a padding mask (padding: { keep } or
// { masked }, one flag per token, as transformer() takes it), both learning builds: the same output and
// logits as the traced transformer() with the same mask (1e-6 relative) on a GQA + RoPE stack with both
// MLP kinds, against the float64 attention-only stack of padding-stacks.mjs (padded keys get zero weight),
// the kept rows of a right-padded run equal to the unpadded run, and a bad mask refused naming the field.
import { it } from 'node:test';
import assert from 'node:assert/strict';

import { relativeError } from './gpt2-request.mjs';
import { forEachBuild } from './builds.mjs';
import { attentionOnly, blocks, reference } from './padding-stacks.mjs';

const withoutIds = ({ ids, ...weights }) => weights;

// the token rows of the ids: x in place of ids (a run adds the positions to x as to the token rows)
function rowsOf(request) {
  const d = request.dModel;
  return Float32Array.from({ length: request.ids.length * d }, (_, k) => {
    const i = Math.floor(k / d), c = k % d;
    return request.tokens[request.ids[i] * d + c];
  });
}

// a bad mask refused naming the field; the engine stays usable
function refusesBadMasks(engine) {
  const request = attentionOnly([3, 0, 5, 1], 'causal');
  const prepared = engine.prepareTransformer(withoutIds(request));
  const mixed = attentionOnly([3, 0, 5, 1], 'causal');
  mixed.layers[1].attention.mask = 'none';
  const mixedPrepared = engine.prepareTransformer(withoutIds(mixed));
  try {
    const refuses = (run, field, text) => assert.throws(() => run(), (error) => {
      assert.equal(error.field, field, error.message);
      assert.match(error.message, text);
      return true;
    });
    refuses(() => prepared.run({ ids: request.ids, padding: { keep: [1, 1, 0] } }), 'padding.keep', /padding\.keep has 3 flags; ids has 4 tokens/);
    refuses(() => prepared.run({ x: rowsOf(request), padding: { masked: [0, 0, 0, 0, 1] } }), 'padding.masked', /has 5 flags; x has 4 tokens/);
    refuses(() => prepared.run({ ids: request.ids, padding: [1, 1, 1, 0] }), 'padding', /padding must be \{ keep: flags \}/);
    refuses(() => prepared.run({ ids: request.ids, padding: { keep: [1, 2, 1, 1] } }), 'padding.keep', /padding\.keep\[1\] must be 1, 0, true or false/);
    refuses(() => mixedPrepared.run({ ids: mixed.ids, padding: { keep: [1, 1, 1, 1] } }), 'padding', /every layer's attention\.mask/);
    refuses(() => prepared.run({ x: new Float32Array(7), padding: { keep: [1] } }), 'x', /x has 7 values/);
    assert.equal(prepared.run({ ids: request.ids, padding: { keep: [1, 1, 1, 0] } }).output.length, 16);
    assert.equal(mixedPrepared.run({ ids: mixed.ids }).output.length, 16);
  } finally {
    prepared.dispose();
    mixedPrepared.dispose();
  }
}

forEachBuild((build) => `${build} build: a prepared stack's run() with a padding mask`, { learning: true }, ({ engine }) => {
  it('gives the traced transformer()\'s output and logits with the same mask (GQA, RoPE, GELU and SwiGLU MLPs, pre- and post-LN)', () => {
    const ids = [1, 6, 0, 3, 2, 5];
    const prepared = engine.prepareTransformer(withoutIds(blocks(ids)));
    try {
      const plain = prepared.run({ ids });
      for (const keep of [[1, 0, 1, 1, 0, 1], [0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]]) {
        const traced = engine.transformer({ ...blocks(ids), padding: { keep } });
        for (const padding of [{ keep }, { masked: keep.map((k) => k === 0) }]) {
          const got = prepared.run({ ids, padding });
          const what = `${JSON.stringify(padding)}`;
          assert.ok(relativeError(got.output, traced.output) <= 1e-6, `${what}: output ${relativeError(got.output, traced.output)}`);
          assert.ok(relativeError(got.logits, traced.logits) <= 1e-6, `${what}: logits ${relativeError(got.logits, traced.logits)}`);
        }
        // the mask is used: the last row sees a padded key in every one of these masks but the last
        if (keep.includes(0) && keep.at(-1) === 1) assert.ok(relativeError(prepared.run({ ids, padding: { keep } }).output, plain.output) > 1e-3, `${keep}: same as unmasked`);
      }
      // all kept: the unmasked run, bit for bit
      assert.deepEqual(prepared.run({ ids, padding: { keep: ids.map(() => 1) } }).output, plain.output);
    } finally {
      prepared.dispose();
    }
  });

  it('equals a float64 stack written here (causal and not), from ids and from x', () => {
    for (const mask of ['causal', 'none']) {
      const request = attentionOnly([3, 0, 5, 1, 6, 2], mask);
      const prepared = engine.prepareTransformer(withoutIds(request));
      try {
        for (const keep of [[1, 0, 1, 1, 0, 1], [1, 1, 1, 1, 0, 0]]) {
          const want = reference(request, keep.map(Boolean));
          const got = prepared.run({ ids: request.ids, padding: { keep } });
          assert.ok(relativeError(got.output, want.output) < 1e-5, `mask ${mask}, keep ${keep}: output ${relativeError(got.output, want.output)}`);
          assert.ok(relativeError(got.logits, want.logits) < 1e-5, `mask ${mask}, keep ${keep}: logits`);
          const byX = prepared.run({ x: rowsOf(request), padding: { keep } });
          assert.deepEqual(byX.output, got.output);
        }
      } finally {
        prepared.dispose();
      }
    }
  });

  it('kept rows of a right-padded run equal the unpadded run', () => {
    const ids = [1, 6, 0, 3], n = ids.length, d = 4, vocab = 7;
    const prepared = engine.prepareTransformer(withoutIds(blocks(ids)));
    try {
      const short = prepared.run({ ids });
      const long = prepared.run({ ids: [...ids, 2, 5], padding: { keep: [1, 1, 1, 1, 0, 0] } });
      assert.ok(relativeError(long.output.subarray(0, n * d), short.output) < 1e-6);
      assert.ok(relativeError(long.logits.subarray(0, n * vocab), short.logits) < 1e-6);
    } finally {
      prepared.dispose();
    }
  });

  it('refuses a mask of the wrong length or shape, naming the field, and stays usable', () => refusesBadMasks(engine));
});
