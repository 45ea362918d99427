// Issue 26, points 2 and 3: the step table on a phone (375 px: every column in the DOM, labelled and
// reachable by scrolling sideways; the sticky token column never half-covers a number; z under its
// own column) and on the desktop (1280 px: a ten-feature vector shown whole, wrapped, nothing clipped;
// a 64-number vector opened in full on request). Expected counts come from the examples' sizes
// (d_model = 10 features for the telescope, 64 for Action) and the engine's own arrays.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

async function show(preset, width) {
  await tab.page.setViewportSize({ width, height: 800 });
  await lab.redrawn(() => tab.page.selectOption('#preset', preset));
  await tab.page.evaluate(() => document.getElementById('steps').scrollIntoView());
}

// Every cell whose text is cut by the sticky token column (its text starts left of the column's edge
// and ends right of it), at the container's current scroll.
const halfCovered = () => tab.page.evaluate(() => {
  const table = document.querySelector('table.steps');
  const edge = table.tBodies[0].rows[0].cells[0].getBoundingClientRect().right;
  const cut = [];
  for (const td of table.querySelectorAll('tbody td, tfoot td')) {
    if (!td.textContent) continue;
    const range = document.createRange();
    range.selectNodeContents(td);
    for (const box of range.getClientRects()) {
      if (box.left < edge - 0.5 && box.right > edge + 0.5) cut.push(td.textContent);
    }
  }
  return cut;
});

describe('the step table at 375 px (issue 26, point 2)', () => {
  for (const preset of ['cat-sat', 'telescope']) {
    it(`${preset}: every column is there, labelled, reachable, and no number is half under the token column`, async () => {
      await show(preset, 375);
      const columns = await tab.page.evaluate(() => {
        const table = document.querySelector('table.steps');
        const shown = (el) => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().width > 0;
        return {
          headers: Array.from(table.tHead.rows[0].cells, (th) => ({ text: th.textContent.trim(), shown: shown(th) })),
          cells: Array.from(table.tBodies[0].rows, (tr) => Array.from(tr.cells, shown)),
        };
      });
      assert.equal(columns.headers.length, 8);
      assert.ok(columns.headers.every((h) => h.shown && h.text.length > 0), JSON.stringify(columns.headers));
      assert.ok(columns.cells.every((row) => row.length === 8 && row.every(Boolean)), 'every cell shown');
      // swipe sideways as a reader would, a little at a time, to the end
      const scroller = await tab.page.$('#steps');
      for (let step = 0; step < 40; step++) {
        assert.deepEqual(await halfCovered(), [], `scrolled ${step} swipes`);
        const moved = await scroller.evaluate(async (el) => {
          const before = el.scrollLeft;
          el.scrollBy({ left: 45, behavior: 'instant' });
          await new Promise((resolve) => setTimeout(resolve, 250));
          return el.scrollLeft > before;
        });
        if (!moved) break;
      }
      // at the end the last column and z are in view, z under the last column's header
      const end = await tab.page.evaluate(() => {
        const box = document.getElementById('steps').getBoundingClientRect();
        const table = document.querySelector('table.steps');
        const last = table.tHead.rows[0].cells[7].getBoundingClientRect();
        const z = table.querySelector('[data-part="z"]').getBoundingClientRect();
        return { right: box.right, last: [last.left, last.right], z: [z.left, z.right] };
      });
      assert.ok(end.last[1] <= end.right + 1, 'the last column can be scrolled into view');
      assert.ok(Math.abs(end.z[0] - end.last[0]) < 1 && Math.abs(end.z[1] - end.last[1]) < 1, `z sits under "softmax · v" (${end.z} vs ${end.last})`);
    });
  }
});

describe('long vectors at 1280 px (issue 26, point 3)', () => {
  it('the telescope\'s ten-feature vectors are shown whole and nothing is clipped', async () => {
    await show('telescope', 1280);
    const seen = await tab.page.evaluate(() => {
      const holder = document.getElementById('steps');
      const table = holder.querySelector('table.steps');
      const cells = Array.from(table.querySelectorAll('td'));
      return {
        fits: table.getBoundingClientRect().right <= holder.getBoundingClientRect().right + 0.5,
        overflowing: cells.filter((td) => td.scrollWidth > td.clientWidth + 1).map((td) => td.textContent),
        ellipsis: cells.filter((td) => td.textContent.includes('…')).map((td) => td.textContent),
        v: table.tBodies[0].rows[1].querySelector('.part-v').textContent,
        z: table.querySelector('[data-part="z"]').textContent,
        dV: globalThis.attentionLab.view.dV,
      };
    });
    assert.equal(seen.dV, 10);
    assert.ok(seen.fits, 'the whole step table is inside its box, no column off screen');
    assert.deepEqual(seen.overflowing, []);
    assert.deepEqual(seen.ellipsis, []);
    assert.equal(seen.v.split(',').length, 10, seen.v);
    assert.equal(seen.z.split(',').length, 10, seen.z);
  });

  it('Action\'s 64-number vectors open in full on request', async () => {
    await show('action', 1280);
    const button = tab.page.locator('#steps button.whole-vectors');
    assert.equal(await button.count(), 1, 'a button opens the long vectors');
    await button.click();
    const k = await tab.page.evaluate(() => document.querySelector('table.steps tbody tr .part-k').textContent);
    assert.equal(k.split(',').length, 64);
    assert.ok(!k.includes('…'));
    const overflowing = await tab.page.evaluate(() => Array.from(document.querySelectorAll('table.steps td')).filter((td) => td.scrollWidth > td.clientWidth + 1).length);
    assert.equal(overflowing, 0);
    await button.click();
    const short = await tab.page.evaluate(() => document.querySelector('table.steps tbody tr .part-k').textContent);
    assert.ok(short.includes('…'));
  });
});
