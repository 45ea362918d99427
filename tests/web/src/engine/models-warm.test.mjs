// engine/models-calls.mjs warm(): the "Real models" reader and the learning engine loaded ahead of a
// model (the page calls it when the pointer, a focus or a drag reaches the drop zone). It loads each
// once, however often it is called and whether or not a model is then opened; a failed import is
// said as data and tried again on the next call; the real GPT-2 folder then opens on what it loaded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../../../../dist/lib/attention.node.mjs';
import { modelCalls } from '../../../../web/src/engine/models-calls.mjs';
import * as reader from '../../../../web/src/models/open.mjs';
import { MODELS, blobsOf } from '../models/copies.mjs';

const folder = fileURLToPath(new URL('gpt2', MODELS));
const have = existsSync(join(folder, 'reference.json'));

// modelCalls whose reader comes from `given` (an async import stand-in) and whose engine loads count
function counted(given) {
  const loads = { reader: 0, engine: 0 };
  const api = {
    engine: null, learner: null, learnerReady: null, sessions: new Map(),
    loadAttention: (options) => { loads.engine++; return loadAttention(options); },
  };
  const models = modelCalls(api, async () => { loads.reader++; return given(); });
  return { api, models, loads };
}

describe('models warm()', () => {
  it('loads the reader and the learning engine once, however often it is called', async () => {
    const { models, loads, api } = counted(async () => reader);
    assert.deepEqual(await Promise.all([models.warm(), models.warm()]), [{ ready: true }, { ready: true }]);
    assert.deepEqual(await models.warm(), { ready: true });
    assert.deepEqual(loads, { reader: 1, engine: 1 });
    assert.equal((await api.learner).info.learning, true);
  });

  it('a failed import is said as data, and tried again on the next call', async () => {
    let fail = true;
    const { models, loads } = counted(async () => {
      if (fail) throw new Error('the chunk could not be fetched');
      return reader;
    });
    const first = await models.warm();
    assert.match(first.error?.message ?? '', /the chunk could not be fetched/);
    fail = false;
    assert.deepEqual(await models.warm(), { ready: true });
    assert.equal(loads.reader, 2);
  });

  it('a model opened after warm() uses what it loaded: nothing loaded again', { skip: !have && 'no ../shared/models' }, async () => {
    const { models, loads } = counted(async () => reader);
    await models.warm();
    const opened = await models.open('lab', await blobsOf(folder));
    assert.equal(opened.error, undefined, JSON.stringify(opened.error));
    assert.equal(opened.report.family, 'gpt2');
    assert.deepEqual(loads, { reader: 1, engine: 1 });
    models.close('lab');
  });
});
