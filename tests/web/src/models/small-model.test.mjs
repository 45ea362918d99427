// The note that a model is test-size (web/src/models/report.mjs smallModel, student review 5): a
// model's parameters as the lab keeps them (keptBytes / 4, from config.json's shape), under 1 million
// said (rounded to 2 significant digits), else nothing. GPT-2 small's shape and BERT-Tiny's get no
// note; the shared gpt2 folder's config gets one.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

import { recognise } from '../../../../web/src/models/config.mjs';
import { keptBytes } from '../../../../web/src/models/request.mjs';
import { smallModel, SMALL_PARAMETERS } from '../../../../web/src/models/report.mjs';
import { MODELS } from './copies.mjs';

const reportOf = (config, names) => ({ keptBytes: keptBytes(recognise(config, new Set(names))) });
const GPT2 = { model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_head: 12, n_positions: 1024 };

it('GPT-2 small (n_embd 768, n_layer 12, vocab 50257): 124,318,464 parameters kept, no note', () => {
  const report = reportOf({ ...GPT2, n_embd: 768, n_layer: 12, vocab_size: 50257 }, ['transformer.wte.weight']);
  // (50257 + 1024) × 768 token and position rows, 12 × (4 × 768² attention + 2 × 768 × 3072 MLP)
  assert.equal(report.keptBytes / 4, (50257 + 1024) * 768 + 12 * (4 * 768 ** 2 + 2 * 768 * 3072));
  assert.equal(report.keptBytes / 4, 124_318_464);
  assert.equal(smallModel(report), null);
});

it('BERT-Tiny\'s shape (2 layers, hidden 128, vocab 30522), the smallest trained model named: 4.4 M, no note', () => {
  const config = { model_type: 'bert', architectures: ['BertForMaskedLM'], hidden_size: 128, num_hidden_layers: 2, num_attention_heads: 2,
    intermediate_size: 512, vocab_size: 30522, max_position_embeddings: 512 };
  const report = reportOf(config, ['bert.embeddings.word_embeddings.weight']);
  assert.equal(report.keptBytes / 4, 4_365_568);
  assert.ok(report.keptBytes / 4 > SMALL_PARAMETERS);
  assert.equal(smallModel(report), null);
});

it('the threshold: one parameter under it is said, rounded; exactly at it, nothing', () => {
  assert.equal(smallModel({ keptBytes: 4 * (SMALL_PARAMETERS - 1) }), 1_000_000);
  assert.equal(smallModel({ keptBytes: 4 * SMALL_PARAMETERS }), null);
  assert.equal(smallModel({ keptBytes: 4 * 123_456 }), 120_000);
  assert.equal(smallModel({ keptBytes: 4 * 7 }), 7);
});

const shared = new URL('gpt2/config.json', MODELS);
it('the shared gpt2 folder (d_model 32, 2 layers, vocab 400): 39,424 parameters, said as about 39,000', { skip: !existsSync(shared) && 'no ../shared/models' }, () => {
  const report = reportOf(JSON.parse(readFileSync(shared, 'utf8')), ['transformer.wte.weight']);
  assert.equal(report.keptBytes / 4, (400 + 64) * 32 + 2 * (4 * 32 ** 2 + 2 * 32 * 128));
  assert.equal(smallModel(report), 39_000);
});
