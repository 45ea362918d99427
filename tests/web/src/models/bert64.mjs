// BertForMaskedLM in float64, written from the paper's and transformers' definitions (not the lab's
// code): embeddings (word + position + token type 0, LayerNorm), post-LN blocks with GELU (erf), the
// masked-LM head (dense, GELU, LayerNorm, the tied word embeddings + bias), read straight from the
// folder's model.safetensors. The reference of tests/web/src/models/masked.test.mjs and
// tests/e2e/models-stream.test.mjs.
import { readSafetensorsFile } from './copies.mjs';

// erfc by Numerical Recipes' Chebyshev fit (fractional error below 1.2e-7), not the lab's series
function erf(x) {
  const z = Math.abs(x), t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807
    + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? 1 - r : r - 1;
}
const gelu = (x) => 0.5 * x * (1 + erf(x / Math.SQRT2));

// The folder's tensors as float64 arrays, by name
function weights(dir) {
  const map = new Map();
  for (const { name, shape, bytes } of readSafetensorsFile(`${dir}/model.safetensors`)) {
    map.set(name, { shape, values: Float64Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)) });
  }
  return (name) => map.get(name).values;
}

// rows (n × in) · W^T + b, W nn.Linear's (out, in)
const linear = (rows, w, b) => rows.map((row) => Array.from(b, (bias, o) => row.reduce((sum, x, i) => sum + x * w[o * row.length + i], bias)));
const layerNorm = (rows, w, b, eps) => rows.map((row) => {
  const mean = row.reduce((a, x) => a + x, 0) / row.length;
  const variance = row.reduce((a, x) => a + (x - mean) ** 2, 0) / row.length;
  return row.map((x, j) => (x - mean) / Math.sqrt(variance + eps) * w[j] + b[j]);
});
const add = (a, b) => a.map((row, i) => row.map((x, j) => x + b[i][j]));

// BERT's self-attention, heads of d / heads features, no mask
function attention(x, get, p, heads) {
  const q = linear(x, get(`${p}query.weight`), get(`${p}query.bias`));
  const k = linear(x, get(`${p}key.weight`), get(`${p}key.bias`));
  const v = linear(x, get(`${p}value.weight`), get(`${p}value.bias`));
  const d = x[0].length, dk = d / heads;
  return x.map((_, i) => {
    const out = new Array(d).fill(0);
    for (let h = 0; h < heads; h++) {
      const scores = x.map((__, j) => {
        let s = 0;
        for (let c = 0; c < dk; c++) s += q[i][h * dk + c] * k[j][h * dk + c];
        return s / Math.sqrt(dk);
      });
      const max = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - max));
      const total = e.reduce((a, b) => a + b, 0);
      e.forEach((w, j) => { for (let c = 0; c < dk; c++) out[h * dk + c] += w / total * v[j][h * dk + c]; });
    }
    return out;
  });
}

/** The whole masked LM of the BERT folder `dir` in float64: the logits (n × vocab) of `ids`. */
export function referenceLogits(dir, ids, config) {
  const get = weights(dir);
  const d = config.hidden_size, eps = config.layer_norm_eps;
  const word = get('bert.embeddings.word_embeddings.weight'), position = get('bert.embeddings.position_embeddings.weight'), type = get('bert.embeddings.token_type_embeddings.weight');
  let x = ids.map((id, i) => Array.from({ length: d }, (_, j) => word[id * d + j] + position[i * d + j] + type[j]));
  x = layerNorm(x, get('bert.embeddings.LayerNorm.weight'), get('bert.embeddings.LayerNorm.bias'), eps);
  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `bert.encoder.layer.${l}.`;
    const a = linear(attention(x, get, `${p}attention.self.`, config.num_attention_heads), get(`${p}attention.output.dense.weight`), get(`${p}attention.output.dense.bias`));
    x = layerNorm(add(x, a), get(`${p}attention.output.LayerNorm.weight`), get(`${p}attention.output.LayerNorm.bias`), eps);
    const f = linear(x, get(`${p}intermediate.dense.weight`), get(`${p}intermediate.dense.bias`)).map((row) => row.map(gelu));
    x = layerNorm(add(x, linear(f, get(`${p}output.dense.weight`), get(`${p}output.dense.bias`))), get(`${p}output.LayerNorm.weight`), get(`${p}output.LayerNorm.bias`), eps);
  }
  const t = layerNorm(linear(x, get('cls.predictions.transform.dense.weight'), get('cls.predictions.transform.dense.bias')).map((row) => row.map(gelu)),
    get('cls.predictions.transform.LayerNorm.weight'), get('cls.predictions.transform.LayerNorm.bias'), eps);
  return linear(t, word, get('cls.predictions.bias'));
}

export const softmax = (row) => {
  const max = Math.max(...row);
  const e = row.map((v) => Math.exp(v - max));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
};

