// Issue 27, "Print and disk": the page printed to PDF in headless Chromium (page.pdf), and the PDF
// read back with poppler-utils (pdftotext, pdfimages, pdftoppm): a handout of what is on screen.
// No buttons or controls; light whatever the theme; the notes' cat-sat weights (002) printed as the
// page shows them; a table wider than the page split by columns, each part with the row headers and
// the header row, the parts covering every column once; with two heads the heads' tables start a
// page; the pictures printed as images. Uses the dist/ the suite has built.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { openBrowser } from './browser.mjs';
import { EN } from '../../web/src/i18n/en.mjs';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-print-'));
const WORDS = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twentyone twentytwo';
const WIDE = { sentence: WORDS, dModel: 24, heads: 2, dK: 12, dV: 12, weightsMode: 'random', seed: 7 };
const link = (state) => `#lab=${encodeURIComponent(JSON.stringify(state))}`;

let browser;
before(async () => {
  browser = await openBrowser();
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// the page drawn at 1280 px, printed to A4: { page, file, pages: [text of each page] }
async function printed(state, name, colorScheme = 'light') {
  const tab = await browser.newPage();
  const { page } = tab;
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${browser.url}${link(state)}`);
  await page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
  await page.emulateMedia({ media: 'print', colorScheme });
  const file = path.join(scratch, `${name}.pdf`);
  writeFileSync(file, await page.pdf({ format: 'A4', printBackground: true }));
  const pages = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).split('\f').slice(0, -1);
  return { tab, page, file, pages };
}

describe('printing the page', () => {
  it('prints what is on screen without a button, light in a dark theme, the weights as the notes give them', async () => {
    const { tab, file, pages } = await printed({ preset: 'cat-sat' }, 'cat-sat', 'dark');
    const text = pages.join('\n');
    for (const key of ['toolbar.copyLink', 'toolbar.embed', 'toolbar.export', 'walk.start', 'practice.mode.practice']) {
      assert.doesNotMatch(text, new RegExp(`\\b${EN[key]}\\b`), `"${EN[key]}" is not printed`);
    }
    // the notes (002): with W = I the row of 'The' is softmax([1, 0.5, 1]) = 0.422, 0.155, 0.422
    assert.match(text, /The\s+0\.4223\s+0\.1554\s+0\.4223\s+1\s/);
    // light paper: the top left corner of page 1 is white (a PGM of page 1 at 10 dpi)
    const pgm = execFileSync('pdftoppm', ['-r', '10', '-f', '1', '-l', '1', '-gray', file]);
    const header = pgm.toString('latin1').match(/^P5\s+(\d+)\s+(\d+)\s+255\s/);
    assert.ok(header, 'a PGM');
    assert.equal(pgm[header[0].length], 255, 'white');
    // the pictures as they are: the heatmap and its legend are images in the PDF
    const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).split('\n').filter((line) => /^\s+\d+\s+\d+\s+image\s/.test(line));
    assert.ok(images.length >= 2, `${images.length} images`);
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });

  it('splits a table wider than the page by columns, each part with the row headers and the header row, and puts it back after', async () => {
    const { tab, page, pages } = await printed(WIDE, 'wide');
    // printing is over (afterprint put the tables back): print again, to read the split
    await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
    assert.equal(await page.locator('table.print-part').count(), 0);
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    const split = await page.evaluate(() => [...document.querySelectorAll('table.print-split')].map((table) => {
      const column = (t, col) => [...t.rows].map((row) => row.cells[col].textContent);
      const parts = [];
      for (let next = table.nextElementSibling; next?.classList.contains('print-part'); next = next.nextElementSibling) parts.push(next);
      return {
        caption: table.caption?.textContent ?? '',
        columns: [...table.rows[0].cells].slice(1).map((cell) => cell.textContent),
        parts: parts.map((part) => ({ first: column(part, 0), header: [...part.rows[0].cells].slice(1).map((cell) => cell.textContent), caption: part.caption?.textContent ?? '' })),
        first: column(table, 0),
        shown: getComputedStyle(table).display,
      };
    }));
    const scores = split.find((table) => /^Scores/.test(table.caption));
    assert.ok(scores, `the 22 × 22 scores are split: ${JSON.stringify(split.map((table) => table.caption))}`);
    for (const table of split) {
      assert.equal(table.shown, 'none', 'the whole table is not printed');
      assert.ok(table.parts.length >= 2, table.caption);
      assert.deepEqual(table.parts.flatMap((part) => part.header), table.columns, `${table.caption}: every column once, in order`);
      for (const part of table.parts) assert.deepEqual(part.first, table.first, 'the row headers in every part');
    }
    // printed: each part's caption names its first and last column
    const text = pages.join('\n');
    for (const part of scores.parts) assert.ok(text.includes(part.caption), part.caption);
    // two heads: "Every matrix, per head" starts a page
    const heading = EN['section.matrices'];
    assert.ok(pages.some((p) => p.trimStart().startsWith(heading)), `${heading} at the top of a page`);
    // back on screen, the copies are gone
    await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
    await page.emulateMedia({ media: 'screen' });
    assert.equal(await page.locator('table.print-part, table.print-split').count(), 0);
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
});
