// engine/models-calls.mjs: a model's run crosses to the page with its arrays' buffers moved
// (transfer), not cloned. The real GPT-2 folder of ../shared/models is opened through modelCalls() on
// the learning engine; each answer (layer 1 alone, then all) is moved with structuredClone's transfer
// list, as postMessage does: what arrives matches reference.json (transformers' numbers, 1e-4
// relative), the worker's arrays are detached (moved, not copied), every array's buffer is in the list
// once, and the engine's WebAssembly memory is not: a second run gives the same numbers, written into
// the first run's buffers that onFirstLayer gives back (the page's when it has drawn layer 1), as
// each answer's `memory` ({ reused, made } bytes) says.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../../../../dist/lib/attention.node.mjs';
import { modelCalls } from '../../../../web/src/engine/models-calls.mjs';
import * as reader from '../../../../web/src/models/open.mjs';
import { MODELS, blobsOf } from '../models/copies.mjs';
import { relativeError } from '../../lib/gpt2-request.mjs';

const folder = fileURLToPath(new URL('gpt2', MODELS));
const have = existsSync(join(folder, 'reference.json'));

// every Float32Array a layer of an answer holds, and an answer
const layerArrays = (l) => [l.input, l.output, l.hidden, ...l.heads.map((h) => h.weights)];
const arraysOf = (value) => [...(value.hidden ?? []), ...value.layers.flatMap(layerArrays)];

// the bytes of an answer's distinct buffers
const bytesOf = (value) => [...new Set(arraysOf(value).map((a) => a.buffer))].reduce((sum, buffer) => sum + buffer.byteLength, 0);

// modelCalls with a transfer that records its lists and moves each answer as postMessage would
function calls() {
  const moved = [];
  const api = { loadAttention, engine: null, learner: null, learnerReady: null, sessions: new Map() };
  const models = modelCalls(api, reader, { transfer: (value, buffers) => {
    moved.push({ arrays: arraysOf(value), buffers });
    return value;
  } });
  const cross = (value) => structuredClone(value, { transfer: moved.at(-1).buffers });
  return { api, models, moved, cross };
}

function checkMoved({ arrays, buffers }, received) {
  const distinct = new Set(arrays.map((a) => a.buffer));
  assert.equal(buffers.length, distinct.size, 'every array\'s buffer, each once');
  for (const buffer of buffers) assert.ok(distinct.has(buffer));
  for (const array of arrays) assert.equal(array.length, 0, 'the worker\'s arrays are detached: moved, not copied');
  for (const array of arraysOf(received)) assert.ok(array instanceof Float32Array && array.length > 0);
}

function checkNumbers(received, reference, layers) {
  assert.deepEqual(received.ids, reference.ids);
  for (let l = 0; l < layers; l++) {
    const want = reference.layers[l];
    const layer = received.layers[l];
    assert.ok(relativeError(layer.input, want.input) <= 1e-4, `layers[${l}].input`);
    assert.ok(relativeError(layer.heads.flatMap((h) => [...h.weights]), want.probs) <= 1e-4, `layers[${l}].probs`);
    assert.ok(relativeError(layer.output, want.output) <= 1e-4, `layers[${l}].output`);
  }
  if (received.hidden) received.hidden.forEach((state, i) => assert.ok(relativeError(state, reference.hidden_states[i]) <= 1e-4, `hidden[${i}]`));
}

describe('models-calls: a run\'s buffers moved to the page', { skip: !have && 'no ../shared/models' }, () => {
  it('GPT-2: layer 1, then every layer, moved; the numbers are transformers\'; the engine runs again', async () => {
    const reference = JSON.parse(readFileSync(join(folder, 'reference.json'), 'utf8'));
    const { api, models, moved, cross } = calls();
    const opened = await models.open('k', await blobsOf(folder));
    assert.equal(opened.error, undefined, opened.error?.message);
    let earlier = null;
    let earlierPartial = null;
    for (let round = 0; round < 2; round++) {
      let partial = null;
      // round 2, as the page does: the buffers of round 1's own layer 1 (the page draws the partial
      // result's) go with the request, for layer 1 alone; once layer 1 is drawn, the page gives back
      // the rest of round 1's buffers and its partial result's
      const first = earlier ? [...new Set(layerArrays(earlier.layers[0]).map((a) => a.buffer))] : undefined;
      const given = earlier ? [...new Set([...arraysOf(earlierPartial), ...arraysOf(earlier)].map((a) => a.buffer))].filter((b) => !first.includes(b)) : null;
      const whole = cross(await models.run('k', { text: reference.text }, async (answer) => {
        partial = cross(answer);
        return given;
      }, first));
      if (given) {
        const into = moved.at(-1).buffers;
        assert.equal(given.filter((buffer) => into.includes(buffer)).length, into.length, 'every array of the whole run written into a buffer given back');
        assert.equal(first.filter((buffer) => moved.at(-2).buffers.includes(buffer)).length, first.length, 'layer 1 alone written into the buffers given with the request');
        assert.equal(arraysOf(earlier)[0].length, 0, 'the earlier result given back is emptied');
      }
      // what each answer says of its bytes, against its arrays' buffers counted here
      assert.deepEqual(partial.memory, given ? { reused: bytesOf(partial), made: 0 } : { reused: 0, made: bytesOf(partial) }, 'layer 1 alone');
      assert.deepEqual(whole.memory, given ? { reused: bytesOf(whole), made: 0 } : { reused: 0, made: bytesOf(whole) });
      earlierPartial = partial;
      earlier = whole;
      assert.equal(moved.length, 2 * (round + 1), 'two answers a run, each with its list');
      checkMoved(moved.at(-2), partial);
      checkMoved(moved.at(-1), whole);
      assert.deepEqual(partial.partial, { layers: 1, of: reference.layers.length });
      checkNumbers(partial, reference, 1);
      checkNumbers(whole, reference, reference.layers.length);
      assert.ok(api.learnerReady.memory().heapBytes > 0, 'the WebAssembly memory is not detached');
    }
    models.close('k');
  });
});
