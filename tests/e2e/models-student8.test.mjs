// "Real models" after a first-time student's review 8 (2026-11-29), in headless Chromium with the shared
// gpt2 folder through the page's own file input: a byte piece's label in the heatmaps and their tables
// is its character and place (‘ब 2/3’), not its byte (‘¤’); a heatmap that names only some of its
// columns says how many; the stream's tables, wider than a phone, say that they scroll, and a row name
// they cut shows whole on a tap; a text refused
// as too long says when byte pieces are why (en, hi), and the size limit is said plainly.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { byteLevelText, haveModels as have, openAndRun, runText } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const HINDI = 'बिल्ली बैठी।';
const LONG = 'The cat sat on the mat and the dog sat on the log by the door.';

// layer 1, head 1: its table's row labels (the heatmap's labels, the same list), and its "fewer labels" line
const headOne = () => page().evaluate(() => {
  const figure = document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"]');
  const table = figure.querySelector('details');
  table.open = true;
  table.dispatchEvent(new Event('toggle'));
  const rows = [...figure.querySelectorAll('tbody tr')].map((row) => row.cells[0].textContent.replace(/[\u2066-\u2069]/gu, ''));
  const line = figure.querySelector('.model-fewer-labels');
  return { rows, named: figure.querySelector('canvas').dataset.columns.split(' ').filter(Boolean).length, line: line.checkVisibility() ? line.textContent : null };
});

describe('student review 8: the heatmaps\' labels', { skip: !have && 'no ../shared/models' }, () => {
  it('a byte piece is labelled with its character and place: ‘बिल्ली बैठी।’ has 33 pieces, none labelled as a byte', async () => {
    await openAndRun(page(), 'gpt2');
    await runText(page(), HINDI);
    const { tokens } = await page().evaluate(() => globalThis.attentionLab.models.result);
    const { rows } = await headOne();
    assert.equal(rows.length, 34);
    // which tokens are pieces, by GPT-2's byte alphabet written in the test (a lone byte decodes to U+FFFD)
    const pieces = tokens.map((token, i) => (byteLevelText(token).includes('\uFFFD') ? i : -1)).filter((i) => i >= 0);
    assert.equal(pieces.length, 33);
    for (const i of pieces) assert.match(rows[i], /^\S+ [123]\/3$/u, `row ${i + 1}: ${rows[i]}`);
    // the runs of three, in order, each spelling its character: the labels of piece 1, 2, 3 of one letter
    assert.deepEqual(rows.slice(0, 3), ['ब 1/3', 'ब 2/3', 'ब 3/3']);
    assert.equal(rows[18], '·', 'the space, a whole token, as the tokens show it');
    assert.ok(rows.every((row) => !/[à¤¥]/u.test(row)), 'no byte glyph as a label');
  });

  it('the layer opened in the lab keeps those labels: its tokens, the sentence box and the walk name ‘ब 1/3’, no byte glyph', async () => {
    await runText(page(), HINDI);
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(0, 0)));
    const { tokens, sentence } = await page().evaluate(() => ({ tokens: globalThis.attentionLab.state.inputs.tokens, sentence: document.querySelector('#sentence').value }));
    assert.equal(tokens.length, 34);
    // one word each (a narrow no-break space), as the sentence box writes the tokens with spaces between
    assert.deepEqual(tokens.slice(0, 3), ['ब\u202F1/3', 'ब\u202F2/3', 'ब\u202F3/3']);
    assert.equal(tokens[18], '·');
    assert.ok(tokens.every((token) => !/[à¤¥]/u.test(token) && !/ /u.test(token)), tokens.join(' | '));
    assert.equal(sentence, tokens.join(' '));
    // the lab's token buttons show them
    const buttons = await page().evaluate(() => [...document.querySelectorAll('#tokens button')].slice(0, 3).map((b) => b.textContent));
    assert.deepEqual(buttons, tokens.slice(0, 3));
  });

  it('at 375 px a 30-token heatmap names some of its columns and says how many; at 1280 px all, and no line (en, hi)', async () => {
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      await runText(page(), LONG);
      let head = await headOne();
      assert.ok(head.named > 1 && head.named < 30, `${head.named} of 30 named`);
      assert.equal(head.line, `${head.named} of the 30 columns are named (no room for every name): point at or tap a cell to see its key, or open “as a table”.`);
      await lab.redrawn(() => page().selectOption('#language', 'hi'));
      try {
        head = await headOne();
        assert.equal(head.line, `30 में से ${head.named} कॉलम के नाम लिखे हैं (सबके नाम की जगह नहीं है): किसी खाने पर पॉइंटर रखकर या उसे छूकर उसकी key देखें, या “तालिका के रूप में” खोलें।`);
      } finally {
        await lab.redrawn(() => page().selectOption('#language', 'en'));
      }
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
    await page().waitForFunction(() => document.documentElement.clientWidth === 1280);
    await runText(page(), 'The cat sat on the mat.');
    const head = await headOne();
    assert.equal(head.line, null);
    assert.equal(head.named, head.rows.length);
  });

});

describe('student review 8: the stream and the length limit', { skip: !have && 'no ../shared/models' }, () => {
  it('the stream\'s summary table at 375 px says that it scrolls and its right edge fades; at 1280 px it fits: neither', async () => {
    const streamCue = () => page().evaluate(() => {
      const box = document.querySelector('#models-stream .model-stream-box');
      const line = box.previousElementSibling;
      return { overflows: box.scrollWidth > box.clientWidth, more: box.dataset.more, line: line.checkVisibility() ? line.textContent : null };
    });
    await runText(page(), 'The cat sat on the mat.');
    assert.deepEqual(await streamCue(), { overflows: false, more: '', line: null });
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.querySelector('#models-stream .model-stream-box').dataset.more === 'right');
      assert.deepEqual(await streamCue(), { overflows: true, more: 'right', line: 'Scroll sideways for more columns →' });
      // a row name cut to two lines: a tap shows it whole, another cuts it again (a phone has no hover for its title)
      const name = page().locator('#models-stream .model-stream-summary tbody tr').last().locator('.model-row-name');
      const cut = () => name.evaluate((span) => ({ lines: Math.round(span.getBoundingClientRect().height / parseFloat(getComputedStyle(span).lineHeight)), hidden: span.scrollHeight > span.clientHeight + 1 }));
      assert.deepEqual(await cut(), { lines: 2, hidden: true }, 'the last stage\'s name is cut at 375 px');
      await name.click();
      const whole = await cut();
      assert.ok(whole.lines > 2 && !whole.hidden, `tapped: ${JSON.stringify(whole)}`);
      await name.click();
      assert.deepEqual(await cut(), { lines: 2, hidden: true });
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
    await page().waitForFunction(() => document.querySelector('#models-stream .model-stream-box').dataset.more === '');
    assert.deepEqual(await streamCue(), { overflows: false, more: '', line: null });
  });

  it('a text too long because of invisible characters names them by code point, not as Hindi letters (review 10)', async () => {
    await page().fill('#models-text', `The cat ${'\u202E'.repeat(25)}sat.`);
    await page().click('#models-run');
    await page().waitForFunction(() => document.querySelector('#models-messages').textContent !== '');
    const raw = await page().textContent('#models-messages');
    assert.doesNotMatch(raw, /[\u202A-\u202E]/u, 'no override in the message');
    assert.match(raw.replace(/[\u2066-\u2069]/gu, ''), /(\d+) of the tokens are pieces of characters the model has no token for \(‘U\+202E’\)/u);
    await page().fill('#models-text', '');
  });

  it('a Hindi text too long for gpt2: the message says how many tokens are byte pieces, and why (en, hi); the page keeps working', async () => {
    const text = 'बिल्ली चटाई पर बैठी क्योंकि वह थकी थी';
    await page().fill('#models-text', text);
    // the box at the top of the screen: the message above it (over the folder's report) is off screen
    await page().evaluate(() => document.querySelector('#models-text').scrollIntoView({ block: 'start' }));
    const above = () => page().evaluate(() => document.querySelector('#models-messages').getBoundingClientRect().bottom);
    assert.ok(await above() <= 0, 'the message box starts off screen');
    await page().click('#models-run');
    await page().waitForFunction(() => document.querySelector('#models-messages').textContent !== '');
    // review 9, finding 2: the refusal is brought into view, not left above the screen
    await page().waitForFunction(() => { const r = document.querySelector('#models-messages').getBoundingClientRect(); return r.top >= -1 && r.bottom <= innerHeight + 1; });  // ±1: sub-pixel layout
    const message = (await page().textContent('#models-messages')).replace(/[\u2066-\u2069]/gu, '');
    const [, count, pieces] = /it makes (\d+) tokens.*?(\d+) of the tokens are pieces of characters the model has no token for/u.exec(message) ?? [];
    assert.ok(count && pieces, message);
    // every letter of this sentence is outside the test vocabulary: its tokens are all pieces but the spaces'
    assert.ok(Number(pieces) > 64 && Number(pieces) < Number(count), `${pieces} of ${count}`);
    assert.match(message, /no token for \(‘ब’, ‘ि’, ‘ल’, …\): .*3 for a Hindi letter/u);
    await lab.redrawn(() => page().selectOption('#language', 'hi'));
    try {
      assert.match(await page().textContent('#models-messages'), new RegExp(`इनमें से ${pieces} tokens ऐसे अक्षरों के टुकड़े हैं`, 'u'));
    } finally {
      await lab.redrawn(() => page().selectOption('#language', 'en'));
    }
    await runText(page(), HINDI);
    assert.equal(await page().evaluate(() => globalThis.attentionLab.models.result.n), 34);
    // the size limit under the file buttons, in a student's words (review 8, finding 6): the limit and why, no engine terms
    const cap = await page().textContent('#models-cap');
    assert.match(cap, /^Models with up to \d+ MB of weights open here \(GPT-2 small has 474 MB\); a larger one is refused before it is read, because the browser gives this page at most 2 GB and running the model needs room too\.$/u);
    assert.doesNotMatch(cap, /engine/u);
  });
});
