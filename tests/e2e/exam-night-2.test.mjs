// Issue 26, second night: what the first-time student's review still found.
// 1. A typed sentence after an example with hand-made sizes and weights leaves the example: the
//    vocabulary's d_model (10) and identity weights, as a fresh sentence gets, and the query stays on its word.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage, renderEverySection } from './browser.mjs';
import { referenceAttention } from '../web/reference.mjs';
import { embedAll } from '../../web/src/state/vocabulary.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const identity = (d) => Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
const shown = () => tab.page.evaluate(() => {
  const { view, state } = globalThis.attentionLab;
  return {
    preset: state.preset, token: state.selectedToken, tokens: view.tokens, dModel: view.dModel, dK: view.dK,
    x: Array.from(view.x), wq: Array.from(view.weights.wq), wk: Array.from(view.weights.wk), wv: Array.from(view.weights.wv),
    weights: Array.from(view.result.heads[0].weights), menu: document.querySelector('#preset').value,
  };
});

// the vocabulary's vectors through identity weights, scaled by √10: the float64 reference's weights
function vocabularyWeights(tokens) {
  const n = tokens.length, d = 10;
  return referenceAttention({ x: Array.from(embedAll(tokens, d)), n, m: n, dModel: d, dK: d, dV: d, wq: identity(d), wk: identity(d), wv: identity(d) }).heads[0].weights;
}

function assertFresh(got, query) {
  assert.equal(got.preset, null, 'the example is left');
  assert.equal(got.menu, '', 'the menu says "Your own sentence"');
  assert.equal(got.dModel, 10);
  assert.deepEqual(got.wq, identity(10));
  assert.deepEqual(got.wk, identity(10));
  assert.deepEqual(got.x, Array.from(embedAll(got.tokens, 10)));
  assert.equal(got.tokens[got.token], query, 'the query stays on its word');
  const want = vocabularyWeights(got.tokens);
  got.weights.forEach((w, i) => assert.ok(Math.abs(w - want[i]) < 1e-5, `weight ${i}: ${w} vs ${want[i]}`));
}

describe('a typed sentence leaves the example (issue 26, second review, 1)', () => {
  it('after 003, "The animal ate the food because it was hungry" keeps the query on \'it\' with the vocabulary\'s d_model and weights', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'animal-it'));
    assert.equal((await shown()).tokens[(await shown()).token], 'it');
    await lab.redrawn(() => tab.page.fill('#sentence', 'The animal ate the food because it was hungry'));
    const got = await shown();
    assertFresh(got, 'it');
    const n = got.tokens.length, animal = got.tokens.indexOf('animal');
    const row = got.weights.slice(got.token * n, got.token * n + n);
    assert.ok(Math.max(...row) - Math.min(...row) > 0.01, `the weights differ: ${row}`);
    assert.ok(got.x.slice(animal * 10, animal * 10 + 10).some((v) => v !== 0), "k('animal') is not zero");
    assert.match(await tab.page.textContent('#notes'), /own sentence.*vocabulary/i);
  });
  it('after "The cat sat", "The cat sat on the mat" takes all ten features, and choosing the example brings it back', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await lab.redrawn(() => tab.page.fill('#sentence', 'The cat sat on the mat'));
    assertFresh(await shown(), 'The');
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    const back = await shown();
    assert.equal(back.dModel, 4);
    assert.deepEqual(back.x, [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1]);
  });
});

// 2. "Explain this number": the panel at the window's bottom never covers the number clicked, and
//    shows its whole arithmetic (no line cut off at the side or the bottom), at 1280 and 375 px.
async function explainBoxes(width) {
  await tab.page.setViewportSize({ width, height: 800 });
  await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
  const cell = tab.page.locator('table.steps td[data-matrix="weights"]').last();
  // the number sits low in the window, where the panel opens
  await cell.evaluate((td) => window.scrollBy(0, td.getBoundingClientRect().bottom - (window.innerHeight - 30)));
  await cell.click();
  return cell.evaluate((td) => {
    const panel = document.getElementById('explain'), lines = document.getElementById('explain-lines');
    const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
    return {
      cell: box(td), panel: box(panel), value: box(document.getElementById('explain-value')), inner: innerHeight,
      lines: { scrollHeight: lines.scrollHeight, clientHeight: lines.clientHeight, scrollWidth: lines.scrollWidth, clientWidth: lines.clientWidth, count: lines.children.length },
    };
  });
}

describe('the explanation panel (issue 26, second review, 2)', () => {
  after(() => tab.page.setViewportSize({ width: 1280, height: 800 }));
  for (const width of [1280, 375]) {
    it(`at ${width} px the clicked number stays visible above the panel, whose arithmetic shows whole`, async () => {
      const got = await explainBoxes(width);
      assert.ok(got.cell.bottom <= got.panel.top && got.cell.top >= 0, `cell ${JSON.stringify(got.cell)} vs panel top ${got.panel.top}`);
      assert.ok(got.lines.count >= 3, 'the softmax arithmetic has its lines');
      assert.ok(got.lines.scrollHeight <= got.lines.clientHeight + 1, `lines cut off at the bottom: ${got.lines.scrollHeight} > ${got.lines.clientHeight}`);
      assert.ok(got.lines.scrollWidth <= got.lines.clientWidth + 1, 'lines cut off at the side');
      assert.ok(got.value.bottom <= got.inner && got.value.bottom <= got.panel.bottom, 'the "= …" line shows');
    });
  }
});

// Review, finding 4: on a phone (375 × 740) the sheet opens over the step table; the cell tapped in
// the window's lower half, and the two rows above it, stay above it; while it is open the page's
// scroller keeps scroll-padding-bottom = the sheet's height + 8 px, so that the arrow keys' cells stop
// above it too; closing it gives the padding back.
const sheetBoxes = (cell) => cell.evaluate((td) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height }; };
  const rows = [td.parentElement.previousElementSibling?.previousElementSibling, td.parentElement.previousElementSibling].filter(Boolean);
  return { cell: box(td), above: rows.map(box), sheet: box(document.getElementById('explain')), padding: getComputedStyle(document.scrollingElement).scrollPaddingBottom };
});
const intersects = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('the explanation sheet on a phone (review, finding 4)', () => {
  after(() => tab.page.setViewportSize({ width: 1280, height: 800 }));
  it('at 375 × 740 a cell tapped in the lower half stays above the sheet with two rows above it; arrow keys too; closing restores the padding', async () => {
    await tab.page.setViewportSize({ width: 375, height: 740 });
    await lab.redrawn(() => tab.page.selectOption('#preset', 'animal-it'));
    const cells = tab.page.locator('table.steps td[data-matrix="weights"]');
    assert.equal(await cells.count(), 12);
    const cell = cells.nth(8);
    // the cell in the window's lower half, where the sheet (up to 60% of the window) opens
    await cell.evaluate((td) => window.scrollBy(0, td.getBoundingClientRect().top - innerHeight * 0.75));
    assert.ok((await sheetBoxes(cell)).cell.top > 370, 'the cell starts in the lower half');
    await cell.click();
    const got = await sheetBoxes(cell);
    assert.ok(got.sheet.top < 740 * 0.75, `the sheet is tall enough to have covered the cell: top ${got.sheet.top}`);
    assert.equal(intersects(got.cell, got.sheet), false, `cell ${JSON.stringify(got.cell)} vs sheet ${JSON.stringify(got.sheet)}`);
    assert.ok(got.cell.bottom <= got.sheet.top - 8 + 1, 'the cell 8 px above the sheet');
    assert.equal(got.above.length, 2);
    for (const row of got.above) assert.ok(row.top >= 0 && row.bottom <= got.sheet.top, `a row above: ${JSON.stringify(row)}`);
    assert.equal(got.padding, `${Math.ceil(got.sheet.height) + 8}px`, 'scroll-padding-bottom = sheet height + 8');
    // the arrow keys move the focus (and the explanation) down a column of the weights table: each
    // cell shows above the sheet (the browser's scroll to a focused cell stops at the padding)
    const weight = (row) => tab.page.locator(`[data-slot="head-0-weights"] td[data-row="${row}"][data-col="0"]`);
    await weight(6).evaluate((td) => window.scrollBy(0, td.getBoundingClientRect().top - innerHeight * 0.3));
    await weight(6).focus();
    for (let k = 7; k < 12; k++) {
      await tab.page.keyboard.press('ArrowDown');
      const next = weight(k);
      assert.equal(await next.evaluate((td) => td === document.activeElement || td.contains(document.activeElement)), true, `cell ${k} focused`);
      const at = await sheetBoxes(next);
      assert.equal(intersects(at.cell, at.sheet), false, `cell ${k}: ${JSON.stringify(at.cell)} vs sheet ${JSON.stringify(at.sheet)}`);
      assert.ok(at.cell.top >= 0, `cell ${k} on screen`);
    }
    await tab.page.click('#explain-close');
    assert.equal(await tab.page.isVisible('#explain'), false);
    assert.equal((await sheetBoxes(cell)).padding, 'auto', 'closing gives the padding back');
  });
});

// 3. One precision everywhere: with the default Digits (4 significant), no decimal printed anywhere in
//    the lab (text, SVG, the heatmap's canvas, practice messages, the explanation) has more than 4
//    significant digits; with "every digit" the practice message shows float32's.
const linkTo = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;
const significant = (decimal) => decimal.replace('.', '').replace(/^0+/, '').length;

async function practiseSoftmaxRow() {
  const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
  await tab.page.evaluate((h) => { location.hash = h; }, linkTo({ preset: 'cat-sat', practice: {} }));
  await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, before);
  const exercises = await tab.page.evaluate(() => globalThis.attentionLab.practice.exercises.map((e) => ({ id: e.id, truths: e.blanks.map((b) => b.truth) })));
  const row = exercises.findIndex((e) => e.id.startsWith('softmax:'));
  assert.ok(row >= 0);
  // the exercises open one after another: the ones before the row answered with their truths
  for (let k = 0; k < row; k++) {
    const inputs = tab.page.locator(`.practice-input[data-exercise="${k}"]`);
    await inputs.first().fill(String(exercises[k].truths[0]));
    await inputs.first().press('Enter');
    await tab.page.waitForFunction((k) => document.querySelector(`.exercise[data-index="${k}"]`).dataset.status === 'correct', k);
  }
  const boxes = tab.page.locator(`.practice-input[data-exercise="${row}"]`);
  for (let k = 0; k < exercises[row].truths.length; k++) await boxes.nth(k).fill(String(exercises[row].truths[k]));
  await boxes.last().press('Enter');
  await tab.page.waitForFunction((k) => document.querySelector(`.exercise[data-index="${k}"]`).dataset.status === 'correct', row);
  return { said: await tab.page.locator(`.exercise[data-index="${row}"] .feedback`).textContent(), truths: exercises[row].truths };
}

// every decimal the page prints: text nodes (HTML and SVG) and the canvases' fillText; not the note
// that shows float32's e^1 beside a calculator's on purpose, nor version numbers
function printedDecimals() {
  return tab.page.evaluate(() => {
    const texts = [...(globalThis.canvasTexts ?? [])];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement.closest('script, style, textarea, pre.export-preview, .float32-note')) texts.push(node.textContent);
    }
    return texts.flatMap((text) => text.replace(/\d+(\.\d+){2,}/g, ' ').match(/\d*\.\d+/g) ?? []).map((d, i, all) => d && all[i]);
  });
}

describe('one precision outside the tables too (issue 26, second review, 3)', () => {
  it('by default no decimal anywhere has more than 4 significant digits', async () => {
    await tab.page.evaluate(() => {
      globalThis.canvasTexts = [];
      const fill = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) { globalThis.canvasTexts.push(String(text)); return fill.call(this, text, ...rest); };
    });
    await renderEverySection(tab.page);
    for (const preset of ['money-bank', 'cat-sat']) await lab.redrawn(() => tab.page.selectOption('#preset', preset));
    await tab.page.locator('table.steps td[data-matrix="weights"]').first().click();
    const found = await printedDecimals();
    // the heatmap's numbers too: softmax([1, 0, 1])'s e/(2e + 1) at 4 digits, as the canvas writes it
    assert.ok(found.includes((Math.E / (2 * Math.E + 1)).toPrecision(4)), 'the heatmap follows Digits');  // with its leading 0, as the tables (review 4, finding 10)
    const { said } = await practiseSoftmaxRow();
    assert.match(said, /0\.2119/);
    const long = [...found, ...(await printedDecimals())].filter((d) => significant(d) > 4);
    assert.deepEqual([...new Set(long)], []);
  });
  it('with every digit chosen, the practice message shows float32\'s', async () => {
    // a fresh page (the exercises answered above are gone), in explore mode
    await tab.page.goto(tab.page.url().split('#')[0]);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const choose = (value) => tab.page.evaluate((v) => {
      const menu = document.getElementById('precision');
      menu.value = v;
      menu.dispatchEvent(new Event('change', { bubbles: true }));
    }, value);
    await choose('0');
    const { said, truths } = await practiseSoftmaxRow();
    const sat = Math.fround(truths.at(-1));
    assert.ok(said.includes(String(Number(sat.toPrecision(8)))), `${said} has ${sat}`);
    await choose('4');
  });
});

// 5. Cosmetic: token lines readable in dark mode, Hindi's tie sentence whole, the loss plot's step
//    as the status says, the Parameters menu's choices not cut off.
const contrast = (a, b) => {
  const lum = (c) => {
    const [r, g, bl] = c.match(/\d+/g).slice(0, 3).map((x) => { const s = Number(x) / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

describe('cosmetic (issue 26, second review, 5)', () => {
  it('dark mode: a full-weight token line contrasts with the background at least 4.5:1 (darker = larger in light)', async () => {
    await tab.page.goto(tab.page.url().split('#')[0]);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await renderEverySection(tab.page);
    for (const scheme of ['dark', 'light']) {
      await tab.page.emulateMedia({ colorScheme: scheme });
      const [stroke, bg] = await tab.page.evaluate(() => [getComputedStyle(document.querySelector('#token-lines line[data-weight]')).stroke, getComputedStyle(document.body).backgroundColor]);
      assert.ok(contrast(stroke, bg) >= 4.5, `${scheme}: ${stroke} on ${bg}: ${contrast(stroke, bg).toFixed(2)}`);
    }
  });
  it('Hindi: the tie sentence names the query apart from the keys it attends to', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi'));
    const line = await tab.page.textContent('#summary');
    await tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en'));
    assert.match(line, /query 'The'/);
    assert.doesNotMatch(line, /'The' 'The'/);
  });
  it('the loss plot says step 0 before training, as the status does', async () => {
    await tab.page.locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 20_000 });
    assert.match(await tab.page.textContent('#train-progress'), /Step 0\./);
    const tick = await tab.page.evaluate(() => [...document.querySelectorAll('#train-loss text')].map((t) => t.textContent));
    assert.ok(tick.includes('step 0'), tick.join(' | '));
    assert.ok(!tick.includes('step 1'));
  });
  for (const width of [1280, 375]) {
    it(`at ${width} px the Parameters menu shows its longest choice whole`, async () => {
      await tab.page.setViewportSize({ width, height: 800 });
      await tab.page.evaluate(() => { document.getElementById('settings').open = true; });
      const fit = await tab.page.evaluate(() => {
        const menu = document.getElementById('weightsMode'), style = getComputedStyle(menu);
        const probe = document.createElement('span');
        probe.style.font = style.font;
        probe.style.whiteSpace = 'pre';
        document.body.append(probe);
        const widths = [...menu.options].map((o) => { probe.textContent = o.textContent; return probe.getBoundingClientRect().width; });
        probe.remove();
        // the arrow takes about 1.5em
        return { needed: Math.max(...widths), room: menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 1.5 * parseFloat(style.fontSize) };
      });
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      assert.ok(fit.room >= fit.needed, `${fit.room} px for ${fit.needed} px`);
    });
  }
});
