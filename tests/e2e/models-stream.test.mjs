// "Real models", the parts a first-time student found missing (issue 24), in headless Chromium through
// the page's own file input with the folders of ../shared/models:
// - the residual stream explained with the reader's numbers: a layer's parts for a token, and the check
//   that they add up, against transformers' hidden states (reference.json) for GPT-2 and Llama (pre-LN)
//   and BERT (post-LN); the walk through its stages; its CSV and JSON files (downloaded), numbers
//   against reference.json, token cells that start with = + - @ neutralised;
// - BERT's masked-LM guesses for [MASK] tokens against a float64 BertForMaskedLM written in the tests
//   (tests/web/src/models/bert64.mjs) from the folder's safetensors;
// - a Llama layer opened in the lab draws its SwiGLU W_gate, W_up and W_down (the folder's own
//   numbers), and "About this example" names the model and the layer.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { useLabPage, downloadedBytes } from './browser.mjs';
import { haveModels as have, dirOf, openAndRun as openFolderAndRun } from './model-folders.mjs';
import { readSafetensorsFile } from '../web/src/models/copies.mjs';
import { referenceLogits, softmax } from '../web/src/models/bert64.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const openAndRun = (name) => openFolderAndRun(page(), name);

const D = 32;  // every reference model's d_model
const rowOf = (values, i) => values.slice(i * D, (i + 1) * D);
const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

// A sentence typed and run; waits for the whole result of that sentence
async function runText(text) {
  await page().fill('#models-text', text);
  const before = await page().evaluate(() => globalThis.attentionLab.models.drawn.length);
  await page().click('#models-run');
  await page().waitForFunction((count) => {
    const { models } = globalThis.attentionLab;
    return models.drawn.length > count && models.result && !models.result.partial;
  }, before);
}

// The parts table of token i, layer l once its check is made (the block's weights read): { rows, error }
async function partsOf(i, l) {
  await page().selectOption('#models-stream-token', { value: String(i) });
  await page().selectOption('#models-stream-layer', { value: String(l) });
  await page().waitForFunction(([i, l]) => {
    const check = document.querySelector('.model-stream-check');
    const table = document.querySelector('.model-stream-parts');
    return check?.dataset.exact === 'true' && table?.dataset.token === String(i) && table.dataset.layer === String(l);
  }, [i, l]);
  return page().evaluate(() => ({
    rows: Object.fromEntries([...document.querySelectorAll('.model-stream-parts tbody tr')].map((tr) => [tr.dataset.part,
      [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))])),
    error: Number(document.querySelector('.model-stream-check').dataset.error),
    text: document.querySelector('.model-stream-check').textContent,
  }));
}

// The table's row `part` ([norm, e1 … e8]) against a float64 row of d_model values
function assertRow(got, want, what) {
  assert.ok(Math.abs(got[0] - norm(want)) <= 1e-4 * norm(want), `${what}: norm ${got[0]} vs ${norm(want)}`);
  got.slice(1).forEach((v, j) => assert.ok(Math.abs(v - want[j]) <= 1e-4 * Math.max(1, Math.abs(want[j])), `${what} e${j + 1}: ${v} vs ${want[j]}`));
}

describe('the residual stream explained', { skip: !have && 'no ../shared/models' }, () => {
  for (const name of ['gpt2', 'llama', 'bert']) {
    it(`${name}: each layer's parts add up to the model's state (transformers' hidden states), the MLP recomputed from the layer's weights`, async () => {
      const reference = await openAndRun(name);
      const hidden = reference.hidden_states;
      const last = reference.layers.length - 1;
      const i = 3;
      for (let l = 0; l <= last; l++) {
        const { rows, error, text } = await partsOf(i, l);
        assert.ok(error > 0 && error <= 1e-4, `${name} layer ${l + 1}: check ${error}`);
        assert.match(text, /add up/);
        assertRow(rows.entering, rowOf(hidden[l], i), `${name} layer ${l + 1} entering`);
        assertRow(rows.attention, rowOf(reference.layers[l].output, i), `${name} layer ${l + 1} attention`);
        // what the parts give is transformers' next hidden state (the last one of a pre-LN model is after its final norm)
        if (name === 'bert' || l < last) assertRow(rows.computed, rowOf(hidden[l + 1], i), `${name} layer ${l + 1} computed`);
        if (name === 'bert') assert.deepEqual(Object.keys(rows), ['entering', 'attention', 'sum1', 'norm1', 'mlp', 'sum2', 'computed', 'leaving']);
        else assert.deepEqual(Object.keys(rows), ['entering', 'attention', 'mlp', 'computed', 'leaving']);
      }
      console.log(`# ${name}: the stream's parts add up, token ${i + 1}, every layer`);
    });
  }
});

describe('the residual stream\'s walk and files', { skip: !have && 'no ../shared/models' }, () => {

  it('gpt2: the walk goes through every stage, marking its row, with the stage\'s norm', async () => {
    const reference = await openAndRun('gpt2');
    const L = reference.layers.length;
    await page().selectOption('#models-stream-token', { value: '2' });
    await page().click('.model-stream-walk button[data-walk="start"]');
    const seen = [];
    for (let step = 0; ; step++) {
      const state = await page().evaluate(() => ({
        step: Number(document.querySelector('.model-stream-walk').dataset.step),
        text: document.querySelector('.model-stream-walk .walk-text').textContent,
        position: document.querySelector('.model-stream-walk .walk-position').textContent,
        marked: [...document.querySelectorAll('.model-stream-summary tr.model-stream-current')].map((tr) => ({ stage: Number(tr.dataset.stage),
          norm: Number(tr.querySelector('.model-stream-norm').dataset.value), shown: tr.querySelector('.model-stream-norm').textContent })),
        last: document.querySelector('.model-stream-walk button[data-walk="next"]').disabled,
      }));
      assert.equal(state.step, step);
      assert.equal(state.marked.length, 1);
      seen.push(state);
      if (state.last) break;
      await page().click('.model-stream-walk button[data-walk="next"]');
    }
    // the embeddings, each layer's attention and MLP, the final norm
    assert.equal(seen.length, 1 + 2 * L + 1);
    assert.equal(seen[0].position, `Step 1 of ${seen.length}`);
    assert.deepEqual(seen.map((s) => s.marked[0].stage), [0, ...Array.from({ length: L }, (_, l) => [l, l + 1]).flat(), L]);
    // the step after a layer's MLP: its stage's norm, transformers' (the final norm's row the last)
    for (const { marked: [row], text } of [seen[0], seen[2], seen.at(-1)]) {
      const want = norm(rowOf(reference.hidden_states[row.stage], 2));
      assert.ok(Math.abs(row.norm - want) <= 1e-4 * want, `stage ${row.stage}: ${row.norm} vs ${want}`);
      assert.ok(text.includes(row.shown), `"${text}" says ${row.shown}`);
    }
    // by keyboard: the focus stays in the walk (Back at the last step), Home goes to the first step, Escape stops
    assert.equal(await page().evaluate(() => document.activeElement?.dataset.walk), 'back');
    await page().keyboard.press('Home');
    assert.equal(await page().evaluate(() => document.querySelector('.model-stream-walk').dataset.step), '0');
    await page().keyboard.press('n');
    assert.equal(await page().evaluate(() => document.querySelector('.model-stream-walk').dataset.step), '1');
    await page().keyboard.press('Escape');
    assert.deepEqual(await page().evaluate(() => [document.querySelector('.model-stream-walk').dataset.step, document.activeElement?.dataset.walk]), ['-1', 'start']);
  });

  it('gpt2: the stream as CSV and JSON files: every token and stage, transformers\' numbers; = + - @ cells neutralised', async () => {
    const reference = await openAndRun('gpt2');
    const download = async (format) => {
      const [file] = await Promise.all([page().waitForEvent('download'), page().click(`.model-stream-export button[data-format="${format}"]`)]);
      assert.equal(file.suggestedFilename(), `residual-stream.${format}`);
      return (await downloadedBytes(file)).toString('utf8');
    };
    const json = JSON.parse(await download('json'));
    assert.deepEqual(json.tokens, reference.tokens);
    assert.deepEqual(json.ids, reference.ids);
    assert.equal(json.hidden.length, reference.hidden_states.length);
    json.hidden.forEach((stage, s) => stage.forEach((row, i) => row.forEach((v, j) => {
      const want = reference.hidden_states[s][i * D + j];
      assert.ok(Math.abs(v - want) <= 1e-4 * Math.max(1, Math.abs(want)), `json stage ${s} token ${i} e${j + 1}`);
    })));
    const csv = (await download('csv')).trimEnd().split('\n');
    const header = csv.findIndex((line) => line.startsWith('token index,'));
    const data = csv.slice(header + 1).map((line) => line.split(','));
    assert.equal(data.length, reference.ids.length * reference.hidden_states.length);
    for (const fields of data) {
      const [i, , , s] = fields.map(Number);
      fields.slice(5).forEach((v, j) => {
        const want = reference.hidden_states[s][(i - 1) * D + j];
        assert.ok(Math.abs(Number(v) - want) <= 1e-4 * Math.max(1, Math.abs(want)), `csv stage ${s} token ${i} e${j + 1}`);
      });
    }
    // a sentence whose tokens start with = + - @: each such cell starts with ' (and is quoted)
    await runText('=1+2 -3 @4');
    const tokens = await page().evaluate(() => globalThis.attentionLab.models.result.tokens);
    const risky = tokens.filter((token) => /^[=+\-@]/.test(token));
    assert.ok(risky.length >= 3, `tokens ${tokens.join(' ')}`);
    const lines = (await download('csv')).split('\n');
    for (const token of risky) assert.ok(lines.some((line) => line.includes(`,"'${token}",`)), `${token} neutralised`);
    assert.ok(!lines.some((line) => /(^|,)[=+\-@][^0-9.]/.test(line)), 'no cell starts a formula');
  });
});

describe('BERT guesses its [MASK] tokens', { skip: !have && 'no ../shared/models' }, () => {
  it('the top 10 of each [MASK], in the float64 reference\'s order, probabilities within 1e-4 relative', async () => {
    await openAndRun('bert');
    assert.match(await page().textContent('#models-next'), /^No next-token list: this model is not causal\. It is a masked language model: .*Type \[MASK\] in place of a word/);
    await runText('The [MASK] sat on the [MASK].');
    const { masked, ids } = await page().evaluate(() => globalThis.attentionLab.models.result);
    const config = JSON.parse(readFileSync(join(dirOf('bert'), 'config.json'), 'utf8'));
    const logits = referenceLogits(dirOf('bert'), ids, config);
    assert.equal(masked.length, 2);
    for (const { position, top } of masked) {
      const p = softmax(logits[position]);
      const order = [...p.keys()].sort((a, b) => p[b] - p[a]).slice(0, 10);
      assert.deepEqual(top.map((g) => g.id), order);
      for (const g of top) assert.ok(Math.abs(g.probability - p[g.id]) <= 1e-4 * p[g.id], `row ${position + 1}, id ${g.id}`);
      // on the page: a table per [MASK], its ids in that order, each probability exact in data-value
      const shown = await page().evaluate((position) => [...document.querySelectorAll(`#models-next table[data-position="${position}"] tr`)].slice(1)
        .map((tr) => ({ id: Number(tr.cells[2].textContent), p: Number(tr.cells[3].dataset.value) })), position);
      assert.deepEqual(shown.map((s) => s.id), order);
      shown.forEach((s) => assert.ok(Math.abs(s.p - p[s.id]) <= 1e-4 * p[s.id]));
    }
  });
});

describe('a model\'s layer in the lab', { skip: !have && 'no ../shared/models' }, () => {
  it('llama: the SwiGLU MLP\'s W_gate, W_up and W_down drawn (the folder\'s numbers); "About this example" names the model and layer', async () => {
    await openAndRun('llama');
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
    const tensors = Object.fromEntries(readSafetensorsFile(join(dirOf('llama'), 'model.safetensors')).map((t) => [t.name, t]));
    const floats = (t) => new Float32Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.length / 4);
    const tables = await page().evaluate(() => {
      const box = document.querySelector('.blocks-params');
      box.open = true;
      return [...box.querySelectorAll('table.matrix')].map((table) => ({
        caption: table.caption.textContent,
        cells: [...table.tBodies[0].rows].map((tr) => [...tr.cells].slice(1).map((td) => td.querySelector('input')?.value ?? td.textContent)),
      }));
    });
    const f = tensors['model.layers.1.mlp.gate_proj.weight'].shape[0];
    for (const [name, tensor, rows] of [['W_gate', 'gate_proj', D], ['W_up', 'up_proj', D], ['W_down', 'down_proj', f]]) {
      // the model's layer 2, as the model numbers it (review 7, finding 5)
      const table = tables.find((t) => t.caption.startsWith(`${name} of layer 2`));
      assert.ok(table, `${name} drawn: ${tables.map((t) => t.caption).join('; ')}`);
      assert.equal(table.cells.length, rows);
      const w = floats(tensors[`model.layers.1.mlp.${tensor}.weight`]);  // nn.Linear (out, in)
      const inWidth = rows;
      table.cells.forEach((row, i) => row.forEach((text, o) => {
        const want = w[o * inWidth + i];
        assert.ok(Math.abs(Number(text.replace('−', '-')) - want) <= 5e-4 + 1e-3 * Math.abs(want), `${name}[${i}, ${o}]: ${text} vs ${want}`);
      }));
    }
    const notes = await page().textContent('#notes');
    assert.match(notes, /llama/);
    assert.match(notes, /LlamaForCausalLM/);
    assert.match(notes, /^Layer 2 of 2 of the llama model/);
    assert.doesNotMatch(notes, /Hand-made embeddings|vocabulary/);
    // the reader's own sentence typed over it: the notes no longer claim the model's rows
    await lab.redrawn(() => page().fill('#sentence', 'The cat sat on the mat'));
    await page().waitForFunction(() => /no longer holds/.test(document.querySelector('#status').textContent));
    assert.match(await page().textContent('#notes'), /^This was layer 2 of 2 of the llama model \(LlamaForCausalLM\); its sentence, rows or block have changed since/);
  });
});
