// Real models in the student's words, in English and Hindi (issue #24): a refused text or folder said
// through the catalogue, naming the file and the problem (review 9, finding 4); the results of the run
// before said to be that run's (finding 5); tokens written with the lab's · everywhere, the typed
// sentence in the lab's exports without bidi controls, one remark on special tokens among [MASK]'s
// guesses (review 8, finding 9 and the hostile-text nit); no 130,000-character address for a model's
// layer. Numbers from outside the page: config.json's n_positions, reference.json's tokens.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { useLabPage } from './browser.mjs';
import { haveModels as have, dirOf, filesOf, referenceOf, openAndRun as openFolderAndRun } from './model-folders.mjs';
import { tempRoot, writeFolder, textFiles } from '../web/src/models/copies.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const openAndRun = (name) => openFolderAndRun(page(), name);
const setLanguage = (language) => lab.redrawn(() => page().evaluate((l) => globalThis.attentionLab.setLanguage(l), language));
const DEVANAGARI = /[\u0900-\u097F]/;
const messages = () => page().locator('#models-messages p').allTextContents();
const shownFor = () => page().locator('#models-messages .models-shown-for').allTextContents();

describe('Real models: refused texts and folders in the reader\'s words, en + hi', { skip: !have && 'no ../shared/models' }, () => {
  let root;
  before(() => { root = tempRoot(); });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const language of ['en', 'hi']) {
    it(`${language}: GPT-2, a text past its learned positions: the limit said in the page's language; the results shown said to be the sentence before's`, async () => {
      const reference = await openAndRun('gpt2');
      const positions = JSON.parse(readFileSync(join(dirOf('gpt2'), 'config.json'), 'utf8')).n_positions;
      if (language !== 'en') await setLanguage(language);
      try {
        await page().fill('#models-text', 'The cat sat on the mat. '.repeat(positions));
        await page().click('#models-run');
        await page().waitForFunction(() => document.querySelector('#models-messages').textContent !== '');
        const [said, shown] = await messages();
        assert.doesNotMatch(said, /^text:|positionTable|\(config\.json\)/);
        assert.ok(said.includes(String(positions)), said);
        if (language === 'en') {
          assert.match(said, new RegExp(`^Your text is too long for this model: it makes \\d+ tokens, and this gpt2 model reads at most ${positions} `));
          assert.equal(shown, `Shown: the results for “${reference.text}” (your new text was not run: see the message above).`);
        } else {
          assert.match(said, DEVANAGARI);
          assert.doesNotMatch(said, /too long|learned|shorten/);
          assert.ok(shown.includes(`“${reference.text}”`) && DEVANAGARI.test(shown), shown);
        }
        // the results under it are still the sentence before's
        assert.equal(await page().locator('#models-tokens .model-token').count(), reference.ids.length);
        // the API: the developer's English message and field, and the reader's message as { key, values }
        const answer = await page().evaluate((text) => globalThis.attentionLab.models.run({ text }), 'The cat sat on the mat. '.repeat(positions));
        assert.equal(answer.error.field, 'text');
        assert.match(answer.error.message, new RegExp(`^text: this gpt2 model learned positions for ${positions} tokens at most`));
        assert.equal(answer.error.key, 'models.error.tooLong');
        assert.equal(answer.error.values.most, positions);
        // a run that works removes the remark and the message
        await page().fill('#models-text', 'The cat sat.');
        await page().click('#models-run');
        await page().waitForFunction(() => document.querySelector('#models-messages').textContent === '' && globalThis.attentionLab.models.result?.n < 10);
        assert.deepEqual(await shownFor(), []);
      } finally {
        if (language !== 'en') await setLanguage('en');
      }
    });
  }

  it('hi: a folder without weights, then the language changed back: the message follows the page\'s language', async () => {
    await openAndRun('gpt2');
    await setLanguage('hi');
    try {
      const config = writeFolder(root, 'config-only', { 'config.json': textFiles('gpt2')['config.json'] });
      await page().setInputFiles('#models-files', filesOf(config));
      await page().waitForFunction(() => document.querySelector('#models-messages').textContent !== '');
      const [said] = await messages();
      assert.match(said, DEVANAGARI);
      assert.ok(said.includes('model.safetensors'), said);
      assert.doesNotMatch(said, /^model\.safetensors:|missing/);
      // a refused folder keeps the model before, whose results are its own: no remark about a text
      assert.deepEqual(await shownFor(), []);
    } finally {
      await setLanguage('en');
    }
    assert.match((await messages())[0], /^No weights found: choose the folder with model\.safetensors/);
  });
});

describe('Real models: one way to write a token; the typed sentence in the lab\'s exports; no long address', { skip: !have && 'no ../shared/models' }, () => {
  it('GPT-2: chips, heat-map tables, next tokens and stream write Ġ as ·; result.tokens stays the tokenizer\'s', async () => {
    const reference = await openAndRun('gpt2');
    const readable = reference.tokens.map((token) => token.replace(/Ġ/g, '·'));
    const chips = await page().locator('#models-tokens .model-token').evaluateAll((all) => all.map((chip) => ({ text: chip.firstChild.textContent, raw: chip.dataset.token })));
    assert.deepEqual(chips.map((c) => c.text), readable);
    assert.deepEqual(chips.map((c) => c.raw), reference.tokens);
    assert.deepEqual(await page().evaluate(() => globalThis.attentionLab.models.result.tokens), reference.tokens);
    await page().evaluate(() => { document.querySelector('#models-layers figure[data-layer="0"][data-head="0"] details').open = true; });
    await page().waitForFunction(() => document.querySelector('#models-layers figure[data-layer="0"][data-head="0"] details table'));
    const table = await page().textContent('#models-layers figure[data-layer="0"][data-head="0"] details table');
    assert.ok(table.includes(readable[1]) && readable[1].startsWith('·'), table);
    // (the notes under the chips and the next-token table name the tokenizer's own mark, Ġ, once)
    for (const where of ['#models-layers', '#models-next td', '#models-stream', '#models-tokens .model-token']) {
      assert.doesNotMatch((await page().locator(where).allTextContents()).join(' '), /Ġ/, where);
    }
  });

  it('GPT-2 in the lab: the export\'s sentence is the one typed, bidi controls stripped, its tokens on their own line; the address stays short', async () => {
    const reference = referenceOf('gpt2');
    await page().fill('#models-text', 'The cat \u202Esat\u202C on the \u2067mat\u2069.');
    await page().click('#models-run');
    await page().waitForFunction(() => globalThis.attentionLab.models.result && !globalThis.attentionLab.models.result.partial && globalThis.attentionLab.models.result.text.includes('\u202E'));
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(0, 0)));
    const status = await page().textContent('#status');
    assert.match(status, /A model's layer cannot be shared as a link: its weights come from the model's files/);
    const hash = await page().evaluate(() => location.hash);
    assert.ok(hash.length <= 8000, `${hash.length} characters in the address`);
    if (await page().locator('#export-panel').isHidden()) await page().click('#export-toggle');
    await page().selectOption('#export-table', 'x');
    await page().selectOption('#export-format', 'csv');
    const csv = await page().textContent('#export-preview');
    assert.match(csv, /^# sentence,"?The cat sat on the mat\."?$/m);
    assert.doesNotMatch(csv, /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/);
    const tokens = csv.split('\n').find((line) => line.startsWith('# tokens,'));
    assert.ok(tokens && tokens.includes('·c'), tokens);
    assert.notEqual(reference.text, undefined);
  });

  for (const language of ['en', 'hi']) {
    it(`${language}: BERT's [MASK] guesses with [SEP] or [CLS] among them get one remark; a sentence without a mask none`, async () => {
      await openAndRun('bert');
      assert.equal(await page().locator('.model-mask-special').count(), 0);
      if (language !== 'en') await setLanguage(language);
      try {
        await page().fill('#models-text', 'The [MASK] sat on the [MASK].');
        await page().click('#models-run');
        await page().waitForFunction(() => globalThis.attentionLab.models.result?.masked?.length === 2);
        const guesses = await page().locator('#models-next td.model-token').allTextContents();
        const special = [...new Set(guesses.filter((token) => ['[SEP]', '[CLS]', '[PAD]'].includes(token)))];
        // review 8 saw [SEP] (0.02328) among this sentence's guesses (the second mask's)
        assert.ok(special.includes('[SEP]'), guesses.join(' '));
        const remarks = await page().locator('.model-mask-special').allTextContents();
        assert.equal(remarks.length, 1);
        assert.ok(remarks[0].includes(special.join(', ')), remarks[0]);
        assert.match(remarks[0], language === 'en' ? /special tokens the tokenizer adds to a sentence/ : DEVANAGARI);
      } finally {
        if (language !== 'en') await setLanguage('en');
      }
    });
  }
});
