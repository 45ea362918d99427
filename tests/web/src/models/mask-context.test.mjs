// The caption of a [MASK]'s guesses (web/src/models/view.mjs maskContext, review 7 finding 10): the
// words around the mask, as BERT's tokenizer splits ../shared/models/bert/reference.json's kind of
// sentence, the mask itself as ___, special tokens left out, WordPiece's ## pieces joined to their word.
import { it } from 'node:test';
import assert from 'node:assert/strict';

import { maskContext } from '../../../../web/src/models/view.mjs';

const tokens = ['[CLS]', 'the', '[MASK]', 'sat', 'on', 'the', '[MASK]', '.', '[SEP]'];

it('three tokens each side at most, [CLS] and [SEP] left out, another [MASK] shown as it is', () => {
  assert.equal(maskContext(tokens, 2), 'the ___ sat on the');
  assert.equal(maskContext(tokens, 6), 'sat on the ___ .');
  assert.equal(maskContext(['[CLS]', '[MASK]', '[MASK]', '[SEP]'], 1), '___ [MASK]');
});

it('WordPiece continuation pieces join their word; byte-level space marks are dropped', () => {
  assert.equal(maskContext(['[CLS]', 'play', '##ing', '[MASK]', 'ball', '[SEP]'], 3), 'playing ___ ball');
  // the reference model's small vocabulary splits "sat" and "mat": s ##at, m ##at; a piece at the window's edge takes its word along
  const bert = ['[CLS]', 'the', '[MASK]', 's', '##at', 'on', 'the', '[MASK]', '.', '[SEP]'];
  assert.equal(maskContext(bert, 2), 'the ___ sat on');
  assert.equal(maskContext(bert, 7), 'sat on the ___ .');
  assert.equal(maskContext(['[CLS]', 'a', '##b', 'c', 'd', '[MASK]', 'e', 'f', 'g', '##h', '##i', 'j'], 5), 'ab c d ___ e f ghi');
  assert.equal(maskContext(['<s>', 'The', 'Ġ<mask>', 'Ġsat', '</s>'], 2), 'The ___ sat');
});
