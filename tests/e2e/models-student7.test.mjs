// "Real models" after a first-time student's review 7 (2026-11-29), in headless Chromium with the shared
// gpt2 folder through the page's own file input: a byte-piece token named in running text (the walk,
// the next-token heading, the stream's picker) says which character it is part of (en, hi).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { haveModels as have, openAndRun, runText } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const HINDI = 'बिल्ली बैठी।';
const plain = (text) => text.replace(/[\u2066-\u2069]/gu, '');

// the walk's first step for the token chosen in the stream's picker (value: its position from 0)
const walkFirst = (value) => page().evaluate((v) => {
  const select = document.querySelector('#models-stream-token');
  select.value = v;
  select.dispatchEvent(new Event('change'));
  const panel = document.querySelector('.model-stream-walk');
  panel.querySelector('button[data-walk="start"]').click();
  const text = panel.querySelector('.walk-text').textContent;
  panel.querySelector('button[data-walk="stop"]').click();
  return text;
}, String(value));

describe('student review 7: a lone byte is named with its character', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2, ‘बिल्ली बैठी।’: the next-token heading, the picker and the walk name ‘¤’ as piece 2 of 3 of ‘ब’ (en, hi); an English token stays bare', async () => {
    await openAndRun(page(), 'gpt2');
    await runText(page(), HINDI);
    const tokens = await page().evaluate(() => globalThis.attentionLab.models.result.tokens);
    assert.deepEqual([tokens.length, tokens[1], tokens[33]], [34, '¤', '¤']);
    assert.equal(plain(await page().textContent('#models-next caption')), 'The 10 most likely next tokens after piece 3 of 3 of ‘।’ (‘¤’)');
    const options = await page().$$eval('#models-stream-token option', (all) => all.map((option) => option.textContent));
    assert.deepEqual([options[1], options[18], options[19], options[20]].map(plain), ['2: piece 2 of 3 of ‘ब’ (‘¤’)', '19: ·', '20: piece 1 of 3 of ‘ब’ (‘à’)', '21: piece 2 of 3 of ‘ब’ (‘¤’)']);
    assert.match(plain(await walkFirst(1)), /^Hidden state 0: the embedding of piece 2 of 3 of ‘ब’ \(‘¤’\), the token's row/);
    // the character is the model's text: isolated from the sentence around it only where it could turn it (Devanagari is left to right: as it is)
    await lab.redrawn(() => page().selectOption('#language', 'hi'));
    try {
      assert.equal(plain(await page().textContent('#models-next caption')), 'अगले token के 10 सबसे संभावित विकल्प ‘।’ के 3 टुकड़ों में से टुकड़ा 3 (‘¤’) के बाद');
      assert.equal(plain(await page().$eval('#models-stream-token option[value="4"]', (option) => option.textContent)), '5: ‘ि’ के 3 टुकड़ों में से टुकड़ा 2 (‘¤’)');
      assert.match(plain(await walkFirst(1)), /^hidden state 0: ‘ब’ के 3 टुकड़ों में से टुकड़ा 2 \(‘¤’\) का embedding/);
    } finally {
      await lab.redrawn(() => page().selectOption('#language', 'en'));
    }
    await runText(page(), 'The cat sat.');
    assert.equal(await page().textContent('#models-next caption'), 'The 10 most likely next tokens after ‘.’');
    // the test-size vocabulary splits ‘·cat’: its token 2 is ‘·c’, a whole character
    assert.equal((await page().evaluate(() => globalThis.attentionLab.models.result.tokens))[1], 'Ġc');
    assert.match(await walkFirst(1), /^Hidden state 0: the embedding of ‘·c’, the token's row/);
  });
});

// layer 1, head 1's heatmap box: whether it overflows, its edges' cue and mask, its line (shown, text)
const cue = () => page().evaluate(() => {
  const figure = document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"]');
  const box = figure.querySelector(':scope > .model-scroll'), line = figure.querySelector(':scope > .model-scroll-cue');
  return { overflows: box.scrollWidth > box.clientWidth, more: box.dataset.more, mask: getComputedStyle(box).maskImage !== 'none',
    line: line.checkVisibility() ? line.textContent : null, page: document.documentElement.scrollWidth };
});

describe('student review 7: a heatmap wider than its box shows that it scrolls', { skip: !have && 'no ../shared/models' }, () => {
  it('at 375 px a 30-token heatmap: a line says so and its right edge fades, its left once scrolled; 11 tokens at 375 px and 30 at 1280 px fit: neither (en, hi)', async () => {
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      await openAndRun(page(), 'gpt2');
      assert.deepEqual(await cue(), { overflows: false, more: '', mask: false, line: null, page: 375 });
      await runText(page(), 'The cat sat on the mat and the dog sat on the log by the door.');
      assert.equal(await page().evaluate(() => globalThis.attentionLab.models.result.n), 30);
      assert.deepEqual(await cue(), { overflows: true, more: 'right', mask: true, line: 'Scroll sideways to see all 30 tokens →', page: 375 });
      const box = page().locator('#models-layers figure.model-head[data-layer="0"][data-head="0"] > .model-scroll');
      await box.evaluate((node) => { node.scrollLeft = 20; });
      await page().waitForFunction(() => document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"] > .model-scroll').dataset.more === 'left right');
      await box.evaluate((node) => { node.scrollLeft = node.scrollWidth; });
      await page().waitForFunction(() => document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"] > .model-scroll').dataset.more === 'left');
      await lab.redrawn(() => page().selectOption('#language', 'hi'));
      try {
        assert.deepEqual(await cue(), { overflows: true, more: 'right', mask: true, line: 'सभी 30 tokens देखने के लिए बगल में स्क्रॉल करें →', page: 375 });
      } finally {
        await lab.redrawn(() => page().selectOption('#language', 'en'));
      }
      // the screen widened: drawn again for it, and it fits
      await page().setViewportSize({ width: 1280, height: 800 });
      await page().waitForFunction(() => document.querySelector('#models-layers figure.model-head[data-layer="0"][data-head="0"] > .model-scroll-cue').hidden);
      assert.deepEqual(await cue(), { overflows: false, more: '', mask: false, line: null, page: 1280 });
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
    }
  });
});

// Every drawn heatmap of layer 1: its column labels as drawn (data-columns; all of them where it does
// not say), each label's ink box measured here (12 px system-ui, middle baseline) and turned as the
// heatmap draws it (anchor at the column's middle, 6 px above the cells, −45°), and the pairs whose
// boxes intersect (separating axes: the box's own two, all boxes turned alike)
const crowding = () => page().evaluate(() => [...document.querySelectorAll('#models-layers details[data-layer="0"] figure.model-head canvas')].map((canvas) => {
  const tokens = globalThis.attentionLab.models.result.tokens.map((token) => token.replace(/[Ġ▁]/gu, '·').replace(/Ċ/gu, '↵').replace(/ĉ/gu, '⇥'));
  const { left, top, cell } = Object.fromEntries(['left', 'top', 'cell'].map((key) => [key, Number(canvas.dataset[key])]));
  const drawn = canvas.dataset.columns ? canvas.dataset.columns.split(' ').map(Number) : tokens.map((_, c) => c);
  const context = document.createElement('canvas').getContext('2d');
  context.font = '12px system-ui, sans-serif';
  context.textBaseline = 'middle';
  const a = -Math.PI / 4, along = [Math.cos(a), Math.sin(a)], across = [-Math.sin(a), Math.cos(a)];
  const corners = drawn.map((c) => {
    const m = context.measureText(tokens[c]);
    const x = left + c * cell + cell / 2, y = top - 6;
    return [[-m.actualBoundingBoxLeft, -m.actualBoundingBoxAscent], [m.actualBoundingBoxRight, -m.actualBoundingBoxAscent], [m.actualBoundingBoxRight, m.actualBoundingBoxDescent], [-m.actualBoundingBoxLeft, m.actualBoundingBoxDescent]]
      .map(([u, v]) => [x + u * along[0] + v * across[0], y + u * along[1] + v * across[1]]);
  });
  const span = (box, axis) => {
    const p = box.map(([x, y]) => x * axis[0] + y * axis[1]);
    return [Math.min(...p), Math.max(...p)];
  };
  const apart = (b1, b2) => [along, across].some((axis) => {
    const [s1, e1] = span(b1, axis), [s2, e2] = span(b2, axis);
    return e1 <= s2 + 1e-6 || e2 <= s1 + 1e-6;
  });
  const meeting = [];
  corners.forEach((box, i) => corners.slice(i + 1).forEach((other, j) => { if (!apart(box, other)) meeting.push([drawn[i], drawn[i + 1 + j]]); }));
  return { n: tokens.length, cell, drawn: drawn.length, meeting };
}));

describe('student review 7: rotated column labels do not crowd', { skip: !have && 'no ../shared/models' }, () => {
  for (const width of [375, 1280]) {
    it(`at ${width} px, 30 English tokens and the 34 of ‘बिल्ली बैठी।’: no two column labels' boxes intersect; pointing at an unlabelled column still names its key`, async () => {
      await page().setViewportSize({ width, height: 800 });
      try {
        await page().waitForFunction((w) => document.documentElement.clientWidth === w, width);
        await openAndRun(page(), 'gpt2');
        const seen = {};
        for (const text of ['The cat sat on the mat and the dog sat on the log by the door.', 'बिल्ली बैठी।']) {
          await runText(page(), text);
          const heatmaps = await crowding();
          assert.equal(heatmaps.length, 4);
          for (const heatmap of heatmaps) assert.deepEqual(heatmap.meeting, [], JSON.stringify(heatmap));
          seen[text.length] = heatmaps.map(({ n, drawn }) => `${drawn}/${n}`).join(' ');
          // at least every other label is drawn
          for (const { n, drawn } of heatmaps) assert.ok(drawn >= Math.ceil(n / 2), `${drawn} of ${n}`);
        }
        // a column without its label: the tooltip names it
        const canvas = page().locator('#models-layers figure.model-head[data-layer="0"][data-head="0"] canvas');
        await runText(page(), 'The cat sat on the mat and the dog sat on the log by the door.');
        const columns = (await canvas.getAttribute('data-columns')).split(' ').map(Number);
        const missing = Array.from({ length: 30 }, (_, c) => c).find((c) => !columns.includes(c));
        assert.ok(missing !== undefined, `all 30 labelled at ${width} px: ${columns}`);
        await canvas.scrollIntoViewIfNeeded();
        await canvas.evaluate((node, c) => { node.parentElement.scrollLeft = Math.max(0, Number(node.dataset.left) + c * Number(node.dataset.cell) - 100); }, missing);
        const at = await canvas.evaluate((node, c) => {
          const box = node.getBoundingClientRect(), scale = box.width / parseFloat(node.style.width);
          return { x: box.left + (Number(node.dataset.left) + (c + 0.5) * Number(node.dataset.cell)) * scale, y: box.top + (Number(node.dataset.top) + 29.5 * Number(node.dataset.cell)) * scale };
        }, missing);
        await page().mouse.move(at.x, at.y);
        const tokens = await page().evaluate(() => globalThis.attentionLab.models.result.tokens);
        assert.match(await canvas.getAttribute('title'), new RegExp(`^query \\., key ${tokens[missing].replace(/Ġ/gu, '·').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
        console.log(`labels drawn at ${width} px: ${JSON.stringify(seen)}`);
      } finally {
        await page().setViewportSize({ width: 1280, height: 800 });
      }
    });
  }
});

// a stream table at the screen's width: the number cells of its first row wholly in its scrolling box,
// and each row name's lines (its span's height over its line height), title and text
const streamTable = (selector) => page().evaluate((s) => {
  const table = document.querySelector(s), box = table.closest('.model-stream-box').getBoundingClientRect();
  const shown = [...table.tBodies[0].rows[0].cells].filter((cell) => cell.tagName === 'TD' && cell.getBoundingClientRect().left >= box.left && cell.getBoundingClientRect().right <= box.right + 0.5).length;
  const names = [...table.tBodies[0].rows].map((row) => {
    const span = row.cells[0].querySelector('.model-row-name');
    return { lines: Math.round(span.getBoundingClientRect().height / parseFloat(getComputedStyle(span).lineHeight)), whole: row.cells[0].title === row.cells[0].textContent };
  });
  return { shown, names, page: document.documentElement.scrollWidth };
}, selector);

describe('student review 7: the stream tables at 375 px', { skip: !have && 'no ../shared/models' }, () => {
  it('the summary and a layer\'s parts show at least 4 number columns, each row name in one or two lines, whole in its title (en, hi)', async () => {
    await page().setViewportSize({ width: 375, height: 800 });
    try {
      await page().waitForFunction(() => document.documentElement.clientWidth === 375);
      await openAndRun(page(), 'gpt2');
      for (const language of ['en', 'hi']) {
        if (language === 'hi') await lab.redrawn(() => page().selectOption('#language', 'hi'));
        await page().locator('.model-stream-parts').scrollIntoViewIfNeeded();
        for (const selector of ['.model-stream-summary', '.model-stream-parts']) {
          const seen = await streamTable(selector);
          assert.ok(seen.shown >= 4, `${language} ${selector}: ${JSON.stringify(seen)}`);
          assert.ok(seen.names.every(({ lines, whole }) => lines >= 1 && lines <= 2 && whole), `${language} ${selector}: ${JSON.stringify(seen)}`);
          assert.equal(seen.page, 375);
          console.log(`${language} ${selector}: ${seen.shown} number columns, row names in ${seen.names.map(({ lines }) => lines).join(' ')} lines`);
        }
      }
    } finally {
      if (await page().inputValue('#language') !== 'en') await lab.redrawn(() => page().selectOption('#language', 'en'));
      await page().setViewportSize({ width: 1280, height: 800 });
    }
  });
});

// the next tokens' heading and the line under it: their text, and how many lines each takes
const nextHeading = () => page().evaluate(() => {
  const lines = (node) => Math.round(node.getBoundingClientRect().height / parseFloat(getComputedStyle(node).lineHeight));
  const title = document.querySelector('#models-next caption .model-next-title'), line = document.querySelector('#models-next caption .model-next-after');
  return { title: title.textContent, titleLines: lines(title), line: line.textContent.replace(/[\u2066-\u2069]/gu, ''), lineTop: line.getBoundingClientRect().top >= title.getBoundingClientRect().bottom - 0.5 };
});

describe('student review 7: the next-token heading', { skip: !have && 'no ../shared/models' }, () => {
  it('at 1280 px its heading is one line, the token it follows (‘¤’, piece 3 of 3 of ‘।’) on a line under it, in English and Hindi', async () => {
    await openAndRun(page(), 'gpt2');
    await runText(page(), HINDI);
    assert.deepEqual(await nextHeading(), { title: 'The 10 most likely next tokens', titleLines: 1, line: 'after piece 3 of 3 of ‘।’ (‘¤’)', lineTop: true });
    await lab.redrawn(() => page().selectOption('#language', 'hi'));
    try {
      assert.deepEqual(await nextHeading(), { title: 'अगले token के 10 सबसे संभावित विकल्प', titleLines: 1, line: '‘।’ के 3 टुकड़ों में से टुकड़ा 3 (‘¤’) के बाद', lineTop: true });
    } finally {
      await lab.redrawn(() => page().selectOption('#language', 'en'));
    }
  });
});

describe('student review 7: the stream tables quote their token', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2, token 8 (‘·the’): the summary\'s, the whole table\'s and the parts\' captions quote it as the walk does, in English and Hindi; a byte piece with its character', async () => {
    await openAndRun(page(), 'gpt2');
    const captions = async () => {
      await page().evaluate(() => { document.querySelector('details.model-stream-all').open = true; });
      await page().waitForSelector('table.model-stream caption');
      return page().evaluate(() => ['.model-stream-summary', 'table.model-stream', '.model-stream-parts'].map((s) => document.querySelector(`${s} caption`).textContent.replace(/[\u2066-\u2069]/gu, '')));
    };
    await page().selectOption('#models-stream-token', { value: '7' });
    assert.deepEqual(await captions(), ['Token ‘·the’ (row 8): its hidden state\'s norm and the first 8 of its 32 features, stage by stage',
      'Token ‘·the’ (row 8): its hidden state (32 features), stage by stage', 'Layer 1, token ‘·the’ (row 8): x + a + m = leaving']);
    await lab.redrawn(() => page().selectOption('#language', 'hi'));
    try {
      await page().selectOption('#models-stream-token', { value: '7' });
      const hindi = await captions();
      for (const caption of hindi) assert.match(caption, /token ‘·the’ \(पंक्ति 8\)/iu);
    } finally {
      await lab.redrawn(() => page().selectOption('#language', 'en'));
    }
    await runText(page(), HINDI);
    await page().selectOption('#models-stream-token', { value: '1' });
    assert.match((await captions())[0], /^Token piece 2 of 3 of ‘ब’ \(‘¤’\) \(row 2\): /u);
  });
});
