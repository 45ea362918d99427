// Issue 26, point 12: the first screen (1280 × 800 and 375 × 800) shows the example's sentence, its
// formula strip and the whole step table for the chosen token (every row and z above the fold), with
// the advanced settings folded.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { openBrowser } from './browser.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

describe('the first screen (issue 26, point 12)', () => {
  for (const [width, height] of [[1280, 800], [375, 800]]) {
    it(`${width} × ${height}: sentence, formula strip and the whole step table; settings folded`, async () => {
      const page = await browser.browser.newPage({ viewport: { width, height } });
      await page.goto(browser.url);
      await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      const seen = await page.evaluate(() => {
        const bottom = (el) => el.getBoundingClientRect().bottom;
        const table = document.querySelector('table.steps');
        return {
          settingsOpen: document.getElementById('settings').open,
          sentence: bottom(document.getElementById('sentence')),
          strip: bottom(document.querySelector('#formula .stages') ?? document.getElementById('formula')),
          rows: table.tBodies[0].rows.length,
          lastRow: bottom(table.tBodies[0].rows[table.tBodies[0].rows.length - 1]),
          z: bottom(table.tFoot),
        };
      });
      await page.close();
      assert.equal(seen.settingsOpen, false, 'advanced settings folded');
      assert.equal(seen.rows, 3, "The cat sat: three keys");
      for (const [what, at] of Object.entries({ sentence: seen.sentence, strip: seen.strip, lastRow: seen.lastRow, z: seen.z })) {
        assert.ok(at <= height, `${what} ends at ${at} px`);
      }
    });
  }
});
