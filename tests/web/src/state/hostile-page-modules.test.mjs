// The page's pure modules against hostile text: names every object has, links that parse but carry
// values that cannot be shown, and text a tokeniser must read as a person sees it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { tokenize, MAX_TOKENS, MAX_CHARS } from '../../../../web/src/state/tokenize.mjs';
import { stateFromFragment, buildRequest, defaultState } from '../../../../web/src/state/index.mjs';

const link = (data) => `#lab=${encodeURIComponent(typeof data === 'string' ? data : JSON.stringify(data))}`;

describe('tokeniser: what a reader sees', () => {
  it('NFC first: a decomposed é is the same word as a composed one, its accent stays on it', () => {
    assert.deepEqual(tokenize('cafe\u0301 cafe\u0301s').tokens, ['caf\u00e9', 'caf\u00e9s']);
    assert.deepEqual(tokenize('x\u0301\u0323y ñ').tokens, ['x\u0323\u0301y', 'ñ']);  // NFC reorders the marks canonically
  });

  it('emoji ZWJ sequences, skin tones, keycaps and flags are one token each', () => {
    assert.deepEqual(tokenize('👩‍👩‍👧 👍🏽 1️⃣ 🇫🇷🇩🇪 🏴󠁧󠁢󠁳󠁣󠁴󠁿').tokens, ['👩‍👩‍👧', '👍🏽', '1️⃣', '🇫🇷', '🇩🇪', '🏴󠁧󠁢󠁳󠁣󠁴󠁿']);
    assert.deepEqual(tokenize('love❤️you').tokens, ['love', '❤️', 'you']);
  });

  it('invisible characters never make a token and never split a word', () => {
    const invisible = ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069',
      '\u00ad', '\u2060', '\ufeff', '\u0000', '\u0007', '\u{e0041}'];
    for (const c of invisible) {
      assert.deepEqual(tokenize(`${c}ba${c}nk ${c} river${c}`).tokens, ['bank', 'river'], `U+${c.codePointAt(0).toString(16)}`);
      assert.deepEqual(tokenize(c.repeat(100)).tokens, []);
    }
  });

  it('the usual cases are unchanged: words, inner apostrophes, punctuation, [PAD]', () => {
    assert.deepEqual(tokenize("The animal didn't cross the street, because it was too tired.").tokens,
      ['The', 'animal', "didn't", 'cross', 'the', 'street', ',', 'because', 'it', 'was', 'too', 'tired', '.']);
    assert.deepEqual(tokenize("dogs' 'tis a[PAD][PAD]").tokens, ['dogs', "'", "'", 'tis', 'a', '[PAD]', '[PAD]']);
  });

  it(`a huge paste is cheap: ${MAX_TOKENS} tokens, or ${MAX_CHARS} characters, whichever comes first`, () => {
    assert.equal(tokenize('word '.repeat(1_000_000)).overflow, true);
    const long = tokenize('x'.repeat(5_000_000));
    assert.deepEqual([long.tokens.length, long.tokens[0].length, long.tooLong, long.overflow], [1, MAX_CHARS, true, false]);
    assert.deepEqual(tokenize(' '.repeat(5_000_000)).tokens, []);
    assert.equal(tokenize('\u200b'.repeat(5_000_000)).tooLong, true);
  });
});

describe('links that parse but cannot be shown give a message and the first example', () => {
  const cases = [
    ['an empty object', {}],
    ['negative sizes', { preset: 'cat-sat', dModel: -4 }],
    ['a size of zero heads', { preset: 'telescope', heads: 0 }],
    ['a huge edit (past float32)', { preset: 'cat-sat', xEdits: { '0:The:0': 1e39 } }],
    ['too many edits', { preset: 'cat-sat', xEdits: Object.fromEntries(Array.from({ length: 9000 }, (_, i) => [`0:The:${i}`, 1])) }],
    ['weights of the wrong length', { preset: 'cat-sat', weightsMode: 'custom', custom: { wq: [1, 2], wk: [1], wv: [1] } }],
    ['an empty context', { preset: 'cat-sat', attention: 'cross', contextSentence: '   ' }],
    ['a negative selected token', { preset: 'cat-sat', selectedToken: -1 }],
    ['a negative selected head', { preset: 'cat-sat', selectedHead: -1 }],
    ['a negative Pad to', { preset: 'cat-sat', maskMode: 'padding', padTo: -3 }],
    ['a divisor below float32', { preset: 'cat-sat', scaleMode: 'custom', scaleDivisor: 1e-39 }],
    ['a preset named toString', { preset: 'toString' }],
    ['a scale mode named constructor', { preset: 'cat-sat', scaleMode: 'constructor' }],
    ['a __proto__ key', '{"preset":"cat-sat","__proto__":{"dModel":3}}'],
  ];
  for (const [what, data] of cases) {
    it(what, () => {
      const parsed = stateFromFragment(link(data));
      assert.equal(parsed.state, undefined, 'no state to show');
      assert.equal(parsed.problems.length, 1);
      assert.equal(parsed.problems[0].field, 'link');
      assert.match(parsed.problems[0].message, /showing the first example instead/);
    });
  }
  it('a good link still gives its state, and the first example itself is valid', () => {
    const { state } = stateFromFragment(link({ preset: 'telescope', selectedHead: 1, xEdits: { '0:The:0': 0.5 } }));
    assert.equal(state.preset, 'telescope');
    assert.equal(buildRequest(state).problems, undefined);
    assert.equal(buildRequest(defaultState()).problems, undefined);
  });
});

describe('every field is checked, naming its control', () => {
  const problemsOf = (change) => buildRequest({ ...defaultState(), ...change }).problems ?? [];
  for (const [change, field] of [
    [{ maskMode: 'padding', padTo: 0 }, 'padTo'],
    [{ maskMode: 'padding', padTo: 2.5 }, 'padTo'],
    [{ maskMode: 'padding', padTo: 999 }, 'padTo'],
    [{ scaleMode: 'custom', scaleDivisor: 5e-324 }, 'scaleDivisor'],
    [{ scaleMode: 'custom', scaleDivisor: 1e39 }, 'scaleDivisor'],
    [{ scaleMode: 'custom', scaleDivisor: 'toString' }, 'scaleDivisor'],
    [{ dModel: 999 }, 'dModel'],
    [{ selectedToken: -1 }, 'query'],
    [{ selectedHead: 'constructor' }, 'head'],
    [{ weightsMode: 'random', seed: -1 }, 'seed'],
  ]) {
    it(JSON.stringify(change), () => {
      assert.ok(problemsOf(change).some((p) => p.field === field), JSON.stringify(problemsOf(change)));
    });
  }
  it('Pad to is only checked when padding is on', () => {
    assert.deepEqual(problemsOf({ maskMode: 'none', padTo: -1 }), []);
  });
});
