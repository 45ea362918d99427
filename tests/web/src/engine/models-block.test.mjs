// engine/models-calls.mjs: block(key, l), the layer's norms and MLP alone for the page's residual-
// stream check, read again from the files (no attention weight) and moved to the page, not cloned.
// The real folders of ../shared/models are opened on the learning engine; the moved block, given to
// the stream's check with transformers' own numbers (reference.json: the stream entering block 1,
// attention's output, the stream leaving it), recomputes the leaving state within 1e-4 of theirs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../../../../dist/lib/attention.node.mjs';
import { modelCalls } from '../../../../web/src/engine/models-calls.mjs';
import * as reader from '../../../../web/src/models/open.mjs';
import { layerParts } from '../../../../web/src/models/stream-check.mjs';
import { MODELS, blobsOf } from '../models/copies.mjs';

const FOLDERS = ['gpt2', 'bert', 'llama', 'qwen2'].filter((name) => existsSync(fileURLToPath(new URL(`${name}/reference.json`, MODELS))));

// modelCalls whose transfer records each list and moves the value as postMessage would
function calls() {
  const lists = [];
  const api = { loadAttention, engine: null, learner: null, learnerReady: null, sessions: new Map() };
  const models = modelCalls(api, reader, { transfer: (value, buffers) => {
    lists.push(buffers);
    return structuredClone(value, { transfer: buffers });
  } });
  return { models, lists };
}

// block 1 as the stream's check sees it, from transformers' numbers: n tokens, the stream in and out
function referenceResult(reference) {
  const n = reference.ids.length;
  return { n, tokens: reference.tokens, hidden: reference.hidden_states.map((s) => Float32Array.from(s.flat())),
    layers: [{ output: Float32Array.from(reference.layers[0].output.flat()), hidden: Float32Array.from(reference.hidden_states[1].flat()) }] };
}

describe('models-calls: block(key, l), a layer\'s norms and MLP moved to the page', { skip: FOLDERS.length === 0 && 'no ../shared/models' }, () => {
  for (const name of FOLDERS) {
    it(`${name}: block 1 alone, moved; with it the check recomputes transformers' stream within 1e-4`, async () => {
      const folder = fileURLToPath(new URL(name, MODELS));
      const reference = JSON.parse(readFileSync(join(folder, 'reference.json'), 'utf8'));
      const { models, lists } = calls();
      const opened = await models.open('k', await blobsOf(folder));
      assert.equal(opened.error, undefined, opened.error?.message);
      const block = await models.block('k', 0);
      assert.equal(block.error, undefined, block.error?.message);
      assert.deepEqual(Object.keys(block).sort(), ['arrangement', 'mlp', 'norm1', 'norm2'], 'no attention weight crosses');
      const arrays = [block.norm1, block.norm2, block.mlp].flatMap((part) => Object.values(part).filter(ArrayBuffer.isView));
      assert.equal(lists.length, 1);
      assert.equal(lists[0].length, new Set(arrays.map((a) => a.buffer)).size, 'every array\'s buffer is moved, each once');
      for (const buffer of lists[0]) assert.equal(buffer.byteLength, 0, 'the worker\'s copy is detached: moved, not cloned');
      const result = referenceResult(reference);
      const rows = result.n;
      let worst = 0;
      for (let i = 0; i < rows; i++) {
        const parts = layerParts(result, 0, i, { block });
        assert.equal(parts.exact, true);
        worst = Math.max(worst, parts.error);
      }
      assert.ok(worst <= 1e-4, `the largest relative difference from transformers' stream is ${worst}`);
      models.close('k');
    });
  }

  it('a layer the model lacks, or no model open: an error naming it, nothing thrown', async () => {
    const { models } = calls();
    assert.match((await models.block('none', 0)).error.message, /no model is open/);
    const opened = await models.open('k', await blobsOf(fileURLToPath(new URL(FOLDERS[0], MODELS))));
    assert.equal(opened.error, undefined);
    assert.match((await models.block('k', 99)).error.message, /no layer 100/);
    assert.match((await models.block('k', -1)).error.message, /no layer 0/);
    models.close('k');
  });
});
