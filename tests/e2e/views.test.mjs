// The pictures and the scaling lab in headless Chromium: each renders for every preset, reacts to
// hover and focus, and shows the same numbers as the tables.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { PRESETS } from '../../web/src/state/presets.mjs';
import { weightColour } from '../../web/src/shared/colour.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const redrawn = (action) => lab.redrawn(action);

// The weights table of a head as numbers, [query][key], as the page prints them ("1.754 × 10⁻⁷" is
// 1.754e-7: tiny numbers as a student writes them, issue 26).
async function weightsTable(head) {
  return tab.page.$$eval(`[data-slot="head-${head}-weights"] tbody tr`, (rows) =>
    rows.map((tr) => Array.from(tr.cells).slice(1, -1).map((td) => Number(td.textContent.replace(/ × 10([⁻]?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)/,
      (_, sign, digits) => `e${sign ? '-' : ''}${[...digits].map((d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'.indexOf(d)).join('')}`)))));
}

const rgb = (css) => css.match(/\d+/g).slice(0, 3).map(Number);

describe('every view renders for every preset and matches the tables', () => {
  for (const preset of PRESETS) {
    it(preset.id, async () => {
      await redrawn(() => tab.page.selectOption('#preset', preset.id));
      const { n, m, heads } = await tab.page.evaluate(() => {
        const { view } = globalThis.attentionLab;
        return { n: view.tokens.length, m: view.m, heads: view.heads };
      });
      const weights = await weightsTable(0);

      // heatmap: a pixel near the top-left corner of each cell (clear of the number written in
      // its middle) is the colour of the table's weight
      const pixels = await tab.page.$eval('#heatmap', (canvas, size) => {
        const { left, top, cell } = canvas.dataset;
        const ratio = canvas.width / parseFloat(canvas.style.width);
        const context = canvas.getContext('2d');
        const out = [];
        for (let r = 0; r < size.n; r++) {
          for (let c = 0; c < size.m; c++) {
            const x = (Number(left) + (c + 0.15) * Number(cell)) * ratio, y = (Number(top) + (r + 0.15) * Number(cell)) * ratio;
            out.push(Array.from(context.getImageData(Math.floor(x), Math.floor(y), 1, 1).data.slice(0, 3)));
          }
        }
        return out;
      }, { n, m });
      pixels.forEach((pixel, i) => {
        const weight = weights[Math.floor(i / m)][i % m];
        const expected = rgb(weightColour(weight).background);
        // the table rounds to 0.001; the scale moves at most a few levels per channel over that
        pixel.forEach((channel, k) => assert.ok(Math.abs(channel - expected[k]) <= 3,
          `cell ${i}: pixel ${pixel} vs colour ${expected} of weight ${weight}`));
      });

      // token lines: one line per non-zero weight of head 1, opacity = weight
      const lines = await tab.page.$$eval('#token-lines line[data-head="0"]', (ls) =>
        ls.map((l) => [Number(l.dataset.query), Number(l.dataset.key), Number(l.getAttribute('stroke-opacity'))]));
      const nonZero = weights.flat().filter((w) => w > 0).length;
      assert.ok(lines.length >= nonZero, `${lines.length} lines for ${nonZero} visible weights`);
      for (const [i, j, opacity] of lines) assert.ok(Math.abs(opacity - weights[i][j]) <= 0.0006, `line ${i}→${j}: ${opacity} vs ${weights[i][j]}`);

      // embedding plot: a point per token after attention, or a note saying why not
      const points = await tab.page.locator('#embedding-plot circle.after').count();
      const note = await tab.page.textContent('#embedding-note');
      assert.ok(points === n || note.length > 0, `${points} points for ${n} tokens, note '${note}'`);

      // small multiples: one per head when there are several
      assert.equal(await tab.page.locator('#heatmap-grid button').count(), heads > 1 ? heads : 0);
    });
  }
});

describe('interaction', () => {
  it('focusing a query token shows only its lines, and leaving shows all again', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'animal-it'));
    // the picture is redrawn at its real width when its section first comes near the screen (after
    // the tables, a frame later): bring it there and let that redraw happen before focusing, as a
    // reader's Tab would (the focus kept across that redraw is tested at 375 px elsewhere)
    await tab.page.evaluate(() => new Promise((resolve) => {
      document.getElementById('token-lines').scrollIntoView({ block: 'center' });
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50)));
    }));
    await tab.page.focus('#token-lines .token-node.query[data-index="5"]');
    const visibleQueries = () => tab.page.$$eval('#token-lines line', (ls) => ls.filter((l) => l.style.display !== 'none').map((l) => l.dataset.query));
    let visible = await visibleQueries();
    for (let wait = 0; wait < 20 && !(visible.length > 0 && visible.every((q) => q === '5')); wait++) {
      await tab.page.waitForTimeout(100);
      visible = await visibleQueries();
    }
    assert.ok(visible.length > 0 && visible.every((q) => q === '5'), `visible lines of queries ${[...new Set(visible)]}`);
    await tab.page.focus('#preset');
    const all = await tab.page.$$eval('#token-lines line', (ls) => ls.filter((l) => l.style.display !== 'none').length);
    assert.equal(all, await tab.page.locator('#token-lines line').count());
  });

  it('hovering a key token shows only the lines into it', async () => {
    await tab.page.hover('#token-lines .token-node.key[data-index="7"] text');
    const visible = await tab.page.$$eval('#token-lines line', (ls) => ls.filter((l) => l.style.display !== 'none').map((l) => l.dataset.key));
    assert.ok(visible.length > 0 && visible.every((k) => k === '7'));
    await tab.page.mouse.move(0, 0);
  });

  it('a tap pins a token and a second tap clears it', async () => {
    await tab.page.click('#token-lines .token-node.query[data-index="1"] text');
    await tab.page.mouse.move(0, 0);
    let visible = await tab.page.$$eval('#token-lines line', (ls) => ls.filter((l) => l.style.display !== 'none').map((l) => l.dataset.query));
    assert.ok(visible.every((q) => q === '1'));
    await tab.page.click('#token-lines .token-node.query[data-index="1"] text');
    await tab.page.focus('#preset');
    visible = await tab.page.$$eval('#token-lines line', (ls) => ls.filter((l) => l.style.display !== 'none'));
    assert.equal(visible.length, await tab.page.locator('#token-lines line').count());
  });

  it('two heads overlay in their own colours; a small multiple opens its head', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'telescope'));
    await tab.page.check('#line-heads input[value="1"]');
    const colours = await tab.page.$$eval('#token-lines line', (ls) => [...new Set(ls.map((l) => `${l.dataset.head}:${l.getAttribute('stroke')}`))]);
    assert.deepEqual(colours.sort(), ['0:#0072B2', '1:#D55E00']);
    await redrawn(() => tab.page.click('#heatmap-grid button[data-head="1"]'));
    assert.equal(await tab.page.getAttribute('#heatmap', 'data-head'), '1');
    assert.equal(await tab.page.getAttribute('#tab-1', 'aria-selected'), 'true');
  });

  it("the embedding plot puts 'bank' after attention where the output table says", async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'money-bank'));
    const plotted = await tab.page.$$eval('#embedding-plot circle.after', (cs) => cs.map((c) => [Number(c.dataset.x), Number(c.dataset.y)]));
    const axes = await tab.page.evaluate(() => [Number(document.getElementById('plot-x').value), Number(document.getElementById('plot-y').value)]);
    const output = await tab.page.$$eval('#output-table tbody tr', (rows) => rows.map((tr) => Array.from(tr.cells).slice(1).map((td) => Number(td.textContent))));
    output.forEach((row, i) => {
      assert.ok(Math.abs(plotted[i][0] - row[axes[0]]) <= 0.0006);
      assert.ok(Math.abs(plotted[i][1] - row[axes[1]]) <= 0.0006);
    });
  });
});

describe('scaling lab', () => {
  it('at d_k = 64 the measured variance is within 10 % of 64 unscaled and of 1 scaled', async () => {
    await tab.page.waitForSelector('#variance-plot circle[data-dk="64"]');
    const [unscaled, scaled] = await tab.page.$$eval('#variance-plot circle[data-dk="64"]', (cs) => cs.map((c) => Number(c.dataset.variance)));
    assert.ok(Math.abs(unscaled - 64) <= 6.4, `unscaled ${unscaled}`);
    assert.ok(Math.abs(scaled - 1) <= 0.1, `scaled ${scaled}`);
    assert.equal(await tab.page.locator('#variance-plot circle[data-dk]').count(), 20);
  });

  it("softmax([6, 4]) is [0.881, 0.119], not the notes' [0.38, 0.18]", async () => {
    const six = await tab.page.$$eval('#softmax-64 rect', (rs) => rs.map((r) => Number(r.dataset.weight)));
    assert.ok(Math.abs(six[0] - 0.8808) < 1e-4 && Math.abs(six[1] - 0.1192) < 1e-4, six.join());
    const three = await tab.page.$$eval('#softmax-32 rect', (rs) => rs.map((r) => Number(r.dataset.weight)));
    assert.ok(Math.abs(three[0] - 0.7311) < 1e-4);
  });

  it('the saturation slider collapses the row toward one-hot and the entropy falls', async () => {
    await redrawn(() => tab.page.selectOption('#preset', 'animal-it'));
    // at 4 significant digits a tiny entropy reads "3.1 × 10⁻²⁰ bits" (issue 26's one precision)
    const SUPER = '⁰¹²³⁴⁵⁶⁷⁸⁹';
    const entropy = async () => {
      const [, mantissa, exponent] = (await tab.page.textContent('#saturation-entropy')).match(/([\d.]+)(?: × 10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))? bits/);
      const power = exponent ? Number([...exponent].map((c) => (c === '⁻' ? '-' : SUPER.indexOf(c))).join('')) : 0;
      return Number(mantissa) * 10 ** power;
    };
    await tab.page.waitForFunction(() => document.getElementById('saturation-entropy').textContent.length > 0);
    const atOne = await entropy();
    const weights = await weightsTable(0);
    const bars = await tab.page.$$eval('#softmax-slider rect', (rs) => rs.map((r) => Number(r.dataset.weight)));
    // the query is 'it', row 8 of the notes' full sentence
    bars.forEach((w, j) => assert.ok(Math.abs(w - weights[7][j]) <= 0.0006, 'at ×1 the bars are the weights of the query row'));
    await tab.page.fill('#saturation', '2');
    await tab.page.waitForFunction((before) => !document.getElementById('saturation-entropy').textContent.includes(String(before)), atOne);
    const atHundred = await entropy();
    assert.ok(atHundred < atOne / 2, `${atHundred} vs ${atOne}`);
    const peaked = await tab.page.$$eval('#softmax-slider rect', (rs) => Math.max(...rs.map((r) => Number(r.dataset.weight))));
    assert.ok(peaked > 0.9);
  });
});
