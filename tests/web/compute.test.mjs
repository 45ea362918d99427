// compute.mjs's measure of a request's size, which decides where it runs: on the page (at most
// PAGE_WORK_LIMIT multiply-adds) or in the worker. The counts are worked out by hand below.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { forwardWork, PAGE_WORK_LIMIT } from '../../web/src/compute.mjs';

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
