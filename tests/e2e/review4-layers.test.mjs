// A first-time student's review 4 (issue 26's re-review), its findings on layers: adding a layer keeps
// the notes of an example whose layer 1 is unchanged (finding 2); a pre-LN block says that its attention
// reads LN₁(x) (finding 3); the Block menu and the one-layer line no longer contradict each other
// (finding 7); the compare view names the output's columns as the lab does (finding 4). Expected numbers:
// softmax of the page's own X in float64 here, and the notes' 0.4223 / 0.8446.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const notes = () => tab.page.evaluate(() => Array.from(document.querySelectorAll('#notes li'), (li) => li.classList.contains('stale')));
const noteLines = () => tab.page.evaluate(() => Array.from(document.querySelectorAll('#notes p'), (p) => p.textContent).join('\n'));
const blocksField = (name) => `.blocks-settings [data-field="${name}"] ${name === 'layers' ? 'input' : 'select'}`;

// row `r` of softmax(X Xᵀ / √d) in float64, X the page's (W = I in cat-sat)
function weightsRow(x, n, d, r) {
  const scores = Array.from({ length: n }, (_, j) => {
    let s = 0;
    for (let c = 0; c < d; c++) s += x[r * d + c] * x[j * d + c];
    return s / Math.sqrt(d);
  });
  const top = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

// cat-sat as given (through another example: choosing the one already chosen changes nothing)
async function catSat() {
  await lab.redrawn(() => tab.page.selectOption('#preset', 'action'));
  await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
}

async function catSatWithLayers() {
  await catSat();
  await lab.redrawn(async () => {
    await tab.page.fill(blocksField('layers'), '2');
    await tab.page.press(blocksField('layers'), 'Tab');  // a number box settles on change
  });
}

describe('review 4: layers and the example\'s notes', () => {
  it('two attention-only layers: layer 1 is the example as given, so no note is dimmed', async () => {
    await catSatWithLayers();
    const page = await tab.page.evaluate(() => {
      const { view } = globalThis.attentionLab;
      return { x: Array.from(view.x), n: view.tokens.length, d: view.dModel, layers: view.result.layers.length, weights: Array.from(view.result.heads[0].weights) };
    });
    assert.equal(page.layers, 2);
    const expected = weightsRow(page.x, page.n, page.d, 0);
    expected.forEach((w, j) => assert.ok(Math.abs(page.weights[j] - w) < 1e-6, `layer 1 weight ${j}: ${page.weights[j]} vs ${w}`));
    assert.ok(Math.abs(expected[0] - 0.4223) < 5e-5, 'the notes\' 0.4223 is layer 1\'s');
    assert.deepEqual(await notes(), (await notes()).map(() => false), 'no note dimmed');
    const lines = await noteLines();
    assert.match(lines, /the notes hold for layer 1/);
    assert.doesNotMatch(lines, /Modified/);
    assert.match(await tab.page.textContent('#steps'), /0\.8446/, 'z of the notes still in the step table');
  });

  it('showing layer 2 dims the notes and says they describe layer 1', async () => {
    await catSatWithLayers();
    await lab.redrawn(() => tab.page.selectOption(blocksField('layer'), '1'));
    assert.ok((await notes()).some(Boolean), 'the notes on layer 1\'s numbers dimmed while layer 2 is shown');
    assert.match(await noteLines(), /The notes describe layer 1; the tables now show layer 2/);
    await lab.redrawn(() => tab.page.selectOption(blocksField('layer'), '0'));
    assert.ok((await notes()).every((stale) => !stale), 'back on layer 1 they hold again');
  });

  it('a pre-LN full block says its attention reads LN₁(x), in the notes, the caption and the stream', async () => {
    await catSatWithLayers();
    await lab.redrawn(() => tab.page.selectOption(blocksField('block'), 'full'));
    await lab.redrawn(() => tab.page.selectOption(blocksField('norm'), 'pre'));
    assert.ok((await notes()).some(Boolean), 'the notes\' q = x no longer holds');
    assert.match(await noteLines(), /reads LN₁\(x\), not x/);
    const page = await tab.page.evaluate(() => {
      const { view } = globalThis.attentionLab;
      return { x: Array.from(view.x), input: Array.from(view.result.layers[0].input), d: view.dModel, q: Array.from(view.result.heads[0].q) };
    });
    // the X the attention read is LayerNorm of the stream (weight 1, bias 0, eps 1e-5), checked here in float64
    const row = page.input.slice(0, page.d);
    const mean = row.reduce((a, b) => a + b, 0) / page.d;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / page.d;
    row.forEach((v, c) => assert.ok(Math.abs(page.x[c] - (v - mean) / Math.sqrt(variance + 1e-5)) < 1e-5, `LN₁(x)[${c}]`));
    assert.match(await tab.page.textContent('#steps table caption'), /pre-LN, so q = LN₁\(x\) · W_q = /);
    assert.match(await tab.page.textContent('section.blocks'), /= x \+ a, layer 1.*\+ m = MLP\(LN₂\(x \+ a\)\), layer 1/, 'the stream names x + a before m = MLP(LN₂(x + a)) (review 7: one notation with Real models)');
    await lab.redrawn(() => tab.page.selectOption(blocksField('norm'), 'post'));
    assert.doesNotMatch(await tab.page.textContent('#steps table caption'), /LN₁/, 'post-LN: layer 1 reads x');
  });

  it('the Block menu and the one-layer line say the same thing about the residual', async () => {
    await catSat();
    const option = await tab.page.textContent(`${blocksField('block')} option[value="attention"]`);
    assert.doesNotMatch(option, /x \+ attention/, 'the menu does not promise a residual that one layer does not have');
    assert.match(await tab.page.textContent('section.blocks'), /With 2 layers or more, each layer adds its output to its input/);
    // the menu's longest option fits its box (not cut: "Attention only: x + attention(x")
    const fits = await tab.page.$eval(blocksField('block'), (select) => {
      const probe = document.createElement('span');
      probe.style.font = getComputedStyle(select).font;
      probe.textContent = [...select.options].reduce((a, o) => (o.text.length > a.length ? o.text : a), '');
      document.body.append(probe);
      const width = probe.getBoundingClientRect().width;
      probe.remove();
      return width <= select.clientWidth;
    });
    assert.ok(fits, 'the Block menu shows its options whole');
  });
});

describe('review 4: the compare view names the output\'s columns as the lab does', () => {
  it('money bank against river bank: the features, not d1 … d10', async () => {
    const base = tab.page.url().split(/[?#]/)[0];
    await tab.page.goto('about:blank');
    await tab.page.goto(`${base}?view=compare`);
    await tab.page.waitForFunction(() => {
      const c = globalThis.attentionCompare;
      return c?.a.lab?.view && c.b.lab?.view && c.a.lab.idle && c.b.lab.idle && document.querySelector('.compare-output table');
    });
    const { headers, columns } = await tab.page.evaluate(() => ({
      headers: [...document.querySelectorAll('.compare-output thead th')].map((th) => th.textContent.trim()).filter(Boolean),
      columns: globalThis.attentionCompare.a.lab.view.columns,
    }));
    assert.ok(headers.every((h) => !/^d\d+$/.test(h)), `no d1 … names: ${headers.join(', ')}`);
    for (const name of columns) assert.ok(headers.some((h) => h.includes(name)), `column '${name}' named`);
    assert.ok(columns.includes('finance'));
  });
});
