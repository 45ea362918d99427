// "Real models" as a student uses it (review 5, findings 1, 2, 6, 7, 10, 11, 16, 17, 18), in headless
// Chromium through the page's own file input with the folders of ../shared/models: "Open this layer in
// the lab" takes the reader to the lab; a model's layer edited in the lab stops being called the
// model's; heatmaps without shrunken numbers, masked cells hatched, a legend; the residual stream is
// transformers' hidden states (reference.json); the next tokens decoded as GPT-2's byte-level
// alphabet says (a decoder written here); a plain #anchor is no link error; a bad folder keeps the
// model shown; an example sentence.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { useLabPage } from './browser.mjs';
import { haveModels as have, dirOf, filesOf, referenceOf, openAndRun as openFolderAndRun, byteLevelText } from './model-folders.mjs';
import { tempRoot, writeFolder, textFiles } from '../web/src/models/copies.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const openAndRun = (name) => openFolderAndRun(page(), name);


function relativeError(got, want) {
  let diff = 0, norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += (got[i] - want[i]) ** 2;
    norm += want[i] ** 2;
  }
  return Math.sqrt(diff / norm);
}

// Every distinct colour in each cell of layer 1, head h's heatmap (its pixels, read back), and where the cells start (CSS px)
function cellColours(n, h = 0) {
  return page().evaluate(({ n, h }) => {
    const canvas = document.querySelector(`#models-layers details[data-layer="0"] figure[data-head="${h}"] canvas`);
    const ratio = canvas.width / canvas.getBoundingClientRect().width;
    const cell = 26 * ratio;
    const context = canvas.getContext('2d');
    // the cells' block ends 2 px above the bottom; rows are n cells high
    const top = canvas.height - 2 * ratio - n * cell;
    // its left edge: the first column of pixels (scanning the last row of cells) that is not transparent
    const y = Math.round(top + (n - 0.5) * cell);
    const line = context.getImageData(0, y, canvas.width, 1).data;
    let left = 0;
    // (every colour of the scale is bluer than red; the labels are grey)
    while (left < canvas.width && !(line[left * 4 + 3] === 255 && line[left * 4 + 2] > line[left * 4])) left++;
    // every distinct colour in each cell (a 1-pixel margin left out)
    const colours = [];
    for (let r = 0; r < n; r++) {
      const row = [];
      for (let c = 0; c < n; c++) {
        const x0 = Math.ceil(left + c * cell) + 1, y0 = Math.ceil(top + r * cell) + 1, size = Math.floor(cell) - 2;
        const data = context.getImageData(x0, y0, size, size).data;
        const seen = new Set();
        for (let i = 0; i < data.length; i += 4) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
        row.push([...seen]);
      }
      colours.push(row);
    }
    return { colours, left: left / ratio, top: top / ratio };
  }, { n, h });
}

// Layer 1, every head: every distinct colour in each cell's pixels, read back, against the reference's
// weights (the heads after the first are painted from the ImageData the first one used: none may keep a
// pixel of another head); masked cells hatched, no digits drawn
async function checkHeadColours(reference, n) {
  const { weightColour } = await import('../../web/src/shared/colour.mjs');
  const heads = reference.layers[0].probs.length / (n * n);
  assert.equal(heads, 4);
  for (let h = heads - 1; h >= 0; h--) {
    const { colours: pixels } = await cellColours(n, h);
    const probs = reference.layers[0].probs.slice(h * n * n, (h + 1) * n * n);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const got = pixels[r][c];
        if (c > r) assert.deepEqual(got.sort(), ['154,154,162', '214,214,220'], `head ${h + 1} cell ${r},${c} is masked: hatched`);
        else assert.deepEqual(got, [weightColour(probs[r * n + c]).rgb.join()], `head ${h + 1} cell ${r},${c}: its colour alone, no digits drawn`);
      }
    }
  }
}

// The residual stream of `name` against reference.json's hidden states, and its notes (#7, #11)
async function streamAndNotes(name) {
  const reference = await openAndRun(name);
  const n = reference.ids.length;
  const d = reference.hidden_states[0].length / n;
  for (const i of [0, n - 1]) {
    await page().selectOption('#models-stream-token', String(i));
    // the summary: each stage's norm (float64 from reference.json) and first features
    const summary = await page().$$eval('#models-stream table.model-stream-summary tbody tr:not([data-stage="before-norm"])', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
    assert.equal(summary.length, reference.hidden_states.length);
    summary.forEach(([norm, ...first], s) => {
      const want = reference.hidden_states[s].slice(i * d, (i + 1) * d);
      assert.ok(Math.abs(norm - Math.hypot(...want)) <= 1e-4 * Math.hypot(...want), `${name} token ${i} stage ${s}: norm ${norm}`);
      assert.equal(first.length, Math.min(d, 8));
      assert.ok(first.every((value, j) => Math.abs(value - want[j]) <= 1e-4 * Math.hypot(...want)), `${name} token ${i} stage ${s}: first features`);
    });
    // every feature: drawn when the reader opens "Every feature" (it stays open for the next token)
    assert.equal(await page().locator('#models-stream table.model-stream').count(), i === 0 ? 0 : 1);
    if (i === 0) await page().click('#models-stream details.model-stream-all > summary');
    await page().waitForSelector('#models-stream table.model-stream');
    // transformers' hidden states (a pre-LN model's last layer before its final norm is a row more: models-stream.test.mjs)
    const table = await page().$$eval('#models-stream table.model-stream tbody tr:not([data-stage="before-norm"])', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
    assert.equal(table.length, reference.hidden_states.length);
    table.forEach((row, s) => {
      const want = reference.hidden_states[s].slice(i * d, (i + 1) * d);
      assert.equal(row.length, d);
      assert.ok(relativeError(row, want) <= 1e-4, `${name} token ${i} hidden state ${s}: ${relativeError(row, want)}`);
    });
  }
  const text = await page().textContent('#models-stream');
  assert.match(text, /^The residual stream: each token's hidden state entering and leaving every layer/);
  assert.match(text, name === 'llama' ? /its block is the model's own \(RMSNorm₁ → attention → \+ residual → RMSNorm₂ → MLP → \+ residual, with the layer's RMSNorm weights and SwiGLU \(SiLU gate\) MLP\)/
    : /“Open this layer in the lab” takes that layer's whole block: the lab's rows are the hidden states entering the layer/);
  assert.equal(/after the final norm/.test(text), name !== 'bert');
  // #11: BERT says why it has no next-token list, and what ## means; key/value heads only where shared
  const report = await page().textContent('#models-report');
  if (name === 'bert') {
    assert.match(await page().textContent('#models-next'), /^No next-token list: this model is not causal/);
    assert.match(await page().textContent('#models-tokens'), /## at the start of a token marks a piece that continues the word before it/);
    assert.doesNotMatch(report, /key\/value/);
  }
  if (name === 'llama') assert.match(report, /4 heads of d_k 8, sharing 2 key\/value heads \(grouped-query attention\)/);
}

describe('Real models as a student reads them', { skip: !have && 'no ../shared/models' }, () => {
  it('#10: a plain #models anchor is not a link error, and the page lands on the section', async () => {
    const url = new URL(page().url());
    await page().goto(`${url.origin}${url.pathname}?fresh=1#models`);
    await page().waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
    assert.equal(await page().textContent('#messages'), '');
    // at its top, or (the page's last chapter since student review 5: the page ends under it) at the
    // page's end with its top in the upper half of the screen, as contents.test lands on the last chapter
    await page().waitForFunction(() => {
      const top = document.querySelector('section[data-view="models"]').getBoundingClientRect().top;
      const end = scrollY + innerHeight >= document.documentElement.scrollHeight - 2;
      return top > -1 && (top < 40 || (end && top < innerHeight / 2));
    });
  });

  it('#17: the sentence box shows an example, run as it is; #11: GPT-2\'s summary has no key/value heads, its next tokens a decoded text column', async () => {
    const reference = referenceOf('gpt2');
    assert.equal(reference.text, 'The cat sat on the mat.');
    await page().setInputFiles('#models-files', filesOf(dirOf('gpt2')));
    await page().waitForFunction(() => !document.querySelector('#models-input').hidden && !document.querySelector('section[data-view="models"]').hasAttribute('aria-busy'));
    assert.equal(await page().getAttribute('#models-text', 'placeholder'), reference.text);
    assert.equal(await page().inputValue('#models-text'), '');
    // Enter on the empty box runs the example shown: the reference's ids
    await page().press('#models-text', 'Enter');
    await page().waitForFunction((ids) => JSON.stringify(globalThis.attentionLab.models.result?.ids) === ids && !globalThis.attentionLab.models.result.partial, JSON.stringify(reference.ids));
    // what ran is in the box now
    assert.equal(await page().inputValue('#models-text'), reference.text);
    const report = await page().textContent('#models-report');
    assert.doesNotMatch(report, /key\/value/);
    assert.match(report, /Recognised: gpt2 \(GPT2LMHeadModel\), 2 layers, d_model 32, 4 heads of d_k 8\./);
    // the other layers' hint
    assert.match(await page().textContent('#models-layers > p.hint'), /click another layer's title below to draw it \(2 layers in all\)/);
    // the decoded text of each next token, as the byte-level alphabet says
    await page().waitForFunction(() => document.querySelector('#models-next td.model-text')?.textContent !== '…');
    // (the token column writes a space mark as ·: its cell keeps the vocabulary's entry in data-token)
    const rows = await page().$$eval('#models-next tr', (trs) => trs.slice(1).map((tr) => [...tr.cells].map((td) => td.dataset.token ?? td.textContent)));
    assert.equal(rows.length, 10);
    assert.deepEqual(rows.slice(0, 5).map((r) => Number(r[2])), reference.next_token_top5.map(([id]) => id));
    for (const [token, text] of rows) assert.equal(text, byteLevelText(token).replaceAll(' ', '·'), `token ${token}`);
    assert.equal(rows[0][1], '\uFFFD');  // 'Ì' (id 137) is byte 0xCC alone: the first byte of a two-byte character
    assert.match(await page().textContent('#models-next'), /single bytes of longer UTF-8 characters/);
    // the caption names the token the list follows: the sentence's last, as the tokenizer made it
    assert.equal(reference.tokens.at(-1), '.');
    assert.equal(await page().textContent('#models-next caption'), 'The 10 most likely next tokens after ‘.’');
  });

  it('#6, #18: the heatmaps carry no shrunken numbers; masked cells are hatched; a colour legend', async () => {
    const reference = await openAndRun('gpt2');
    const n = reference.ids.length;
    await checkHeadColours(reference, n);
    const { left, top } = await cellColours(n);
    const weights = reference.layers[0].probs.slice(0, n * n);
    // a cell's exact weight under the pointer: row 'Ġc' (2), column 'The' (1), and a masked cell
    const canvas = page().locator('#models-layers details[data-layer="0"] figure[data-head="0"] canvas');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    const at = async (r, c) => {
      await page().mouse.move(box.x + left + (c + 0.5) * 26, box.y + top + (r + 0.5) * 26);
      return canvas.getAttribute('title');
    };
    const tip = await at(1, 0);
    assert.match(tip, /^query ·c, key The: /);
    assert.ok(Math.abs(Number(tip.split(': ')[1]) - weights[n]) <= 1e-6, tip);
    assert.equal(await at(0, 1), 'query The, key ·c: masked');
    assert.equal(await page().locator('#models-layers canvas.model-legend').count(), 1);
    assert.match(await page().getAttribute('#models-layers canvas.model-legend', 'aria-label'), /hatched cells are masked/);
  });

  it('#7: the residual stream shows each token\'s hidden state entering and leaving every layer: transformers\' numbers', async () => {
    for (const name of ['gpt2', 'bert', 'llama']) {
      await streamAndNotes(name);
    }
  });

});

describe('Real models and the lab, as a student uses them', { skip: !have && 'no ../shared/models' }, () => {
  let root;
  before(() => { root = tempRoot(); });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('#1: "Open this layer in the lab" takes the reader to the lab\'s status line, and says so beside the button', async () => {
    await openAndRun('gpt2');
    const button = page().locator('#models-layers details[data-layer="0"] figure[data-head="1"] button.model-open');
    await button.scrollIntoViewIfNeeded();
    await lab.redrawn(() => button.click());
    await page().waitForFunction(() => document.activeElement?.id === 'status');
    const { top, height, status } = await page().evaluate(() => {
      const box = document.querySelector('#status').getBoundingClientRect();
      return { top: box.top, height: innerHeight, status: document.querySelector('#status').textContent };
    });
    assert.ok(top >= 0 && top < height, `the lab's status is on screen (top ${top})`);
    assert.match(status, /^Layer 1, head 2 of the gpt2 model is in the lab/);
    assert.match(await page().textContent('#models-layers figure[data-head="1"] .model-opened'), /^Layer 1, head 2 is now in the lab at the top of the page/);
  });

  it('review 8, #3: the lab\'s export of a model\'s layer names the model and layer its weights came from', async () => {
    if (await page().locator('#export-panel').isHidden()) await page().click('#export-toggle');
    await page().selectOption('#export-table', 'x');
    await page().selectOption('#export-format', 'csv');
    const csv = await page().textContent('#export-preview');
    const config = JSON.parse(readFileSync(join(dirOf('gpt2'), 'config.json'), 'utf8'));
    assert.match(csv, new RegExp(`^# weights,"the gpt2 model's layer 1 of ${config.n_layer}, read from its folder`, 'm'));
    assert.doesNotMatch(csv, /edited by hand/);
  });

  it('#2: a model\'s layer whose sentence the reader types over in the lab is no longer called the model\'s', async () => {
    await lab.redrawn(() => page().fill('#sentence', 'The cat sat on the mat'));
    await page().waitForFunction(() => /no longer holds/.test(document.querySelector('#status').textContent));
    const status = await page().textContent('#status');
    assert.doesNotMatch(status, /is in the lab: its/);
    assert.match(status, /^The lab no longer holds layer 1, head 2 of the gpt2 model: .*its rows are not the model's hidden states any more/);
    assert.match(await page().textContent('#models-status'), /^The lab no longer holds layer 1, head 2/);
    // the Layers panel agrees (review 8, 4): the model's weights on the reader's sentence, not its layer's numbers
    assert.equal(await page().textContent('#blocks-title'), "Layers: one block with the gpt2 model's layer 1 weights, on your sentence");
    // opened again: the model's once more
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
    assert.match(await page().textContent('#status'), /^Layer 2, head 1 of the gpt2 model is in the lab/);
  });

  it('#10: an old link error clears when a model\'s layer is opened in the lab', async () => {
    await page().evaluate(() => { location.hash = '#lab=%7Bnot json'; });
    await page().waitForFunction(() => /could not be read/.test(document.querySelector('#messages').textContent));
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(0, 0)));
    assert.equal(await page().textContent('#messages'), '');
  });

  it('#16: a bad folder after a good model keeps the good model shown, its message above it', async () => {
    const reference = await openAndRun('bert');
    const config = writeFolder(root, 'config-only', { 'config.json': textFiles('bert')['config.json'] });
    await page().setInputFiles('#models-files', filesOf(config));
    await page().waitForFunction(() => document.querySelector('#models-messages').textContent !== '');
    assert.match(await page().textContent('#models-messages'), /^No weights found: choose the folder with model\.safetensors/);
    assert.match(await page().textContent('#models-status'), /^The bert model opened before is still shown\./);
    assert.equal(await page().locator('#models-tokens .model-token').count(), reference.ids.length);
    assert.equal(await page().isVisible('#models-input'), true);
    assert.match(await page().textContent('#models-report'), /Recognised: bert/);
    // and the model still runs, and opens in the lab
    await page().click('#models-run');
    await page().waitForFunction(() => document.querySelector('#models-messages').textContent === '' && (globalThis.attentionLab.models.result && !globalThis.attentionLab.models.result.partial));
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 1)));
    assert.match(await page().textContent('#status'), /^Layer 2, head 2 of the bert model is in the lab/);
  });
});

describe('Real models: text longer than the model', { skip: !have && 'no ../shared/models' }, () => {
  it('review 8, #2: a text longer than GPT-2\'s learned positions is refused in plain words, the run before kept', async () => {
    const reference = await openAndRun('gpt2');
    const positions = JSON.parse(readFileSync(join(dirOf('gpt2'), 'config.json'), 'utf8')).n_positions;
    await page().fill('#models-text', 'The cat sat on the mat. '.repeat(positions));
    await page().click('#models-run');
    await page().waitForFunction(() => document.querySelector('#models-messages').textContent !== '');
    const message = await page().textContent('#models-messages p');
    assert.match(message, new RegExp(`^Your text is too long for this model: it makes \\d+ tokens, and this gpt2 model reads at most ${positions} .* Shorten the text to ${positions} tokens or fewer\\.$`));
    assert.doesNotMatch(message, /positionTable/);
    // the run before is still on the page, and a shorter text runs
    assert.equal(await page().locator('#models-tokens .model-token').count(), reference.ids.length);
    await page().fill('#models-text', 'The cat sat.');
    await page().click('#models-run');
    await page().waitForFunction(() => document.querySelector('#models-messages').textContent === '' && globalThis.attentionLab.models.result?.n < 10);
  });
});
