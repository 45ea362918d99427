// Issue 26, point 6: numbers a student can write in an exam. 4 significant digits by default in the
// tables and explanations, one precision control for the whole lab, the float32 note where a student
// looks, and the numbers of a note's sentence from the engine. Expected values: float64 here.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

// significant digits of each number in a text (exponents and the 1 of "× 10" left out)
function significantDigits(text) {
  const numbers = text.replace(/× 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, '').replace(/e\^[−-]?[\d.]+/g, '').match(/\d+(\.\d+)?/g) ?? [];
  return numbers.map((n) => n.replace('.', '').replace(/^0+/, '').length);
}

describe('numbers a student can write (issue 26, point 6)', () => {
  it('cat-sat: the weight 0.4223 reads the same in the step table, the matrix and the explanation', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    const expected = (Math.E / (2 * Math.E + 1)).toPrecision(4);  // softmax([1, 0, 1])[0]
    assert.equal(expected, '0.4223');
    assert.equal(await tab.page.textContent('#steps td[data-matrix="weights"][data-col="0"]'), expected);
    assert.equal(await tab.page.textContent('[data-slot="head-0-weights"] td[data-row="0"][data-col="0"]'), expected);
    await tab.page.click('[data-slot="head-0-weights"] td[data-row="0"][data-col="0"]');
    assert.equal(await tab.page.textContent('#explain-value'), `= ${expected}`);
    const lines = await tab.page.textContent('#explain-lines');
    assert.ok(significantDigits(lines).every((d) => d <= 4), lines);
  });

  it('money-bank-scaling: √2 is 1.414 and every explanation keeps to 4 significant digits', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'money-bank-scaling'));
    const header = await tab.page.$$eval('#steps thead th', (ths) => ths.map((th) => th.textContent));
    assert.ok(header.includes(`q·k / √d_k = ${Math.SQRT2.toPrecision(4)}`), header.join(' | '));
    for (const matrix of ['q', 'scores', 'scaled', 'weights', 'z', 'output']) {
      await tab.page.click(`td[data-matrix="${matrix}"]:not(.steps td)`);
      const text = `${await tab.page.textContent('#explain-lines')} ${await tab.page.textContent('#explain-value')}`;
      assert.ok(significantDigits(text).every((d) => d <= 4), `${matrix}: ${text}`);
    }
  });

  it('the note on 000 gives the engine\'s gap and weight, not the prose\'s', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'money-bank-scaling'));
    const gap = (32 - 10) / Math.SQRT2;  // scaled scores 10/√2 and 32/√2
    const small = 1 / (1 + Math.exp(gap));
    const text = await tab.page.textContent('#notes');
    assert.ok(text.includes(`differ by ${gap.toPrecision(4)}`), text);
    const [mantissa, exponent] = small.toExponential(3).split('e');
    assert.ok(text.includes(`${mantissa} × 10⁻${'⁰¹²³⁴⁵⁶⁷⁸⁹'[-Number(exponent)]}`), `${mantissa}e${exponent} in: ${text}`);
  });

  it('one control shows every float32 exactly, and the float32 note is by the step table', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    const note = await tab.page.textContent('.float32-note');
    assert.match(note, /float32/);
    assert.equal(await tab.page.isVisible('.float32-note'), true);
    await lab.redrawn(() => tab.page.selectOption('#precision', '0'));
    // the engine's float32, within a few float32 steps of float64's value (the note's point)
    const shown = await tab.page.textContent('#steps td[data-matrix="weights"][data-col="0"]');
    assert.ok(Math.abs(Number(shown) - Math.E / (2 * Math.E + 1)) < 2e-7, shown);
    assert.ok(shown.length >= 10, shown);
    await lab.redrawn(() => tab.page.selectOption('#precision', '4'));
    assert.equal(await tab.page.textContent('#steps td[data-matrix="weights"][data-col="0"]'), '0.4223');
  });
});
