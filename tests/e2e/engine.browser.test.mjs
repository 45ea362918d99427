// The engine of dist/lib in headless Chromium: the three builds load, compute the notes' numbers, and
// throw named errors; 'auto' takes relaxed SIMD (Chromium has it); nothing is requested from another host.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { openBrowser } from './browser.mjs';

describe('engine in Chromium', () => {
  let browser;
  before(async () => {
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it("loads both builds, computes 'The cat sat' and reports errors by field", async () => {
    const { page, problems, foreignRequests } = await browser.newPage();
    await page.goto(browser.url);
    const results = await page.evaluate(async () => {
      const { loadAttention } = await import('./lib/attention.mjs');
      const out = {};
      for (const simd of ['auto', 'relaxed', true, false]) {
        const engine = await loadAttention({ simd });
        const r = engine.attention({ x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], n: 3, dModel: 4 });
        let error = null;
        try {
          engine.attention({ x: new Float32Array(10), n: 1, dModel: 10, heads: 3, wq: [], wk: [], wv: [] });
        } catch (e) {
          error = { name: e.constructor.name, field: e.field, message: e.message };
        }
        out[String(simd)] = { info: engine.info, output: Array.from(r.output), weights: Array.from(r.heads[0].weights), error };
      }
      return out;
    });
    // Chromium 156 has relaxed SIMD: 'auto' takes the relaxed build (fused multiply-adds)
    assert.deepEqual([results.auto.info.build, results.auto.info.simd], ['relaxed', true], 'Chromium validates the relaxed-SIMD probe');
    assert.equal(results.relaxed.info.build, 'relaxed');
    assert.equal(results.true.info.build, 'simd');
    assert.equal(results.true.info.simd, true);
    assert.equal(results.false.info.simd, false);
    for (const { output, weights, error } of Object.values(results)) {
      const expected = [0.8446, 0.5777, 0.8446, 0.5777, 0.5777, 0.8446, 0.5777, 0.8446, 0.7881, 0.7881, 0.7881, 0.7881];
      expected.forEach((value, i) => assert.ok(Math.abs(output[i] - value) < 5e-5, `output[${i}] = ${output[i]}`));
      [0.4223, 0.1554, 0.4223].forEach((value, i) => assert.ok(Math.abs(weights[i] - value) < 5e-5));
      assert.deepEqual(error, { name: 'RangeError', field: 'dModel', message: 'dModel (10) is not divisible by heads (3); give dK explicitly' });
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(foreignRequests, []);
  });
});
