// The window chapter (web/src/window/, view "window"): the banded weights against a float64 causal
// attention with the window written here from the lab's x and weights; how far a token is reached after
// 1 … L layers, as the engine measured it, against the rule the core's window implies (key j visible to
// query i when 0 ≤ i − j < w, so L layers reach (w − 1)·L tokens back); the step-through by keyboard;
// Hindi at 375 px; axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useChapterPage } from './browser.mjs';

const require = createRequire(import.meta.url);
const SUPERSCRIPT = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-' };
const parse = (text) => {
  const [mantissa, exponent] = text.trim().split(' × 10');
  return Number(mantissa) * 10 ** (exponent ? Number([...exponent].map((c) => SUPERSCRIPT[c]).join('')) : 0);
};
const near = (shown, want, what) => assert.ok(Math.abs(shown - want) <= 6e-4 * Math.max(1, Math.abs(want)), `${what}: shows ${shown}, float64 ${want}`);

// One head's weights in float64: causal, key j visible to query i when i − j < w.
function windowed64({ x, n, dModel: d, dK, wq, wk, scale }, head, w) {
  const project = (m) => Array.from({ length: n }, (_, r) => Array.from({ length: dK }, (_, c) => {
    let sum = 0;
    for (let t = 0; t < d; t++) sum += x[r * d + t] * m[(head * d + t) * dK + c];
    return sum;
  }));
  const q = project(wq), k = project(wk);
  return q.map((qi, i) => {
    const s = k.map((kj, j) => (i - j >= 0 && i - j < w ? kj.reduce((a, v, c) => a + v * qi[c], 0) / scale : -Infinity));
    const top = Math.max(...s), e = s.map((v) => Math.exp(v - top)), total = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / total);
  });
}

let tab;
const { open } = useChapterPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

async function compute(w, layers) {
  await tab.page.fill('[data-window="size"]', String(w));
  await tab.page.fill('[data-window="layers"]', String(layers));
  await tab.page.click('[data-window="run"]');
  await tab.page.waitForFunction(({ w, layers }) => document.querySelector('[data-window="table"] caption')?.textContent.includes(`${w} `)
    && document.querySelectorAll('[data-window="reach-table"] tbody tr').length === layers, { w, layers });
}

async function shown() {
  return tab.page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const arr = (a) => Array.from(a);
    const cells = (key) => [...document.querySelectorAll(`[data-window="${key}"] tbody tr`)].map((tr) => [...tr.querySelectorAll('td')].map((c) => c.textContent));
    return {
      lab: { x: arr(view.x), n: view.tokens.length, dModel: view.dModel, dK: view.dK, wq: arr(view.weights.wq), wk: arr(view.weights.wk), scale: view.result.shape.scale },
      head: state.selectedHead === 'all' ? 0 : state.selectedHead,
      token: Number(document.querySelector('[data-window="token"]').value),
      weights: cells('table'), reach: cells('reach-table'),
      line: document.querySelector('[data-window="reach"]').textContent,
      rule: document.querySelector('[data-window="rule"]').textContent,
    };
  });
}

// Layer by layer, the reached tokens of the chosen one as the rule gives them.
function ruleReach(token, w, layers, n) {
  return Array.from({ length: layers }, (_, l) => Array.from({ length: n }, (_, j) => (token - j >= 0 && token - j <= (w - 1) * (l + 1) ? '●' : '·')));
}

describe('the window chapter', () => {
  for (const [w, layers, weights] of [[2, 3, 'identity'], [3, 2, 'random'], [1, 2, 'identity']]) {
    it(`w = ${w}, L = ${layers} (${weights} weights): banded weights as float64 gives them, reach measured = (w − 1)·L + 1`, async () => {
      await open(`view=controls,window&preset=telescope&weights=${weights}`);
      await compute(w, layers);
      const s = await shown();
      const { n } = s.lab;
      assert.equal(s.token, n - 1, 'the last token is chosen first');
      const want = windowed64(s.lab, s.head, w);
      assert.equal(s.weights.length, n);
      s.weights.forEach((row, i) => row.forEach((cell, j) => {
        if (i - j >= 0 && i - j < w) near(parse(cell), want[i][j], `weight ${i},${j}`);
        else assert.equal(cell, '·', `${i},${j} is out of the window`);
      }));
      // all layers shown once the walk reaches the last one
      for (let l = 1; l < layers; l++) await tab.page.click('[data-window="next"]');
      assert.deepEqual((await shown()).reach, ruleReach(n - 1, w, layers, n));
      assert.match(s.rule, new RegExp(`\\(w − 1\\) × L \\+ 1 = ${(w - 1) * layers + 1} tokens`));
    });
  }

  it('another token, chosen in the chapter: its reach follows it', async () => {
    await open('view=window&preset=telescope');
    await compute(2, 2);
    await tab.page.selectOption('[data-window="token"]', '3');
    await tab.page.waitForFunction(() => document.querySelector('[data-window="reach-table"] caption').textContent.includes('(token 4)'));
    await tab.page.click('[data-window="next"]');
    const s = await shown();
    assert.deepEqual(s.reach, ruleReach(3, 2, 2, s.lab.n));
  });

  it('walks the layers with the keyboard, from layer 1', async () => {
    await open('view=window&preset=telescope');
    await compute(2, 3);
    assert.match(await tab.page.textContent('[data-window="reach"]'), /^After layer 1 of 3: '.+' was moved by tokens 7–8, 2 in all/);
    assert.equal(await tab.page.locator('[data-window="reach-table"] tbody tr:not([hidden])').count(), 1);
    await tab.page.focus('[data-window="next"]');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-window="reach"]'), /^After layer 2 of 3: '.+' was moved by tokens 6–8, 3 in all/);
    await tab.page.keyboard.press('Enter');
    await tab.page.keyboard.press('Enter');  // stops at the last layer
    assert.match(await tab.page.textContent('[data-window="reach"]'), /^After layer 3 of 3:/);
    await tab.page.focus('[data-window="prev"]');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-window="reach"]'), /^After layer 2 of 3:/);
  });

  it('in Hindi at 375 px: the Hindi texts, no page overflow, and axe-core finds nothing serious', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await open('view=window&lang=hi&preset=telescope');
    await compute(2, 2);
    assert.match(await tab.page.textContent('section[data-view="window"] h2'), /Sliding window: token कितनी दूर देखता है/);
    assert.match(await tab.page.textContent('[data-window="reach"]'), /^Layer 1 \/ 2 के बाद/);
    const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 375`);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('section[data-view="window"]'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
    });
    assert.deepEqual(violations, []);
  });
});

// The practice (shared/chapter-practice.mjs): the first key a query reads, from the float64 weights
// above (the first key they do not mask), and the tokens that reach it after L layers, counted here by
// the rule min(i + 1, (w − 1)·L + 1); Mistral's w·L, the one-off and the text's start named.
describe("the window chapter's practice", () => {
  const answer = async (key, value) => {
    await tab.page.fill(`[data-${key}-practice="answer"]`, String(value));
    await tab.page.press(`[data-${key}-practice="answer"]`, 'Enter');
    return tab.page.textContent(`[data-${key}-practice="feedback"]`);
  };
  const firstKey = (weights, i) => weights[i].findIndex((value) => value > 0) + 1;
  const reached = (i, w, layers) => Math.min(i + 1, (w - 1) * layers + 1);

  it('the first key and the receptive field: right answers from float64, typical mistakes named, in English and Hindi', async () => {
    await tab.page.setViewportSize({ width: 1280, height: 800 });
    await open('view=window&preset=telescope&weights=random');
    const [w, layers] = [3, 2];
    await compute(w, layers);
    let s = await shown();
    const weights = windowed64(s.lab, s.head, w);
    let i = s.token;
    assert.match(await tab.page.textContent('[data-window-practice="question"]'), new RegExp(`^With a window of w = 3, query token ${i + 1} \\(`));
    assert.equal(firstKey(weights, i), i + 1 - w + 1);
    assert.match(await answer('window', firstKey(weights, i)), new RegExp(`^Right: the engine gives ${firstKey(weights, i)}\\.`));
    assert.match(await answer('window', i + 1 - w), /by counting one off \(w keys before the query, rather than w with it\)\. Try again\.$/);
    assert.match(await tab.page.textContent('[data-window-reach-practice="question"]'), new RegExp(`^With w = 3 and L = 2 layers, how many tokens .* token ${i + 1} \\(`));
    assert.match(await answer('window-reach', reached(i, w, layers)), /^Right: the engine gives 5\./);
    assert.match(await answer('window-reach', w * layers), /by taking w × L: each layer reaches w − 1 further back, not w\. Try again\.$/);
    assert.match(await answer('window-reach', (w - 1) * layers), /by leaving the token itself out\. Try again\.$/);
    // near the start of the text: the window and the field are cut by token 1
    await tab.page.selectOption('[data-window="token"]', '1');
    await tab.page.waitForFunction(() => document.querySelector('[data-window-practice="question"]').textContent.includes('query token 2 '));
    s = await shown();
    i = s.token;
    assert.equal(firstKey(weights, i), 1);
    assert.match(await answer('window', 1), /^Right: the engine gives 1\./);
    assert.match(await answer('window', i + 1 - w + 1), /by forgetting that the text starts at token 1\. Try again\.$/);
    assert.match(await answer('window-reach', reached(i, w, layers)), /^Right: the engine gives 2\./);
    assert.match(await answer('window-reach', (w - 1) * layers + 1), /by forgetting that the text starts at token 1\./);
    assert.match(await answer('window-reach', 3), /^Not yet: 3 is not the engine's number\./);
  });

  it('in Hindi: the questions and the named mistake in Hindi', async () => {
    await open('view=window&lang=hi&preset=telescope');
    await compute(2, 3);
    assert.match(await tab.page.textContent('[data-window-practice="question"]'), /^w = 2 की window के साथ query token 8 /);
    assert.match(await answer('window-reach', 6), /w × L लेते हैं: हर layer w − 1 और पीछे पहुँचती है, w नहीं। फिर से कोशिश करें।$/);
    assert.match(await answer('window-reach', 4), /^सही: इंजन 4 देता है।$/);
  });
});
