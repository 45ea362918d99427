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

// A real model's layer (review 7, findings 1, 2, 14): layer 2 of 2 of a Llama-like folder, d_model 2,
// a SwiGLU MLP 3 wide, RMSNorms; the numbers and names are the view's, the sentences said here.
function modelView(blockEdits = {}) {
  const ramp = (length, start) => Float32Array.from({ length }, (_, i) => start + i / 8);
  const layer = {
    wGate: ramp(6, 0.5), wUp: ramp(6, -1), wDown: ramp(6, 2), ln1: Float32Array.of(0.9, 1.3, 0, 0), ln2: Float32Array.of(1.1, 0.7, 0, 0),
    norms: { kind: ['rmsnorm', 'rmsnorm'], eps: [1e-6, 1e-6], mlp: 'swiglu', activation: null },
  };
  const tensors = { wGate: 'model.layers.1.mlp.gate_proj.weight', wUp: 'model.layers.1.mlp.up_proj.weight', wDown: 'model.layers.1.mlp.down_proj.weight', ln1: 'model.layers.1.input_layernorm', ln2: 'model.layers.1.post_attention_layernorm' };
  return {
    layer: 0, dModel: 2, columns: ['e1', 'e2'], layerWeights: [layer], result: { layers: [{}] }, blockEdits,
    model: { model: 'llama', architectures: 'LlamaForCausalLM', layer: 2, layers: 2, tensors },
  };
}

describe('explainBlockParameter on a real model\'s layer', () => {
  it('names the folder\'s tensor and the model\'s layer 2 of 2, with the role of W_gate, W_up and W_down', () => {
    const v = modelView();
    for (const [matrix, tensor, row, col, index] of [['wGate', 'gate_proj', 1, 2, 5], ['wUp', 'up_proj', 0, 1, 1], ['wDown', 'down_proj', 2, 0, 4]]) {
      const explained = explainBlockParameter(v, { matrix, row, col }, t);
      assert.equal(explained.value, formatNumber(v.layerWeights[0][matrix][index]));
      assert.match(explained.lines[0], new RegExp(`^Read from the llama model's folder: the tensor model\\.layers\\.1\\.mlp\\.${tensor}\\.weight, a parameter of the MLP of the model's layer 2 of 2 \\(the folder counts its layers from 0\\)\\.$`));
      assert.ok(explained.lines[1].startsWith('The SwiGLU MLP gives SiLU(x·W_gate) ⊙ (x·W_up), then ·W_down.'), explained.lines[1]);
      assert.doesNotMatch(explained.lines.join(' '), /Xavier|seeded/);
    }
    assert.match(explainBlockParameter(v, { matrix: 'wGate', row: 1, col: 2 }, t).title, /^W_gate of layer 2 \(d_model × 3\)/);
  });

  it('explains an RMSNorm\'s γ as RMSNorm₁ / RMSNorm₂ with its formula (no mean, no β), and a typed cell as the reader\'s', () => {
    const explained = explainBlockParameter(modelView(), { matrix: 'ln2', row: 0, col: 1 }, t);
    assert.equal(explained.value, formatNumber(Math.fround(0.7)));
    assert.match(explained.lines[0], /the tensor model\.layers\.1\.post_attention_layernorm\.weight, a parameter of RMSNorm₂ in the model's layer 2 of 2/);
    assert.equal(explained.lines[1], 'RMSNorm₂ is an RMSNorm: its output is x / √(mean(x²) + ε) · γ, with no mean taken away and no β.');
    assert.doesNotMatch(explained.lines.join(' '), /γ = 1|β = 0|LN₂/);
    const typed = explainBlockParameter(modelView({ '0:ln2:1': 2 }), { matrix: 'ln2', row: 0, col: 1 }, t);
    assert.match(typed.lines[0], /^You typed this number over the llama model's own \(the tensor model\.layers\.1\.post_attention_layernorm\.weight of its layer 2 of 2\)/);
  });
});
