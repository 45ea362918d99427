// compute.mjs's measure of a request's size, which decides where it runs: on the page (at most
// PAGE_WORK_LIMIT multiply-adds) or in the worker. The counts are worked out by hand below.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { forwardWork, PAGE_WORK_LIMIT } from '../../../../web/src/engine/compute.mjs';

describe('forwardWork', () => {
  it('counts the multiply-adds of self-attention at 12 tokens, d_model 64, 8 heads of 8, with W_O', () => {
    // per head: Q, K, V are 12 × 64 · 64 × 8 (3 · 6,144); scores 12 × 8 · 8 × 12 (1,152);
    // weights · V 12 × 12 · 12 × 8 (1,152); then concat · W_O is 12 × 64 · 64 × 64 (49,152)
    assert.equal(forwardWork({ n: 12, dModel: 64, heads: 8, dK: 8, dV: 8, useWo: true }), 8 * (3 * 6144 + 1152 + 1152) + 49152);
    assert.equal(forwardWork({ n: 12, dModel: 64, heads: 8, dK: 8, dV: 8, useWo: false }), 8 * (3 * 6144 + 1152 + 1152));
  });

  it('counts keys and values over the context in cross-attention', () => {
    // 3 queries, 5 context tokens, d_model 4, one head of d_k 2, d_v 3: Q 3·4·2, K 5·4·2, V 5·4·3,
    // scores 3·5·2, weights · V 3·5·3, W_O 3·3·4
    assert.equal(forwardWork({ n: 3, m: 5, dModel: 4, heads: 1, dK: 2, dV: 3, useWo: true }), 24 + 40 + 60 + 30 + 45 + 36);
  });

  it('puts the page figures\' sizes on the page and the largest the page allows in the worker', () => {
    assert.ok(forwardWork({ n: 64, dModel: 128, heads: 8, dK: 16, dV: 16, useWo: true }) <= PAGE_WORK_LIMIT);
    assert.ok(forwardWork({ n: 64, dModel: 128, heads: 16, dK: 128, dV: 128, useWo: true }) > PAGE_WORK_LIMIT);
  });
});

describe('bindLifetime: a removed lab is not held by answers still on their way', () => {
  // gc() at run time (node --test starts each file without --expose-gc)
  const gc = async () => {
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const collect = vm.runInNewContext('gc');
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      collect();
    }
  };
  // an engine whose answers never come, as a busy shared worker's for a long while: the compute
  // object keeps its promises, so whatever awaits them directly is kept with them
  const never = new Promise(() => {});
  const slow = { ready: never, run: () => never, varianceLab: () => never, softmaxRow: () => never, training: { start: () => never, dispose: () => never } };

  // a stand-in for a lab: 8 MB that its pending await keeps alive, or not
  function startLab(compute, controller) {
    const lab = { tables: new Float64Array(1 << 20) };
    (async () => {
      await compute.run({});
      lab.tables[0] = 1;
    })();
    (async () => {
      await compute.ready;
      lab.tables[1] = 1;
    })();
    controller.abort();
    return new WeakRef(lab);
  }

  it('without it the lab stays (the control), with it the lab is collected', async () => {
    const { bindLifetime } = await import('../../../../web/src/engine/lifetime.mjs');
    const held = startLab(slow, new AbortController());
    const controller = new AbortController();
    const freed = startLab(bindLifetime(slow, controller.signal), controller);
    await gc();
    assert.notEqual(held.deref(), undefined, 'a direct await of a held answer keeps the lab');
    assert.equal(freed.deref(), undefined, 'the bound lab is collected');
  });

  it('answers and errors pass through while the lab lives; calls after the end are still sent', async () => {
    const { bindLifetime } = await import('../../../../web/src/engine/lifetime.mjs');
    const sent = [];
    const engine = {
      ready: Promise.resolve({ simd: true }),
      run: async (request) => { sent.push(['run', request]); if (request.bad) throw new RangeError('bad n'); return { output: [request.n] }; },
      varianceLab: async () => [], softmaxRow: async () => [1],
      training: { dispose: async (key) => { sent.push(['dispose', key]); return true; } },
    };
    const controller = new AbortController();
    const bound = bindLifetime(engine, controller.signal);
    assert.deepEqual(await bound.run({ n: 3 }), { output: [3] });
    assert.deepEqual(await bound.ready, { simd: true });
    await assert.rejects(bound.run({ bad: true }), /bad n/);
    controller.abort();
    let settled = false;
    bound.training.dispose('lab-1').then(() => { settled = true; }, () => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(sent.at(-1), ['dispose', 'lab-1'], 'the dispose still reaches the engine');
    assert.equal(settled, false, 'its answer is dropped: the removed lab runs nothing');
  });
});
