// The page's pure modules: tokeniser, vocabulary, formatting, colour scale, presets and requests.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { tokenize, MAX_TOKENS } from '../../../../web/src/state/tokenize.mjs';
import { embed, embedAll, columnNames, isKnown, FEATURES } from '../../../../web/src/state/vocabulary.mjs';
import { formatCell, formatFull, parseNumber, formatVector } from '../../../../web/src/shared/format.mjs';
import { weightColour, luminance } from '../../../../web/src/shared/colour.mjs';
import { PRESETS } from '../../../../web/src/state/presets.mjs';
import { presetState, buildRequest, tokensOf, withCellEdit, defaultState } from '../../../../web/src/state/index.mjs';

describe('tokenize', () => {
  it('splits words and punctuation and keeps inner apostrophes', () => {
    assert.deepEqual(tokenize("The animal didn't cross the street, because it was too tired.").tokens,
      ['The', 'animal', "didn't", 'cross', 'the', 'street', ',', 'because', 'it', 'was', 'too', 'tired', '.']);
  });
  it('handles other scripts, digits, curly apostrophes and [PAD]', () => {
    assert.deepEqual(tokenize('Über 3 café’s [PAD] 東京').tokens, ['Über', '3', 'café’s', '[PAD]', '東京']);
  });
  it('turns markup into plain tokens', () => {
    assert.deepEqual(tokenize('<img src=x onerror=alert(1)>').tokens, ['<', 'img', 'src', '=', 'x', 'onerror', '=', 'alert', '(', '1', ')', '>']);
  });
  it(`stops at ${MAX_TOKENS} tokens and reports the overflow, even for a huge paste`, () => {
    const { tokens, overflow } = tokenize('word '.repeat(1_000_000));
    assert.equal(tokens.length, MAX_TOKENS);
    assert.equal(overflow, true);
    assert.equal(tokenize('a '.repeat(MAX_TOKENS)).overflow, false);
  });
  it('empty and blank text give no tokens', () => {
    assert.deepEqual(tokenize('   ').tokens, []);
  });
});

describe('vocabulary', () => {
  it("holds a few hundred words, 'bank' with both senses", () => {
    assert.ok(isKnown('bank') && isKnown('Money') && isKnown('river'));
    const bank = embed('bank', FEATURES.length);
    assert.equal(bank[FEATURES.indexOf('finance')], Math.fround(0.8));
    assert.equal(bank[FEATURES.indexOf('nature')], Math.fround(0.8));
    assert.equal(embed('money', FEATURES.length)[FEATURES.indexOf('nature')], 0);
    assert.equal(embed('river', FEATURES.length)[FEATURES.indexOf('finance')], 0);
  });
  it('an unknown word gets a vector derived from the word: the same every time, different per word', () => {
    const a = embed('Zorblax', 6), b = embed('zorblax', 6), c = embed('Quibble', 6);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    for (const value of a) assert.ok(value >= -0.5 && value <= 0.5);
    assert.deepEqual(embed('Zorblax', 3), a.subarray(0, 3), 'column c does not depend on d_model');
  });
  it('columns past the named features are hashed; names follow', () => {
    assert.deepEqual(columnNames(12).slice(FEATURES.length), ['e11', 'e12']);  // model dimensions numbered from 1, as e1 … (issue 26, point 5)
    assert.equal(embedAll(['money', 'bank'], 4).length, 8);
  });
});

describe('format', () => {
  it('cells: fixed decimals, no -0, −∞ for masked', () => {
    assert.equal(formatCell(0.42231882), '0.422');
    assert.equal(formatCell(-0.0001), '0.000');
    assert.equal(formatCell(-Infinity), '−∞');
    assert.equal(formatCell(1.5, 4), '1.5000');
  });
  it('full precision: the shortest decimal that reads back as the same float32', () => {
    assert.equal(formatFull(Math.fround(0.1)), '0.1');
    assert.equal(formatFull(Math.fround(0.42231881618499756)), '0.42231882');  // 0.4223188 is another float32
    assert.equal(Math.fround(Number(formatFull(Math.fround(Math.PI)))), Math.fround(Math.PI));
  });
  it('parses what people type and refuses the rest', () => {
    assert.equal(parseNumber(' 1.5 '), 1.5);
    assert.equal(parseNumber('−2'), -2);
    assert.equal(parseNumber('0,25'), 0.25);
    assert.equal(parseNumber('1e-3'), 0.001);
    assert.equal(parseNumber('.5'), 0.5);
    for (const bad of ['', 'abc', '1.2.3', 'NaN', 'Infinity', '1e999', '0x10', '<b>1</b>']) assert.equal(parseNumber(bad), null, bad);
  });
  it('vectors are shortened past a limit', () => {
    assert.equal(formatVector([1, 2, 3], 1), '[1.0, 2.0, 3.0]');
    assert.equal(formatVector(new Float32Array(10), 0, 2), '[0, 0, … (10)]');
  });
});

describe('colour scale', () => {
  it('darkens monotonically with the weight and keeps text readable', () => {
    let previous = Infinity;
    for (let w = 0; w <= 1.0001; w += 0.1) {
      const { background, foreground } = weightColour(w);
      const l = luminance(background);
      assert.ok(l < previous, `luminance must fall: ${w}`);
      previous = l;
      // WCAG contrast between text and cell at least 4.5
      const lf = luminance(foreground);
      const contrast = (Math.max(l, lf) + 0.05) / (Math.min(l, lf) + 0.05);
      assert.ok(contrast >= 4.5, `contrast ${contrast.toFixed(2)} at weight ${w.toFixed(1)}`);
    }
  });
  it('clamps out-of-range weights', () => {
    assert.deepEqual(weightColour(-1), weightColour(0));
    assert.deepEqual(weightColour(7), weightColour(1));
  });
});

describe('presets and requests', () => {
  for (const preset of PRESETS) {
    it(`${preset.id} builds a valid request`, () => {
      const built = buildRequest(presetState(preset.id));
      assert.equal(built.problems, undefined, JSON.stringify(built.problems));
      assert.equal(built.request.x.length, built.tokens.length * built.request.dModel);
      assert.ok(presetState(preset.id).selectedToken < built.tokens.length);
    });
  }
  it("the 'it' preset holds the notes' q, k, v side by side", () => {
    const { request, tokens } = buildRequest(presetState('animal-it'));
    const it = tokens.indexOf('it');
    assert.deepEqual(Array.from(request.x.subarray(it * 9, it * 9 + 9)).map((v) => +v.toFixed(2)), [0.6, 0.5, 0.4, 0.7, 0.6, 0.5, 0.6, 0.5, 0.4]);
  });
  it('each wrong setting is reported with its field', () => {
    const base = defaultState();
    const cases = [
      [{ dModel: 2.5 }, 'dModel'], [{ heads: 0 }, 'heads'], [{ dK: 500 }, 'dK'], [{ dV: '' }, 'dV'],
      [{ heads: 2 }, 'weightsMode'], [{ scaleMode: 'custom', scaleDivisor: 'x' }, 'scaleDivisor'],
      [{ scaleMode: 'custom', scaleDivisor: 0 }, 'scaleDivisor'], [{ sentence: '   ' }, 'sentence'],
      [{ sentence: 'a '.repeat(70) }, 'sentence'], [{ weightsMode: 'random', seed: -1 }, 'seed'],
      [{ attention: 'cross', contextSentence: '' }, 'contextSentence'],
    ];
    for (const [change, field] of cases) {
      const built = buildRequest({ ...base, ...change });
      assert.ok(built.problems?.some((p) => p.field === field), `${JSON.stringify(change)} → ${JSON.stringify(built.problems)}`);
    }
  });
  it('padding appends [PAD] tokens and masks them as keys', () => {
    const state = { ...presetState('money-bank'), maskMode: 'padding', padTo: 5 };
    const { tokens } = tokensOf(state);
    assert.deepEqual(tokens, ['money', 'bank', 'grows', '[PAD]', '[PAD]']);
    const { request } = buildRequest(state);
    assert.deepEqual(Array.from(request.mask.subarray(0, 5)), [1, 1, 1, 0, 0]);
  });
  it('cross-attention takes keys and values from the context sentence', () => {
    const { request, keyTokens } = buildRequest({ ...presetState('money-bank'), attention: 'cross', contextSentence: 'river flows' });
    assert.deepEqual(keyTokens, ['river', 'flows']);
    assert.equal(request.m, 2);
    assert.equal(request.context.length, 2 * request.dModel);
  });
  it('an edited cell sticks to its token and position', () => {
    let state = withCellEdit(presetState('money-bank'), 'x', 1, 'bank', 0, 5);
    assert.equal(buildRequest(state).request.x[1 * 10 + 0], 5);
    state = { ...state, sentence: 'money river grows' };
    assert.equal(buildRequest(state).request.x[1 * 10 + 0], 0, 'a different word at that position drops the edit');
  });
});

describe('stats', async () => {
  const { entropyBits, variance, normalDraws } = await import('../../../../web/src/shared/stats.mjs');
  it('entropy: 0 for one-hot, log2(m) for uniform', () => {
    assert.equal(entropyBits([1, 0, 0]), 0);
    assert.ok(Math.abs(entropyBits([0.25, 0.25, 0.25, 0.25]) - 2) < 1e-12);
  });
  it('variance of a known set', () => {
    assert.equal(variance([2, 4, 4, 4, 5, 5, 7, 9]), 4);
  });
  it('normal draws are seeded and have mean 0 and variance 1', () => {
    const a = normalDraws(20001, 3);
    assert.deepEqual(a, normalDraws(20001, 3));
    const mean = a.reduce((s, v) => s + v, 0) / a.length;
    assert.ok(Math.abs(mean) < 0.03, `mean ${mean}`);
    assert.ok(Math.abs(variance(a) - 1) < 0.03, `variance ${variance(a)}`);
  });
});

describe('links', async () => {
  const { stateToFragment, stateFromFragment } = await import('../../../../web/src/state/index.mjs');
  it('a state survives the round trip through a fragment', () => {
    let state = withCellEdit({ ...presetState('kids-lions'), seed: 9, selectedHead: 'all' }, 'x', 2, 'were', 3, -1.5);
    state = { ...state, custom: { ...state.custom, wq: state.custom.wq.map((v, i) => (i === 4 ? 7 : v)) } };
    const back = stateFromFragment(stateToFragment(state)).state;
    for (const key of ['preset', 'sentence', 'seed', 'selectedHead', 'xEdits', 'custom', 'dK']) assert.deepEqual(back[key], state[key], key);
    const own = { ...defaultState(), preset: null, sentence: 'river bank money', heads: 2, weightsMode: 'random' };
    // the default precision (4) is left out of a link, which then keeps the reader's (issue 26, point 6)
    const { digits, ...rest } = own;
    assert.equal(digits, 4);
    assert.deepEqual(stateFromFragment(stateToFragment(own)).state, { ...rest, x: own.x });
    for (const chosen of [6, 0]) assert.equal(stateFromFragment(stateToFragment({ ...own, digits: chosen })).state.digits, chosen);
    for (const bad of [12, -1, 4.5, '6']) {
      const { problems } = stateFromFragment(`#lab=${encodeURIComponent(JSON.stringify({ digits: bad }))}`);
      assert.match(JSON.stringify(problems), /digits/, `digits ${bad} refused, naming the field`);
    }
  });
  it('a preset link is short', () => {
    assert.ok(stateToFragment(presetState('telescope')).length < 60);
  });
  it('refuses what it cannot trust, saying why', () => {
    for (const [fragment, why] of [['#lab=%7B', /not valid JSON/], ['#lab=%7B%22dModel%22%3A%22x%22%7D', /"dModel"/],
      ['#lab=%7B%22constructor%22%3A1%7D', /unknown setting/], ['#lab=null', /not an object/], ['#other=1', /lab=/], ['#other anchor', /lab=/],
      ['#lab=%7B%22preset%22%3A%22nope%22%7D', /"preset"/], [`#lab=${'x'.repeat(2_000_001)}`, /characters long/]]) {
      const { problems } = stateFromFragment(fragment);
      assert.ok(problems, fragment.slice(0, 40));
      assert.match(problems[0].message, why);
    }
    assert.deepEqual(stateFromFragment(''), { state: null });
    // a plain anchor (a section's name a reader bookmarks or types) is a place, not a broken link (review 5, finding 10)
    for (const anchor of ['#models', '#top', '#section-2']) assert.deepEqual(stateFromFragment(anchor), { state: null });
  });
});

describe('export formats', async () => {
  const { exportTable, latexText } = await import('../../../../web/src/exports/formats.mjs');
  const table = { caption: 'Weights', rowLabels: ['a,b', 'x|y'], columnLabels: ['p', '#q'], values: Float32Array.from([0.5, -Infinity, 0.25, 1]) };
  const settings = { sentence: 'a,b x|y' };
  it('CSV quotes what needs quoting, one setting a line, and writes −∞', () => {
    assert.equal(exportTable(table, 'csv', settings), '# Attention Lab,Weights\n# sentence,"a,b x|y"\ntoken,p,"#q"\n"a,b",0.5,−∞\nx|y,0.25,1\n');
  });
  it('JSON writes null for −∞ and says so', () => {
    const json = JSON.parse(exportTable(table, 'json', settings));
    assert.deepEqual(json.values, [[0.5, null], [0.25, 1]]);
    assert.ok(json.null);
  });
  it('Markdown escapes pipes and markup', () => {
    assert.match(exportTable(table, 'md', settings), /\| x\\\|y \| 0\.25 \| 1 \|/);
    assert.match(exportTable({ ...table, rowLabels: ['<img>', 'b'] }, 'md', settings), /\| \\<img\\> \|/);
  });
  it('LaTeX escapes special characters and writes $-\\infty$', () => {
    assert.equal(latexText('a_b & 50% #1 {x} ~ ^ \\'), 'a\\_b \\& 50\\% \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}');
    assert.match(exportTable(table, 'tex', settings), /a,b & 0\.5 & \$-\\infty\$ \\\\/);
  });
});
