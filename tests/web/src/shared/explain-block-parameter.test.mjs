// The explanation of a block parameter's cell (W₁, W₂ of the MLP) at the MLP's own width: a real
// model's layer opened in the lab has its own (BERT's folder: 2 × d_model, not the lab's 4 × d_model).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { explainBlockParameter } from '../../../../web/src/shared/explain-layers.mjs';
import { formatNumber } from '../../../../web/src/shared/format.mjs';
import { message } from '../../../../web/src/i18n/index.mjs';

const t = (key, values) => message(key, values);

// d_model 2, an MLP 3 wide (neither 4 × d_model nor a multiple of d_model's lanes)
function view(hidden) {
  const w1 = Float32Array.from({ length: 2 * hidden }, (_, i) => 0.5 + i);
  const w2 = Float32Array.from({ length: hidden * 2 }, (_, i) => -0.25 - i);
  return { layer: 0, dModel: 2, columns: ['x₁', 'x₂'], layerWeights: [{ w1, w2 }] };
}

describe('explainBlockParameter', () => {
  for (const hidden of [3, 4, 8, 12]) {
    it(`every cell of W₁ (2 × ${hidden}) and W₂ (${hidden} × 2) names its own value and the MLP's width`, () => {
      const v = view(hidden);
      for (const [matrix, rows, cols] of [['w1', 2, hidden], ['w2', hidden, 2]]) {
        for (let row = 0; row < rows; row++) {
          for (let col = 0; col < cols; col++) {
            const explained = explainBlockParameter(v, { matrix, row, col }, t);
            assert.ok(explained, `${matrix}[${row}][${col}] explained`);
            assert.equal(explained.value, formatNumber(v.layerWeights[0][matrix][row * cols + col]), `${matrix}[${row}][${col}]`);
            assert.match(explained.title, new RegExp(`${hidden}`), `${matrix}: the title names the width ${hidden}`);
          }
        }
        assert.equal(explainBlockParameter(v, { matrix, row: rows, col: 0 }, t), null, `${matrix}: a row past the end`);
        assert.equal(explainBlockParameter(v, { matrix, row: 0, col: cols }, t), null, `${matrix}: a column past the end`);
      }
    });
  }
});
