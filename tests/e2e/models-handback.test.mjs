// "Real models" on the page, issue 24: the buffers a run's arrays are written into. When a run's
// layer 1 is drawn, the page gives the buffers of the results it drew before back to the worker,
// which writes the whole run into them (docs/api.md, "lab.models.result"). In headless Chromium
// through the page's own file input with ../shared/models/gpt2: a second run of the same length makes
// no new buffer, neither for layer 1 drawn alone first nor for the whole model (result.memory, against
// the bytes counted here from the result's arrays), its numbers
// are still transformers' (reference.json, 1e-4 relative), the result kept from the first run is
// emptied, the result shown is whole, and a run of another length makes new buffers and is right too.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { haveModels as have, openAndRun, runText } from './model-folders.mjs';
import { relativeError } from '../web/lib/gpt2-request.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;

// The result shown, read on the page: its memory figures, its buffers' bytes counted there, the
// length of every array, and its numbers (plain arrays) for the comparison here
const shown = () => page().evaluate(() => {
  const result = globalThis.attentionLab.models.result;
  const arrays = [...result.hidden, ...result.layers.flatMap((l) => [l.input, l.output, l.hidden, ...l.heads.map((h) => h.weights)])];
  const bytes = [...new Set(arrays.map((a) => a.buffer))].reduce((sum, buffer) => sum + buffer.byteLength, 0);
  return {
    memory: result.memory, bytes, lengths: arrays.map((a) => a.length), ids: result.ids, partial: result.partial ?? null,
    layers: result.layers.map((l) => ({ input: [...l.input], output: [...l.output], probs: l.heads.flatMap((h) => [...h.weights]) })),
    hidden: result.hidden.map((state) => [...state]),
  };
});

function checkNumbers(result, reference) {
  assert.deepEqual(result.ids, reference.ids);
  result.layers.forEach((layer, l) => {
    for (const [name, want] of [['input', reference.layers[l].input], ['output', reference.layers[l].output], ['probs', reference.layers[l].probs]]) {
      assert.ok(relativeError(layer[name], want) <= 1e-4, `layers[${l}].${name}`);
    }
  });
  result.hidden.forEach((state, i) => assert.ok(relativeError(state, reference.hidden_states[i]) <= 1e-4, `hidden[${i}]`));
}

describe('Real models: the buffers a run is written into', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2: a second run of the same length makes no new buffer and is right; another length makes new ones', async () => {
    const reference = await openAndRun(page(), 'gpt2');
    const first = await shown();
    assert.equal(first.partial, null);
    assert.deepEqual(first.memory, { reused: 0, made: first.bytes }, 'the first run: every buffer new');
    checkNumbers(first, reference);
    // the first result kept by a reader of the API, as docs/api.md says one may not
    await page().evaluate(() => { globalThis.keptResult = globalThis.attentionLab.models.result; });

    // each draw's memory figures: layer 1 alone, then the whole model
    await page().evaluate(() => {
      globalThis.drawnMemory = [];
      document.querySelector('section[data-view="models"]').addEventListener('models-drawn', () => globalThis.drawnMemory.push({ ...globalThis.attentionLab.models.result.memory }));
    });
    await runText(page(), reference.text);
    const second = await shown();
    const [partial, whole] = await page().evaluate(() => globalThis.drawnMemory);
    // layer 1's arrays, float32: input, output and stream (n × d_model each), the heads' n × n weights
    const layerBytes = 4 * (3 * reference.layers[0].input.length + reference.layers[0].probs.length);
    assert.deepEqual(partial, { reused: layerBytes, made: 0 }, 'layer 1 alone written into the last run\'s own layer 1 (the page drew the partial one\'s)');
    assert.deepEqual(whole, { reused: second.bytes, made: 0 }, 'the same length: every array written into a buffer handed back');
    assert.ok(second.lengths.every((length) => length > 0), 'the result shown is whole (no buffer it holds was handed back)');
    checkNumbers(second, reference);
    const kept = await page().evaluate(() => globalThis.keptResult.layers[0].heads[0].weights.length);
    assert.equal(kept, 0, 'the result drawn before is emptied: its buffers were moved to the worker');

    // another length: the buffers handed back fit nothing, so new ones are made, and the numbers hold
    await runText(page(), `${reference.text} The dog sat on the log.`);
    const third = await shown();
    assert.ok(third.ids.length > reference.ids.length);
    assert.deepEqual(third.memory, { reused: 0, made: third.bytes });
    assert.ok(third.lengths.every((length) => length > 0));
    // and back to the reference sentence: its numbers once more, the page still working
    await runText(page(), reference.text);
    checkNumbers(await shown(), reference);
  });
});
