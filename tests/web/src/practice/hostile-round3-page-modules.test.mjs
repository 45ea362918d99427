// Issue 28, the page's pure modules: answers in any script's digits, user text isolated in
// sentences, practice seeds that stay seeds, links that stay within what a browser opens, and the
// lab's own file settings read back from __metadata__.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { parseAnswer, asciiDigits } from '../../../../web/src/practice/answer.mjs';
import { nextSeed, withNewInputs } from '../../../../web/src/practice/inputs.mjs';
import { checkPractice } from '../../../../web/src/practice/spec.mjs';
import { message } from '../../../../web/src/i18n/index.mjs';
import { isolate } from '../../../../web/src/shared/bidi.mjs';
import { defaultState, buildRequest, stateToFragment, stateFromFragment, linkCarriesWeights } from '../../../../web/src/state/index.mjs';
import { settingsFromMetadata } from '../../../../web/src/layers/settings.mjs';
import { readWeightsFile } from '../../../../web/src/layers/load.mjs';

describe('issue 28: practice reads every Unicode decimal digit', () => {
  // [typed, value]: the digits of each script written out by hand (Unicode's code charts)
  const cases = [
    ['०.५', 0.5], ['-१.२५', -1.25], ['१/४', 0.25], ['१,५', 1.5], ['३e-२', 0.03],    // Devanagari
    ['٠٫٥', 0.5], ['٠.٧٥', 0.75], ['−٢', -2],                                          // Arabic-Indic, its decimal separator
    ['۰٫۲۵', 0.25], ['۱/۳', 1 / 3],                                                     // Extended Arabic-Indic (Persian, Urdu)
    ['０．５', 0.5], ['０.５', 0.5], ['１２', 12], ['－０．２', -0.2],                 // full width
    ['০.৫', 0.5], ['๐.๕', 0.5], ['߁߂', 12], ['𝟑.𝟓', 3.5], ['१2.5', 12.5],               // Bengali, Thai, N'Ko, mathematical, mixed
  ];
  for (const [typed, value] of cases) {
    it(`'${typed}' is ${value}`, () => assert.equal(parseAnswer(typed).value, value));
  }

  it('the rules stay the same in every script: 1,000 is ambiguous, text is not a number, % is refused with the number in ASCII', () => {
    assert.equal(parseAnswer('१,०००').problem, 'answer.ambiguousComma');
    assert.equal(parseAnswer('٣e').problem, 'answer.exponent');
    assert.equal(parseAnswer('१ २').problem, 'answer.space');
    const percent = parseAnswer('५०%');
    assert.equal(percent.problem, 'answer.percent');
    assert.equal(percent.params.suggestion, '0.5', 'the number is shown back in the lab\'s digits');
    assert.equal(parseAnswer('٥٠٪').params.suggestion, '0.5');
    assert.equal(asciiDigits('abc'), 'abc');
  });
});

describe('issue 28: user text in a sentence is isolated (U+2068 … U+2069)', () => {
  const FSI = '\u2068';
  const PDI = '\u2069';

  it('an answer starting with U+202E is echoed inside an isolate, so the override ends with it (English and Hindi)', () => {
    for (const typed of ['\u202Eabc', 'abc\u202Ddef', '\u2067x', 'שלום', 'مرحبا', '\u200Fabc']) {
      const read = parseAnswer(typed);
      for (const lang of ['en', 'hi']) {
        const text = message(`practice.${read.problem}`, read.params, lang);
        assert.ok(text.includes(`${FSI}${typed}${PDI}`), `${lang}: ${JSON.stringify(text)}`);
      }
    }
    // left-to-right text needs no isolate and gets none
    assert.equal(message('practice.answer.notNumber', parseAnswer('abc').params), "'abc' is not a number. Write it like 0.42, -1.5, 1/3 or ½.");
  });

  it('every slot of the page\'s catalogue isolates such text: a token, a language, a file name, a list of names', () => {
    const cases = [
      ['walk.score', { token: '\u202Eit', key: 'animal', dK: 4 }, '\u202Eit'],
      ['language.unknown', { value: '\u202Bxx' }, '\u202Bxx'],
      ['layers.reading', { name: 'evil\u202Egpj.safetensors' }, 'evil\u202Egpj.safetensors'],
      ['problem.unknownViews', { names: ['ok', 'ab\u202E'] }, 'ab\u202E'],
    ];
    for (const [key, values, text] of cases) {
      for (const lang of ['en', 'hi']) assert.ok(message(key, values, lang).includes(`${FSI}${text}${PDI}`), `${key} ${lang}`);
    }
    assert.equal(isolate('plain'), 'plain');
    assert.equal(isolate(42), '42');
  });

  it('a file name and a tensor name in a file\'s message are isolated', async () => {
    const header = Buffer.from(JSON.stringify({ 'w\u202Eq': { dtype: 'X1', shape: [1], data_offsets: [0, 4] } }).padEnd(64));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    const read = await readWeightsFile(new Blob([length, header, Buffer.alloc(4)]), 'a\u202Eb.safetensors');
    assert.ok(read.problem.startsWith(`${FSI}a\u202Eb.safetensors${PDI}: tensor "${FSI}w\u202Eq${PDI}" has dtype`), read.problem);
  });
});

describe('issue 28: practice seeds stay seeds when advanced', () => {
  it('Try another after 2⁵³ − 1 goes on from 0, a seed a link carries', () => {
    assert.equal(nextSeed(2 ** 53 - 1), 0);
    assert.equal(nextSeed(0), 1);
    assert.equal(nextSeed(2 ** 53 - 2), 2 ** 53 - 1);
    for (const seed of [2 ** 53 - 1, 2 ** 53 - 2, 0, 41]) assert.equal(checkPractice({ seed: nextSeed(seed) }), true, String(seed));
  });

  it('seeds that differ only above 32 bits draw different inputs (2³² is not 0 again)', () => {
    const state = { ...defaultState(), practice: {} };
    const view = { tokens: ['a', 'b', 'c'], keyTokens: ['a', 'b', 'c'], self: true, dModel: 4, heads: 1, dK: 4, dV: 4 };
    const draws = [0, 2 ** 32, 2 ** 52, 2 ** 53 - 1].map((seed) => JSON.stringify(withNewInputs(state, view, seed).xEdits));
    assert.equal(new Set(draws).size, draws.length);
    assert.equal(withNewInputs(state, view, 2 ** 53 - 1).practice.seed, 2 ** 53 - 1);
  });
});

// A layer's worth of float32 numbers from a seeded generator (many digits each, as trained weights have)
function weights(count, seed) {
  let s = seed >>> 0;
  return Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 2 - 1);
  });
}

describe('issue 28: a link longer than a browser opens is not written', () => {
  it('a layer of 99,856 numbers (158 × 158 × 4) writes a link with the settings only, within 2,000,000 characters', () => {
    const d = 158;
    const state = { ...defaultState(), preset: null, dModel: d, heads: 1, dK: d, dV: d, weightsMode: 'custom', useWo: true,
      custom: { wq: weights(d * d, 1), wk: weights(d * d, 2), wv: weights(d * d, 3), wo: weights(d * d, 4) } };
    assert.equal(buildRequest(state).problems, undefined);
    const full = `#lab=${encodeURIComponent(JSON.stringify({ custom: state.custom }))}`;
    assert.ok(full.length > 2_000_000, `the weights alone take ${full.length} characters`);
    // review 6, finding 1: each weight is written as its shortest float32 text, so this layer now fits
    assert.equal(linkCarriesWeights(state), true);
    const whole = stateToFragment(state);
    assert.ok(whole.length <= 2_000_001, `${whole.length} characters`);
    assert.deepEqual(Float32Array.from(stateFromFragment(whole).state.custom.wo), Float32Array.from(state.custom.wo));
    // 160 × 160 × 4 = 102,400 numbers: past the count a link takes (LINK_MAX_WEIGHTS), the settings only
    const big = { ...state, dModel: 160, dK: 160, dV: 160, custom: { wq: weights(160 * 160, 1), wk: weights(160 * 160, 2), wv: weights(160 * 160, 3), wo: weights(160 * 160, 4) } };
    assert.equal(linkCarriesWeights(big), false);
    const fragment = stateToFragment(big);
    assert.ok(fragment.length <= 2_000_001, `${fragment.length} characters`);
    const back = stateFromFragment(fragment);
    assert.equal(back.problems, undefined);
    assert.equal(back.state.weightsMode, 'random');
    assert.ok(back.state.dModel <= 128, `seeded weights at the page's own sizes (160 is above its 128): ${back.state.dModel}`);
    assert.equal(back.state.sentence, state.sentence);
  });

  it('a smaller layer still travels whole in its link', () => {
    const d = 40;
    const state = { ...defaultState(), preset: null, dModel: d, heads: 1, dK: d, dV: d, weightsMode: 'custom', useWo: false,
      custom: { wq: weights(d * d, 5), wk: weights(d * d, 6), wv: weights(d * d, 7), wo: null } };
    assert.equal(linkCarriesWeights(state), true);
    // the same float32 values (written as their shortest float32 text)
    assert.deepEqual(Float32Array.from(stateFromFragment(stateToFragment(state)).state.custom.wq), Float32Array.from(state.custom.wq));
  });
});

describe("issue 28: the lab's own file settings come back from __metadata__", () => {
  it('scale, divisor, mask and positions are read from a lab file and listed; others and bad values are not', () => {
    assert.deepEqual(settingsFromMetadata({ format: 'attention-lab', scale: '7', mask: 'causal', positions: 'sinusoidal' }), {
      changes: { scaleMode: 'custom', scaleDivisor: 7, maskMode: 'causal', positions: 'sinusoidal' },
      read: [{ setting: 'divisor', value: 7 }, { setting: 'mask', value: 'causal' }, { setting: 'positions', value: 'sinusoidal' }],
    });
    assert.deepEqual(settingsFromMetadata({ format: 'attention-lab', scale: 'none', mask: 'none', positions: 'none' }).changes,
      { scaleMode: 'none', maskMode: 'none', positions: 'none' });
    assert.deepEqual(settingsFromMetadata({ scale: '7', mask: 'causal' }), { changes: {}, read: [] }, 'not the lab\'s file');
    for (const bad of [{ scale: 'toString' }, { scale: '1e39' }, { scale: '0' }, { mask: '__proto__' }, { positions: 'constructor' }, { scale: 'Infinity' }]) {
      assert.deepEqual(settingsFromMetadata({ format: 'attention-lab', ...bad }).changes, {}, JSON.stringify(bad));
    }
  });
});
