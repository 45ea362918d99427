// Real models' tables as files (review 10, findings D and G), in headless Chromium through the page's
// own file input with the folders of ../shared/models: the next tokens (Qwen2), a [MASK]'s guesses
// (BERT) and a head's weights saved as CSV, Markdown and LaTeX, their numbers against reference.json
// (transformers': next_token_top5, layers[l].probs) and a float64 BertForMaskedLM written in the tests
// (tests/web/src/models/bert64.mjs); file names naming the model, the table, its layer and head; a
// hostile sentence inert in every format; "as a table" written by one rule, each cell's float32 in its tooltip.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { useLabPage, downloadBy, downloadedBytes } from './browser.mjs';
import { haveModels as have, dirOf, openAndRun as openFolderAndRun, runText as runTextIn } from './model-folders.mjs';
import { referenceLogits, softmax } from '../web/src/models/bert64.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const openAndRun = (name) => openFolderAndRun(page(), name);

const runText = (text) => runTextIn(page(), text);  // model-folders.mjs

// The file a button saves: { name, text }
async function saved(selector) {
  const file = await downloadBy(page(), selector);
  return { name: file.suggestedFilename(), text: (await downloadedBytes(file)).toString('utf8') };
}

// A CSV file's table (after its # lines): its header and rows, fields split at commas outside quotes
function csvRows(text) {
  const lines = text.trimEnd().split('\n').filter((line) => !line.startsWith('# '));
  const split = (line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]).slice(0, -1);
  return { head: split(lines[0]), rows: lines.slice(1).map(split) };
}

// Opens layer l's fold and head h's "as a table"; the export bar's selector
async function openHeadTable(l, h) {
  await page().evaluate((l) => {
    const layer = document.querySelector(`#models-layers details.model-layer[data-layer="${l}"]`);
    if (!layer.open) layer.querySelector('summary').click();
  }, l);
  const figure = `#models-layers figure[data-layer="${l}"][data-head="${h}"]`;
  await page().click(`${figure} details > summary`);
  await page().waitForSelector(`${figure} .model-table-export`);
  return figure;
}

// the cells of a head's table as shown: [{ text, title }] row by row
const shownCells = (figure, n) => page().evaluate(([figure, n]) => [...document.querySelector(`${figure} details table`).tBodies[0].rows]
  .flatMap((row) => [...row.cells].slice(1, n + 1).map((td) => ({ text: td.textContent, title: td.title, masked: td.classList.contains('masked') }))), [figure, n]);

const close = (got, want) => Math.abs(got - want) <= 1e-4 * Math.abs(want) + 1e-9;

// A head's weights: shown by one rule with the float32 in each tooltip, and saved with the numbers shown
async function checkHead(name, reference, l, h) {
  const n = reference.ids.length;
  const want = reference.layers[l].probs.slice(h * n * n, (h + 1) * n * n);
  const figure = await openHeadTable(l, h);
  const cells = await shownCells(figure, n);
  cells.forEach(({ text, title, masked }, k) => {
    assert.ok(close(Number(title), want[k]), `${name} layer ${l + 1} head ${h + 1} cell ${k}: ${title} vs ${want[k]}`);
    // hatched as the heatmap is: the cells above the diagonal of a causal model, and no others
    assert.equal(masked, name !== 'bert' && k % n > Math.floor(k / n), `${name} cell ${k}: masked ${masked}`);
    // one rule (finding G): a weight under 0.001 as × 10ⁿ, never 0.00000166
    assert.doesNotMatch(text, /^0\.000/, `cell ${k}: ${text}`);
    if (Number(title) !== 0 && Number(title) < 1e-3) assert.match(text, / × 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+$/, `cell ${k}: ${text}`);
  });
  const file = await saved(`${figure} .model-table-export button[data-format="csv"]`);
  assert.equal(file.name, `${name}-layer${l + 1}-head${h + 1}-weights.csv`);
  const { rows } = csvRows(file.text);
  assert.equal(rows.length, n);
  rows.forEach((row, r) => row.slice(1).forEach((v, c) => {
    assert.equal(v, cells[r * n + c].title, `the page's number, row ${r} column ${c}`);
    assert.ok(close(Number(v), want[r * n + c]), `${v} vs ${want[r * n + c]}`);
  }));
  for (const [format, extension] of [['md', 'md'], ['tex', 'tex']]) {
    const { name: named, text } = await saved(`${figure} .model-table-export button[data-format="${format}"]`);
    assert.equal(named, `${name}-layer${l + 1}-head${h + 1}-weights.${extension}`);
    assert.ok(text.includes(cells[1].title) && text.includes(cells[n + 1].title), `${format}: the page's numbers`);
  }
}

describe('Real models\' tables as files', { skip: !have && 'no ../shared/models' }, () => {
  it('qwen2: the next tokens and a head\'s weights as CSV, Markdown and LaTeX: transformers\' numbers, named files', async () => {
    const reference = await openAndRun('qwen2');
    const shown = await page().evaluate(() => [...document.querySelectorAll('#models-next table tr')].slice(1)
      .map((tr) => ({ id: tr.querySelector('.model-id').textContent, p: tr.querySelector('.model-probability').dataset.value })));
    const csv = await saved('#models-next .model-table-export button[data-format="csv"]');
    assert.equal(csv.name, 'qwen2-next-tokens.csv');
    assert.match(csv.text, new RegExp(`^# model,qwen2\n# sentence,${reference.text.replace('.', '\\.')}\n`, 'm'));
    const { head, rows } = csvRows(csv.text);
    assert.deepEqual(head, ['token', 'id', 'probability']);
    assert.deepEqual(rows.slice(0, 5).map((row) => Number(row[1])), reference.next_token_top5.map(([id]) => id));
    assert.deepEqual(rows.map((row) => ({ id: row[1], p: row[2] })), shown);
    for (const format of ['md', 'tex']) {
      const file = await saved(`#models-next .model-table-export button[data-format="${format}"]`);
      assert.equal(file.name, `qwen2-next-tokens.${format}`);
      const ids = file.text.split('\n').map((line) => line.split(format === 'md' ? ' | ' : ' & ')).filter((f) => f.length === 3).slice(1).map((f) => f[1]);
      // the header row left out: every row's id, transformers' top 5 first
      assert.deepEqual(ids.slice(0, 5).map(Number), reference.next_token_top5.map(([id]) => id), format);
      assert.equal(ids.length, shown.length, format);
    }
    await checkHead('qwen2', reference, 1, 0);
    // the stream's files are the model's too
    assert.equal((await saved('.model-stream-export button[data-format="csv"]')).name, 'qwen2-residual-stream.csv');
  });

  it('qwen2: a hostile sentence stays inert in CSV, Markdown and LaTeX', async () => {
    const hostile = '=1+1 <b>x</b>';
    await runText(hostile);
    const csv = (await saved('#models-next .model-table-export button[data-format="csv"]')).text;
    assert.ok(csv.includes(`# sentence,"'${hostile}"`), csv.slice(0, 200));
    assert.ok(!csv.split('\n').some((line) => /(^|,)[=+\-@][^0-9.]/.test(line)), 'no cell starts a formula');
    const md = (await saved('#models-next .model-table-export button[data-format="md"]')).text;
    assert.ok(!md.includes('<b>') && md.includes('\\<b\\>x\\</b\\>'), md.slice(0, 200));
    const tex = (await saved('#models-next .model-table-export button[data-format="tex"]')).text;
    // the sentence on a comment line only; no < > outside comments
    assert.ok(tex.split('\n').some((line) => line === `% sentence: ${hostile}`), tex.slice(0, 200));
    assert.ok(!tex.split('\n').filter((line) => !line.startsWith('%')).some((line) => /[<>]/.test(line)), 'no < > in the table');
    // the buttons' words in Hindi too, the format names as they are
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.setLanguage('hi')));
    try {
      const [said, label] = await page().evaluate(() => {
        const bar = document.querySelector('#models-next .model-table-export');
        return [bar.querySelector('span').textContent, bar.querySelector('button[data-format="tex"]').getAttribute('aria-label')];
      });
      assert.match(said, /[\u0900-\u097F]/);
      assert.doesNotMatch(said, /Save|table/);
      assert.ok(/[\u0900-\u097F]/.test(label) && label.includes('LaTeX'), label);
    } finally {
      await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.setLanguage('en')));
    }
  });

  it('bert: a head\'s weights and each [MASK]\'s guesses as files: transformers\' and a float64 reference\'s numbers', async () => {
    const reference = await openAndRun('bert');
    await checkHead('bert', reference, 0, 0);
    await runText('The [MASK] sat on the [MASK].');
    const { masked, ids } = await page().evaluate(() => globalThis.attentionLab.models.result);
    const config = JSON.parse(readFileSync(join(dirOf('bert'), 'config.json'), 'utf8'));
    const logits = referenceLogits(dirOf('bert'), ids, config);
    assert.equal(masked.length, 2);
    for (const { position } of masked) {
      const p = softmax(logits[position]);
      const order = [...p.keys()].sort((a, b) => p[b] - p[a]).slice(0, 10);
      const file = await saved(`#models-next .model-mask[data-position="${position}"] .model-table-export button[data-format="csv"]`);
      assert.equal(file.name, `bert-mask-position${position + 1}-guesses.csv`);
      assert.match(file.text, /^# sentence,The \[MASK\] sat on the \[MASK\]\.$/m);
      const { rows } = csvRows(file.text);
      assert.deepEqual(rows.map((row) => Number(row[1])), order);
      rows.forEach((row) => assert.ok(Math.abs(Number(row[2]) - p[Number(row[1])]) <= 1e-4 * p[Number(row[1])], `id ${row[1]}`));
    }
  });
});
