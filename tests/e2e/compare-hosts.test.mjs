// The compare view beyond index.html (issue 23): embed.html?view=compare and <attention-lab
// view="compare">, and the residual stream compared, B − A per layer, against two float64 stacks
// (stack64.mjs) of the weights each lab used.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useChapterPage } from './browser.mjs';
import { stack64 } from './stack64.mjs';
import { stateToFragment } from '../../web/src/state/link.mjs';

let browser;
let tab;
useChapterPage({ before, after, assert, onReady: (t, b) => { tab = t; browser = b; } });

const TOKENS = ['the', 'bank', 'by', 'the', 'river'];
const D = 4;
const N = TOKENS.length;
const ROWS = TOKENS.map((_, i) => Array.from({ length: D }, (__, c) => Math.round(100 * Math.sin(1 + 3 * i + c)) / 100));
const SIZES = { heads: 2, dK: 2, dV: 2, causal: true };
const stackLab = (seed, extra = {}) => ({
  preset: null, sentence: TOKENS.join(' '), inputs: { tokens: TOKENS, rows: ROWS }, xEdits: {},
  dModel: D, heads: 2, dK: 2, dV: 2, useWo: true, maskMode: 'causal', scaleMode: 'sqrt_dk', positions: 'none',
  weightsMode: 'random', seed, custom: null, layerWeights: null, layers: 2, block: 'full', norm: 'pre', selectedLayer: 0, selectedToken: 3, ...extra,
});
const PAIR = `${stateToFragment(stackLab(5))}&${stateToFragment(stackLab(9, { blockEdits: { '1:ln2:2': 1.5 } })).replace(/^#/, '')}`;

// The compare view in the page (globalThis.attentionCompare, or an element's .compare): both labs'
// weights as used, and the stream table's cells and signs
function readCompare(selectRoot) {
  return tab.page.evaluate((how) => {
    const root = how === 'element' ? document.querySelector('attention-lab[view="compare"]').shadowRoot : document;
    const pair = how === 'element' ? document.querySelector('attention-lab[view="compare"]').compare : globalThis.attentionCompare;
    const used = (lab) => lab.view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)])));
    return {
      used: [used(pair.a.lab), used(pair.b.lab)],
      rows: [...root.querySelectorAll('.compare-stream tbody tr')].map((tr) => tr.querySelector('th').textContent),
      cells: [...root.querySelectorAll('.compare-stream tbody td')].map((td) => ({ value: Number(td.textContent), sign: td.classList.contains('diff-pos') ? 1 : td.classList.contains('diff-neg') ? -1 : 0 })),
      caption: root.querySelector('.compare-stream caption')?.textContent,
    };
  }, selectRoot);
}

// B − A of 'the' (token 3) through both stacks, stage by stage as the stream table has them (pre-LN)
function checkStream(shown) {
  const [a, b] = shown.used.map((used) => stack64(ROWS.flat(), N, D, used, { arrangement: 'pre', ...SIZES }));
  const row = (values) => Array.from(values.slice(3 * D, 4 * D));
  const expected = a.flatMap((layer, l) => ['input', 'attention', 'attended', 'mlpOut', 'output']
    .map((name) => row(b[l][name]).map((v, c) => v - row(layer[name])[c])));
  assert.equal(shown.rows.length, 10, 'five rows per pre-LN layer, two layers');
  assert.match(shown.rows[5], /enters layer 2/);
  assert.equal(shown.cells.length, 10 * D);
  expected.flat().forEach((value, i) => {
    assert.ok(Math.abs(shown.cells[i].value - value) <= Math.max(5e-4 * Math.abs(value), 2e-4), `stream cell ${i}: ${shown.cells[i].value} vs float64 ${value}`);
    if (Math.abs(value) > 1e-3) assert.equal(shown.cells[i].sign, Math.sign(value), `stream cell ${i} coloured by its sign`);
  });
  assert.match(shown.caption, /'the', B − A, layer by layer/);
}

const pairReady = (how) => {
  const pair = how === 'element' ? document.querySelector('attention-lab[view="compare"]')?.compare : globalThis.attentionCompare;
  const root = how === 'element' ? document.querySelector('attention-lab[view="compare"]')?.shadowRoot : document;
  return pair?.a.lab?.view?.result.layers && pair.b.lab?.view?.result.layers && pair.a.lab.idle && pair.b.lab.idle && root.querySelector('.compare-stream table');
};

describe('compare in the embed and the component, and the stream compared', () => {
  it('index.html?view=compare: the residual stream of two stacks, B − A per layer, equals the float64 one', async () => {
    await tab.page.goto(`${browser.url}?view=compare${PAIR}`);
    await tab.page.waitForFunction(pairReady, 'page');
    await tab.page.evaluate(() => globalThis.attentionCompare.update());
    checkStream(await readCompare('page'));
  });

  it('embed.html?view=compare: the same pair, the same differences, no language menu', async () => {
    await tab.page.goto('about:blank');
    await tab.page.goto(`${browser.url}embed.html?view=compare&theme=dark${PAIR}`);
    await tab.page.waitForFunction(pairReady, 'page');
    await tab.page.evaluate(() => globalThis.attentionCompare.update());
    checkStream(await readCompare('page'));
    assert.equal(await tab.page.$('#compare-language'), null);
    assert.equal(await tab.page.evaluate(() => globalThis.attentionCompare.a.getAttribute('theme')), 'dark');
  });

  it('<attention-lab view="compare" state="lab=…&lab=…">: two labs inside, the same differences; back to one lab', async () => {
    await tab.page.goto('about:blank');
    await tab.page.goto(`${browser.url}embed.html`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await tab.page.addScriptTag({ type: 'module', url: `${browser.url}attention-lab.js` });
    await tab.page.waitForFunction(() => customElements.get('attention-lab'));
    await tab.page.evaluate((pair) => {
      const element = document.createElement('attention-lab');
      element.setAttribute('view', 'compare');
      element.setAttribute('state', pair);
      document.body.append(element);
    }, PAIR.replace(/^#/, ''));
    await tab.page.waitForFunction(pairReady, 'element');
    await tab.page.evaluate(() => document.querySelector('attention-lab[view="compare"]').compare.update());
    checkStream(await readCompare('element'));
    // another view: one lab again
    await tab.page.evaluate(() => document.querySelector('attention-lab[view="compare"]').setAttribute('view', 'steps'));
    await tab.page.waitForFunction(() => document.querySelector('attention-lab[view="steps"]')?.lab?.draws > 0);
    assert.equal(await tab.page.evaluate(() => document.querySelector('attention-lab[view="steps"]').compare), null);
  });
});
