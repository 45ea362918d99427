// The flash chapter (web/src/flash/, view "flash"): the per-tile table of the online softmax for the
// chosen query token and head, against a float64 online softmax computed here from the q, k and v the
// lab's trace shows; tiled equals exact; the step-through by keyboard; Hindi; 375 px; axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useChapterPage, renderEverySection } from './browser.mjs';

const require = createRequire(import.meta.url);
const SUPERSCRIPT = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-' };
// a number as formatNumber writes it ("0.1234", "1.2 × 10⁻⁵", "−∞")
const parse = (text) => {
  const [mantissa, exponent] = text.trim().split(' × 10');
  return Number(mantissa) * 10 ** (exponent ? Number([...exponent].map((c) => SUPERSCRIPT[c]).join('')) : 0);
};
const vector = (text) => text.replace(/[[\]]/g, '').split(',').map(parse);
// shown to 4 significant digits
const near = (shown, want, what) => assert.ok(Math.abs(shown - want) <= 6e-4 * Math.max(1, Math.abs(want)), `${what}: shows ${shown}, float64 ${want}`);

// The online softmax of one query row in float64, from the trace's q, k and v of one head.
function online(view, head, row, tile) {
  const { m, dK, dV } = view;
  const h = view.result.heads[head];
  const scale = view.result.shape.scale;
  const rows = [];
  let mRun = -Infinity, l = 0, o = new Array(dV).fill(0);
  for (let first = 0; first < m; first += tile) {
    const keys = [];
    for (let j = first; j < Math.min(m, first + tile); j++) {
      if (h.scaled[row * m + j] === -Infinity) continue;  // masked: the mask, not the arithmetic
      let dot = 0;
      for (let c = 0; c < dK; c++) dot += h.q[row * dK + c] * h.k[j * dK + c];
      keys.push({ j, s: dot / scale });
    }
    const mNew = Math.max(mRun, ...keys.map((key) => key.s));
    const r = Math.exp(mRun - mNew);
    l *= r;
    o = o.map((value) => value * r);
    for (const { j, s } of keys) {
      const p = Math.exp(s - mNew);
      l += p;
      for (let c = 0; c < dV; c++) o[c] += p * h.v[j * dV + c];
    }
    mRun = mNew;
    rows.push({ m: mRun, r, l, o: [...o] });
  }
  return { rows, z: o.map((value) => value / l) };
}

let browser, tab;
const { open } = useChapterPage({ before, after, assert, render: false, onReady: (opened, launched) => { tab = opened; browser = launched; } });

async function compute(tile) {
  await tab.page.fill('[data-flash="tile"]', String(tile));
  await tab.page.click('[data-flash="run"]');
  await tab.page.waitForFunction((t) => document.querySelector('[data-flash="table"] caption')?.textContent.includes(`${t} `)
    && document.querySelectorAll('[data-flash="table"] tbody tr').length > 0, tile);
}

async function shown() {
  return tab.page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const arr = (a) => Array.from(a);
    const heads = view.result.heads.map((h) => ({ q: arr(h.q), k: arr(h.k), v: arr(h.v), scaled: arr(h.scaled) }));
    const rows = [...document.querySelectorAll('[data-flash="table"] tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    return {
      view: { m: view.m, dK: view.dK, dV: view.dV, result: { heads, shape: { scale: view.result.shape.scale } } },
      token: state.selectedToken, head: state.selectedHead === 'all' ? 0 : state.selectedHead, rows,
      result: document.querySelector('[data-flash="result"]').textContent,
      memory: document.querySelector('[data-flash="memory"]').textContent,
      n: view.tokens.length,
    };
  });
}

describe('the flash chapter', () => {
  it('shows m, e^(m_old − m_new), ℓ and o per tile as a float64 online softmax gives them, and tiled = exact', async () => {
    await open('view=flash');
    for (const tile of [1, 2, 3]) {
      await compute(tile);
      const s = await shown();
      const want = online(s.view, s.head, s.token, tile);
      assert.equal(s.rows.length, Math.ceil(s.view.m / tile));
      s.rows.forEach(([, , , m, r, l, o], t) => {
        near(parse(m), want.rows[t].m, `tile ${t + 1} m`);
        near(parse(r), want.rows[t].r, `tile ${t + 1} rescale`);
        near(parse(l), want.rows[t].l, `tile ${t + 1} ℓ`);
        vector(o).forEach((value, c) => near(value, want.rows[t].o[c], `tile ${t + 1} o[${c}]`));
      });
      const [, z, exact, difference] = /z = o \/ ℓ = (\[.*?\])\. .* gives (\[.*?\]): the largest difference is (.+)\.$/.exec(s.result) ?? [];
      assert.ok(z, s.result);
      vector(z).forEach((value, c) => near(value, want.z[c], `z[${c}]`));
      assert.deepEqual(vector(exact), vector(z), 'the exact row reads the same');
      assert.ok(parse(difference) <= 1e-5, `tiled − exact: ${difference}`);
      assert.match(s.memory, new RegExp(`= ${s.n * s.view.m} values; the tiles take ${s.n * (Math.min(tile, s.view.m) + 2 + s.view.dV)} `));
    }
  });

  it('steps through the tiles with the keyboard from the first, showing the arithmetic of each', async () => {
    await compute(1);
    const tiles = (await shown()).rows.length;
    assert.ok(tiles > 1);
    // the walk starts at tile 1, its one row shown: the reader predicts the next
    let text = await tab.page.textContent('[data-flash="arithmetic"]');
    assert.match(text, /^Tile 1 of \d+: m = max\(−∞, /);
    assert.equal(await tab.page.locator('[data-flash="table"] tbody tr:not([hidden])').count(), 1);
    await tab.page.focus('[data-flash="next"]');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-flash="arithmetic"]'), new RegExp(`^Tile 2 of ${tiles}:`));
    assert.equal(await tab.page.locator('[data-flash="table"] tbody tr:not([hidden])').count(), 2);
    for (let i = 0; i < tiles; i++) await tab.page.keyboard.press('Enter');  // stops at the last tile
    text = await tab.page.textContent('[data-flash="arithmetic"]');
    assert.match(text, new RegExp(`^Tile ${tiles} of ${tiles}:`));
    assert.equal(await tab.page.locator('[data-flash="table"] tbody tr:not([hidden])').count(), tiles);
    await tab.page.focus('[data-flash="prev"]');
    await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-flash="arithmetic"]'), new RegExp(`^Tile ${tiles - 1} of ${tiles}:`));
  });

  it('a link to index.html?view=flash or ?view=kv-cache lands on that chapter, the whole page around it', async () => {
    for (const view of ['flash', 'kv-cache']) {
      await tab.page.goto(`${browser.url}index.html?view=${view}`);
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      await tab.page.waitForTimeout(100);
      // its top at the top of the view, or as near as the page's end lets it come, its title in view
      const { top, end, height } = await tab.page.$eval(`section[data-view="${view}"]`, (s) => ({
        top: s.getBoundingClientRect().top,
        end: scrollY + innerHeight >= document.documentElement.scrollHeight - 2,
        height: innerHeight,
      }));
      assert.ok(top > -1 && (top < 80 || (end && top < height / 2)), `${view}: the chapter's top is at ${top} px`);  // > −1: a subpixel
      assert.equal(await tab.page.locator('section[data-view="steps"]').count(), 1, 'the rest of the page is there');
    }
  });

});

describe('the flash chapter in Hindi, on a phone', () => {
  it('in Hindi at 375 px: the Hindi texts, the same numbers, no page overflow, and axe-core finds nothing serious', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await open('view=flash&lang=hi');
    await compute(2);
    const title = await tab.page.textContent('section[data-view="flash"] h2');
    assert.match(title, /FlashAttention: keys की एक tile/);
    const s = await shown();
    const want = online(s.view, s.head, s.token, 2);
    near(parse(s.rows.at(-1)[5]), want.rows.at(-1).l, 'ℓ in Hindi');
    // the step's line is monospace: its ℓ is drawn in the font a sans paragraph draws it in, not in
    // the monospace font for Hindi (Lohit Devanagari here, whose ℓ reads like ι), as Chromium reports
    await tab.page.evaluate(() => document.querySelector('[data-flash="arithmetic"]').scrollIntoView());
    assert.equal(await tab.page.textContent('[data-flash="arithmetic"] .ell'), 'ℓ');
    assert.match(await tab.page.textContent('[data-flash="arithmetic"]'), /ℓ = /, 'the sentence reads as before');
    const mono = await fontsOf(tab.page, '[data-flash="arithmetic"]');
    const ell = await fontsOf(tab.page, '[data-flash="arithmetic"] .ell');
    assert.ok(ell.length > 0 && !ell.some((family) => mono.includes(family) && /Devanagari/.test(family)), `ℓ drawn in ${ell}, the line in ${mono}`);
    const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 375`);
    await renderEverySection(tab.page);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('section[data-view="flash"]'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
    });
    assert.deepEqual(violations, []);
  });
});

// The practice (shared/chapter-practice.mjs): the whole update of the tile that follows the
// step-through's (new m, ℓ and o's value in one column of V), against the float64 online softmax above; keeping the
// old maximum, forgetting to rescale ℓ or o, and the old maximum in the tile's terms named.
// The font families Chromium draws a node's own text in (DevTools' "Rendered fonts").
async function fontsOf(page, selector) {
  const cdp = await page.context().newCDPSession(page);
  const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
  await cdp.send('CSS.enable');
  const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
  await cdp.detach();
  return fonts.map((font) => font.familyName);
}

describe("the flash chapter's practice", () => {
  it('asks m, ℓ and o after the next tile, takes the float64 answers, names the typical mistakes, and waits at the last tile', async () => {
    await tab.page.setViewportSize({ width: 1280, height: 800 });
    await open('view=flash');
    // a longer sentence and seeded weights: rows whose maximum moves from tile to tile
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.evaluate(() => globalThis.attentionLab.setState({ ...globalThis.attentionLab.state, sentence: 'the cat sat on the mat and then it slept', preset: null, weightsMode: 'random', seed: 4, selectedToken: 0 }));
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    await compute(1);
    const s = await shown();
    const want = online(s.view, s.head, s.token, 1);
    // a tile whose score raises the maximum, so that a forgotten rescale gives another ℓ
    const t = want.rows.findIndex((row, i) => i > 0 && row.m > want.rows[i - 1].m + 0.05);
    assert.ok(t > 0, 'some tile raises the running maximum');
    await tab.page.focus('[data-flash="next"]');
    for (let i = 1; i < t; i++) await tab.page.keyboard.press('Enter');
    const question = await tab.page.textContent('[data-flash-practice="question"]');
    assert.match(question, new RegExp(`^Tile ${t + 1} brings the scaled scores `));
    const answer = async (value, key = 'flash') => {
      await tab.page.fill(`[data-${key}-practice="answer"]`, String(value));
      await tab.page.press(`[data-${key}-practice="answer"]`, 'Enter');
      return tab.page.textContent(`[data-${key}-practice="feedback"]`);
    };
    const [before, after] = [want.rows[t - 1], want.rows[t]];
    // m: the larger of the old and the tile's; the old one kept named
    assert.match(await tab.page.textContent('[data-flash-max-practice="question"]'), new RegExp(`^Tile ${t + 1} brings the scaled scores .+ What is m after it\\?$`));
    assert.match(await answer(after.m.toPrecision(4), 'flash-max'), /^Right: the engine gives /);
    assert.match(await answer(before.m.toPrecision(4), 'flash-max'), /by keeping the old maximum \(the tile has a larger score\)\. Try again\.$/);
    assert.match(await answer(after.l.toPrecision(4)), /^Right: the engine gives /);
    // not rescaled: the old ℓ plus the tile's terms e^(s − m_new) (tiles of one key: ℓ_new − r·ℓ_old is that term)
    const term = after.l - after.r * before.l;
    assert.match(await answer((before.l + term).toPrecision(4)), /by forgetting to rescale ℓ by e\^\(m_old − m_new\)\. Try again\.$/);
    // the term against the old maximum: e^(s − m_old) = e^(s − m_new) / r, and the old ℓ not rescaled
    assert.match(await answer((before.l + term / after.r).toPrecision(4)), /by taking the tile's terms against the old maximum\. Try again\.$/);
    // o's value in the column asked: r·o_old + e^(s − m_new)·v; not rescaled, o_old + (o_new − r·o_old)
    const asked = await tab.page.textContent('[data-flash-out-practice="question"]');
    const [, column] = new RegExp(`^Tile ${t + 1}'s keys carry the values .+ in column (\\d+) of V\\. .+ what is that value after it \\(before dividing by ℓ\\)\\?$`).exec(asked) ?? [];
    assert.ok(column, asked);
    const c = Number(column) - 1;
    assert.match(await answer(after.o[c].toPrecision(4), 'flash-out'), /^Right: the engine gives /);
    const added = after.o[c] - after.r * before.o[c];
    if (Math.abs(before.o[c] * (1 - after.r)) > 0.01 * Math.max(1e-3, Math.abs(after.o[c]))) {
      assert.match(await answer((before.o[c] + added).toPrecision(4), 'flash-out'), /by forgetting to rescale o by e\^\(m_old − m_new\)\. Try again\.$/);
    }
    await tab.page.focus('[data-flash="next"]');
    for (let i = t; i < want.rows.length; i++) await tab.page.keyboard.press('Enter');
    assert.match(await tab.page.textContent('[data-flash-practice="question"]'), /^The step-through is at the last tile/);
    assert.equal(await tab.page.isDisabled('[data-flash-practice="answer"]'), true);
    assert.equal(await tab.page.isDisabled('[data-flash-max-practice="answer"]'), true);
    assert.equal(await tab.page.isDisabled('[data-flash-out-practice="answer"]'), true);
  });
});
