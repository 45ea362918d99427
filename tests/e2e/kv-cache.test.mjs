// The KV-cache chapter (web/src/kv-cache/, view "kv-cache"): each decoded step's row against a float64
// causal pass computed here from the lab's x and weights (with RoPE too), the multiply-adds and the
// cache's size counted by hand, decode = full pass, the step-through by keyboard, Hindi at 375 px, axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useChapterPage, renderEverySection, redrawn } from './browser.mjs';

const require = createRequire(import.meta.url);
const SUPERSCRIPT = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-' };
const parse = (text) => {
  const [mantissa, exponent] = text.trim().split(' × 10');
  return Number(mantissa) * 10 ** (exponent ? Number([...exponent].map((c) => SUPERSCRIPT[c]).join('')) : 0);
};
const vector = (text) => text.replace(/[[\]]/g, '').split(',').map(parse);
const near = (shown, want, what) => assert.ok(Math.abs(shown - want) <= 6e-4 * Math.max(1, Math.abs(want)), `${what}: shows ${shown}, float64 ${want}`);

// Causal multi-head attention in float64 (rotate-half RoPE on the first `dims` features when given):
// each row's output (concat · W_O when the lab uses W_O) and each head's weights.
function causal64({ x, n, dModel: d, heads, dK, dV, wq, wk, wv, wo, scale }, dims) {
  const project = (w, h, width) => Array.from({ length: n }, (_, r) => Array.from({ length: width }, (_, c) => {
    let sum = 0;
    for (let t = 0; t < d; t++) sum += x[r * d + t] * w[(h * d + t) * width + c];
    return sum;
  }));
  const rotate = (rows) => rows.map((row, position) => row.map((value, c) => {
    const half = dims / 2;
    if (c >= dims) return value;
    const pair = c < half ? c : c - half;
    const angle = position / 10000 ** ((2 * pair) / dims);
    return c < half ? value * Math.cos(angle) - row[c + half] * Math.sin(angle) : value * Math.cos(angle) + row[c - half] * Math.sin(angle);
  }));
  const concat = Array.from({ length: n }, () => []);
  const weights = [];
  for (let h = 0; h < heads; h++) {
    const q = rotate(project(wq, h, dK)), k = rotate(project(wk, h, dK)), v = project(wv, h, dV);
    weights.push(q.map((qi, i) => {
      const s = k.slice(0, i + 1).map((kj) => kj.reduce((a, value, c) => a + value * qi[c], 0) / scale);
      const top = Math.max(...s), e = s.map((value) => Math.exp(value - top)), total = e.reduce((a, b) => a + b, 0);
      const w = e.map((value) => value / total);
      concat[i].push(...Array.from({ length: dV }, (_, c) => w.reduce((a, wj, j) => a + wj * v[j][c], 0)));
      return w;
    }));
  }
  const output = wo ? concat.map((row) => Array.from({ length: d }, (_, c) => row.reduce((a, value, t) => a + value * wo[t * d + c], 0))) : concat;
  return { output, weights };
}

let tab;
const { open } = useChapterPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

async function decode(prefill, rope) {
  await tab.page.fill('[data-kv="prefill"]', String(prefill));
  await tab.page.setChecked('[data-kv="rope"]', rope);
  await tab.page.click('[data-kv="run"]');
  await tab.page.waitForFunction((p) => document.querySelector('[data-kv="table"] caption')?.textContent.includes(`${p} `), prefill);
}

async function shown() {
  return tab.page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const arr = (a) => (a ? Array.from(a) : null);
    const rows = [...document.querySelectorAll('[data-kv="table"] tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    return {
      lab: { x: arr(view.x), n: view.tokens.length, dModel: view.dModel, heads: view.heads, dK: view.dK, dV: view.dV,
        wq: arr(view.weights.wq), wk: arr(view.weights.wk), wv: arr(view.weights.wv), wo: state.useWo ? arr(view.weights.wo) : null,
        scale: view.result.shape.scale },
      identity: state.weightsMode === 'identity', head: state.selectedHead === 'all' ? 0 : state.selectedHead, rows,
      detail: document.querySelector('[data-kv="detail"]').textContent,
    };
  });
}

describe('the KV-cache chapter', () => {
  for (const rope of [false, true]) {
    it(`decodes every token as the full causal pass computes it${rope ? ', with RoPE' : ''}, counting the work and the cache`, async () => {
      await open('view=controls,kv-cache');
      // with RoPE, the seeded random weights too: every projection is then a product the count includes
      await tab.page.evaluate(() => { document.getElementById('settings').open = true; });  // folded at first (issue 26)
      if (rope) await redrawn(tab.page, () => tab.page.selectOption('#weightsMode', 'random'));
      await decode(1, rope);
      assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.state.weightsMode), rope ? 'random' : 'identity');
      const s = await shown();
      const { n, dModel: d, heads, dK, dV } = s.lab;
      const dims = rope ? Math.floor(dK / 2) * 2 : 0;
      const want = causal64(s.lab, dims);
      assert.equal(s.rows.length, n - 1);
      // identity projections are copies (no multiply-adds); W_O, when used, is a product even as the identity
      const projections = d * ((s.identity ? 0 : heads * dK + heads * dK + heads * dV) + (s.lab.wo ? heads * dV : 0));
      s.rows.forEach(([token, position, keys, work, full, cache, same], k) => {
        const i = k + 1, length = i + 1;
        // counted from 1, as the token column counts (the row's own token is its position)
        assert.equal(Number(position), i + 1);
        assert.equal(keys, `1–${i + 1}`, "keys read, by position as the Position column counts");
        assert.equal(token.split(':')[0], String(i + 1), 'the token column and the Position column agree');
        assert.equal(Number(work), projections + heads * length * (dK + dV));
        let seen = 0;
        for (let r = 1; r <= length; r++) seen += r;
        assert.equal(Number(full), length * projections + heads * seen * (dK + dV));
        assert.equal(cache, `${length * heads * (dK + dV)} values, ${length * heads * (dK + dV) * 4} bytes`);
        assert.match(same, /^yes, bit for bit$|^to rounding: largest difference /);
        if (same !== 'yes, bit for bit') assert.ok(parse(same.split('difference ')[1]) <= 1e-5, same);
      });
      // the first decoded step's detail (the walk starts there): its weights and output row against the float64 pass
      const last = n - s.rows.length;
      const [, weights, output] = /weights are (\[.*?\]); the output row (\[.*?\]) against/.exec(s.detail) ?? [];
      assert.ok(weights, s.detail);
      assert.match(s.detail, new RegExp(`at position ${last + 1} computes`), 'the detail counts positions from 1 too');
      vector(weights).forEach((value, j) => near(value, want.weights[s.head][last][j], `weight ${j}`));
      vector(output).forEach((value, c) => near(value, want.output[last][c], `output ${c}`));
    });
  }

  it('steps forth and back with the keyboard, from the first decoded step', async () => {
    await decode(1, false);
    const steps = (await shown()).rows.length;
    assert.match(await tab.page.textContent('[data-kv="detail"]'), new RegExp(`^Step 1 of ${steps}:`));
    assert.equal(await tab.page.locator('[data-kv="table"] tbody tr:not([hidden])').count(), 1);
    await tab.page.focus('[data-kv="next"]');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-kv="detail"]'), new RegExp(`^Step 2 of ${steps}:`));
    assert.equal(await tab.page.locator('[data-kv="table"] tbody tr:not([hidden])').count(), 2);
    await tab.page.focus('[data-kv="prev"]');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-kv="detail"]'), new RegExp(`^Step 1 of ${steps}:`));
  });

  it('in Hindi at 375 px: the Hindi texts, no page overflow, and axe-core finds nothing serious', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await open('view=kv-cache&lang=hi');
    await decode(2, true);
    assert.match(await tab.page.textContent('section[data-view="kv-cache"] h2'), /KV cache: एक बार में एक token/);
    assert.match(await tab.page.textContent('[data-kv="detail"]'), /^क़दम \d+ \/ \d+:/);
    const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 375`);
    await renderEverySection(tab.page);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('section[data-view="kv-cache"]'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
    });
    assert.deepEqual(violations, []);
  });
});

// The practice (shared/chapter-practice.mjs): the cache's bytes after the last step, against the count
// written here (tokens × (K and V) × kvHeads × d × 4 bytes); counting K but not V named.
describe("the KV-cache chapter's practice", () => {
  it("asks the cache's bytes after the last step and names counting K but not V", async () => {
    await tab.page.setViewportSize({ width: 1280, height: 800 });
    await open('view=kv-cache');
    await decode(1, false);
    const { n, heads, dK, dV } = await tab.page.evaluate(() => {
      const { view } = globalThis.attentionLab;
      return { n: view.tokens.length, heads: view.heads, dK: view.dK, dV: view.dV };
    });
    assert.equal(await tab.page.textContent('[data-kv-practice="question"]'),
      `After the last step the cache holds ${n} tokens, each with ${heads} key/value heads of d_k = ${dK} and d_v = ${dV}, in float32 (4 bytes). How many bytes is that?`);
    const answer = async (value) => {
      await tab.page.fill('[data-kv-practice="answer"]', String(value));
      await tab.page.click('[data-kv-practice="check"]');
      return tab.page.textContent('[data-kv-practice="feedback"]');
    };
    assert.equal(await answer(n * heads * (dK + dV) * 4), `Right: the engine gives ${n * heads * (dK + dV) * 4}.`);
    assert.equal(await answer(n * heads * dK * 4), `Not yet: ${n * heads * dK * 4} is what you get by counting K but not V. Try again.`);
    assert.match(await answer(n * heads * (dK + dV)), /by counting numbers, not bytes\./);
    assert.match(await answer('four kilobytes'), /^Your answer: type a number/);
  });
});
