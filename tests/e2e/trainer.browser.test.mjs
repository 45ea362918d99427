// The trainer in headless Chromium: the three builds (relaxed SIMD, SIMD, scalar) train, and after 30 Adam steps their weights are
// the same bits as each other's and as Node's (Arithmetic::Portable, one answer everywhere).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../dist/lib/attention.node.mjs';
import { openBrowser } from './browser.mjs';

// Run in the page and in Node alike: a classify task on seeded sentences of lengths 3 to 8.
async function train(loadAttention, simd) {
  const engine = await loadAttention({ simd, learning: true });
  let state = 7;
  const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const examples = Array.from({ length: 12 }, (_, i) => {
    const n = 3 + (i % 6);
    return { x: Array.from({ length: n * 6 }, next), query: i % n, target: i % 3 };
  });
  const trainer = engine.createTrainer({ model: { dModel: 6, heads: 2, biases: true, positions: 'sinusoidal' },
    loss: { kind: 'classify', classes: 3 }, optimizer: { kind: 'adam', learningRate: 0.05, clipNorm: 1 }, seed: 5 });
  trainer.setData(examples);
  const { losses } = trainer.step(30);
  const weights = Object.fromEntries(Object.entries(trainer.weights()).map(([name, values]) => [name, Array.from(values)]));
  trainer.dispose();
  return { simd: engine.info.simd, build: engine.info.build, first: losses[0], last: losses.at(-1), weights };
}

describe('trainer in Chromium', () => {
  let browser;
  before(async () => {
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('trains in both builds, to the same bits as in Node', async () => {
    const { page, problems, foreignRequests } = await browser.newPage();
    await page.goto(browser.url);
    // the same function as Node runs, as source (evaluated by the browser's debugger, not by the page)
    const inBrowser = await page.evaluate(`(async () => {
      const { loadAttention } = await import('./lib/attention.mjs');
      const train = ${train.toString()};
      return [await train(loadAttention, true), await train(loadAttention, false), await train(loadAttention, 'relaxed')];
    })()`);
    const inNode = await train(loadAttention, true);
    assert.deepEqual(inBrowser.map((r) => r.build), ['simd', 'scalar', 'relaxed']);
    for (const result of inBrowser) {
      assert.ok(result.last < result.first, `the loss falls: ${result.first} -> ${result.last}`);
      assert.deepEqual(result.weights, inNode.weights, `${result.build} build in Chromium vs Node`);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(foreignRequests, []);
  });
});
