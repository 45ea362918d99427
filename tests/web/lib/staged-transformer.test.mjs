// engine.stageTransformer() and a prepared stack's trace() through the JavaScript API, both learning
// builds: Hugging Face's GPT-2 (../shared/models/gpt2) handed in tensor by tensor (the token table
// piece by piece through tensorOf(), its tied panels packed where it was staged), prepared, then one
// traced run gives every hidden state, every layer's attention input, weights per head and output, and
// the top-5 next tokens to 1e-4 relative of reference.json; bad stagings and bad traces refused naming the field.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

import { folder, gpt2Request, relativeError } from './gpt2-request.mjs';
import { forEachBuild } from './builds.mjs';

const haveModel = existsSync(new URL('reference.json', folder));

function weightsOf(request) {
  const { ids, ...weights } = request;
  return { ids, weights };
}

// The token table as the model reader stages it: tensorOf() with its rows (room for the tied panels,
// packed in place), filled in three pieces of uneven size.
function stagedTable(staging, table, rows) {
  const { tensor, fill } = staging.tensorOf(table.length, { rows });
  const cuts = [0, 12345, Math.floor(table.length / 2), table.length];
  for (let i = 0; i < 3; i++) fill(cuts[i], table.subarray(cuts[i], cuts[i + 1]));
  return tensor;
}

// Every Float32Array of the weights handed in through a staging (engine.stageTransformer()); the
// token table through tensorOf().
const stagedCopy = (staging, value) => {
  if (value?.tokens instanceof Float32Array && value.vocab) {
    const { tokens, ...rest } = value;
    return { ...stagedCopy(staging, rest), tokens: stagedTable(staging, tokens, value.vocab) };
  }
  if (value instanceof Float32Array) return staging.tensor(value);
  if (Array.isArray(value)) return value.map((item) => stagedCopy(staging, item));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stagedCopy(staging, v)]));
  return value;
};

forEachBuild((build) => `${build} build: stageTransformer().reserve()`, { learning: true }, ({ engine }) => {
  it('reserve(): the memory grows once, before the tensors; staging them after it grows it no more; too much or nonsense is false', () => {
    // 96 MiB in 24 tensors: well past what the engine's memory holds free before
    const tensors = Array.from({ length: 24 }, (_, i) => new Float32Array(2 ** 20).fill(i));
    const values = tensors.reduce((sum, t) => sum + t.length, 0);
    const staging = engine.stageTransformer();
    try {
      const before = engine.memory();
      assert.ok(before.heapBytes - before.allocatedBytes < 4 * values, 'the room is not there before');
      assert.equal(staging.reserve(values + 2 ** 16), true);
      const { heapBytes, allocatedBytes } = engine.memory();
      assert.ok(heapBytes - allocatedBytes >= 4 * values, `room made: ${heapBytes - allocatedBytes} bytes free for ${4 * values}`);
      const staged = tensors.map((t) => staging.tensor(t));
      assert.equal(staged.length, 24);
      assert.equal(engine.memory().heapBytes, heapBytes, 'no growth while staging');
      for (const bad of [0, -1, NaN, Infinity, 2 ** 30]) assert.equal(staging.reserve(bad), false, String(bad));
      assert.equal(engine.memory().heapBytes, heapBytes, 'nothing grown by a refused reserve');
    } finally {
      staging.dispose();
    }
  });
});

forEachBuild((build) => `${build} build: stageTransformer() and trace()`, { learning: true }, ({ engine }) => {
  it('staged tensor by tensor, then traced: GPT-2\'s every hidden state, layer input, attention weights and output, and top 5', { skip: !haveModel && 'no ../shared/models/gpt2' }, (t) => {
    const { request, reference } = gpt2Request();
    const { ids, weights } = weightsOf(request);
    const staging = engine.stageTransformer();
    const prepared = staging.prepare(stagedCopy(staging, weights));
    assert.throws(() => staging.tensor(new Float32Array(1)), { field: 'staging' });
    try {
      const L = request.layers.length;
      const last = L - 1;
      const trace = prepared.trace({ ids, openLayer: last });
      let worst = 0;
      const near = (got, want, what) => {
        const error = relativeError(got, want.flat(Infinity));
        assert.ok(error <= 1e-4, `${what}: relative error ${error}`);
        worst = Math.max(worst, error);
      };
      const states = [trace.embeddings, ...trace.layers.slice(0, -1).map((layer) => layer.hidden), trace.output];
      states.forEach((state, i) => near(state, reference.hidden_states[i], `hidden_states[${i}]`));
      trace.layers.forEach((layer, l) => {
        near(layer.input, reference.layers[l].input, `layers[${l}].input`);
        const probs = new Float32Array(layer.weights.reduce((sum, w) => sum + w.length, 0));
        layer.weights.reduce((at, w) => (probs.set(w, at), at + w.length), 0);
        near(probs, reference.layers[l].probs, `layers[${l}].probs`);
        near(layer.output, reference.layers[l].output, `layers[${l}].output`);
      });
      assert.equal(trace.open.heads.length, request.layers[last].attention.heads);
      trace.open.heads.forEach((head, h) => assert.deepEqual(head.weights, trace.layers[last].weights[h]));
      assert.equal(trace.lastLogits.length, request.vocab);
      near(reference.next_token_top5.map(([id]) => trace.lastLogits[id]), reference.next_token_top5.map(([, logit]) => logit), 'top-5 logits');
      const order = [...trace.lastLogits.keys()].sort((a, b) => trace.lastLogits[b] - trace.lastLogits[a]).slice(0, 5);
      assert.deepEqual(order, reference.next_token_top5.map(([id]) => id));
      assert.equal(prepared.trace({ ids, lastLogits: false }).lastLogits, undefined);
      assert.equal(prepared.trace({ ids }).open, null);
      assert.throws(() => prepared.trace({ ids, openLayer: L }), (e) => e instanceof RangeError && e.field === 'openLayer');
      assert.throws(() => prepared.trace({ ids, openLayer: 'last' }), { field: 'openLayer' });
      t.diagnostic(`staged and traced: largest relative error to Hugging Face ${worst.toExponential(2)}`);
    } finally {
      prepared.dispose();
    }
  });

  it('a staging refuses what is not a Float32Array, another staging\'s tensors, and use after prepare', () => {
    const one = engine.stageTransformer();
    const two = engine.stageTransformer();
    try {
      assert.throws(() => one.tensor([1, 2]), { field: 'tensor' });
      assert.throws(() => one.tensorOf(2 ** 27 + 1), (e) => e instanceof RangeError && e.field === 'tensor' && /above the cap of 134217728/.test(e.message));
      assert.throws(() => one.tensorOf(8, { rows: -1 }), { field: 'rows' });
      const { fill } = one.tensorOf(8, { rows: 2 });
      assert.throws(() => fill(4, new Float32Array(5)), (e) => e instanceof RangeError && e.field === 'tensor' && /within the tensor's 8 values/.test(e.message));
      assert.throws(() => fill(0, [1, 2]), { field: 'tensor' });
      const tokens = two.tensor(new Float32Array(8));
      assert.throws(() => one.prepare({ vocab: 2, dModel: 4, tokens }), /another stageTransformer/);
      assert.throws(() => one.tensor(new Float32Array(1)), { field: 'staging' });
      const d = 4;
      const square = () => two.tensor(Float32Array.from({ length: d * d }, (_, i) => Math.cos(i) / 2));
      const prepared = two.prepare({ vocab: 2, dModel: d, tokens, unembedding: 'tied',
        layers: [{ attention: { heads: 2, wq: square(), wk: square(), wv: square(), wo: square() } }] });
      assert.equal(prepared.run({ ids: [1, 0] }).logits.length, 4);
      // 1 block × 2 heads × n² probabilities: 2,897 tokens make 16,785,218, above 2^24
      assert.throws(() => prepared.trace({ ids: new Array(2897).fill(1) }),
        (e) => e instanceof RangeError && e.field === 'ids' && /2897 tokens make 16785218 values, above the cap of 16777216/.test(e.message));
      assert.equal(prepared.trace({ ids: new Array(2896).fill(1), lastLogits: false }).layers[0].weights[1].length, 2896 * 2896);
      prepared.dispose();
    } finally {
      one.dispose();
      two.dispose();
    }
  });

});

forEachBuild((build) => `${build} build: a prepared stack's trace({ reuse })`, { learning: true }, ({ engine }) => {
  it('trace({ reuse }): the arrays written into the buffers handed back that fit, the same numbers; others new, bad reuse refused', () => {
    const staging = engine.stageTransformer();
    const d = 8;
    const square = (k) => staging.tensor(Float32Array.from({ length: d * d }, (_, i) => Math.sin(i * k) / 3));
    const layer = (k) => ({ arrangement: 'attention-only', attention: { heads: 2, mask: 'causal', wq: square(k), wk: square(k + 1), wv: square(k + 2), wo: square(k + 3) } });
    const prepared = staging.prepare({ vocab: 5, dModel: d, tokens: staging.tensor(Float32Array.from({ length: 5 * d }, (_, i) => Math.cos(i))),
      positions: 'sinusoidal', layers: [layer(1), layer(5)], unembedding: 'tied' });
    try {
      const ids = [1, 4, 2];
      const arrays = (trace) => [trace.embeddings, ...trace.layers.flatMap((l) => [l.input, ...l.weights, l.output, l.hidden]), trace.output];
      const fresh = prepared.trace({ ids });
      const earlier = prepared.trace({ ids: [3, 0, 2] });
      // 3 × 8 floats (embeddings, input, output, hidden per layer, output) and 3 × 3 (weights), and one of 7 that fits nothing
      const given = [...new Set(arrays(earlier).map((a) => a.buffer))];
      const odd = new ArrayBuffer(7 * 4);
      const reuse = [...given, odd];
      const again = prepared.trace({ ids, reuse });
      arrays(again).forEach((array, i) => {
        assert.ok(given.includes(array.buffer), `array ${i} written into a buffer handed back`);
        assert.deepEqual(array, arrays(fresh)[i], `array ${i}: the same numbers as a trace into new arrays`);
      });
      assert.equal(new Set(arrays(again).map((a) => a.buffer)).size, arrays(again).length, 'each buffer used once');
      assert.deepEqual(reuse, [odd], 'those taken are taken out of the array; the one that fits nothing is left');
      assert.deepEqual(again.lastLogits, fresh.lastLogits);
      // nothing left to reuse: new arrays, the same numbers
      const longer = prepared.trace({ ids: [...ids, 0], reuse });
      assert.equal(longer.layers[0].input.length, 4 * d);
      assert.deepEqual(reuse, [odd]);
      assert.throws(() => prepared.trace({ ids, reuse: [new Float32Array(24)] }), (e) => e instanceof TypeError && e.field === 'reuse');
    } finally {
      prepared.dispose();
    }
  });

});

forEachBuild((build) => `${build} build: a prepared stack's trace() holds one block's trace at a time`, { learning: true }, ({ engine }) => {
  it("trace(): WebAssembly memory keeps no block's trace after the run, a throw while copying one out stops the run and leaves nothing behind", () => {
    const staging = engine.stageTransformer();
    const d = 8;
    const L = 8;
    const n = 512;  // 2 heads × 512² probabilities: 2 MiB a block, 16 MiB the eight
    const square = (k) => staging.tensor(Float32Array.from({ length: d * d }, (_, i) => Math.sin(i * k) / 3));
    const layer = (k) => ({ arrangement: 'attention-only', attention: { heads: 2, mask: 'causal', wq: square(k), wk: square(k + 1), wv: square(k + 2), wo: square(k + 3) } });
    const prepared = staging.prepare({ vocab: 5, dModel: d, tokens: staging.tensor(Float32Array.from({ length: 5 * d }, (_, i) => Math.cos(i))),
      layers: Array.from({ length: L }, (_, l) => layer(l + 1)) });
    try {
      const ids = Array.from({ length: n }, (_, i) => (i * 3) % 5);
      const before = engine.memory().allocatedBytes;
      const fresh = prepared.trace({ ids });
      const grown = engine.memory().allocatedBytes - before;
      assert.equal(fresh.layers.length, L);
      assert.equal(fresh.layers[L - 1].weights[1].length, n * n);
      assert.ok(grown < 2 * n * n * 4, `allocated ${grown} bytes more after the run: less than one block's probabilities`);
      // a reuse array whose findIndex throws at the 8th array copied out (block 1's second): the error
      // reaches the caller, the run stops there and what it held is freed
      let copies = 0;
      const failing = new Proxy([], {
        get(target, key, receiver) {
          if (key === 'findIndex' && ++copies === 8) throw new Error('copy failed');
          return Reflect.get(target, key, receiver);
        },
      });
      const held = engine.memory().allocatedBytes;
      assert.throws(() => prepared.trace({ ids, reuse: failing }), /^Error: copy failed$/);
      assert.equal(copies, 8, 'the run stopped at the failing copy');
      assert.ok(engine.memory().allocatedBytes <= held, 'nothing left allocated by the stopped run');
      const again = prepared.trace({ ids });
      again.layers.forEach((l, i) => assert.deepEqual(l, fresh.layers[i], `layer ${i}: the same numbers after the stopped run`));
      assert.deepEqual(again.output, fresh.output);
    } finally {
      prepared.dispose();
    }
  });
});
