// The lecturer's review 5 (2026-11-27), its findings on layers (briefs: review5/findings.md, tagged
// [layers-review]): the explanation of a layer-2 X reads in order and prints signs once (finding 3);
// the ablation box only on the induction task, styled as the page's controls (5); the compare view's
// link and the layer its tables show (8, 9); the layers controls inside the settings (12); the pre-LN
// walk and caption say LN₁ (13); learned columns named e1 … (14). Expected numbers come from the
// float64 stack of stack64.mjs, on the notes' money-bank vectors the page shows.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { stack64, layerNorm } from './stack64.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const page = () => tab.page;

async function setLab(change) {
  await lab.redrawn(() => page().evaluate((c) => {
    const l = globalThis.attentionLab;
    l.setState({ ...l.state, ...c });
  }, change));
}

async function moneyBank(change) {
  await lab.redrawn(() => page().selectOption('#preset', 'action'));
  await lab.redrawn(() => page().selectOption('#preset', 'money-bank'));
  await setLab(change);
}

// the numbers of a line, read signed: "a − b" is a + (−b), the sign folded into the operator
const numbersOf = (line) => line.replace(/ − (?=\d)/g, ' + -').split(/×| [+−/] |[()√=]/)
  .map((s) => s.trim()).filter((s) => s !== '' && Number.isFinite(Number(s))).map(Number);
const near = (shown, expected, what) => assert.ok(Math.abs(shown - expected) <= 5e-4 * Math.max(1, Math.abs(expected)), `${what}: shown ${shown}, float64 ${expected}`);

// the page's X and the weights it uses, and the float64 stack of them (W_O = I: money-bank has none;
// its scaling is "none")
async function expectedStack(arrangement) {
  const got = await page().evaluate(() => {
    const { view } = globalThis.attentionLab;
    return { x: Array.from(view.result.layers[0].input), n: view.tokens.length, d: view.dModel, columns: view.columns,
      weights: view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)]))) };
  });
  const identity = Array.from({ length: got.d * got.d }, (_, i) => (i % (got.d + 1) === 0 ? 1 : 0));
  // money bank has no scaling: stack64 divides the scores by √d_k, so its W_q is given times √d_k
  const weights = got.weights.map((w) => ({ ...w, wq: w.wq.map((v) => v * Math.sqrt(got.d)), wo: w.wo ?? identity }));
  return { ...got, layers: stack64(got.x, got.n, got.d, weights, { arrangement, heads: 1, dK: got.d, dV: got.d, causal: false }) };
}

describe('review 5: explain a layer-2 X in reading order (finding 3)', () => {
  it('money bank, 2 pre-LN layers, X of layer 2 at (money, finance): the sum, its value, then the norm of it', async () => {
    await moneyBank({ layers: 2, block: 'full', norm: 'pre', selectedLayer: 1 });
    const { n, d, columns, layers } = await expectedStack('pre');
    const col = columns.indexOf('finance');
    assert.ok(col >= 0 && n === 3);
    await page().click(`#x-table td[data-matrix="x"][data-row="0"][data-col="${col}"]`);
    const lines = await page().evaluate(() => [...document.querySelectorAll('#explain-lines li')].map((li) => li.textContent));
    const value = Number((await page().textContent('#explain-value')).replace(/^= /, ''));
    const stream = layers[1].input[col];
    assert.match(lines[0], /stream entering layer 2 is what layer 1 gave out/);
    const [attended, mlp] = numbersOf(lines[1]);
    near(attended, layers[0].attended[col], 'layer 1 x + attention');
    near(mlp, layers[0].mlpOut[col], 'layer 1 MLP');
    near(numbersOf(lines[2])[0], stream, 'the sum');
    assert.match(lines[3], /LN₁ in layer 2/);
    near(numbersOf(lines[4])[0], stream, 'the norm reads the sum just given');
    near(value, layerNorm(layers[1].input, n, d)[col], 'LN₁ of the stream');
    const all = lines.join('\n');
    assert.doesNotMatch(all, /[−+] -\d/, `no "− -0.03908": ${all}`);
    // the mean of the row is negative here: it is written "+ |mean|"
    const row = Array.from(layers[1].input.slice(0, d));
    const mean = row.reduce((a, b) => a + b, 0) / d;
    assert.ok(mean < 0, `the mean ${mean}`);
    assert.match(lines[4], new RegExp(`^\\(\\S+ \\+ ${Math.abs(mean).toPrecision(4).replace('.', '\\.')}\\)`));
  });
});

describe('review 5: the ablation box (finding 5)', () => {
  async function chooseTask(id) {
    await page().locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await page().waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 30_000 });
    await page().selectOption('#train-task', id);
    await page().waitForFunction((id) => globalThis.attentionLab.training.run?.snapshot.steps === 0 &&
      document.querySelector('#train-task').value === id && globalThis.attentionLab.training.run.config.stack, id);
  }

  it("'tired' or 'wide' with layers has no heads to switch off; induction has, in a box styled as the page's controls", async () => {
    await chooseTask('tired-or-wide-layers');
    assert.ok(await page().isHidden('#train-ablate'), 'no ablation box for tired/wide');
    await chooseTask('induction');
    assert.ok(await page().isVisible('#train-ablate'), 'the ablation box on the induction task');
    const looks = await page().evaluate(() => {
      const style = (el) => { const s = getComputedStyle(el); return { radius: s.borderRadius, background: s.backgroundColor, border: s.borderTopColor, padding: s.paddingLeft }; };
      return { box: style(document.getElementById('train-ablate')), controls: style(document.getElementById('train-controls')),
        button: style(document.getElementById('train-ablate-induction')), other: style(document.getElementById('train-step')) };
    });
    assert.deepEqual(looks.box, looks.controls, 'the box as the Train controls\' panel');
    assert.deepEqual(looks.button, looks.other, 'its button as the Train buttons');
  });
});

describe('review 5: the layers controls in the settings (finding 12)', () => {
  it('Layers, Block, Norms and Show layer are inside "Settings: sizes, layers, …", and set the stack from there', async () => {
    await moneyBank({});
    const inside = await page().evaluate(() => ['blocks-layers', 'blocks-block', 'blocks-norm', 'blocks-layer']
      .map((id) => document.getElementById('settings').contains(document.getElementById(id))));
    assert.deepEqual(inside, [true, true, true, true]);
    assert.match(await page().textContent('#settings > summary'), /^Settings: sizes, layers, /);
    assert.match(await page().textContent('#settings .blocks-settings legend'), /^Layers and blocks$/);
    await lab.redrawn(async () => {
      await page().fill('#blocks-layers', '2');
      await page().press('#blocks-layers', 'Tab');
    });
    await lab.redrawn(() => page().selectOption('#blocks-block', 'full'));
    await lab.redrawn(() => page().selectOption('#blocks-layer', '1'));
    const state = await page().evaluate(() => globalThis.attentionLab.state);
    assert.equal(state.layers, 2);
    assert.equal(state.block, 'full');
    assert.equal(state.selectedLayer, 1);
    assert.ok(!('' in state) && !('blocks-layers' in state), 'the settings form did not read these controls as its own');
    assert.match(await page().evaluate(() => decodeURIComponent(location.hash)), /"layers":2/, 'the link carries them');
    assert.equal(await page().evaluate(() => globalThis.attentionLab.view.result.layers.length), 2);
  });
});

describe('review 5: the pre-LN walk and the X caption say LN₁ (finding 13)', () => {
  const walkText = () => page().textContent('.walk-text');
  async function walkTo(pattern) {
    for (let i = 0; i < 40; i++) {
      const text = await walkText();
      if (pattern.test(text)) return text;
      const before = text + await page().textContent('.walk-position');
      await page().click('#walk-next');
      await page().waitForFunction((b) => globalThis.attentionLab.idle &&
        document.querySelector('.walk-text').textContent + document.querySelector('.walk-position').textContent !== b, before);
    }
    throw new Error(`no walk step matching ${pattern}`);
  }

  it('money bank, 2 pre-LN layers: the residual step is x + attention(LN₁(x)); layer 2\'s X is captioned LN₁ of the stream', async () => {
    await moneyBank({ layers: 2, block: 'full', norm: 'pre', selectedLayer: 0 });
    assert.match(await page().textContent('#x-table caption'), /^X = LN₁ of the stream entering layer 1: 3 tokens × d_model 10$/);
    await page().click('#walk-start');
    const residual = await walkTo(/^The residual: /);
    // (review 7: a is attention's output, as in Real models)
    assert.match(residual, /adds a = attention\(LN₁\(x\)\) to its own stream: x \+ a, in layer 1: the sum adds x itself, not its norm/);
    await page().evaluate(() => document.getElementById('walk-stop')?.click());
    await setLab({ selectedLayer: 1 });
    assert.match(await page().textContent('#x-table caption'), /^X = LN₁ of the stream entering layer 2: 3 tokens × d_model 10$/);
  });

  it('post-LN and attention-only: the residual is x + attention(x), and layer 2\'s X is the stream entering it', async () => {
    await moneyBank({ layers: 2, block: 'full', norm: 'post', selectedLayer: 1 });
    assert.match(await page().textContent('#x-table caption'), /^X = the stream entering layer 2: 3 tokens × d_model 10$/);
    await setLab({ block: 'attention', selectedLayer: 0 });
    assert.match(await page().textContent('#x-table caption'), /^X: 3 tokens × d_model 10$/);
    await page().click('#walk-start');
    assert.match(await walkTo(/^The residual: /), /adds a = attention\(x\), what the attention gave, to its own stream: x \+ a/);
    await page().evaluate(() => document.getElementById('walk-stop')?.click());
  });
});

describe('review 5: learned embeddings are not the notes\' features (finding 14)', () => {
  it('X of learned embeddings is headed e1 … e_d; the vocabulary\'s own vectors keep the features\' names', async () => {
    await moneyBank({});
    const features = await page().evaluate(() => globalThis.attentionLab.view.columns);
    assert.deepEqual(features.slice(0, 2), ['finance', 'nature'], 'the notes\' vectors: their features');
    const learned = { money: [0.3, -1.2, 0.5, 0, 0.1, 0.2, -0.4, 0.9, 0, 1], bank: [1, 0.5, -0.3, 0.2, 0, 0, 0.7, 0.1, -0.2, 0.4], grows: [0, 0, 0.2, 0.4, 1, 0, 0, 0, 0.3, -0.1] };
    await setLab({ preset: null, embeddings: learned, weightsMode: 'identity' });
    const shown = await page().evaluate(() => ({
      columns: globalThis.attentionLab.view.columns,
      headers: Array.from(document.querySelector('#x-table thead tr').cells).slice(1).map((th) => th.textContent),
      x: Array.from(globalThis.attentionLab.view.x.slice(0, 10)),
    }));
    const numbered = Array.from({ length: 10 }, (_, i) => `e${i + 1}`);
    shown.x.forEach((v, i) => assert.ok(Math.abs(v - learned.money[i]) < 1e-6, 'X is the learned vector'));
    assert.deepEqual(shown.columns, numbered);
    assert.deepEqual(shown.headers, numbered);
  });
});
