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

import { useLabPage, downloadBy, downloadedBytes } from './browser.mjs';
import { haveModels as have, dirOf, openAndRun as openFolderAndRun, runText as runTextIn } from './model-folders.mjs';
import { readSafetensorsFile } from '../web/src/models/copies.mjs';
import { referenceLogits, softmax } from '../web/src/models/bert64.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const openAndRun = (name) => openFolderAndRun(page(), name);

const D = 32;  // every reference model's d_model
const rowOf = (values, i) => values.slice(i * D, (i + 1) * D);
const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

// A sentence typed and run; waits for the whole result of that sentence
const runText = (text) => runTextIn(page(), text);  // model-folders.mjs

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

// The model's final norm (GPT-2's ln_f LayerNorm, Llama's and Qwen2's RMSNorm model.norm), float64,
// from the folder's safetensors and config.json: row → normed row
function finalNormOf(name) {
  const tensors = Object.fromEntries(readSafetensorsFile(join(dirOf(name), 'model.safetensors')).map((t) => [t.name, t]));
  const floats = (t) => new Float32Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.length / 4);
  const config = JSON.parse(readFileSync(join(dirOf(name), 'config.json'), 'utf8'));
  const gpt2 = name === 'gpt2';
  const weight = floats(tensors[gpt2 ? 'transformer.ln_f.weight' : 'model.norm.weight']);
  const bias = gpt2 ? floats(tensors['transformer.ln_f.bias']) : null;
  const eps = gpt2 ? config.layer_norm_epsilon : config.rms_norm_eps;
  return (row) => {
    const mean = gpt2 ? row.reduce((a, x) => a + x, 0) / row.length : 0;
    const square = row.reduce((a, x) => a + (x - mean) ** 2, 0) / row.length;
    return row.map((x, j) => (x - mean) / Math.sqrt(square + eps) * weight[j] + (bias ? bias[j] : 0));
  };
}

describe('the residual stream explained', { skip: !have && 'no ../shared/models' }, () => {
  for (const name of ['gpt2', 'llama', 'qwen2', 'bert']) {
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
        // = x + a: transformers' hidden state plus its attention output, added here
        const middle = rowOf(hidden[l], i).map((x, j) => x + reference.layers[l].output[i * D + j]);
        assertRow(rows[name === 'bert' ? 'sum1' : 'middle'], middle, `${name} layer ${l + 1} x + a`);
        // what the parts give is transformers' next hidden state (the last one of a pre-LN model is after its final norm)
        if (name === 'bert' || l < last) assertRow(rows.computed, rowOf(hidden[l + 1], i), `${name} layer ${l + 1} computed`);
        if (name === 'bert') assert.deepEqual(Object.keys(rows), ['entering', 'attention', 'sum1', 'norm1', 'mlp', 'sum2', 'computed', 'leaving']);
        else assert.deepEqual(Object.keys(rows), ['entering', 'attention', 'middle', 'mlp', 'computed', 'leaving']);
        // one notation with the lab: x entering, a attention's output, m the MLP's
        const names = await page().evaluate(() => [...document.querySelectorAll('.model-stream-parts tbody th')].map((th) => th.textContent));
        assert.match(names[0], /^x: entering layer/);
        assert.ok(names.every((text) => !/\bh\b/.test(text)), names.join(' | '));
        if (name !== 'bert' && l === last) assert.match(names.at(-1), /before the final norm/);
      }
      console.log(`# ${name}: the stream's parts add up, token ${i + 1}, every layer`);
    });
  }
});

describe('the stream\'s check reads its block only when wanted', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2: after a run, no block is read while the explanation is off screen; scrolled near, the check is made; a picked layer makes it at once', async () => {
    const size = page().viewportSize();
    await page().setViewportSize({ width: size.width, height: 400 });
    try {
      const reference = await openAndRun('gpt2');
      await page().evaluate(() => window.scrollTo(0, 0));
      await runText(reference.text);
      // two frames: an IntersectionObserver reports within the frame after a change
      await page().evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const off = await page().evaluate(() => ({
        below: document.querySelector('.model-stream-explain').getBoundingClientRect().top - innerHeight,
        held: globalThis.attentionLab.models.blocksHeld,
        exact: document.querySelector('.model-stream-check').dataset.exact,
      }));
      assert.ok(off.below > 400, `the explanation is ${off.below} px below the screen: the test needs it farther`);
      assert.deepEqual(off.held, [], 'no block read for a check no one looks at');
      assert.equal(off.exact, 'false', 'the MLP row is the remainder until the block is read');
      await page().evaluate(() => document.querySelector('.model-stream-explain').scrollIntoView());
      await page().waitForFunction(() => document.querySelector('.model-stream-check').dataset.exact === 'true');
      assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.blocksHeld), [0]);
      // a layer picked: its block read at once, wherever the page is scrolled
      await page().evaluate(() => window.scrollTo(0, 0));
      await page().selectOption('#models-stream-layer', { value: '1' });
      await page().waitForFunction(() => document.querySelector('.model-stream-check').dataset.exact === 'true'
        && document.querySelector('.model-stream-parts')?.dataset.layer === '1');
      assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.blocksHeld), [0, 1]);
    } finally {
      await page().setViewportSize(size);
    }
  });
});

describe('the residual stream\'s walk', { skip: !have && 'no ../shared/models' }, () => {

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
        marked: [...document.querySelectorAll('.model-stream-summary tr.model-stream-current')].map((tr) => ({ stage: tr.dataset.stage,
          norm: Number(tr.querySelector('.model-stream-norm').dataset.value), shown: tr.querySelector('.model-stream-norm').textContent })),
        // the parts table's rows the step describes: [part, its norm as shown]
        parts: [...document.querySelectorAll('.model-stream-parts tr.model-stream-current')].map((tr) => [tr.dataset.part, tr.cells[1].textContent]),
        layer: document.querySelector('.model-stream-parts').dataset.layer,
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
    // the last layer's MLP marks the state before the final norm, the last step the one after it
    assert.deepEqual(seen.map((s) => s.marked[0].stage), ['0', ...Array.from({ length: L }, (_, l) => [String(l), l === L - 1 ? 'before-norm' : String(l + 1)]).flat(), String(L)]);
    // the parts table's rows of each step (x; + a and = x + a; + m, the sum and leaving), in the step's layer
    assert.deepEqual(seen.map((s) => s.parts.map(([part]) => part)), [['entering'], ...Array.from({ length: L }, () => [['attention', 'middle'], ['mlp', 'computed', 'leaving']]).flat(), ['leaving']]);
    assert.deepEqual(seen.map((s) => s.layer), ['0', ...Array.from({ length: L }, (_, l) => [String(l), String(l)]).flat(), String(L - 1)]);
    // the attention step's "x + a has norm …" is the = x + a row's; the last MLP step's leaving norm the "before the final norm" row's
    for (let l = 0; l < L; l++) assert.ok(seen[1 + 2 * l].text.includes(`x + a has norm ${seen[1 + 2 * l].parts[1][1]}.`), seen[1 + 2 * l].text);
    assert.match(seen[2 * L].text, new RegExp(`leaves layer ${L}, before the final norm, with norm ${seen[2 * L].marked[0].shown}\\.`));
    assert.equal(seen[2 * L].parts[2][1], seen[2 * L].marked[0].shown);
    // the walk's bar above the parts table it points at
    assert.ok(await page().evaluate(() => document.querySelector('.model-stream-walk').compareDocumentPosition(document.querySelector('.model-stream-parts')) & Node.DOCUMENT_POSITION_FOLLOWING));
    // the step after a layer's MLP: its stage's norm, transformers' (the final norm's row the last)
    for (const { marked: [row], text } of [seen[0], seen[2], seen.at(-1)]) {
      const want = norm(rowOf(reference.hidden_states[Number(row.stage)], 2));
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

});

describe('the residual stream\'s files', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2: the stream as CSV and JSON files: every token and stage, transformers\' numbers; = + - @ cells neutralised', async () => {
    const reference = await openAndRun('gpt2');
    const download = async (format) => {
      const file = await downloadBy(page(), `.model-stream-export button[data-format="${format}"]`);
      assert.equal(file.suggestedFilename(), `gpt2-residual-stream.${format}`);
      return (await downloadedBytes(file)).toString('utf8');
    };
    const json = JSON.parse(await download('json'));
    assert.deepEqual(json.tokens, reference.tokens);
    assert.deepEqual(json.ids, reference.ids);
    // transformers' hidden states, and the last layer's state before the final norm between the last two
    const L = reference.layers.length;
    assert.deepEqual(json.stages, ['embeddings', ...Array.from({ length: L - 1 }, (_, l) => `after layer ${l + 1}`), `after layer ${L} (before the final norm)`, `after the final norm (hidden state ${L})`]);
    const final = finalNormOf('gpt2');
    // stage s's reference row for token i: a hidden state, or (before the final norm) the row that the final norm takes to hidden state L
    const check = (s, i, got, what) => {
      const want = s === L ? reference.hidden_states[L].slice(i * D, (i + 1) * D) : reference.hidden_states[s < L ? s : L].slice(i * D, (i + 1) * D);
      const row = s === L ? final(got) : got;
      row.forEach((v, j) => assert.ok(Math.abs(v - want[j]) <= 1e-4 * Math.max(1, Math.abs(want[j])), `${what} stage ${s} token ${i} e${j + 1}: ${v} vs ${want[j]}`));
    };
    json.hidden.forEach((stage, s) => stage.forEach((row, i) => check(s, i, row, 'json')));
    const csv = (await download('csv')).trimEnd().split('\n');
    const header = csv.findIndex((line) => line.startsWith('token index,'));
    const data = csv.slice(header + 1).map((line) => line.split(','));
    assert.equal(data.length, reference.ids.length * (reference.hidden_states.length + 1));
    for (const fields of data) {
      const [i, , , s] = fields.map(Number);
      assert.equal(fields[4], json.stages[s]);
      check(s, i - 1, fields.slice(5).map(Number), 'csv');
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

// the walk's text at every step, from Start to the last step (then stopped)
const walkTexts = () => page().evaluate(async () => {
  const panel = document.querySelector('.model-stream-walk');
  panel.querySelector('button[data-walk="start"]').click();
  const texts = [];
  for (;;) {
    texts.push(panel.querySelector('.walk-text').textContent);
    const next = panel.querySelector('button[data-walk="next"]');
    if (next.disabled) break;
    next.click();
  }
  panel.querySelector('button[data-walk="stop"]').click();
  return texts;
});
// the stream section's introduction
const introOf = () => page().textContent('.model-stream-section > p.hint');

describe('review 7: the stream\'s words for each model', { skip: !have && 'no ../shared/models' }, () => {
  for (const name of ['gpt2', 'llama', 'qwen2']) {
    it(`${name}: the last layer's state before the final norm (the final norm takes it to transformers' last hidden state), the one after it named so`, async () => {
      const reference = await openAndRun(name);
      const L = reference.layers.length, i = 3;
      await page().selectOption('#models-stream-token', { value: String(i) });
      await page().evaluate(() => { document.querySelector('details.model-stream-all').open = true; });
      await page().waitForSelector('table.model-stream tr[data-stage="before-norm"]');
      const rows = await page().evaluate(() => [...document.querySelectorAll('table.model-stream tbody tr')].map((tr) => ({
        stage: tr.dataset.stage, name: tr.cells[0].textContent, values: [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)) })));
      assert.deepEqual(rows.map((r) => r.stage), [...Array.from({ length: L }, (_, s) => String(s)), 'before-norm', String(L)]);
      assert.equal(rows[L].name, `leaves layer ${L} (before the final norm)`);
      assert.equal(rows[L + 1].name, `after the final norm (hidden state ${L})`);
      // before the final norm: the final norm (written here from the folder's weights) gives transformers' hidden state L
      const want = rowOf(reference.hidden_states[L], i);
      finalNormOf(name)(rows[L].values).forEach((v, j) => assert.ok(Math.abs(v - want[j]) <= 1e-4 * Math.max(1, Math.abs(want[j])), `${name} e${j + 1}: ${v} vs ${want[j]}`));
      rows[L + 1].values.forEach((v, j) => assert.ok(Math.abs(v - want[j]) <= 1e-4 * Math.max(1, Math.abs(want[j]))));
      // the summary has the same rows; the parts table's leaving state of layer L is that row, said to be before the norm
      const summary = await page().evaluate(() => [...document.querySelectorAll('.model-stream-summary tbody tr')].map((tr) => [tr.dataset.stage, tr.querySelector('.model-stream-norm').textContent]));
      assert.deepEqual(summary.map(([stage]) => stage), rows.map((r) => r.stage));
      // its caption says it shows the first 8 of the row's features (all of them: the hidden state's width)
      const width = rowOf(reference.hidden_states[0], i).length;
      assert.match(await page().textContent('.model-stream-summary caption'), new RegExp(`norm and the first 8 of its ${width} features, stage by stage$`));
      const { rows: parts } = await partsOf(i, L - 1);
      assert.ok(Math.abs(parts.leaving[0] - norm(rows[L].values)) <= 1e-5 * norm(rows[L].values));
      assert.match(await page().textContent('.model-stream-parts tr[data-part="leaving"] th'), /before the final norm/);
      // the words: no position in a rotary model's embedding; learned positions in GPT-2's
      const intro = await introOf();
      const [embed] = await walkTexts();
      if (name === 'gpt2') {
        assert.match(intro, /learned position/);
        assert.match(embed, /plus the row of its learned position/);
      } else {
        assert.match(intro, /with no position: in this model position enters inside attention, by rotation \(RoPE\)/);
        assert.match(embed, /with no position: this model adds position inside attention, by rotating the queries and keys \(RoPE\)/);
      }
      assert.doesNotMatch(intro + embed, /with its position/);
      // the block's formula names the model's norms: LayerNorm for GPT-2, RMSNorm for Llama and Qwen2 (config.json rms_norm_eps)
      const rms = 'rms_norm_eps' in JSON.parse(readFileSync(join(dirOf(name), 'config.json'), 'utf8'));
      assert.equal(rms, name !== 'gpt2');
      const section = await page().textContent('#models-stream');
      assert.equal(section.includes('attention reads RMSNorm₁(x) and the MLP reads RMSNorm₂(x + a)'), rms);
      assert.equal(section.includes('attention reads LN₁(x) and the MLP reads LN₂(x + a)'), !rms);
      // nowhere else either (the parts table's "= x + a" row, the lab's order of a block): an RMSNorm model has no LN
      assert.equal(/LN₁|LN₂/.test(section), !rms, 'LN₁/LN₂ named in the section of an RMSNorm model');
      console.log(`# ${name}: before the final norm, token ${i + 1}: norm ${summary[L][1]} → after it ${summary[L + 1][1]}`);
    });
  }

  it('a causal model\'s first token attends only to itself; the others mix in values (gpt2, llama); BERT\'s positions are learned', async () => {
    for (const name of ['gpt2', 'llama']) {
      const reference = await openAndRun(name);
      // row 1's attention weights are [1, 0, …] in every head of layer 1 (transformers' probs): what the sentence says
      const n = reference.ids.length;
      assert.ok(Math.abs(reference.layers[0].probs[0] - 1) < 1e-6 && reference.layers[0].probs.slice(1, n).every((p) => p === 0));
      await page().selectOption('#models-stream-token', { value: '0' });
      const first = await walkTexts();
      assert.match(first[1], /is the first token, and the causal mask lets it attend only to itself/);
      assert.doesNotMatch(first[1], /other tokens/);
      await page().selectOption('#models-stream-token', { value: '2' });
      const third = await walkTexts();
      assert.match(third[1], /mixes in the other tokens' values/);
      // the attention and MLP steps name the model's norms: RMSNorm₁/₂ for Llama (review 7, 14), LN₁/₂ for GPT-2
      const [n1, n2] = name === 'llama' ? ['RMSNorm₁', 'RMSNorm₂'] : ['LN₁', 'LN₂'];
      assert.ok(third[1].includes(`reads ${n1}(x)`) && third[2].includes(`reads ${n2}(x + a)`), `${name}: ${third[1]} / ${third[2]}`);
      if (name === 'llama') assert.doesNotMatch(third.join(' '), /LN₁|LN₂/);
      // the last step: the next-token list comes from the last token's row, not this one (review 8, 7)
      assert.match(first.at(-1), /The unembedding would read this row to score the token after .+; the list of the most likely next tokens above comes from the last token's row/);
      await page().selectOption('#models-stream-token', { value: String(n - 1) });
      assert.match((await walkTexts()).at(-1), /This row, the last token's, is what the unembedding reads to score the next token/);
    }
    await openAndRun('bert');
    assert.match(await introOf(), /learned position and token type/);
    await page().selectOption('#models-stream-token', { value: '0' });
    assert.match((await walkTexts())[1], /gets attention's output a/);
  });

});

describe('review 7: the stream on a phone', { skip: !have && 'no ../shared/models' }, () => {
  it('375 px: the tables\' captions wrap inside the screen; the heatmaps fit their figure, scaled to 11 px labels at most, or scroll in it', async () => {
    const captions = () => page().evaluate(() => [...document.querySelectorAll('.model-stream-box caption, #models-next caption')].map((c) => {
      const box = c.getBoundingClientRect();
      return { text: c.textContent, left: box.left, right: box.right };
    }));
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      // BERT's [MASK] tables and its stream's; then Llama's
      await openAndRun('bert');
      await runText('The [MASK] sat on the [MASK].');
      const bert = await captions();
      await openAndRun('llama');
      const boxes = [...bert, ...await captions()];
      assert.ok(boxes.filter((box) => box.text.startsWith('[MASK] at position')).length === 2, boxes.map((box) => box.text).join(' | '));
      for (const box of boxes) assert.ok(box.left >= 0 && box.right <= 375, `"${box.text}": ${box.left}–${box.right}`);
      // each heatmap fits its figure (scaled down to labels of 11 px at the least: student review 5) or
      // scrolls sideways in its own box (review 6); its aspect kept
      const canvases = await page().evaluate(() => [...document.querySelectorAll('.model-head > .model-scroll > canvas')].map((c) => [c.getBoundingClientRect().width, c.parentElement.clientWidth,
        c.getBoundingClientRect().height / c.getBoundingClientRect().width, c.height / c.width, c.getBoundingClientRect().width / parseFloat(c.style.width), c.parentElement.scrollWidth]));
      assert.ok(canvases.length > 0);
      for (const [width, figure, shape, own, scale, scrolled] of canvases) {
        assert.ok(width <= figure + 0.5 || scrolled > figure, `canvas ${width} px in a ${figure} px figure that does not scroll`);
        assert.ok(scale * 12 >= 11 - 1e-9, `labels at ${scale * 12} px`);
        assert.ok(Math.abs(shape - own) < 0.02, `aspect ${shape} vs ${own}`);
      }
      assert.equal(await page().evaluate(() => document.documentElement.scrollWidth), 375);
      // the tooltip under the pointer names the cell drawn there, scaled or not: the middle of the same
      // cell (row n − 2, column 1, by the canvas's own layout) at 375 px and at 1280 px, where it is drawn again larger
      const tipAt = async () => {
        const canvas = page().locator('#models-layers details[data-layer="0"] figure[data-head="0"] canvas');
        await canvas.scrollIntoViewIfNeeded();
        const box = await canvas.boundingBox();
        const { left, top, cell, own, n } = await canvas.evaluate((c) => ({ ...Object.fromEntries(['left', 'top', 'cell'].map((k) => [k, Number(c.dataset[k])])),
          own: parseFloat(c.style.width), n: globalThis.attentionLab.models.result.n }));
        const scale = box.width / own;
        await page().mouse.move(box.x + (left + 1.5 * cell) * scale, box.y + (top + (n - 1.5) * cell) * scale);
        return { width: box.width, tip: await canvas.getAttribute('title') };
      };
      const narrow = await tipAt();
      await page().setViewportSize({ width: 1280, height: 800 });
      await page().waitForFunction(() => document.documentElement.clientWidth === 1280);
      await page().waitForFunction((width) => document.querySelector('#models-layers details[data-layer="0"] figure[data-head="0"] canvas').getBoundingClientRect().width > width + 20, narrow.width);
      const wide = await tipAt();
      assert.match(wide.tip, /^query .+, key .+: /);
      assert.equal(narrow.tip, wide.tip);
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
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
        .map((tr) => ({ id: Number(tr.querySelector('.model-id').textContent), p: Number(tr.querySelector('.model-probability').dataset.value) })), position);
      assert.deepEqual(shown.map((s) => s.id), order);
      shown.forEach((s) => assert.ok(Math.abs(s.p - p[s.id]) <= 1e-4 * p[s.id]));
    }
    // review 7: captioned with the position and the words around the mask; the text column left out
    // (WordPiece's whole words decode to themselves); the explanation first; the tables apart
    const view = await page().evaluate(() => {
      const box = document.querySelector('#models-next');
      const tables = [...box.querySelectorAll('table')];
      return { captions: tables.map((table) => table.caption.textContent), heads: tables.map((table) => [...table.rows[0].cells].map((th) => th.textContent)),
        first: box.firstElementChild.tagName, gap: tables[1].getBoundingClientRect().top - tables[0].getBoundingClientRect().bottom };
    });
    assert.deepEqual(view.captions, ['[MASK] at position 3: the ___ sat on (the 10 most likely tokens)', '[MASK] at position 8: sat on the ___ . (the 10 most likely tokens)']);
    assert.deepEqual(view.heads, [['token', 'id', 'probability'], ['token', 'id', 'probability']]);
    assert.equal(view.first, 'P');
    assert.ok(view.gap >= 12, `gap ${view.gap} px`);
    // [mask] in small letters: BERT's tokenizer.json matches [MASK] as written (normalized: false), so the page says so
    const special = JSON.parse(readFileSync(join(dirOf('bert'), 'tokenizer.json'), 'utf8')).added_tokens.find((token) => token.content === '[MASK]');
    assert.equal(special.normalized, false);
    await runText('The [mask] sat on the mat.');
    assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.result.masked), []);
    assert.match(await page().textContent('#models-next .model-mask-case'), /^\[mask\] in small letters is not the mask token: .*Type \[MASK\] in capitals\./);
    await runText('The [MASK] sat on the mat.');
    assert.equal(await page().$('#models-next .model-mask-case'), null);
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
