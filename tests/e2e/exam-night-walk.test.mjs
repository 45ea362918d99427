// Issue 26, point 4: the guided walk explains cells that carry the example's point, never a cell
// whose every term is zero when its row has a non-zero value, and its first step opens W_q and
// outlines it. The expected cells come from the engine's arrays read here (largest |value| per row).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const step = () => tab.page.evaluate(() => ({
  out: [...document.querySelectorAll('td.walk-out')].filter((td) => td.dataset.matrix).map((td) => ({ matrix: td.dataset.matrix, row: td.dataset.row, text: td.textContent })),
  lines: [...document.querySelectorAll('.walk-arithmetic li')].map((li) => li.textContent),
  stage: document.querySelector('#formula button[aria-current="step"]')?.dataset.stage,
  last: document.getElementById('walk-next').getAttribute('aria-disabled') === 'true',
  position: document.querySelector('.walk-position').textContent,
}));

async function startWalk() {
  if (await tab.page.isVisible('#walk-stop')) await tab.page.click('#walk-stop');
  await tab.page.click('#walk-start');
}

describe('the walk chooses cells that carry the point (issue 26, point 4)', () => {
  it('step 1 opens W_q and outlines it', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'telescope'));
    await startWalk();
    await tab.page.waitForFunction(() => document.querySelector('#weights details[data-block="head-0"]')?.open);
    await tab.page.waitForFunction(() => document.querySelectorAll('td[data-matrix="wq"].walk-in').length > 0);
    const shown = await tab.page.evaluate(() => {
      const cell = document.querySelector('td[data-matrix="wq"].walk-in');
      const box = cell.getBoundingClientRect();
      return { outline: getComputedStyle(cell).outlineStyle, width: box.width };
    });
    assert.notEqual(shown.outline, 'none');
    assert.ok(shown.width > 0);
    await tab.page.click('#walk-stop');
  });

  for (const preset of ['telescope', 'kids-lions', 'money-bank']) {
    it(`${preset}: no step explains an all-zero sum when its row carries a non-zero number`, async () => {
      await lab.redrawn(() => tab.page.selectOption('#preset', preset));
      await startWalk();
      const zeros = [];
      for (let i = 0; i < 60; i++) {
        const s = await step();
        const allZero = s.lines.some((line) => /every term is 0|all terms are 0|सभी पद 0/i.test(line)) || s.lines.at(-1) === '= 0';
        // a score is q·k of one given key: zero when it is (no choice of cell there)
        if (allZero && s.stage !== 'scores') zeros.push(s.position);
        if (s.last) break;
        await tab.page.click('#walk-next');
      }
      await tab.page.click('#walk-stop');
      assert.deepEqual(zeros, []);
    });
  }

  it('cat-sat: a dot product of four terms is written out whole, zeros too, as the notes write it', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await startWalk();
    // steps 1-3 project; step 4 is q·k of 'The' with 'The': [1,0,1,0]·[1,0,1,0] = 1×1 + 0×0 + 1×1 + 0×0 = 2
    for (let i = 0; i < 3; i++) await tab.page.click('#walk-next');
    const s = await step();
    assert.equal(s.stage, 'scores');
    assert.ok(s.lines.some((line) => line.includes('1×1 + 0×0 + 1×1 + 0×0')), s.lines.join(' | '));
    await tab.page.click('#walk-stop');
  });
});
