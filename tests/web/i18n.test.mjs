// The language system's pure parts in Node: which language a ?lang= or lang="…" names, the
// catalogues' fall-back, and that every example's title and notes, and every problem the state can
// report, are in each catalogue.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { resolveLanguage, problemOf, addressWithLanguage } from '../../web/src/i18n/page.mjs';
import { message, LANGUAGES, EN } from '../../web/src/i18n/index.mjs';
import { HI } from '../../web/src/i18n/hi.mjs';
import { PRESETS } from '../../web/src/state/presets.mjs';
import { buildRequest, defaultState, stateFromFragment } from '../../web/src/state/index.mjs';

describe('resolveLanguage', () => {
  it('reads a language code, whatever its case or region', () => {
    for (const [text, language] of [['hi', 'hi'], ['HI', 'hi'], ['hi-IN', 'hi'], ['hi_IN', 'hi'], [' hi ', 'hi'], ['en', 'en'], ['en-GB', 'en']]) {
      assert.deepEqual(resolveLanguage(text), { language, problem: null }, text);
    }
  });

  it('nothing asked: English, with no message', () => {
    for (const text of [null, undefined, '', '  ']) assert.deepEqual(resolveLanguage(text), { language: 'en', problem: null });
  });

  it('an unknown language: English, and a problem for the field lang that names the value (cut to 40 characters)', () => {
    for (const text of ['xx', 'de', '__proto__', 'constructor', 'toString', '<script>alert(1)</script>', 'x'.repeat(100)]) {
      const { language, problem } = resolveLanguage(text);
      assert.equal(language, 'en', text);
      assert.equal(problem.field, 'lang');
      assert.equal(problem.key, 'language.unknown');
      assert.equal(problem.values.value, text.slice(0, 40));
      assert.equal(problem.message, `There is no language "${text.slice(0, 40)}" here (en: English, hi: हिन्दी); showing English.`);
    }
  });

  it('problemOf says the problem in English and keeps its key and values for the lab\'s language', () => {
    const problem = problemOf('mode', 'problem.mode', { value: 'quiz' });
    assert.equal(problem.message, 'mode must be practice or explore, got "quiz"');
    assert.equal(message(problem.key, problem.values, 'hi'), '"mode" का मान "practice" या "explore" होना चाहिए, मिला "quiz"');
  });

  it('addressWithLanguage puts ?lang= in a link, keeping the rest, and none for English', () => {
    assert.equal(addressWithLanguage('http://h/lab/?a=1#lab=%7B%7D', 'hi'), 'http://h/lab/?a=1&lang=hi#lab=%7B%7D');
    assert.equal(addressWithLanguage('http://h/lab/?lang=hi#lab=%7B%7D', 'en'), 'http://h/lab/#lab=%7B%7D');
  });
});

describe('message', () => {
  it('fills the slots in the asked language, and falls back to English for an unknown language or a missing key', () => {
    assert.equal(message('caption.head', { head: 2 }, 'hi'), 'Head 2');
    assert.equal(message('walk.position', { step: 3, count: 14 }, 'en'), 'Step 3 of 14');
    assert.notEqual(message('walk.position', { step: 3, count: 14 }, 'hi'), 'Step 3 of 14');
    assert.equal(message('walk.position', { step: 3, count: 14 }, 'xx'), 'Step 3 of 14');
    assert.equal(message('walk.position', { step: 3, count: 14 }, '__proto__'), 'Step 3 of 14');
    assert.equal(message('no.such.key', {}, 'hi'), 'no.such.key');
    assert.equal(message('toString', {}, 'hi'), 'toString', 'a key is looked up as a key, not as a property of objects');
  });

  it('each catalogue names its own language, in its own script', () => {
    assert.deepEqual(LANGUAGES, ['en', 'hi']);
    assert.equal(message('language.name', {}, 'en'), 'English');
    assert.equal(message('language.name', {}, 'hi'), 'हिन्दी');
  });
});

describe('what the catalogues cover', () => {
  it('every example\'s title and notes, in English and in Hindi', () => {
    for (const preset of PRESETS) {
      const keys = [`preset.${preset.id}.title`, ...preset.notes.map((note) => `preset.${preset.id}.${typeof note === 'string' ? note : note.key}`)];
      assert.ok(preset.notes.length >= 2, preset.id);
      for (const key of keys) {
        assert.ok(Object.hasOwn(EN, key), `${key} in EN`);
        assert.ok(Object.hasOwn(HI, key), `${key} in HI`);
        assert.match(HI[key], /[\u0900-\u097F]/, `${key} in Devanagari`);
      }
    }
  });

  it('every problem the state reports has a key of the catalogue and values that fill it', () => {
    const base = defaultState();
    const cases = [{ dModel: 0 }, { dK: 500 }, { heads: 2 }, { scaleMode: 'custom', scaleDivisor: 'x' }, { sentence: '  ' },
      { sentence: 'a '.repeat(70) }, { weightsMode: 'random', seed: -1 }, { attention: 'cross', contextSentence: '' },
      { selectedToken: -1 }, { selectedHead: 'x' }, { weightsMode: 'custom', custom: { wq: [1] } }];
    for (const change of cases) {
      const { problems } = buildRequest({ ...base, ...change });
      assert.ok(problems?.length, JSON.stringify(change));
      for (const problem of problems) {
        assert.ok(Object.hasOwn(EN, problem.key) && Object.hasOwn(HI, problem.key), problem.key);
        assert.equal(problem.message, message(problem.key, problem.values));
        assert.doesNotMatch(message(problem.key, problem.values, 'hi'), /\{\w+\}/, `${problem.key}: every slot filled`);
      }
    }
    const link = stateFromFragment('#lab={"nope":1}').problems[0];
    assert.equal(link.key, 'problem.link');
    assert.equal(link.message, 'This link\'s settings could not be read (unknown setting "nope"); showing the first example instead.');
    assert.equal(message(link.key, link.values, 'hi'), 'इस लिंक की सेटिंग्स पढ़ी नहीं जा सकीं (अनजानी सेटिंग "nope"); पहला उदाहरण दिखाया जा रहा है।');
  });
});
