// Which character a byte-piece token is part of (pieceRuns, tokenizer.mjs): the smallest run of
// neighbouring tokens whose joint decoding, by the model's own tokenizer, has no U+FFFD. The shared
// gpt2 folder's tokenizer (vocabulary 400) writes every Devanagari letter as its 3 UTF-8 bytes.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, openAsBlob } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { loadTokenizer, pieceRuns } from '../../../../web/src/models/tokenizer.mjs';
import { tokenLabel, tokenName } from '../../../../web/src/models/names.mjs';
import { MODELS } from './copies.mjs';

const gpt2 = new URL('gpt2/', MODELS);

async function tokenizerOf(folder) {
  const files = new Map();
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) files.set(name, await openAsBlob(fileURLToPath(new URL(name, folder))));
  return loadTokenizer(files, 400);
}

it('gpt2, ‘बिल्ली बैठी।’: 33 byte pieces in 11 runs of 3, each run one letter or sign of the sentence, the space alone', { skip: !existsSync(gpt2) && 'no ../shared/models' }, async () => {
  const tokenizer = await tokenizerOf(gpt2);
  const { ids } = tokenizer.encode('बिल्ली बैठी।');
  assert.equal(ids.length, 34);
  const pieces = ids.flatMap((id, i) => (tokenizer.decode([id]).includes('\uFFFD') ? [i] : []));
  assert.equal(pieces.length, 33);
  assert.ok(!pieces.includes(18), 'the space (token 19) is no piece');
  const runs = pieceRuns(ids, (run) => tokenizer.decode(run), pieces);
  assert.deepEqual(runs.map((run) => run.position), pieces);
  const letters = ['ब', 'ि', 'ल', '्', 'ल', 'ी', 'ब', 'ै', 'ठ', 'ी', '।'];
  const expected = pieces.map((position) => {
    const k = position < 18 ? Math.floor(position / 3) : 6 + Math.floor((position - 19) / 3);
    const from = position < 18 ? 3 * k : 19 + 3 * (k - 6);
    return { position, from, count: 3, text: letters[k] };
  });
  assert.deepEqual(runs, expected);
  // token 2 is byte 2 of 3 of ‘ब’, token 20 byte 1 of 3 of the second ‘ब’
  assert.deepEqual([runs[1].position - runs[1].from + 1, runs[1].text], [2, 'ब']);
  assert.deepEqual([runs[18].position, runs[18].from, runs[18].text], [19, 19, 'ब']);
});

it('a run that must take a whole token along: the smallest, the leftmost of equal ones; none beyond `most`', () => {
  // each "token" a list of bytes; decoding as UTF-8 with U+FFFD for a broken sequence, as the tokenizer does
  const tokens = [[0x61], [0xE0, 0xA4], [0xAC, 0x20], [0xE0], [0xA4], [0xBF]];
  const decode = (ids) => new TextDecoder().decode(Uint8Array.from(ids.flatMap((id) => tokens[id])));
  const ids = tokens.map((_, i) => i);
  // ‘ब’ (E0 A4 AC) ends inside token 3, which brings a space along (trimmed); ‘ि’ (E0 A4 BF) is 3 tokens
  assert.deepEqual(pieceRuns(ids, decode, [1, 2, 3, 4, 5]), [
    { position: 1, from: 1, count: 2, text: 'ब' }, { position: 2, from: 1, count: 2, text: 'ब' },
    { position: 3, from: 3, count: 3, text: 'ि' }, { position: 4, from: 3, count: 3, text: 'ि' }, { position: 5, from: 3, count: 3, text: 'ि' },
  ]);
  assert.deepEqual(pieceRuns(ids, decode, [4], 2), []);
});

// Characters with no glyph of their own, one of each class: directional overrides and embeddings,
// isolates and marks, zero-width and other format characters, a byte-order mark, a control, the line
// and paragraph separators, an ideographic space. Each is typed into gpt2 (its bytes become pieces);
// the labels and names of its pieces show its code point, and hold no such character themselves.
const UNSEEN_CLASSES = ['\u202E', '\u202A', '\u2067', '\u2069', '\u200F', '\u061C', '\u200D', '\u200B', '\uFEFF', '\u00AD', '\u0085', '\u2028', '\u2029', '\u3000', '\u{E0041}'];

it('gpt2: a piece of a character with no glyph (a bidi control, a zero-width, control or separator character) is labelled and named by its code point', { skip: !existsSync(gpt2) && 'no ../shared/models' }, async () => {
  const tokenizer = await tokenizerOf(gpt2);
  const t = (key, values) => `${key}:${JSON.stringify(values)}`;
  for (const char of UNSEEN_CLASSES) {
    const text = `a${char}b`;
    const { ids, tokens } = tokenizer.encode(text);
    const pieces = ids.flatMap((id, i) => (tokenizer.decode([id]).includes('\uFFFD') ? [i] : []));
    const runs = pieceRuns(ids, (run) => tokenizer.decode(run), pieces);
    const result = { tokens, runs };
    const code = `U+${char.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    assert.ok(pieces.length >= 2, `${code}: ${tokens.join(' ')}`);
    for (const i of pieces) {
      for (const shown of [tokenLabel(result, i), tokenLabel(result, i, { joined: true }), tokenName(result, i, t)]) {
        assert.doesNotMatch(shown, /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u, `${code}: ${JSON.stringify(shown)}`);
        assert.ok(shown.includes(code) || shown.includes(`a${code}`) || shown.includes(`${code}b`), `${code}: ${JSON.stringify(shown)}`);
      }
    }
  }
});
