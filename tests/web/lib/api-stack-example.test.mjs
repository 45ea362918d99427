// docs/api.md's "Transformer stacks" example runs as printed (issue 22: "Document it in docs/api.md
// with an example that runs"): its code, taken from the Markdown, is run on the learning engine, and
// the values its comments print (head 1's weights of layer 0, the lengths) are checked against what it
// returns and, for the weights, against a float64 computation written here (the embeddings, the
// LayerNorm with weight 1, head 1's causal softmax of q·kᵀ/√dK).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { loadAttention } from '../../../dist/lib/attention.node.mjs';

const docs = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
const section = docs.slice(docs.indexOf('## Transformer stacks'));
const code = /^```js\n([\s\S]*?)^```/m.exec(section)[1];

it("docs/api.md's stack example runs and prints what its comments say; the weights equal float64", async () => {
  assert.match(code, /^import \{ loadAttention \} from 'attention-lab';$/m);
  const body = code.replace(/^import .*$/m, '') + '\nreturn { request, result, gradients };';
  const AsyncFunction = (async () => {}).constructor;
  const { request, result, gradients } = await new AsyncFunction('loadAttention', body)(loadAttention);
  const printed = (expression) => {
    const line = code.split('\n').find((l) => l.startsWith(expression));
    assert.ok(line, `the example prints ${expression}`);
    return line.slice(line.indexOf('//') + 2).trim();
  };
  const weights = printed('result.layers[0].attention.heads[1].weights;').replace(/^Float32Array \[|\]$/g, '').split(',').map(Number);
  assert.equal(weights.length, 9);
  result.layers[0].attention.heads[1].weights.forEach((w, i) => assert.ok(Math.abs(w - weights[i]) <= 5e-5, `weights[${i}] ${w} printed ${weights[i]}`));
  assert.equal(result.logits.length, Number(printed('result.logits.length;').split(':')[0]));
  const lengths = printed('gradients.tokens.length;');  // "20; gradients.layers[0].mlp.w1.length: 32"
  assert.equal(gradients.tokens.length, Number(/^(\d+);/.exec(lengths)[1]));
  assert.equal(gradients.layers[0].mlp.w1.length, Number(/w1\.length: (\d+)/.exec(lengths)[1]));
  // float64: x = tokens[id] + positionTable[i]; LayerNorm (weight 1, no bias, eps 1e-5); head 1 of 2 (dK 2)
  const { ids, dModel: d, tokens: table, positionTable, layers: [{ attention: a }] } = request;
  const dk = d / a.heads;
  const x = ids.map((id, i) => Array.from({ length: d }, (_, c) => table[id * d + c] + positionTable[i * d + c]));
  const normed = x.map((row) => {
    const mean = row.reduce((s, v) => s + v, 0) / d;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / d;
    return row.map((v) => (v - mean) / Math.sqrt(variance + 1e-5));
  });
  const project = (w) => normed.map((row) => Array.from({ length: dk }, (_, c) => row.reduce((s, v, k) => s + v * w[1 * d * dk + k * dk + c], 0)));
  const [q, k] = [project(a.wq), project(a.wk)];
  const want = q.flatMap((qi, i) => {
    const s = k.map((kj, j) => (j <= i ? qi.reduce((sum, v, c) => sum + v * kj[c], 0) / Math.sqrt(dk) : -Infinity));
    const top = Math.max(...s);
    const e = s.map((v) => (v === -Infinity ? 0 : Math.exp(v - top)));
    const total = e.reduce((p, v) => p + v, 0);
    return e.map((v) => v / total);
  });
  want.forEach((w, i) => assert.ok(Math.abs(w - weights[i]) <= 5e-5, `float64 weights[${i}] ${w}, printed ${weights[i]}`));
});
