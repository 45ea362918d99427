// ONNX graphs of one pre-LN transformer block (GPT-2's arrangement) for ONNX Runtime Web:
//   y = x + W_O·attention(LN1(x)) + b_O;  out = y + W2·gelu_tanh(W1·LN2(y) + b1) + b2
// with a causal mask. Letters: n tokens, d = d_model, h heads, dK = d / h, f = MLP width.
//   problem: { n, d, h, dK, f, x (n × d), ln1g ln1b ln2g ln2b (d), wq wk wv (h × d × dK, head-major),
//              bq bk bv (h·dK), wo (h·dK × d), bo (d), w1 (d × f), b1 (f), w2 (f × d), b2 (d) }
import { tensor, node, floatValue, model, sideBySide, INT64 } from './onnx-model.mjs';

/** n × n additive causal mask: 0 on and below the diagonal, −1e9 above. */
export function causalMask(n) {
  const mask = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) mask[i * n + j] = -1e9;
  return mask;
}

/** The (d, 3·h·dK) packed q|k|v weight of the Attention contrib op and its bias. */
export function packedQkv(p) {
  const hd = p.h * p.dK;
  const parts = [sideBySide(p, p.wq), sideBySide(p, p.wk), sideBySide(p, p.wv)];
  const packed = new Float32Array(p.d * 3 * hd);
  for (let r = 0; r < p.d; r++) parts.forEach((w, i) => packed.set(w.subarray(r * hd, (r + 1) * hd), r * 3 * hd + i * hd));
  const bias = new Float32Array(3 * hd);
  [p.bq, p.bk, p.bv].forEach((b, i) => bias.set(b, i * hd));
  return { packed, bias };
}

function commonInitializers(p) {
  const { d, f } = p;
  return [tensor('ln1g', [d], p.ln1g), tensor('ln1b', [d], p.ln1b), tensor('ln2g', [d], p.ln2g), tensor('ln2b', [d], p.ln2b),
    tensor('wo', [d, d], p.wo), tensor('bo', [d], p.bo), tensor('w1', [d, f], p.w1), tensor('b1', [f], p.b1),
    tensor('w2', [f, d], p.w2), tensor('b2', [d], p.b2)];
}

/** GELU, tanh form, in plain ops: 0.5·u·(1 + tanh(√(2/π)·(u + 0.044715·u³))). */
function geluTanhNodes(input, output) {
  return [node('Mul', [input, input], ['g_sq']), node('Mul', ['g_sq', input], ['g_cube']), node('Mul', ['g_cube', 'g_c1'], ['g_cube_c']),
    node('Add', [input, 'g_cube_c'], ['g_inner']), node('Mul', ['g_inner', 'g_c2'], ['g_arg']), node('Tanh', ['g_arg'], ['g_tanh']),
    node('Add', ['g_tanh', 'g_one'], ['g_onep']), node('Mul', [input, 'g_onep'], ['g_half_in']), node('Mul', ['g_half_in', 'g_half'], [output])];
}

/** Plain ONNX ops (opset 17): LayerNormalization, MatMul, Add, Reshape/Transpose, Softmax, Tanh. */
export function plainBlockModel(p) {
  const { n, d, h, dK } = p;
  const hd = h * dK;
  const initializers = [...commonInitializers(p),
    tensor('wq', [d, hd], sideBySide(p, p.wq)), tensor('wk', [d, hd], sideBySide(p, p.wk)), tensor('wv', [d, hd], sideBySide(p, p.wv)),
    tensor('bq', [hd], p.bq), tensor('bk', [hd], p.bk), tensor('bv', [hd], p.bv), tensor('mask', [n, n], causalMask(n)),
    tensor('heads_shape', [3], [n, h, dK], INT64), tensor('concat_shape', [2], [n, hd], INT64), tensor('inv_scale', [], [1 / Math.sqrt(dK)]),
    tensor('g_c1', [], [0.044715]), tensor('g_c2', [], [Math.sqrt(2 / Math.PI)]), tensor('g_one', [], [1]), tensor('g_half', [], [0.5])];
  const project = (w, b, perm, out) => [node('MatMul', ['a', w], [`${out}_mm`]), node('Add', [`${out}_mm`, b], [`${out}_2`]),
    node('Reshape', [`${out}_2`, 'heads_shape'], [`${out}_3`]), node('Transpose', [`${out}_3`], [out], { perm })];
  const nodes = [
    node('LayerNormalization', ['x', 'ln1g', 'ln1b'], ['a'], { axis: -1, epsilon: 1e-5 }),
    ...project('wq', 'bq', [1, 0, 2], 'q'), ...project('wk', 'bk', [1, 2, 0], 'kT'), ...project('wv', 'bv', [1, 0, 2], 'v'),
    node('MatMul', ['q', 'kT'], ['scores']), node('Mul', ['scores', 'inv_scale'], ['scaled']), node('Add', ['scaled', 'mask'], ['masked']),
    node('Softmax', ['masked'], ['weights'], { axis: -1 }), node('MatMul', ['weights', 'v'], ['z']),
    node('Transpose', ['z'], ['z_tokens'], { perm: [1, 0, 2] }), node('Reshape', ['z_tokens', 'concat_shape'], ['concat']),
    node('MatMul', ['concat', 'wo'], ['att_mm']), node('Add', ['att_mm', 'bo'], ['att']), node('Add', ['x', 'att'], ['y']),
    node('LayerNormalization', ['y', 'ln2g', 'ln2b'], ['m'], { axis: -1, epsilon: 1e-5 }),
    node('MatMul', ['m', 'w1'], ['u_mm']), node('Add', ['u_mm', 'b1'], ['u']), ...geluTanhNodes('u', 'g'),
    node('MatMul', ['g', 'w2'], ['mlp_mm']), node('Add', ['mlp_mm', 'b2'], ['mlp']), node('Add', ['y', 'mlp'], ['output']),
  ];
  return model({ inputs: [floatValue('x', [n, d])], outputs: [floatValue('output', [n, d])], initializers, nodes });
}

/**
 * com.microsoft contrib ops (batch 1): LayerNormalization, Attention (packed q|k|v, unidirectional = causal),
 * SkipLayerNormalization (x + attention + b_O, then LN2; its 4th output is the sum), FastGelu (with b1).
 */
export function contribBlockModel(p) {
  const { n, d, h } = p;
  const { packed, bias } = packedQkv(p);
  const ms = 'com.microsoft';
  const initializers = [...commonInitializers(p), tensor('w_qkv', [d, 3 * d], packed), tensor('b_qkv', [3 * d], bias)];
  const nodes = [
    node('LayerNormalization', ['x', 'ln1g', 'ln1b'], ['a'], { axis: -1, epsilon: 1e-5 }),
    node('Attention', ['a', 'w_qkv', 'b_qkv'], ['concat'], { num_heads: h, unidirectional: 1 }, ms),
    node('MatMul', ['concat', 'wo'], ['att_mm']),
    node('SkipLayerNormalization', ['att_mm', 'x', 'ln2g', 'ln2b', 'bo'], ['m', '', '', 'y'], { epsilon: 1e-5 }, ms),
    node('MatMul', ['m', 'w1'], ['u_mm']), node('FastGelu', ['u_mm', 'b1'], ['g'], {}, ms),
    node('MatMul', ['g', 'w2'], ['mlp_mm']), node('Add', ['mlp_mm', 'b2'], ['mlp']), node('Add', ['y', 'mlp'], ['output']),
  ];
  return model({ contrib: true, inputs: [floatValue('x', [1, n, d])], outputs: [floatValue('output', [1, n, d])], initializers, nodes });
}
