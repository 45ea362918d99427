// "Real models" → the main lab, in headless Chromium (issue 24): a model's layer and head opened in
// the one-layer lab gives, in the lab's own result, the attention probabilities transformers computed
// for that layer and head (../shared/models/*/reference.json, probs), Llama and Qwen2 (RoPE, grouped-query
// attention, Qwen2's q/k/v biases) too, and the Llama folder written as Mistral with a sliding window of
// 4 against a float64 layer written in the test (modern64.mjs); layer 1 is drawn before the other
// layers are computed; the folder input and a drop open the GPT-2 folder.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { useLabPage } from './browser.mjs';
import { haveModels as have, dirOf, filesOf, referenceOf, opened as openedFolder, openAndRun as openFolderAndRun, tensorOf } from './model-folders.mjs';
import { tempRoot, writeFolder, textFiles } from '../web/src/models/copies.mjs';
import { attention64 } from './modern64.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const opened = () => openedFolder(page());
const openAndRun = (name) => openFolderAndRun(page(), name);

// The largest |a − b| over two arrays of the same length.
function largestDifference(got, want) {
  assert.equal(got.length, want.length);
  return got.reduce((worst, v, i) => Math.max(worst, Math.abs(v - want[i])), 0);
}

// Layer l, head h opened in the lab (by the page's button for layer 1, head 2; else by the API): the
// lab's state and its result's weights for that head against transformers' probabilities.
async function openedHead(name, reference, l, h) {
  const n = reference.ids.length;
  if (l === 0 && h === 1) {
    await lab.redrawn(() => page().locator('#models-layers details[data-layer="0"] figure[data-head="1"] button.model-open').click());
  } else {
    await lab.redrawn(() => page().evaluate(([l, h]) => globalThis.attentionLab.models.openInLab(l, h), [l, h]));
  }
  const { state, weights, all, read } = await page().evaluate((h) => {
    const lab = globalThis.attentionLab;
    // what the lab's attention read: LN₁ of its rows in a pre-LN block (the model's whole block), else the rows
    const layer = lab.result.layers?.[0];
    const read = lab.state.block === 'full' && lab.state.norm === 'pre' ? [...layer.norm1] : lab.state.inputs.rows.flat();
    return { state: lab.state, weights: [...lab.result.heads[h].weights], all: lab.result.heads.length, read };
  }, h);
  assert.equal(all, reference.layers[0].probs.length / (n * n));
  assert.equal(state.selectedHead, h);
  assert.equal(state.maskMode, name === 'bert' ? 'none' : 'causal');
  // the model's tokens, a byte-level space (Ġ) written as the page's · (review 7, finding 13)
  assert.deepEqual(state.inputs.tokens, reference.tokens.map((token) => token.replace(/Ġ/g, '·')));
  // the lab's rows are the stream entering the layer (the model's whole block is in the lab), and its
  // attention read what the model's attention received (after ln_1 for GPT-2)
  assert.equal(state.block, 'full');
  assert.ok(largestDifference(state.inputs.rows.flat(), reference.hidden_states[l]) < 1e-4, `layer ${l + 1} rows`);
  assert.ok(largestDifference(read, reference.layers[l].input) < 1e-4, `layer ${l + 1} input`);
  const want = reference.layers[l].probs.slice(h * n * n, (h + 1) * n * n);
  const difference = largestDifference(weights, want);
  assert.ok(difference <= 1e-4, `${name} layer ${l + 1} head ${h + 1}: largest difference ${difference}`);
  return difference;
}

describe('Open this layer in the lab', { skip: !have && 'no ../shared/models' }, () => {
  for (const name of ['gpt2', 'bert', 'llama', 'qwen2']) {
    it(`${name}: every layer and head opened in the lab gives transformers' attention probabilities`, async () => {
      const reference = await openAndRun(name);
      const n = reference.ids.length;
      const heads = reference.layers[0].probs.length / (n * n);
      let worst = 0;
      for (let l = 0; l < reference.layers.length; l++) {
        for (let h = 0; h < heads; h++) worst = Math.max(worst, await openedHead(name, reference, l, h));
      }
      console.log(`# ${name}: lab's weights vs transformers' probs, every layer and head: largest difference ${worst.toExponential(2)}`);
      assert.match(await page().textContent('#models-status'), new RegExp(`^Layer ${reference.layers.length}, head ${heads} of the ${name} model is in the lab`));
      // the lab's own views show the model's tokens and dimensions (columns e1 …)
      assert.match(await page().textContent('#status'), /is in the lab/);
    });
  }

});

describe('Open a layer with rotary positions, key/value heads or a window in the lab', { skip: !have && 'no ../shared/models' }, () => {
  it('llama and qwen2: the lab holds the layer\'s rotary positions, key/value heads and biases, and says so', async () => {
    for (const name of ['llama', 'qwen2']) {
      const reference = await openAndRun(name);
      await openedHead(name, reference, 1, 3);
      const state = await page().evaluate(() => globalThis.attentionLab.state);
      // 4 query heads share 2 key/value heads of 8 features, all 8 rotated (the folders' config.json)
      assert.deepEqual([state.heads, state.kvHeads, state.dK, state.rotary, state.rotaryDims, state.window], [4, 2, 8, true, 8, 0]);
      assert.equal(state.custom.wk.length, 2 * 32 * 8);
      assert.equal(Boolean(state.custom.bk), name === 'qwen2');
      const status = await page().textContent('#models-status');
      // said in words (review 9, finding 6)
      assert.match(status, /Positions by rotation \(RoPE, θ = 10,?000: q and k turned by their position, 8 features of each head\); 2 key\/value heads shared by 4 query heads; no sliding window\.( |$)/);
      assert.equal(await page().textContent('#messages'), '');
    }
  });

  it('mistral (the Llama folder with sliding_window 4): the lab\'s weights keep each query\'s last 4 keys, as a float64 layer on the same numbers', async () => {
    const reference = referenceOf('llama');
    const root = tempRoot();
    const config = { ...JSON.parse(textFiles('llama')['config.json']), model_type: 'mistral', architectures: ['MistralForCausalLM'], sliding_window: 4 };
    const dir = writeFolder(root, 'mistral-4', { ...textFiles('llama'), 'config.json': config, 'model.safetensors': readFileSync(join(dirOf('llama'), 'model.safetensors')) });
    await page().setInputFiles('#models-files', readdirSync(dir).map((file) => join(dir, file)));
    await opened();
    await page().fill('#models-text', reference.text);
    await page().click('#models-run');
    await page().waitForFunction(() => globalThis.attentionLab.models.result && !globalThis.attentionLab.models.result.partial);
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(0, 1)));
    const { state, heads, read } = await page().evaluate(() => {
      const lab = globalThis.attentionLab;
      // what the attention read: LN₁ (the model's RMSNorm) of the lab's rows
      const d = lab.state.dModel;
      const norm1 = lab.result.layers[0].norm1;
      const read = Array.from({ length: norm1.length / d }, (_, i) => [...norm1.subarray(i * d, (i + 1) * d)]);
      return { state: lab.state, heads: lab.result.heads.map((h) => [...h.weights]), read };
    });
    assert.equal(state.window, 4);
    // layer 1's input is Llama's (the window acts inside the attention): transformers' numbers
    assert.ok(largestDifference(read.flat(), reference.layers[0].input) < 1e-4);
    const n = reference.ids.length;
    const want = attention64(read, state.custom, { heads: 4, kvHeads: 2, dK: 8, causal: true, window: 4, rotary: { dims: 8, theta: state.rotaryTheta } });
    let worst = 0;
    want.heads.forEach((head, h) => { worst = Math.max(worst, largestDifference(heads[h], head.weights.flat())); });
    assert.ok(worst <= 1e-5, `largest difference ${worst}`);
    // and key j > 3 back is 0 for query i
    assert.equal(heads[1][(n - 1) * n + (n - 5)], 0);
    assert.match(await page().textContent('#models-status'), /each token sees at most the 4 latest tokens \(a sliding window\)\.( |$)/);
  });

});

describe('Real models: drawing and opening folders', { skip: !have && 'no ../shared/models' }, () => {
  it('layer 1 is drawn before the other layers are computed', async () => {
    await page().evaluate(() => { globalThis.modelsDrawn = []; });
    await page().evaluate(() => {
      document.querySelector('[data-view="models"]').addEventListener('models-drawn', (event) => {
        // what the page holds when layer 1 is drawn: its canvases, and the model's result so far
        const result = globalThis.attentionLab.models.result;
        if (event.detail.layers === 1) globalThis.layer1Heatmap = document.querySelector('#models-layers details[data-layer="0"] canvas');
        globalThis.modelsDrawn.push({ ...event.detail, canvases: document.querySelectorAll('#models-layers details[data-layer="0"] canvas').length,
          computed: result.layers.length, hidden: result.hidden === null ? null : result.hidden.length });
      });
    });
    const reference = await openAndRun('gpt2');
    const drawn = await page().evaluate(() => globalThis.modelsDrawn);
    const heads = reference.layers[0].probs.length / reference.ids.length ** 2;
    const layers = reference.layers.length;
    assert.deepEqual(drawn, [
      { layers: 1, of: layers, canvases: heads, computed: 1, hidden: null },
      { layers, of: layers, canvases: heads, computed: layers, hidden: layers + 1 },
    ]);
    // drawn once: the whole result adds the other layers, layer 1's heatmaps stay the nodes drawn first
    assert.equal(await page().evaluate(() => globalThis.layer1Heatmap.isConnected), true);
    // layer 1 drawn early is the model's layer 1: the same weights as the whole pass, transformers' numbers
    const probs = await page().evaluate(() => globalThis.attentionLab.models.result.layers[0].heads.flatMap((h) => [...h.weights]));
    assert.ok(largestDifference(probs, reference.layers[0].probs) <= 1e-4);
  });

  it('the folder input opens the GPT-2 folder (setInputFiles on the directory)', async () => {
    await page().setInputFiles('#models-folder', dirOf('gpt2'));
    assert.match(await opened(), /Recognised: gpt2/);
    assert.match(await page().textContent('#models-status'), /^Opened a gpt2 model: 2 layers, 4 heads each\./);
  });

  it('a drop of the folder\'s files opens the GPT-2 folder', async () => {
    await page().setInputFiles('#models-files', filesOf(dirOf('bert')));
    assert.match(await opened(), /Recognised: bert/);
    const files = filesOf(dirOf('gpt2')).map((path) => ({ name: path.split('/').pop(), bytes: [...readFileSync(path)] }));
    await page().evaluate((files) => {
      const transfer = new DataTransfer();
      for (const { name, bytes } of files) transfer.items.add(new File([new Uint8Array(bytes)], name));
      document.querySelector('#models-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, files);
    await page().waitForFunction(() => /Recognised: gpt2/.test(document.querySelector('#models-report').textContent));
    const reference = referenceOf('gpt2');
    await page().fill('#models-text', reference.text);
    await page().click('#models-run');
    await page().waitForFunction((ids) => JSON.stringify(globalThis.attentionLab.models.result?.ids) === ids && !globalThis.attentionLab.models.result.partial, JSON.stringify(reference.ids));
    assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.result.tokens), reference.tokens);
  });
});

describe('the lab\'s features on a model\'s layer', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2 layer 2, head 3 opened over a two-block stack: one layer in the lab, its CSV export, the walk and practice mode work on it', async () => {
    const reference = await openAndRun('gpt2');
    const n = reference.ids.length;
    await lab.redrawn(() => page().evaluate(() => {
      const l = globalThis.attentionLab;
      l.setState({ ...l.state, preset: null, layers: 2, block: 'full', norm: 'pre', weightsMode: 'random', custom: null, selectedLayer: 1 });
    }));
    await openedHead('gpt2', reference, 1, 2);
    assert.equal(await page().evaluate(() => globalThis.attentionLab.state.layers), 1);
    // the exports panel: head 3's weights as CSV, every float32 digit, the model's tokens as row labels
    if (await page().locator('#export-panel').isHidden()) await page().click('#export-toggle');
    await page().selectOption('#export-format', 'csv');
    await page().selectOption('#export-precision', 'full');
    await page().selectOption('#export-table', 'weights-2');
    const lines = (await page().textContent('#export-preview')).trim().split('\n').filter((line) => /\d/.test(line));
    const rows = lines.slice(-n).map((line) => line.split(',').slice(-n).map(Number));
    const want = reference.layers[1].probs.slice(2 * n * n, 3 * n * n);
    assert.ok(largestDifference(rows.flat(), want) <= 1e-4, `exported CSV: ${lines.slice(-n).join(' | ')}`);
    // the guided walk on the model's layer: it starts, and explains cells with arithmetic
    if (await page().isVisible('#walk-stop')) await page().click('#walk-stop');
    await page().click('#walk-start');
    await page().waitForFunction(() => document.querySelectorAll('.walk-arithmetic li').length > 0);
    assert.match(await page().textContent('.walk-position'), /\d/);
    await page().click('#walk-stop');
    // practice mode on the model's layer: exercises made from its numbers
    await lab.redrawn(() => page().evaluate(() => {
      const l = globalThis.attentionLab;
      l.setState({ ...l.state, practice: {} });
    }));
    assert.ok(await page().evaluate(() => globalThis.attentionLab.practice.exercises.length) > 0);
    await lab.redrawn(() => page().evaluate(() => {
      const l = globalThis.attentionLab;
      l.setState({ ...l.state, practice: null });
    }));
  });
});


// Review 7: what the lab says of a real model's layer (findings 1, 2, 4 to 7, 13, 14), for a post-LN
// LayerNorm model (BERT), a pre-LN one (GPT-2) and pre-LN RMSNorm ones with a SwiGLU MLP (Llama,
// Qwen2): layer 2 of 2 opened; the parameters' numbers against the folder's model.safetensors.
const TRUTH = {
  bert: { norm: 'bert.encoder.layer.1.attention.output.LayerNorm.weight', mlp: 'bert.encoder.layer.1.intermediate.dense.weight', mlpTable: 'w1', rms: false },
  llama: { norm: 'model.layers.1.input_layernorm.weight', mlp: 'model.layers.1.mlp.gate_proj.weight', mlpTable: 'wGate', rms: true },
  // GPT-2's c_fc is a Conv1D: stored (d_model, hidden), as the lab's w1
  gpt2: { norm: 'transformer.h.1.ln_1.weight', mlp: 'transformer.h.1.mlp.c_fc.weight', mlpTable: 'w1', rms: false, conv1d: true },
  qwen2: { norm: 'model.layers.1.input_layernorm.weight', mlp: 'model.layers.1.mlp.gate_proj.weight', mlpTable: 'wGate', rms: true },
};

// Clicks a cell of the block's tables (blocks/params.mjs) and reads the explanation panel
async function explainParameter(matrix, row, col) {
  const cell = page().locator(`.blocks-params td[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]`);
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
  await page().waitForFunction(() => !document.querySelector('#explain').hidden);
  return page().evaluate(() => ({
    title: document.querySelector('#explain-cell').textContent, text: document.querySelector('#explain-lines').textContent,
    value: Number(document.querySelector('#explain-value').textContent.replace('= ', '')),
  }));
}

// Findings 4 and 5: the heading, the captions and the stream's rows say the model's layer 2 of 2, in
// the notation of Real models (x enters, a = attention's output, m = the MLP's; never "a = x + attention")
async function assertNamedLayer2(name, want) {
  // finding 5: the heading, the step table's caption and the stream's rows say the model's layer 2 of 2
  // review 10, F: and which model's, the name from its config.json
  assert.equal(await page().textContent('#blocks-title'), `Layers: the ${name} model's layer 2 of 2`);
  assert.match(await page().textContent('.blocks-shown'), new RegExp(`shows the ${name} model's layer 2 of 2, the only block the lab holds`));
  assert.match(await page().textContent('table.steps caption'), /^Layer 2 of 2: query/);
  assert.match(await page().textContent('#x-table caption'), want.rms ? /^X = RMSNorm₁ of the stream entering layer 2: 12 tokens/ : name === 'bert' ? /^X = the stream entering layer 2: 12 tokens/ : /^X = LN₁ of the stream entering layer 2: /);
  const stream = await page().locator('.blocks-stream th').allTextContents();
  assert.ok(stream.includes('x: enters layer 2'), stream.join(' | '));
  assert.ok(!stream.some((row) => /layer 1\b/.test(row)), stream.join(' | '));
  // finding 4: x enters, a = attention's output, m = the MLP's; never "a = x + attention"
  const [n1, n2] = want.rms ? ['RMSNorm₁', 'RMSNorm₂'] : ['LN₁', 'LN₂'];
  const rows = name === 'bert'
    ? ['+ a = attention(x), layer 2', '= x + a, layer 2', 'u = LN₁(x + a), layer 2', '+ m = MLP(u), layer 2', '= u + m, layer 2', 'LN₂(u + m): leaves layer 2']
    : [`+ a = attention(${n1}(x)), layer 2`, '= x + a, layer 2', `+ m = MLP(${n2}(x + a)), layer 2`, '= x + a + m: leaves layer 2'];
  for (const row of rows) assert.ok(stream.includes(row), `${row} in ${stream.join(' | ')}`);
}

describe('review 7: the lab tells the truth about a real model\'s layer', { skip: !have && 'no ../shared/models' }, () => {
  for (const name of ['bert', 'llama', 'gpt2', 'qwen2']) {
    it(`${name}: layer 2 in the lab is named layer 2 of 2, its parameters read from the folder, one notation with Real models`, async () => {
      const reference = await openAndRun(name);
      const want = TRUTH[name];
      await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
      await assertNamedLayer2(name, want);
      // finding 7: post-LN's status says the norms come after each addition
      const status = await page().textContent('#status');
      assert.match(status, name === 'bert' ? /norms after each addition \(post-LN\)/ : /norms before the attention and before the MLP \(pre-LN\)/);
      // X's cell: the model's hidden state entering its layer 2 (BERT), or its RMSNorm₁ / LN₁ (pre-LN)
      await page().click('#x-table td[data-matrix="x"][data-row="1"][data-col="0"]');
      await page().waitForFunction(() => !document.querySelector('#explain').hidden);
      const x = await page().textContent('#explain-lines');
      assert.match(x, name === 'bert' ? /^The bert model's hidden state entering its layer 2 of 2/ : want.rms ? /RMSNorm₁ in layer 2 is the model's RMSNorm/ : /LN₁ in layer 2: the row has mean/);
      await page().click('#explain-close');
      // the walk's last step: the token leaves the model's layer 2 of 2, not "the last layer"
      await page().click('#walk-start');
      await page().keyboard.press('End');
      await page().waitForFunction(() => /leaving/.test(document.querySelector('.walk-text')?.textContent ?? ''));
      assert.match(await page().textContent('.walk-text'), /leaving the model's layer 2 of 2, the only block the lab holds/);
      await page().click('#walk-stop');
      // finding 13: the sentence box shows the model's tokens with · for a space, and says whose they are
      const sentence = await page().inputValue('#sentence');
      assert.equal(sentence, reference.tokens.map((token) => token.replace(/Ġ/g, '·')).join(' '));
      assert.doesNotMatch(sentence, /[Ġ▁]/);
      assert.match(await page().textContent('#sentence-model'), /the model's own tokens/);
      assert.equal(await page().isVisible('#sentence-model'), true);
      // findings 1 and 14: a norm's γ explained as the folder's tensor, with its own formula; an RMSNorm shows no β
      await page().evaluate(() => { document.querySelector('.blocks-params').open = true; });
      const gamma = tensorOf(name, want.norm).values;
      const norm = await explainParameter('ln1', 0, 2);
      assert.match(norm.text, new RegExp(`Read from the ${name} model's folder: the tensor ${want.norm.replaceAll('.', '\\.')}, a parameter of ${want.rms ? 'RMSNorm₁' : 'LN₁'} in the model's layer 2 of 2`));
      assert.ok(Math.abs(norm.value - gamma[2]) <= 1e-3 * Math.max(1, Math.abs(gamma[2])), `γ[e3] ${norm.value} against the file's ${gamma[2]}`);
      assert.ok(norm.text.includes(want.rms ? 'x / √(mean(x²) + ε) · γ, with no mean taken away and no β' : '(x − mean) / √(variance + ε) · γ + β'), norm.text);
      assert.doesNotMatch(norm.text, /Xavier|γ = 1|seeded/);
      assert.equal(await page().locator('.blocks-params td[data-matrix="ln1"][data-row="1"]').count(), want.rms ? 0 : 32);
      assert.match(await page().textContent('.blocks-params'), want.rms ? /RMSNorm₁ of layer 2: γ(?! and)/ : /LN₁ of layer 2: γ and β/);
      // finding 2: an MLP cell (W_gate for Llama, read only; w1 for BERT) is selectable, reachable by keys, and explained
      const { shape, values } = tensorOf(name, want.mlp);
      const mlp = await explainParameter(want.mlpTable, 1, 2);
      assert.ok(mlp.text.includes(want.mlp), mlp.text);
      // the file's (hidden, d_model) weight, or GPT-2's Conv1D (d_model, hidden): unit h3, column e2
      const weight = want.conv1d ? values[1 * shape[1] + 2] : values[2 * shape[1] + 1];
      assert.ok(Math.abs(mlp.value - weight) <= 1e-3 * Math.max(1, Math.abs(weight)), `${want.mlpTable}[e2, h3] ${mlp.value} against the file's ${weight}`);
      assert.doesNotMatch(mlp.text, /Xavier|seeded/);
      if (want.rms) assert.ok(mlp.text.includes('SiLU(x·W_gate) ⊙ (x·W_up), then ·W_down'), mlp.text);
      // a read-only cell (W_gate) has the focus, and the arrow keys move on to the next cell and explain it
      if (want.rms) {
        await page().keyboard.press('ArrowRight');
        assert.match(await page().textContent('#explain-cell'), /^W_gate of layer 2 \(d_model × 64\): row 'e2', column 'h4'/);
      }
      // finding 6: one's own sentence over the model's block keeps e1 … headers and drops the "0 to 1" story
      await lab.redrawn(() => page().fill('#sentence', 'The dog ran to the park'));
      assert.doesNotMatch(await page().textContent('#notes'), /0 \(absent\) to 1 \(strong\)/);
      assert.match(await page().textContent('#notes'), /no longer the model's/);
      const headers = await page().locator('.blocks-params td[data-matrix="ln1"]').first().evaluate((td) => [...td.closest('table').querySelectorAll('thead th')].map((th) => th.textContent));
      assert.deepEqual(headers.slice(0, 3), ['e1', 'e2', 'e3']);
      assert.equal(await page().isVisible('#sentence-model'), false);
    });
  }

  it('llama: "Copy link" on a model\'s layer says plainly that it cannot be shared as a link, and offers the JSON export', async () => {
    await openAndRun('llama');
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
    await page().click('#copy-link');
    assert.match(await page().textContent('#status'), /^A model's layer cannot be shared as a link: its weights come from the model's files.*Export the tables \(JSON\)/);
  });
});
