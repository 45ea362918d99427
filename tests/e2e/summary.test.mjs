// The summary feature (web/src/summary/, the example of docs/contributing.md): for every preset and
// each head, the sentence names the key the float64 reference gives the query its largest weight
// to, with that weight; in Hindi it is the Hindi sentence with the same numbers.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { referenceAttention } from '../web/reference.mjs';
import { PRESETS } from '../../web/src/state/presets.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

// The page's inputs and weights through the float64 reference, and what the lab has selected.
async function reference() {
  const v = await tab.page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const arr = (a) => (a ? Array.from(a) : undefined);
    return {
      tokens: view.tokens, keyTokens: view.keyTokens, n: view.tokens.length, m: view.m, dModel: view.dModel, heads: view.heads,
      dK: view.dK, dV: view.dV, x: arr(view.x), context: view.self ? undefined : arr(view.context), self: view.self,
      wq: arr(view.weights.wq), wk: arr(view.weights.wk), wv: arr(view.weights.wv),
      scale: state.scaleMode === 'custom' ? state.scaleDivisor : state.scaleMode, mask: state.maskMode === 'padding' ? 'none' : state.maskMode,
      token: state.selectedToken,
    };
  });
  return { v, expected: referenceAttention(v) };
}

async function choosePreset(id) {
  const current = await tab.page.evaluate(() => globalThis.attentionLab.state.preset);
  if (current !== id) await lab.redrawn(() => tab.page.selectOption('#preset', id));
}

// The keys whose float64 weight reads as the row's largest at 4 decimals (several when they tie as shown).
function strongest(weights, token, m) {
  const row = Array.from(weights.slice(token * m, (token + 1) * m));
  const most = Math.max(...row).toFixed(4);
  return row.map((w, key) => (w.toFixed(4) === most ? key : -1)).filter((key) => key >= 0);
}

async function checkHead(head) {
  const { v, expected } = await reference();
  const keys = strongest(expected.heads[head].weights, v.token, v.m);
  // isolates (U+2068 … U+2069) wrap a token only where it holds right-to-left text: read without them
  const text = (await tab.page.textContent('#summary')).replace(/[\u2068\u2069]/g, '');
  const [, query, shown, weight, shownHead] = /'(.*?)' attends (?:most|equally) to (.*) \(weight ([0-9.]+)(?: each)?\) in head (\d+)/.exec(text) ?? [];
  assert.equal(query, v.tokens[v.token], text);
  const shownKeys = [...shown.matchAll(/'(.*?)'/g)].map((match) => match[1]);
  assert.deepEqual(shownKeys, keys.map((key) => v.keyTokens[key]), `${text}: the reference's strongest keys`);
  assert.ok(Math.abs(Number(weight) - expected.heads[head].weights[v.token * v.m + keys[0]]) <= 5e-5, `${text}: weight`);
  assert.equal(Number(shownHead), head + 1);
}

describe('the strongest link, under the step table', () => {
  for (const preset of PRESETS) {
    it(`${preset.id}: every head names the reference's strongest key and its weight`, async () => {
      await choosePreset(preset.id);
      const heads = await tab.page.evaluate(() => globalThis.attentionLab.view.heads);
      for (let head = 0; head < heads; head++) {
        if (heads > 1) await lab.redrawn(() => tab.page.click(`#tab-${head}`));
        await checkHead(head);
      }
      if (heads > 1) await lab.redrawn(() => tab.page.click('#tab-0'));
    });
  }

  it('follows another query token, and speaks Hindi with the same numbers', async () => {
    await choosePreset('cat-sat');
    await lab.redrawn(() => tab.page.click('#tokens button[data-index="2"]'));
    await checkHead(0);
    const english = await tab.page.textContent('#summary');
    await tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi'));
    const hindi = await tab.page.textContent('#summary');
    assert.match(hindi, /सबसे मज़बूत कड़ी/);
    const numbers = (text) => text.match(/\d+(\.\d+)?/g).sort();
    assert.deepEqual(numbers(hindi), numbers(english));
    await tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en'));
  });

  it('weights that read the same at 4 decimals are named as a tie (sat\'s e1 typed as 1.00001)', async () => {
    await choosePreset('cat-sat');
    await lab.redrawn(() => tab.page.click('#tokens button[data-index="0"]'));
    await lab.redrawn(() => tab.page.fill('#x-table td[data-row="2"][data-col="0"] input', '1.00001'));
    assert.match(await tab.page.textContent('#summary'), /attends equally to 'The', 'sat' \(weight 0\.4223 each\)/);
    await checkHead(0);
    await lab.redrawn(() => tab.page.selectOption('#preset', 'animal-it'));
  });

  it('a right-to-left token is isolated in the sentence, a left-to-right one is not', async () => {
    await lab.redrawn(() => tab.page.fill('#sentence', 'שלום cat'));
    await lab.redrawn(() => tab.page.click('#tokens button[data-index="0"]'));
    const text = await tab.page.textContent('#summary');
    assert.match(text, /'\u2068שלום\u2069' attends/);
    await checkHead(0);
    await lab.redrawn(() => tab.page.click('#tokens button[data-index="1"]'));
    assert.match(await tab.page.textContent('#summary'), /^Strongest link: 'cat' attends|^Strongest links: 'cat' attends/);
    await checkHead(0);
  });
});
