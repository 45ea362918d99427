// Bring your own layer, as a PyTorch user tries it: nn.MultiheadAttention's names (in_proj_weight,
// in_proj_bias, out_proj) read from a file made here out of the real Hugging Face BERT of
// ../shared/models/bert (PyTorch stacks q|k|v as rows of in_proj_weight, exactly BERT's three Linear
// weights), run by the lab, equal transformers' attention weights and output for layer 0 (1e-4
// relative). And a layer loaded after another starts from its own file's settings: a BERT or PyTorch
// layer after a GPT-2 one is not causal, and is scaled by √d_k whatever the lab had.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

import { loadAttention } from '../../../../dist/lib/attention.node.mjs';
import { createEngineApi } from '../../../../web/src/engine/api.mjs';
import { defaultState, buildRequest } from '../../../../web/src/state/index.mjs';
import { readWeightsFile, parseInputs } from '../../../../web/src/layers/load.mjs';
import { convertLayer } from '../../../../web/src/layers/layouts.mjs';
import { stateWithLayer } from '../../../../web/src/layers/apply.mjs';
import { MODELS, readSafetensorsFile, safetensorsBytes } from '../models/copies.mjs';

const have = existsSync(new URL('bert/reference.json', MODELS));

function relativeError(got, want) {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += (got[i] - want[i]) ** 2;
    norm += want[i] ** 2;
  }
  return Math.sqrt(diff) / Math.sqrt(norm);
}

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

// BERT layer 0's attention as nn.MultiheadAttention under `prefix` (TransformerEncoderLayer's 'self_attn.')
function pytorchFile(prefix) {
  const tensors = new Map(readSafetensorsFile(new URL('bert/model.safetensors', MODELS)).map((t) => [t.name, t]));
  const p = 'bert.encoder.layer.0.attention.';
  const get = (name) => tensors.get(p + name).bytes;
  const d = tensors.get(`${p}self.query.weight`).shape[0];
  return safetensorsBytes([
    { name: `${prefix}in_proj_weight`, dtype: 'F32', shape: [3 * d, d], bytes: concat(get('self.query.weight'), get('self.key.weight'), get('self.value.weight')) },
    { name: `${prefix}in_proj_bias`, dtype: 'F32', shape: [3 * d], bytes: concat(get('self.query.bias'), get('self.key.bias'), get('self.value.bias')) },
    { name: `${prefix}out_proj.weight`, dtype: 'F32', shape: [d, d], bytes: get('output.dense.weight') },
    { name: `${prefix}out_proj.bias`, dtype: 'F32', shape: [d], bytes: get('output.dense.bias') },
  ]);
}

describe('bring your own layer: PyTorch nn.MultiheadAttention, and each layer from its own settings', { skip: !have && 'no ../shared/models' }, () => {
  let api;
  before(async () => {
    api = createEngineApi(loadAttention);
    await api.load();
  });

  it("BERT's layer 0 as nn.MultiheadAttention (layers.0.self_attn.) gives transformers' weights and output", async () => {
    const reference = JSON.parse(readFileSync(new URL('bert/reference.json', MODELS), 'utf8'));
    const read = await readWeightsFile(new Blob([pytorchFile('layers.0.self_attn.')]), 'encoder.safetensors');
    assert.equal(read.problem, undefined, read.problem);
    const [layer] = read.layers;
    assert.equal(layer.kind, 'pytorch');
    assert.equal(layer.label, 'layers.0.self_attn');
    const heads = 4;
    const { params } = convertLayer(layer, heads);
    const n = reference.ids.length;
    const d = params.dModel;
    const rows = Array.from({ length: n }, (_, i) => reference.layers[0].input.slice(i * d, (i + 1) * d));
    const inputs = parseInputs(JSON.stringify({ tokens: reference.tokens, x: rows }), d);
    // loaded after a GPT-2-like causal state with no scaling: the file's own settings win
    const before = { ...defaultState(), maskMode: 'causal', scaleMode: 'none' };
    const state = stateWithLayer(before, params, inputs);
    assert.equal(state.maskMode, 'none');
    assert.equal(state.scaleMode, 'sqrt_dk');
    const built = buildRequest(state);
    assert.equal(built.problems, undefined, JSON.stringify(built.problems));
    const reply = api.run(built.request);
    assert.equal(reply.error, undefined, JSON.stringify(reply.error));
    const probs = reply.result.heads.flatMap((head) => [...head.weights]);
    assert.ok(relativeError(probs, reference.layers[0].probs) < 1e-4, `probs ${relativeError(probs, reference.layers[0].probs)}`);
    assert.ok(relativeError(reply.result.output, reference.layers[0].output) < 1e-4, `output ${relativeError(reply.result.output, reference.layers[0].output)}`);
  });

  it('a bad in_proj_weight is refused naming it; a causal GPT-2 layer, then a BERT one, is not causal any more', async () => {
    const bad = safetensorsBytes([{ name: 'attn.in_proj_weight', dtype: 'F32', shape: [4, 2], bytes: new Uint8Array(32) }]);
    const read = await readWeightsFile(new Blob([bad]), 'bad.safetensors');
    assert.match(read.layers?.[0]?.problem ?? read.problem, /attn\.in_proj_weight has shape \[4,2\]; nn\.MultiheadAttention's is \(3·embed_dim, embed_dim\)/);
    const gpt2 = { dModel: 2, heads: 1, dK: 2, dV: 2, causal: true, wq: new Float32Array(4), wk: new Float32Array(4), wv: new Float32Array(4) };
    const afterGpt2 = stateWithLayer(defaultState(), gpt2);
    assert.equal(afterGpt2.maskMode, 'causal');
    assert.equal(stateWithLayer(afterGpt2, { ...gpt2, causal: false }).maskMode, 'none');
  });
});
