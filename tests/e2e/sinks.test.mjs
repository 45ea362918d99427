// The sinks chapter (web/src/sinks/, view "sinks"): the example's rows with and without a sink logit
// against a float64 sink softmax written here (weights, their sums, the sink's share, the output); the
// no-op head's rows parked on '<s>'; σ = −∞ the plain softmax exactly; StreamingLLM's cache: the kept
// positions by the rule and each decoded row against a float64 attention over exactly those keys,
// beside the full causal pass; the step-through by keyboard; Hindi at 375 px; axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useChapterPage } from './browser.mjs';
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

let tab;
const { open } = useChapterPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

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

  // (bit for bit in the core too: tests/core/test_modern_exact.cpp)
  it('σ = −∞ (no sink) is the plain softmax bit for bit: the same float32 weights and output, nothing on the sink', async () => {
    await compute({ mode: 'none' });
    const s = await shown();
    for (const [weights, plainSum, sinkWeights, keySum, sink, zPlain, zSink] of s.sinks) {
      assert.equal(sinkWeights, weights, 'the row reads the same');
      assert.equal(keySum, plainSum, 'Σ');
      assert.equal(parse(sink), 0);
      assert.equal(zSink, zPlain, 'z');
    }
    // the chapter's σ = −∞ pass (its call: the example, one tile, sinks [−∞, −∞]) against the engine's
    // sink-free passes, attention() and flashAttention() with no sinks: every float32 the same
    const example = Object.fromEntries(Object.entries(exampleOptions()).map(([key, value]) => [key, value instanceof Float32Array ? Array.from(value) : value]));
    const bits = await tab.page.evaluate(async (plain) => {
      const options = Object.fromEntries(Object.entries(plain).map(([key, value]) => [key, Array.isArray(value) ? Float32Array.from(value) : value]));
      const { loadAttention } = await import('./lib/attention.mjs');
      const engine = await loadAttention({ learning: true });
      const arr = (a) => Array.from(a);
      const heads = (result) => result.heads.map((h) => ({ weights: arr(h.weights), z: arr(h.z), sink: arr(h.sinkWeight ?? []) }));
      const minusInfinity = engine.flashAttention({ ...options, tile: options.n, sinks: [-Infinity, -Infinity] });
      const none = engine.flashAttention({ ...options, tile: options.n });
      const exact = engine.attention({ ...options, trace: true });
      return { sink: heads(minusInfinity), none: heads(none), exact: heads(exact), flashExact: heads(minusInfinity.exact) };
    }, example);
    assert.equal(bits.sink.length, 2);
    let apart = 0;
    bits.sink.forEach((h, head) => {
      assert.ok(h.weights.some((w) => w > 0 && w < 1), 'weights to compare');
      // bit for bit: the same routine with no sink at all (the same start, m = −∞ and ℓ = 0)
      assert.deepEqual(h.weights, bits.none[head].weights, `head ${head + 1}: σ = −∞ weights = no sink's, bit for bit`);
      assert.deepEqual(h.z, bits.none[head].z, `head ${head + 1}: σ = −∞ output = no sink's, bit for bit`);
      assert.deepEqual(bits.flashExact[head].weights, bits.exact[head].weights, 'the chapter\'s plain column is attention()\'s, bit for bit');
      assert.ok(h.sink.every((w) => w === 0), 'nothing on the sink');
      // attention() itself: its kernels divide the scores by the scale and take e^x in float32, the tiled
      // pass multiplies by 1/scale and takes e^x in double, so the two agree to float32's last bit or so
      h.weights.forEach((w, k) => { apart = Math.max(apart, Math.abs(w - bits.exact[head].weights[k])); });
    });
    assert.ok(apart <= 5e-7, `σ = −∞ against attention(): largest difference ${apart}`);
    // and both as the float64 softmax gives them (to float32's rounding)
    const want = attention64(exampleOptions(), causal);
    const n = exampleOptions().n;
    bits.sink.forEach((h, head) => want.forEach((row, i) => row.weights[head].forEach((w, j) => {
      assert.ok(Math.abs(h.weights[i * n + j] - w) <= 1e-6, `head ${head + 1} row ${i} key ${j}: ${h.weights[i * n + j]} against ${w}`);
    })));
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

// The practice (shared/chapter-practice.mjs): what the last row spends on its keys with σ one above the
// table's, against the float64 sink softmax above (1 − the sink's share); the typical mistakes named.
describe("the sinks chapter's practice", () => {
  const answer = async (value) => {
    await tab.page.fill('[data-sinks-practice="answer"]', String(value));
    await tab.page.press('[data-sinks-practice="answer"]', 'Enter');
    return tab.page.textContent('[data-sinks-practice="feedback"]');
  };

  for (const [head, mode, sigma, asked] of [[1, 'learned', -2, -1], [0, 'none', 0, 1], [1, 'one', 0, 1]]) {
    it(`head ${head + 1}, ${mode} σ = ${sigma}: asks σ = ${asked}, takes the float64 sum, names the typical mistakes`, async () => {
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      if (mode === 'learned') await open('view=sinks&preset=telescope');
      await compute({ head, mode, sigma });
      const example = exampleOptions(), n = example.n;
      const row = attention64(example, causal, asked)[n - 1];
      const spent = 1 - row.sink[head];
      const question = await tab.page.textContent('[data-sinks-practice="question"]');
      assert.match(question, new RegExp(`^Head ${head + 1}, 'mat': its scaled scores are .+\\. With a sink logit σ = ${asked}, what do its weights on the keys sum to\\?$`));
      assert.match(await answer(spent.toPrecision(4)), /^Right: the engine gives /);
      // the scores the question shows, in float64: Σ e^s, and the mistakes from them
      const total = Math.exp(asked) * (1 - row.sink[head]) / row.sink[head];
      // a mistake is named only where it gives another number than the right one (to the 4 digits typed)
      const apart2 = (value) => Math.abs(value - spent) > 6e-3 * spent;
      const logit = total / (total + asked);
      if (apart2(logit)) assert.match(await answer(logit.toPrecision(4)), /by adding σ itself, not e\^σ, to the denominator\. Try again\.$/);
      assert.match(await answer(row.sink[head].toPrecision(4)), /by giving the sink's share e\^σ \/ \(Σ e\^s \+ e\^σ\), not the keys'\. Try again\.$/);
      if (apart2(1)) assert.match(await answer(1), /by forgetting the sink's e\^σ in the denominator \(a plain row sums to 1\)\. Try again\.$/);
    });
  }

  it('in Hindi: the question and a named mistake', async () => {
    await open('view=sinks&lang=hi&preset=telescope');
    await tab.page.selectOption('[data-sinks="head"]', '1');
    await tab.page.click('[data-sinks="run"]');
    await tab.page.waitForFunction(() => document.querySelector('[data-sinks-practice="question"]')?.textContent.startsWith('Head 2,'));
    assert.match(await tab.page.textContent('[data-sinks-practice="question"]'), /sink logit σ = 4 के साथ keys पर इसके weights का योग क्या है\?$/);
    assert.match(await answer(1), /भाजक में sink का e\^σ भूल जाते हैं/);
  });
});
