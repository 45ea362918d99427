// The sinks chapter (web/src/sinks/, view "sinks"): the example's rows with and without a sink logit
// against a float64 sink softmax written here (weights, their sums, the sink's share, the output); the
// no-op head's rows parked on '<s>'; σ = −∞ the plain softmax exactly; StreamingLLM's cache: the kept
// positions by the rule and each decoded row against a float64 attention over exactly those keys,
// beside the full causal pass; the step-through by keyboard; Hindi at 375 px; axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { openBrowser, renderEverySection } from './browser.mjs';
import { exampleOptions } from '../../web/src/sinks/example.mjs';

const require = createRequire(import.meta.url);
const SUPERSCRIPT = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-' };
const parse = (text) => {
  const [mantissa, exponent] = text.trim().replace('−', '-').split(' × 10');
  return Number(mantissa) * 10 ** (exponent ? Number([...exponent].map((c) => SUPERSCRIPT[c]).join('')) : 0);
};
const vector = (text) => text.replace(/[[\]]/g, '').split(',').map(parse);
const near = (shown, want, what) => assert.ok(Math.abs(shown - want) <= 6e-4 * Math.max(1, Math.abs(want)), `${what}: shows ${shown}, float64 ${want}`);

// Multi-head attention in float64 where row i reads the keys keys(i) (positions), a sink logit σ
// (−Infinity for none) in every head's denominator: each head's weights (per row, over keys(i)), the
// sink's share and the concatenated output (times W_O when given).
function attention64({ x, n, dModel: d, heads, dK, dV, wq, wk, wv, wo, scale }, keys, sigma = -Infinity) {
  const project = (w, h, width) => Array.from({ length: n }, (_, r) => Array.from({ length: width }, (_, c) => {
    let sum = 0;
    for (let t = 0; t < d; t++) sum += x[r * d + t] * w[(h * d + t) * width + c];
    return sum;
  }));
  const divisor = scale === 'sqrt_dk' ? Math.sqrt(dK) : scale;
  const rows = Array.from({ length: n }, () => ({ weights: [], sink: [], concat: [] }));
  for (let h = 0; h < heads; h++) {
    const q = project(wq, h, dK), k = project(wk, h, dK), v = project(wv, h, dV);
    q.forEach((qi, i) => {
      const s = keys(i).map((j) => k[j].reduce((a, value, c) => a + value * qi[c], 0) / divisor);
      const top = Math.max(sigma, ...s), e = s.map((value) => Math.exp(value - top)), parked = Math.exp(sigma - top);
      const total = e.reduce((a, b) => a + b, 0) + parked;
      const w = e.map((value) => value / total);
      rows[i].weights.push(w);
      rows[i].sink.push(parked / total);
      rows[i].concat.push(...Array.from({ length: dV }, (_, c) => w.reduce((a, wj, r) => a + wj * v[keys(i)[r]][c], 0)));
    });
  }
  for (const row of rows) row.output = wo ? Array.from({ length: d }, (_, c) => row.concat.reduce((a, value, t) => a + value * wo[t * d + c], 0)) : row.concat;
  return rows;
}
const causal = (i) => Array.from({ length: i + 1 }, (_, j) => j);

let browser, tab;
before(async () => {
  browser = await openBrowser();
  tab = await browser.newPage();
});
after(async () => {
  assert.deepEqual(tab.problems, [], 'no console or page errors');
  assert.deepEqual(tab.foreignRequests, [], 'no request left the origin');
  await browser?.close();
});

async function open(query) {
  await tab.page.goto(`${browser.url}embed.html?${query}`);
  await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
  await renderEverySection(tab.page);
}

async function compute({ head = 0, mode = 'learned', sigma = 3, keep = 1, budget = 3 }) {
  await tab.page.selectOption('[data-sinks="head"]', String(head));
  await tab.page.selectOption('[data-sinks="mode"]', mode);
  if (mode === 'learned') await tab.page.fill('[data-sinks="sigma"]', String(sigma));
  await tab.page.fill('[data-sinks="keep"]', String(keep));
  await tab.page.fill('[data-sinks="budget"]', String(budget));
  // the tables emptied first, so that the wait below sees this answer's, not the last one's
  await tab.page.evaluate(() => document.querySelectorAll('[data-sinks$="table"]').forEach((table) => table.replaceChildren()));
  await tab.page.click('[data-sinks="run"]');
  const sink = { learned: `a sink logit σ = ${sigma}`, one: 'softmax + 1 (σ = 0)', none: 'no sink (σ = −∞)' }[mode];
  await tab.page.waitForFunction(({ keep, budget, head, sink }) => document.querySelector('[data-sinks="table"] caption')?.textContent.endsWith(`${budget} tokens keeping the first ${keep}`)
    && document.querySelector('[data-sinks="sink-table"] caption')?.textContent === `Head ${head + 1}, plain softmax against ${sink}`, { keep, budget, head, sink });
}

async function shown() {
  return tab.page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const arr = (a) => (a ? Array.from(a) : null);
    const cells = (key) => [...document.querySelectorAll(`[data-sinks="${key}"] tbody tr`)].map((tr) => [...tr.querySelectorAll('td')].map((c) => c.textContent));
    return {
      lab: { x: arr(view.x), n: view.tokens.length, dModel: view.dModel, heads: view.heads, dK: view.dK, dV: view.dV,
        wq: arr(view.weights.wq), wk: arr(view.weights.wk), wv: arr(view.weights.wv), wo: state.useWo ? arr(view.weights.wo) : null,
        scale: view.result.shape.scale },
      sinks: cells('sink-table'), evict: cells('table'),
      sums: document.querySelector('[data-sinks="sums"]').textContent,
      line: document.querySelector('[data-sinks="evictLine"]').textContent,
    };
  });
}

describe('the sinks chapter: the sink logit', () => {
  for (const [mode, sigma] of [['learned', 3], ['one', 0], ['learned', -2]]) {
    for (const head of [0, 1]) {
      it(`head ${head + 1}, ${mode} σ = ${sigma}: rows, sums, the sink's share and the output as a float64 sink softmax gives them`, async () => {
        if (head === 0 && mode === 'learned' && sigma === 3) await open('view=sinks&preset=telescope');
        await compute({ head, mode, sigma });
        const s = await shown();
        const example = exampleOptions();
        const plain = attention64(example, causal), withSink = attention64(example, causal, sigma);
        assert.equal(s.sinks.length, example.n);
        s.sinks.forEach(([weights, plainSum, sinkWeights, keySum, sink, zPlain, zSink], i) => {
          vector(weights).forEach((value, j) => near(value, plain[i].weights[head][j], `row ${i} plain weight ${j}`));
          near(parse(plainSum), 1, `row ${i} sums to 1`);
          vector(sinkWeights).forEach((value, j) => near(value, withSink[i].weights[head][j], `row ${i} weight ${j} with the sink`));
          near(parse(keySum), 1 - withSink[i].sink[head], `row ${i}: Σ over the keys = 1 − the sink's share`);
          near(parse(sink), withSink[i].sink[head], `row ${i} sink`);
          vector(zPlain).forEach((value, c) => near(value, plain[i].concat[head * 2 + c], `row ${i} z ${c}`));
          vector(zSink).forEach((value, c) => near(value, withSink[i].concat[head * 2 + c], `row ${i} z ${c} with the sink`));
          if (head === 0 && i > 0) assert.ok(plain[i].weights[0][0] > 0.9 && vector(weights)[0] > 0.9, `the no-op head parks row ${i} on '<s>'`);
        });
        assert.match(s.sums, new RegExp(`^Head ${head + 1}, 'mat': the plain row puts .+ on '<s>' and sums to 1;`));
      });
    }
  }

  // (bit for bit in the core: tests/core/test_modern_exact.cpp; here the tiled pass beside attention()'s)
  it('σ = −∞ (no sink) is the plain softmax: the same weights and output, nothing on the sink', async () => {
    await compute({ mode: 'none' });
    const s = await shown();
    for (const [weights, plainSum, sinkWeights, keySum, sink, zPlain, zSink] of s.sinks) {
      vector(sinkWeights).forEach((value, j) => near(value, vector(weights)[j], `weight ${j}`));
      near(parse(keySum), parse(plainSum), 'Σ');
      assert.equal(parse(sink), 0);
      vector(zSink).forEach((value, c) => near(value, vector(zPlain)[c], `z ${c}`));
    }
  });

});

describe("the sinks chapter: StreamingLLM's cache", () => {
  for (const [keep, budget] of [[1, 3], [2, 4], [0, 3]]) {
    it(`StreamingLLM, ${keep} sinks in a budget of ${budget}: the kept keys, and each row = attention over exactly them (float64)`, async () => {
      await compute({ keep, budget });
      const s = await shown();
      const { n } = s.lab;
      const kept = (i) => causal(i).filter((j) => i + 1 <= budget || j < keep || j > i - (budget - keep));
      const cut = attention64(s.lab, kept), full = attention64(s.lab, causal);
      assert.equal(s.evict.length, n - 1);
      // every step shown once the walk reaches the last
      for (let k = 1; k < n - 1; k++) await tab.page.click('[data-sinks="next"]');
      (await shown()).evict.forEach(([positions, output, fullOutput, difference], k) => {
        const i = k + 1;
        assert.equal(positions, kept(i).map((j) => j + 1).join(', '), `token ${i + 1}'s keys`);
        vector(output).forEach((value, c) => near(value, cut[i].output[c], `token ${i + 1} output ${c}`));
        vector(fullOutput).forEach((value, c) => near(value, full[i].output[c], `token ${i + 1} full output ${c}`));
        const largest = Math.max(...cut[i].output.map((value, c) => Math.abs(value - full[i].output[c])));
        near(parse(difference), largest, `token ${i + 1} difference`);
        if (i + 1 <= budget) assert.equal(parse(difference), 0, 'nothing evicted yet: the same row');
      });
    });
  }

  it('walks the decoded steps with the keyboard, from the first', async () => {
    await compute({});
    assert.match(await tab.page.textContent('[data-sinks="evictLine"]'), /^Step 1 of 7: '.+' at position 2 reads the keys at 1, 2 /);
    await tab.page.focus('[data-sinks="next"]');
    await tab.page.keyboard.press('Enter');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-sinks="evictLine"]'), /^Step 3 of 7: '.+' at position 4 reads the keys at 1, 3, 4 \(3; the cache then holds 3\)/);
    await tab.page.focus('[data-sinks="prev"]');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-sinks="evictLine"]'), /^Step 2 of 7:/);
  });

  it('in Hindi at 375 px: the Hindi texts, no page overflow, and axe-core finds nothing serious', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await open('view=sinks&lang=hi&preset=telescope');
    await tab.page.click('[data-sinks="run"]');
    await tab.page.waitForFunction(() => document.querySelectorAll('[data-sinks="table"] tbody tr').length > 0);
    assert.match(await tab.page.textContent('section[data-view="sinks"] h2'), /Attention sinks: पंक्ति/);
    assert.match(await tab.page.textContent('[data-sinks="evictLine"]'), /^क़दम 1 \/ 7:/);
    const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 375`);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('section[data-view="sinks"]'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
    });
    assert.deepEqual(violations, []);
  });
});
