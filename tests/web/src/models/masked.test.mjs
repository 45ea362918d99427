// A masked language model's guesses (web/src/models/masked.mjs, result.masked) on ../shared/models/bert
// (BertForMaskedLM), against two outside references: transformers' own MLM logits at the last position
// of the reference sentence (reference.json next_token_top5: the head's logits at [SEP]), and an
// independent float64 BERT written here from the safetensors weights (embeddings, post-LN blocks with
// GELU, the head's dense + GELU + LayerNorm, the tied decoder + bias) on a sentence with [MASK] tokens:
// rank order and probabilities within 1e-4 relative.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { openModel, runModel, maskedOf } from '../../../../web/src/models/open.mjs';
import { maskedTokens } from '../../../../web/src/models/masked.mjs';
import { forEachBuild } from '../../lib/builds.mjs';
import { MODELS, blobsOf } from './copies.mjs';
import { referenceLogits, softmax } from './bert64.mjs';

const have = existsSync(new URL('bert/reference.json', MODELS));
const dir = fileURLToPath(new URL('bert', MODELS));

forEachBuild((build) => `${build} build: BERT's masked-LM head (result.masked)`, { learning: true }, ({ engine }) => {
  it('at [SEP] of the reference sentence: transformers\' top 5 and logits (reference.json)', { skip: !have && 'no ../shared/models' }, async () => {
    const reference = JSON.parse(readFileSync(`${dir}/reference.json`, 'utf8'));
    const model = await openModel(await blobsOf(dir), { engine });
    try {
      assert.ok(model.report.maskedHead);
      assert.ok(!model.report.unused.some((name) => name.startsWith('cls.')), model.report.unused.join(', '));
      const result = runModel(engine, model, { text: reference.text });
      // no [MASK] in the sentence: nothing guessed
      assert.deepEqual(await maskedOf(model, result), []);
      const [{ position, top }] = await maskedTokens(model.masked, result.hidden.at(-1), [result.n - 1], model.tokenizer);
      assert.equal(position, reference.ids.length - 1);
      assert.deepEqual(top.slice(0, 5).map((g) => g.id), reference.next_token_top5.map(([id]) => id));
      for (const [i, [, logit]] of reference.next_token_top5.entries()) {
        assert.ok(Math.abs(top[i].logit - logit) <= 1e-4 * Math.abs(logit), `logit ${i}: ${top[i].logit} vs ${logit}`);
      }
    } finally {
      model.prepared.dispose();
    }
  });

  it('two [MASK] tokens: the top 10 of each, in the float64 reference\'s order, probabilities within 1e-4 relative', { skip: !have && 'no ../shared/models' }, async () => {
    const config = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));
    const model = await openModel(await blobsOf(dir), { engine });
    try {
      const result = runModel(engine, model, { text: 'The [MASK] sat on the [MASK].' });
      const masks = result.tokens.flatMap((token, i) => (token === '[MASK]' ? [i] : []));
      assert.equal(masks.length, 2);
      const masked = await maskedOf(model, result);
      const logits = referenceLogits(dir, result.ids, config);
      assert.deepEqual(masked.map((m) => m.position), masks);
      for (const { position, top } of masked) {
        const p = softmax(logits[position]);
        const order = [...p.keys()].sort((a, b) => p[b] - p[a]).slice(0, 10);
        assert.equal(top.length, 10);
        assert.deepEqual(top.map((g) => g.id), order, `position ${position}`);
        for (const g of top) assert.ok(Math.abs(g.probability - p[g.id]) <= 1e-4 * p[g.id], `position ${position}, id ${g.id}: ${g.probability} vs ${p[g.id]}`);
        assert.equal(top[0].token, model.tokenizer.tokenOf(order[0]));
      }
    } finally {
      model.prepared.dispose();
    }
  });
});
