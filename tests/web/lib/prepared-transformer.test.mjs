// engine.prepareTransformer() through the JavaScript API, both learning builds: Hugging Face's GPT-2
// (../shared/models/gpt2) prepared once, then every hidden state and the top-5 logits to 1e-4 relative
// from ids alone (and from x); bad weights and bad runs refused naming the field, the engine usable after.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

import { folder, gpt2Request, relativeError } from './gpt2-request.mjs';
import { forEachBuild } from './builds.mjs';

const haveModel = existsSync(new URL('reference.json', folder));

// The request's weights without the ids: what prepareTransformer() takes
function weightsOf(request) {
  const { ids, ...weights } = request;
  return { ids, weights };
}

forEachBuild((build) => `${build} build: prepareTransformer()`, { learning: true }, ({ engine }) => {
  it('reproduces Hugging Face GPT-2 from ids: every hidden state and the top-5 next-token logits, run after run', { skip: !haveModel && 'no ../shared/models/gpt2' }, (t) => {
    const { request, reference } = gpt2Request();
    const { ids, weights } = weightsOf(request);
    const prepared = engine.prepareTransformer(weights);
    try {
      assert.deepEqual([prepared.dModel, prepared.vocab, prepared.layers], [request.dModel, request.vocab, request.layers.length]);
      let worst = 0;
      for (let run = 0; run < 2; run++) {
        const result = prepared.run({ ids, hiddenStates: true });
        assert.equal(result.n, ids.length);
        const L = request.layers.length;
        const states = [...result.hiddenStates.slice(0, L), result.output];
        assert.equal(states.length, reference.hidden_states.length);
        states.forEach((state, i) => {
          const error = relativeError(state, reference.hidden_states[i]);
          assert.ok(error <= 1e-4, `hidden_states[${i}]: relative error ${error}`);
          worst = Math.max(worst, error);
        });
        const last = result.logits.subarray((result.n - 1) * request.vocab);
        const error = relativeError(reference.next_token_top5.map(([id]) => last[id]), reference.next_token_top5.map(([, logit]) => logit));
        assert.ok(error <= 1e-4, `top-5 logits: relative error ${error}`);
        const order = [...last.keys()].sort((a, b) => last[b] - last[a]).slice(0, 5);
        assert.deepEqual(order, reference.next_token_top5.map(([id]) => id));
      }
      // x = the token rows in place of the ids: the same output; logits: false leaves them out
      const d = request.dModel;
      const x = new Float32Array(ids.length * d);
      ids.forEach((id, i) => x.set(request.tokens.subarray(id * d, (id + 1) * d), i * d));
      const byIds = prepared.run({ ids });
      const byX = prepared.run({ x, logits: false });
      assert.deepEqual(byX.output, byIds.output);
      assert.equal(byX.logits, undefined);
      // runs one after the other on the same workspace: a shorter x after a longer one, a longer after
      // a shorter, and a view into a larger array, each as its ids give
      for (const rows of [2, ids.length, 1]) {
        const byRowIds = prepared.run({ ids: ids.slice(0, rows), logits: false });
        const byRows = prepared.run({ x: x.subarray(0, rows * d), logits: false });
        assert.equal(byRows.n, rows);
        assert.deepEqual(byRows.output, byRowIds.output);
      }
      t.diagnostic(`largest relative error to Hugging Face ${worst.toExponential(2)}`);
    } finally {
      prepared.dispose();
    }
    assert.throws(() => prepared.run({ ids }), { field: 'prepared' });
  });

  it('refuses bad weights and bad runs naming the field, and keeps working', () => {
    const d = 4;
    const values = (count, k) => Float32Array.from({ length: count }, (_, i) => Math.sin(i + k) / 2);
    const weights = { vocab: 5, dModel: d, tokens: values(5 * d, 1), positions: 'learned', positionTable: values(3 * d, 2),
      layers: [{ attention: { heads: 2, mask: 'causal', wq: values(d * d, 3), wk: values(d * d, 4), wv: values(d * d, 5), wo: values(d * d, 6) },
        norm1: { weight: values(d, 7) }, norm2: { weight: values(d, 8) },
        mlp: { activation: 'gelu-tanh', hidden: 6, w1: values(d * 6, 9), w2: values(6 * d, 10) } }],
      unembedding: 'tied' };
    const nan = structuredClone(weights);
    nan.layers[0].mlp.w2[3] = NaN;
    assert.throws(() => engine.prepareTransformer(nan), (e) => e instanceof RangeError && e.field === 'layers[0].mlp.w2' && /NaN/.test(e.message));
    assert.throws(() => engine.prepareTransformer({ ...weights, ids: [1] }), { field: 'ids' });
    assert.throws(() => engine.prepareTransformer({ ...weights, layers: [{ ...weights.layers[0], attention: { ...weights.layers[0].attention, kvHeads: 3 } }] }),
      { field: 'layers[0].attention.kvHeads' });
    const prepared = engine.prepareTransformer(weights);
    try {
      const good = prepared.run({ ids: [1, 4, 0] });
      assert.equal(good.logits.length, 3 * 5);
      assert.throws(() => prepared.run({ ids: [1, 5] }), (e) => e instanceof RangeError && e.field === 'ids' && e.message === 'ids[1] is 5; it must be between 0 and 4 (vocab − 1)');
      assert.throws(() => prepared.run({ ids: [0, 0, 0, 0] }), { field: 'positionTable' });
      assert.throws(() => prepared.run({}), { field: 'ids' });
      assert.throws(() => prepared.run({ ids: [1], x: [1, 2, 3, 4] }), { field: 'x' });
      assert.throws(() => prepared.run({ x: [1, 2, Infinity, 4] }), (e) => e.field === 'x' && /x\[2\] is Infinity/.test(e.message));
      assert.throws(() => prepared.run({ x: [1, 2, 3] }), { field: 'x' });
      assert.throws(() => prepared.run({ ids: [1], hiddenStates: 'yes' }), { field: 'hiddenStates' });
      assert.throws(() => prepared.run({ ids: [1], colour: 1 }), /colour/);
      assert.deepEqual(prepared.run({ ids: [1, 4, 0] }), good);
    } finally {
      prepared.dispose();
    }
  });
});
