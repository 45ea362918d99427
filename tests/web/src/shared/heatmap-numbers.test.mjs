// The heatmap's numbers (review, finding 3): what numberFit chooses for a cell's width and the
// number font's text widths. Here every character is 6 px wide (about the 11 px digits of the page).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { numberFit } from '../../../../web/src/shared/heatmap.mjs';

const sixPx = (text) => text.length * 6;

describe('numbers in the heatmap cells (numberFit)', () => {
  it('four significant digits when the widest fits the cell less 4 px, then 3 decimals, then 2, else none', () => {
    const weights = [0.15536, 0.06240, 0.78224];
    assert.deepEqual(numberFit(44, weights, sixPx), { mode: 'full', decimals: null, texts: ['0.1554', '0.0624', '0.7822'] });
    assert.deepEqual(numberFit(40, weights, sixPx), { mode: 'full', decimals: null, texts: ['0.1554', '0.0624', '0.7822'] }, '36 px in 40 − 4');
    assert.deepEqual(numberFit(39, weights, sixPx), { mode: 'rounded', decimals: 3, texts: ['0.155', '0.062', '0.782'] });
    assert.deepEqual(numberFit(34, weights, sixPx), { mode: 'rounded', decimals: 3, texts: ['0.155', '0.062', '0.782'] });
    assert.deepEqual(numberFit(33, weights, sixPx), { mode: 'rounded', decimals: 2, texts: ['0.16', '0.06', '0.78'] });
    assert.deepEqual(numberFit(28, weights, sixPx), { mode: 'rounded', decimals: 2, texts: ['0.16', '0.06', '0.78'] });
    assert.deepEqual(numberFit(27, weights, sixPx), { mode: 'hidden', decimals: null, texts: [null, null, null] });
    assert.deepEqual(numberFit(14, weights, sixPx).mode, 'hidden');
  });

  it('says "rounded" only when a shown number differs from the full one', () => {
    // 0.5 and 0.25 are whole in every choice: at 28 px the full texts fit
    assert.deepEqual(numberFit(28, [0.5, 0.25], sixPx), { mode: 'full', decimals: null, texts: ['0.5', '0.25'] });
    // 0.125 does not fit 26 − 4 px as 0.125: 2 decimals, and 0.13 is rounded
    assert.deepEqual(numberFit(28, [0.5, 0.25, 0.125], sixPx), { mode: 'rounded', decimals: 2, texts: ['0.50', '0.25', '0.13'] });
  });

  it('a tiny weight (1.754 × 10⁻⁷) goes to decimals; masked cells get no text and take no room', () => {
    assert.deepEqual(numberFit(40, [1.754e-7, 0.9999998], sixPx), { mode: 'rounded', decimals: 3, texts: ['0.000', '1.000'] });
    const masked = (i) => i === 1;
    assert.deepEqual(numberFit(40, [0.33333334, -Infinity, 0.6666667], sixPx, masked), { mode: 'full', decimals: null, texts: ['0.3333', null, '0.6667'] });
  });

  it('measures each distinct text once', () => {
    const measured = [];
    numberFit(30, new Float32Array(64).fill(0.015625), (text) => { measured.push(text); return sixPx(text); });
    assert.deepEqual(measured, ['0.01563', '0.016', '0.02'], 'three texts for 64 equal weights');
  });
});
