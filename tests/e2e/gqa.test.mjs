// The GQA chapter (web/src/gqa/, view "gqa"): which query heads read which K/V head against
// transformers' repeat_kv rule (query head h reads key/value head h // (heads / kvHeads)); the cache's
// bytes against the formula and against the real Llama and Qwen2 folders (config.json typed in, the
// k_proj and v_proj shapes in model.safetensors as the check); the MHA → GQA conversion's output error
// against a float64 attention written here (the seeded weights drawn by the engine in Node, as the
// page draws them); kvHeads = heads gives the MHA output bit for bit; bad input named; keyboard;
// Hindi; 375 px; axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openBrowser, renderEverySection } from './browser.mjs';
import { loadAttention } from '../../dist/lib/attention.node.mjs';

const require = createRequire(import.meta.url);
const MODELS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/models');
const SUPERSCRIPT = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-' };
const parse = (text) => {
  const [mantissa, exponent] = text.trim().replace(/−/g, '-').split(' × 10');
  return Number(mantissa) * 10 ** (exponent ? Number([...exponent].map((c) => SUPERSCRIPT[c]).join('')) : 0);
};
const bytesOf = (text) => Number(/([\d,]+)(?: \(|$)/.exec(text.split(' = ').at(-1))[1].replace(/,/g, ''));

// Multi-head attention in float64: wq h blocks, wk and wv g blocks of (dModel, d); wo (h·d, dModel); no mask.
function attention64({ x, n, dModel, heads, kvHeads, d, wq, wk, wv, wo }) {
  const project = (w, block, row) => Array.from({ length: d }, (_, c) => {
    let sum = 0;
    for (let i = 0; i < dModel; i++) sum += x[row * dModel + i] * w[(block * dModel + i) * d + c];
    return sum;
  });
  const concat = Array.from({ length: n }, () => []);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / (heads / kvHeads));  // transformers' repeat_kv
    const k = Array.from({ length: n }, (_, j) => project(wk, g, j)), v = Array.from({ length: n }, (_, j) => project(wv, g, j));
    for (let i = 0; i < n; i++) {
      const q = project(wq, h, i);
      const s = k.map((row) => row.reduce((sum, value, c) => sum + value * q[c], 0) / Math.sqrt(d));
      const top = Math.max(...s), e = s.map((value) => Math.exp(value - top)), total = e.reduce((a, b) => a + b, 0);
      for (let c = 0; c < d; c++) concat[i].push(e.reduce((sum, p, j) => sum + (p / total) * v[j][c], 0));
    }
  }
  return concat.flatMap((row) => Array.from({ length: dModel }, (_, o) => row.reduce((sum, value, c) => sum + value * wo[c * dModel + o], 0)));
}

function average64(w, heads, kvHeads, size) {
  const group = heads / kvHeads;
  return Array.from({ length: kvHeads * size }, (_, at) => {
    const g = Math.floor(at / size), c = at % size;
    let sum = 0;
    for (let m = 0; m < group; m++) sum += w[(g * group + m) * size + c];
    return sum / group;
  });
}

let browser, tab, engine;
before(async () => {
  browser = await openBrowser();
  tab = await browser.newPage();
  engine = await loadAttention();
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

async function group({ heads, kvHeads, dHead }) {
  await tab.page.fill('[data-gqa="heads"]', String(heads));
  await tab.page.fill('[data-gqa="kv-heads"]', String(kvHeads));
  await tab.page.fill('[data-gqa="d-head"]', String(dHead));
  await tab.page.click('[data-gqa="run"]');
  await tab.page.waitForFunction(([h, g]) => document.querySelector('[data-gqa="table"] caption')?.textContent.includes(`${h} query heads, ${g} key/value`), [heads, kvHeads]);
}

const rows = (selector) => tab.page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));

async function checkModel(name) {
  const config = JSON.parse(readFileSync(path.join(MODELS, name, 'config.json'), 'utf8'));
  const tokens = JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8')).ids.length;
  const file = readFileSync(path.join(MODELS, name, 'model.safetensors'));
  const header = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString('utf8'));
  const bytes = { float32: 4, bfloat16: 2, float16: 2 }[config.dtype];
  // the cache per token: every layer's k_proj and v_proj output widths, bytes each
  const perToken = Object.entries(header).filter(([key]) => /\.(k|v)_proj\.weight$/.test(key)).reduce((sum, [, t]) => sum + t.shape[0] * bytes, 0);
  const typed = { layers: config.num_hidden_layers, heads: config.num_attention_heads, kvHeads: config.num_key_value_heads,
    dHead: config.head_dim ?? config.hidden_size / config.num_attention_heads, bytes, tokens };
  for (const [field, value] of Object.entries(typed)) await tab.page.fill(`[data-gqa="model-${field}"]`, String(value));
  const table = Object.fromEntries((await rows('[data-gqa="model-cache"]')).map((row) => [row[0], row]));
  assert.equal(bytesOf(table.GQA[3]), perToken, `${name}: per token`);
  assert.equal(bytesOf(table.GQA[2]) * typed.layers, perToken, `${name}: per token and layer`);
  assert.equal(bytesOf(table.GQA[4]), perToken * tokens, `${name}: the reference sentence's ${tokens} tokens`);
  assert.equal(bytesOf(table.MHA[3]), perToken * (typed.heads / typed.kvHeads), `${name}: as MHA`);
}

async function checkConversion(heads, kvHeads, dHead) {
  const { x, n, dModel } = await tab.page.evaluate(() => {
    const { view } = globalThis.attentionLab;
    return { x: Array.from(view.x), n: view.tokens.length, dModel: view.dModel };
  });
  const w = engine.initWeights({ dModel, heads, dK: dHead, dV: dHead, seed: 11 });
  const common = { x, n, dModel, heads, d: dHead, wq: w.wq, wo: w.wo };
  const mha = attention64({ ...common, kvHeads: heads, wk: w.wk, wv: w.wv });
  const gqa = attention64({ ...common, kvHeads, wk: average64(w.wk, heads, kvHeads, dModel * dHead), wv: average64(w.wv, heads, kvHeads, dModel * dHead) });
  const largest = Math.max(...gqa.map((value, i) => Math.abs(value - mha[i])));
  const relative = Math.sqrt(gqa.reduce((sum, value, i) => sum + (value - mha[i]) ** 2, 0) / mha.reduce((sum, value) => sum + value ** 2, 0));
  const text = await tab.page.textContent('[data-gqa="convert"]');
  const [, shownLargest, shownRelative] = /the largest difference is (.+?), and ‖Δ‖ \/ ‖output‖ = (.+?)\. /.exec(text) ?? [];
  assert.ok(shownLargest, text);
  if (kvHeads === heads) {
    assert.equal(largest, 0);
    assert.equal(parse(shownLargest), 0, 'groups of one: the same weights, the same output');
  } else {
    assert.ok(Math.abs(parse(shownLargest) - largest) <= 1e-3 * largest + 1e-5, `largest: shows ${shownLargest}, float64 ${largest}`);
    assert.ok(Math.abs(parse(shownRelative) - relative) <= 1e-3 * relative + 1e-5, `relative: shows ${shownRelative}, float64 ${relative}`);
  }
}

/** axe-core's serious and critical findings in `selector`. */
async function seriousViolations(selector) {
  await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  return tab.page.evaluate(async (at) => {
    const result = await globalThis.axe.run(document.querySelector(at), { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
  }, selector);
}

describe('the GQA chapter', () => {
  it('groups the query heads as repeat_kv does, and counts the cache as 2 × kvHeads × d_head × 4 bytes', async () => {
    await open('view=gqa');
    for (const [heads, kvHeads] of [[8, 2], [6, 3], [4, 1], [4, 4]]) {
      await group({ heads, kvHeads, dHead: 4 });
      const table = await rows('[data-gqa="table"]');
      assert.equal(table.length, kvHeads);
      table.forEach(([g, readers]) => {
        const want = [];
        for (let h = 0; h < heads; h++) if (Math.floor(h / (heads / kvHeads)) === Number(g) - 1) want.push(h + 1);
        assert.equal(readers, want.join(', '), `K/V head ${g} of ${kvHeads}, ${heads} query heads`);
      });
      const cache = Object.fromEntries((await rows('[data-gqa="cache"]')).map(([kind, kv, perLayer]) => [kind, [Number(kv), bytesOf(perLayer)]]));
      assert.deepEqual(cache.MHA, [heads, 2 * heads * 4 * 4]);
      assert.deepEqual(cache.MQA, heads === 1 ? undefined : [1, 2 * 4 * 4]);
      assert.deepEqual(cache.GQA, kvHeads === heads || kvHeads === 1 ? undefined : [kvHeads, 2 * kvHeads * 4 * 4]);
    }
  });

  it("converts the seeded MHA layer to GQA with the output error a float64 attention finds, and kvHeads = heads is MHA bit for bit", async () => {
    await tab.page.evaluate(() => globalThis.attentionLab.setState({ ...globalThis.attentionLab.state, seed: 11 }));
    for (const [heads, kvHeads, dHead] of [[4, 2, 3], [6, 1, 2], [4, 4, 3]]) {
      await group({ heads, kvHeads, dHead });
      await checkConversion(heads, kvHeads, dHead);
      assert.equal(await tab.page.textContent('[data-gqa="same"]'), `With key/value heads = query heads = ${heads}, the core's output is the MHA output bit for bit.`);
    }
  });

  it("types a real model's config (Llama, Qwen2) and gives the bytes its k_proj and v_proj write per token", async () => {
    for (const name of ['llama', 'qwen2']) {
      await checkModel(name);
    }
  });

  it('names the field at fault (key/value heads not dividing, a model field out of range) and recovers', async () => {
    await tab.page.fill('[data-gqa="kv-heads"]', '3');
    await tab.page.fill('[data-gqa="heads"]', '8');
    await tab.page.click('[data-gqa="run"]');
    const status = 'section[data-view="gqa"] .flash-status';
    await tab.page.waitForFunction((at) => /kvHeads must divide heads \(8\), got 3/.test(document.querySelector(at).textContent), status);
    await tab.page.fill('[data-gqa="model-heads"]', '32');
    await tab.page.fill('[data-gqa="model-kvHeads"]', '5');
    assert.equal(await tab.page.textContent('[data-gqa="model-problem"]'), 'Key/value heads: it must divide the query heads (32).');
    await tab.page.fill('[data-gqa="model-kvHeads"]', '8');
    await tab.page.fill('[data-gqa="model-bytes"]', '0');
    assert.equal(await tab.page.textContent('[data-gqa="model-problem"]'), 'Bytes per number: a whole number from 1 to 8, please.');
    await tab.page.fill('[data-gqa="model-bytes"]', '2');
    assert.equal(await tab.page.textContent('[data-gqa="model-problem"]'), '');
    await group({ heads: 8, kvHeads: 4, dHead: 4 });
    // the caption may already read 8 and 4 from an earlier run: wait for this run's end, not the caption
    await tab.page.waitForFunction((at) => !/Computing/.test(document.querySelector(at).textContent), status);
    assert.equal(await tab.page.textContent(status), '');
  });

  it('steps through the query heads with the keyboard: each reads ⌊h · kvHeads / heads⌋', async () => {
    await group({ heads: 8, kvHeads: 2, dHead: 4 });
    await tab.page.focus('[data-gqa="prev"]');
    for (let i = 0; i < 8; i++) await tab.page.keyboard.press('Enter');
    await tab.page.focus('[data-gqa="next"]');
    for (let h = 0; h < 8; h++) {
      const text = await tab.page.textContent('[data-gqa="reads"]');
      assert.match(text, new RegExp(`^Query head ${h + 1}: .* = ${Math.floor(h / 4)}, counted from 0: K/V head ${Math.floor(h / 4) + 1}\\.`));
      if (h < 7) await tab.page.keyboard.press('Enter');
    }
    assert.equal(await tab.page.isDisabled('[data-gqa="next"]'), true);
  });

  it('in Hindi at 375 px: the Hindi texts, no page overflow, and axe-core finds nothing serious', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await open('view=gqa&lang=hi');
    await tab.page.click('[data-gqa="run"]');
    await tab.page.waitForFunction(() => document.querySelector('[data-gqa="table"] caption')?.textContent.includes('8 query heads'));
    assert.match(await tab.page.textContent('section[data-view="gqa"] h2'), /keys और values बाँटने वाले heads/);
    const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 375`);
    assert.deepEqual(await seriousViolations('section[data-view="gqa"]'), []);
  });
});

describe("the GQA chapter's practice", () => {
  it('practice: the K/V head a query head reads (repeat_kv), and a typed model\'s cache bytes, mistakes named', async () => {
    await tab.page.setViewportSize({ width: 1280, height: 800 });
    await open('view=gqa');
    await group({ heads: 8, kvHeads: 2, dHead: 4 });
    const answer = async (key, value) => {
      await tab.page.fill(`[data-${key}-practice="answer"]`, String(value));
      await tab.page.click(`[data-${key}-practice="check"]`);
      return tab.page.textContent(`[data-${key}-practice="feedback"]`);
    };
    const [, head] = /which K\/V head does query head (\d+) read/.exec(await tab.page.textContent('[data-gqa-practice="question"]')) ?? [];
    const h = Number(head) - 1;
    assert.equal(new Set([Math.floor(h / 4) + 1, (h % 2) + 1, Math.floor(h / 4)]).size, 3, 'a head where the answer and both mistakes differ');
    assert.equal(await answer('gqa', Math.floor(h / 4) + 1), `Right: the engine gives ${Math.floor(h / 4) + 1}.`);
    assert.match(await answer('gqa', (h % 2) + 1), /by taking h mod kvHeads instead of ⌊h · kvHeads \/ heads⌋\./);
    assert.match(await answer('gqa', Math.floor(h / 4)), /by counting from 0 \(the question counts from 1\)\./);
    const model = { layers: 32, heads: 32, kvHeads: 8, dHead: 128, bytes: 2, tokens: 8192 };
    for (const [field, value] of Object.entries(model)) await tab.page.fill(`[data-gqa="model-${field}"]`, String(value));
    assert.match(await tab.page.textContent('[data-gqa-cache-practice="question"]'), /\(32 layers, 8 key\/value heads of d_head = 128, 2 bytes per number\)/);
    const perToken = 32 * 2 * 8 * 128 * 2;  // layers × (K and V) × kvHeads × d_head × bytes
    assert.equal(await answer('gqa-cache', perToken), `Right: the engine gives ${perToken}.`);
    assert.match(await answer('gqa-cache', perToken / 2), /by counting K but not V\./);
    assert.match(await answer('gqa-cache', perToken / 32), /by forgetting the layers\./);
    assert.match(await answer('gqa-cache', perToken * 4), /by counting every query head instead of the key\/value heads\./);
  });
});
