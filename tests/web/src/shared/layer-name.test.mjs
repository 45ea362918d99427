// How the lab names a layer and its norms (shared/layer-name.mjs), and how it writes a real model's
// tokens (models/lab.mjs readableToken): review 7, findings 5, 13 and 14.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { layerCount, layerNumber, modelLayerOf, normName, stageValues } from '../../../../web/src/shared/layer-name.mjs';
import { readableToken } from '../../../../web/src/models/names.mjs';

const rms = { norms: { kind: ['rmsnorm', 'rmsnorm'] } };
const model = { model: 'llama', architectures: 'LlamaForCausalLM', layer: 2, layers: 2 };

describe('layer names', () => {
  it('a real model\'s one block is the model\'s layer N of L; the lab\'s own stack counts from 1', () => {
    const opened = { model, layer: 0, result: { layers: [{}] }, layerWeights: [rms] };
    assert.equal(modelLayerOf(opened), model);
    assert.deepEqual([layerNumber(opened), layerCount(opened)], [2, 2]);
    assert.deepEqual(stageValues(opened, 0), { layer: 2, n1: 'RMSNorm₁', n2: 'RMSNorm₂' });
    // the lab's own three-layer stack (no model), layer 3 shown, LayerNorms
    const own = { model: null, layer: 2, result: { layers: [{}, {}, {}] }, layerWeights: [{}, {}, {}] };
    assert.equal(modelLayerOf(own), null);
    assert.deepEqual([layerNumber(own), layerCount(own)], [3, 3]);
    assert.deepEqual(stageValues(own, 1), { layer: 2, n1: 'LN₁', n2: 'LN₂' });
    // a model's block under a stack of 2 is no longer "the model's layer": the stack's numbers
    const stacked = { ...opened, result: { layers: [{}, {}] } };
    assert.deepEqual([modelLayerOf(stacked), layerNumber(stacked, 1), layerCount(stacked)], [null, 2, 2]);
    assert.equal(normName({ layerWeights: [{ norms: { kind: ['layernorm', 'rmsnorm'] } }] }, 0, 1), 'RMSNorm₂');
  });

  it('writes a byte-level or SentencePiece space as ·, a byte-level new line as ↵, and leaves WordPiece as it is', () => {
    assert.deepEqual(['Ġc', 'at', 'Ġ', '▁the', 'Ċ', '##at', '[CLS]'].map(readableToken), ['·c', 'at', '·', '·the', '↵', '##at', '[CLS]']);
  });
});
