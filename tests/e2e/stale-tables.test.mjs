// A state the lab refuses leaves the last good tables on screen: they are dimmed and a message says
// they are the last numbers that worked (a first-time student read the old tables, and Explain's
// "= 1", as the answer to what was just typed). Every kind of refusal: the engine's overflow from X,
// the engine's overflow from the divisor, and a setting the page itself refuses; in English and Hindi (the engine's overflow said in Hindi too).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { EN as en } from '../../web/src/i18n/en.mjs';
import { HI as hi } from '../../web/src/i18n/hi.mjs';
import { message } from '../../web/src/i18n/index.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const state = () => tab.page.evaluate(() => {
  const lab = document.getElementById('lab');
  const opacity = (el) => (el ? getComputedStyle(el).opacity : null);
  return {
    stale: lab.classList.contains('stale-result'),
    messages: document.getElementById('messages').textContent,
    weights: Array.from(document.querySelector('[data-slot="head-0-weights"] tbody tr').cells).slice(1).map((c) => c.textContent),
    weightCell: opacity(document.querySelector('table.steps td[data-matrix="weights"]')),
    xInputCell: opacity(document.querySelector('td[data-matrix="x"][data-row="0"][data-col="0"]')),
    heatmap: opacity(document.querySelector('#heatmap canvas, [data-view="heatmap"] canvas')),
    explainValue: opacity(document.getElementById('explain-value')),
    explainStale: document.getElementById('explain-stale').checkVisibility() ? document.getElementById('explain-stale').textContent : null,
  };
});
const typeInto = (id, value) => tab.page.evaluate(([id, value]) => {
  const field = document.getElementById(id);
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true }));
}, [id, value]);
const staleShown = () => tab.page.waitForFunction(() => document.getElementById('lab').classList.contains('stale-result'));

// Each refusal: [what, make it happen, the message it gives, undo it, what comes before (optional)]
const REFUSALS = [
  ['an X entry whose scores overflow float32 (the engine)', () => tab.page.locator('td[data-matrix="x"][data-row="0"][data-col="0"] input').fill('1e30'),
    /overflow float32/, () => tab.page.locator('td[data-matrix="x"][data-row="0"][data-col="0"] input').fill('1')],
  ['a divisor that makes the scores overflow (the engine)', async () => {
    await tab.page.selectOption('#scaleMode', 'custom');
    await typeInto('scaleDivisor', '0.01');
  }, /overflow float32/, () => tab.page.selectOption('#scaleMode', 'sqrt_dk'),
  // large enough that 1e38 ÷ 0.01 overflows, small enough to be computed first
  () => lab.redrawn(() => tab.page.locator('td[data-matrix="x"][data-row="0"][data-col="0"] input').fill('1e19'))],
  ['a size the page refuses (d_model 0)', () => typeInto('dModel', '0'), /d_model/, () => typeInto('dModel', '4')],
];

describe('a refused state: the last good tables dimmed, and said to be the last that worked', () => {
  before(async () => {
    await tab.page.evaluate(() => { document.getElementById('settings').open = true; });
  });
  for (const [what, refuse, message, undo, prepare] of REFUSALS) {
    it(what, async () => {
      await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
      await prepare?.();
      await tab.page.locator('table.steps td[data-matrix="weights"]').first().click();
      const good = await state();
      assert.equal(good.stale, false);
      assert.equal(good.weightCell, '1');
      await refuse();
      await staleShown();
      const refused = await state();
      assert.match(refused.messages, message);
      assert.ok(refused.messages.includes(en['problem.staleTables']), refused.messages);
      assert.deepEqual(refused.weights, good.weights, 'the last good tables stay');
      assert.equal(refused.weightCell, '0.4', 'a computed cell is dimmed');
      assert.equal(refused.xInputCell, '1', 'a cell typed into is not');
      if (refused.heatmap !== null) assert.equal(refused.heatmap, '0.4');
      assert.equal(refused.explainValue, '0.4', "Explain's value is dimmed too");
      assert.equal(refused.explainStale, en['explain.stale'], 'and Explain says whose numbers they are');
      await lab.redrawn(undo);
      const back = await state();
      assert.equal(back.stale, false);
      assert.equal(back.weightCell, '1');
      assert.equal(back.explainStale, null);
      assert.ok(!back.messages.includes(en['problem.staleTables']));
    });
  }

  it("in Hindi both messages are Hindi, the engine's overflow too", async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await tab.page.selectOption('#language', 'hi');
    await tab.page.locator('td[data-matrix="x"][data-row="0"][data-col="0"] input').fill('1e30');
    await staleShown();
    const refused = await state();
    assert.ok(refused.messages.includes(hi['problem.staleTables']), refused.messages);
    assert.ok(refused.messages.includes(message('engine.overflow.scores', { head: '1', heads: '1' }, 'hi')), refused.messages);
    assert.doesNotMatch(refused.messages, /overflow float32/);
    await lab.redrawn(() => tab.page.locator('td[data-matrix="x"][data-row="0"][data-col="0"] input').fill('1'));
    assert.equal((await state()).stale, false);
    await tab.page.selectOption('#language', 'en');
  });
});
