// GPT-2 (../shared/models/gpt2) as engine.transformer()'s request, from its own files, and the
// norm-wise relative error the model tests measure with (transformer.test, prepared-transformer.test).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { parseSafetensors } from '../../../web/src/layers/formats.mjs';

export const folder = new URL('../../../../shared/models/gpt2/', import.meta.url);

// ‖got − want‖ / ‖want‖
export function relativeError(got, want) {
  assert.equal(got.length, want.length);
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += (got[i] - want[i]) ** 2;
    norm += want[i] ** 2;
  }
  return Math.sqrt(diff) / Math.sqrt(norm);
}

// GPT-2's files as a transformer() request: Conv1D weights are (in, out); c_attn holds q, k and v side by side.
export function gpt2Request() {
  const config = JSON.parse(readFileSync(new URL('config.json', folder), 'utf8'));
  const reference = JSON.parse(readFileSync(new URL('reference.json', folder), 'utf8'));
  const { tensors } = parseSafetensors(new Uint8Array(readFileSync(new URL('model.safetensors', folder))));
  const t = (name) => tensors.get(name).data;
  const d = config.n_embd;
  const heads = config.n_head;
  const dK = d / heads;
  const eps = config.layer_norm_epsilon;
  // columns [offset, offset + d) of the (d, 3d) c_attn weight, head-major (heads, d, dK)
  const split = (w, offset) => {
    const out = new Float32Array(d * d);
    for (let h = 0; h < heads; h++) for (let i = 0; i < d; i++) for (let c = 0; c < dK; c++) out[(h * d + i) * dK + c] = w[i * 3 * d + offset + h * dK + c];
    return out;
  };
  const norm = (prefix) => ({ kind: 'layernorm', eps, weight: t(`${prefix}.weight`), bias: t(`${prefix}.bias`) });
  const layers = [];
  for (let l = 0; l < config.n_layer; l++) {
    const p = `transformer.h.${l}.`;
    const qkv = t(`${p}attn.c_attn.weight`);
    const bias = t(`${p}attn.c_attn.bias`);
    layers.push({
      arrangement: 'pre',
      attention: { heads, mask: 'causal', wq: split(qkv, 0), wk: split(qkv, d), wv: split(qkv, 2 * d),
        bq: bias.slice(0, d), bk: bias.slice(d, 2 * d), bv: bias.slice(2 * d), wo: t(`${p}attn.c_proj.weight`), bo: t(`${p}attn.c_proj.bias`) },
      norm1: norm(`${p}ln_1`),
      norm2: norm(`${p}ln_2`),
      mlp: { kind: 'plain', activation: 'gelu-tanh', hidden: 4 * d, w1: t(`${p}mlp.c_fc.weight`), b1: t(`${p}mlp.c_fc.bias`),
        w2: t(`${p}mlp.c_proj.weight`), b2: t(`${p}mlp.c_proj.bias`) },
    });
  }
  const request = { ids: reference.ids, vocab: config.vocab_size, dModel: d, tokens: t('transformer.wte.weight'), positions: 'learned',
    positionTable: t('transformer.wpe.weight'), layers, finalNorm: norm('transformer.ln_f'), unembedding: 'tied' };
  return { request, reference };
}
