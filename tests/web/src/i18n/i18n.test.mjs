// The language system's pure parts in Node: which language a ?lang= or lang="…" names, the
// catalogues' fall-back, and that every example's title and notes, and every problem the state can
// report, are in each catalogue.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { resolveLanguage, problemOf, addressWithLanguage } from '../../../../web/src/i18n/page.mjs';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { message, hasMessage, LANGUAGES } from '../../../../web/src/i18n/index.mjs';
import { EN } from '../../../../web/src/i18n/en.mjs';
import { HI } from '../../../../web/src/i18n/hi.mjs';
import { PRESETS } from '../../../../web/src/state/presets.mjs';
import { buildRequest, defaultState, stateFromFragment } from '../../../../web/src/state/index.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
function* walkFiles(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* walkFiles(full);
    else yield full;
  }
}

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

// ---- one catalogue system: every language has every key, with the same slots and plural forms

const slotsOf = (text) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]))].sort();
const formsOf = (value) => (typeof value === 'string' ? [['', value]] : Object.entries(value).filter(([form]) => form !== 'plural'));

/**
 * What a catalogue gets wrong against the English one, as sentences: a key missing or extra, other
 * {slots} than the English has (in any plural form), a plural where the English has none (or the
 * other way round), a plural counting another slot, or plural forms other than its language's
 * Intl.PluralRules categories.
 */
function catalogueProblems(language, catalogue, english = EN) {
  const problems = [];
  for (const key of Object.keys(english)) if (!Object.hasOwn(catalogue, key)) problems.push(`${language}: no ${key}`);
  for (const key of Object.keys(catalogue)) if (!Object.hasOwn(english, key)) problems.push(`${language}: ${key} is not in English`);
  const categories = (code) => new Intl.PluralRules(code).resolvedOptions().pluralCategories.slice().sort();
  for (const key of Object.keys(english).filter((k) => Object.hasOwn(catalogue, k))) {
    const [en, text] = [english[key], catalogue[key]];
    if (typeof en !== typeof text) {
      problems.push(`${language}: ${key} is ${typeof text === 'string' ? 'not plural, the English is' : 'plural, the English is not'}`);
      continue;
    }
    const want = slotsOf(formsOf(en).map(([, form]) => form).join(' '));
    for (const [form, said] of formsOf(text)) {
      if (slotsOf(said).join() !== want.join()) problems.push(`${language}: ${key}${form ? ` (${form})` : ''} has {${slotsOf(said).join('}, {')}}, English {${want.join('}, {')}}`);
    }
    if (typeof en === 'string') continue;
    if (text.plural !== en.plural) problems.push(`${language}: ${key} counts {${text.plural}}, English {${en.plural}}`);
    const forms = formsOf(text).map(([form]) => form).sort();
    if (forms.join() !== categories(language).join()) problems.push(`${language}: ${key} has the forms ${forms.join(', ')}, the language ${categories(language).join(', ')}`);
  }
  return problems;
}

describe('the catalogues (i18n/en.mjs, i18n/hi.mjs)', () => {
  const CATALOGUES = { en: EN, hi: HI };

  it('every key in every language, with the same {slots} and the plural forms of its language', () => {
    assert.deepEqual(Object.keys(CATALOGUES), LANGUAGES);
    for (const language of LANGUAGES) assert.deepEqual(catalogueProblems(language, CATALOGUES[language]), []);
    assert.ok(Object.keys(EN).length > 500, 'the whole page and practice mode');
    assert.ok(Object.values(EN).filter((value) => typeof value === 'object').length >= 5, 'the plural messages are read');
  });

  it('finds what a catalogue gets wrong (the check above can fail)', () => {
    const english = { 'a.one': 'A {x}', 'a.many': { plural: 'n', one: '{n} a', other: '{n} as' } };
    assert.deepEqual(catalogueProblems('hi', { 'a.one': 'अ {x}', 'a.many': { plural: 'n', one: '{n} अ', other: '{n} अ' } }, english), []);
    assert.deepEqual(catalogueProblems('hi', { 'a.one': 'अ {y}', 'a.two': 'ब', 'a.many': { plural: 'm', other: '{m} अ' } }, english), [
      'hi: a.two is not in English',
      'hi: a.one has {y}, English {x}',
      'hi: a.many (other) has {m}, English {n}',
      'hi: a.many counts {m}, English {n}',
      'hi: a.many has the forms other, the language one, other',
    ]);
    assert.deepEqual(catalogueProblems('hi', { 'a.one': { plural: 'x', one: '{x}', other: '{x}' }, 'a.many': '{n} अ' }, english), [
      'hi: a.one is plural, the English is not',
      'hi: a.many is not plural, the English is',
    ]);
  });

  it('every key the code names is in the catalogue (a key missing would show as itself)', () => {
    const files = [...walkFiles(path.join(ROOT, 'web/src')), path.join(ROOT, 'web/app.html'), path.join(ROOT, 'web/index.html'), path.join(ROOT, 'web/embed.html')]
      .filter((file) => /\.(mjs|html)$/.test(file));
    const named = new Map();
    const patterns = [
      /\b(?:t|message)\(\s*['"]([a-z][\w-]*(?:\.[\w-]+)+)['"]/g,  // t('walk.next'), message('practice.link.invalid', …)
      /data-(?:text|label|title)="([a-z][\w-]*(?:\.[\w-]+)+)"/g,   // static markup (page.mjs applyTexts)
      /problemOf\([^,()]+,\s*'([a-z][\w-]*(?:\.[\w-]+)+)'/g,       // a problem's key
    ];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) for (const match of text.matchAll(pattern)) named.set(match[1], path.relative(ROOT, file));
    }
    assert.ok(named.size > 150, `${named.size} keys found in the code`);
    assert.deepEqual([...named].filter(([key]) => !hasMessage(key)).map(([key, file]) => `${key} (${file})`), []);
  });
});

describe('message: plural forms and unknown keys', () => {
  it('chooses the form by the language\'s plural rules and the counted slot', () => {
    assert.equal(message('practice.skipped', { count: 1 }), 'Left out: 1 chosen cell that does not exist in this lab.');
    assert.equal(message('practice.skipped', { count: 3 }), 'Left out: 3 chosen cells that do not exist in this lab.');
    assert.equal(message('practice.skipped', { count: 0 }), 'Left out: 0 chosen cells that do not exist in this lab.');
    // Hindi counts 0 and 1 as one (CLDR: i = 0 or n = 1)
    assert.equal(message('practice.skipped', { count: 0 }, 'hi'), HI['practice.skipped'].one.replace('{count}', '0'));
    assert.equal(message('practice.skipped', { count: 2 }, 'hi'), HI['practice.skipped'].other.replace('{count}', '2'));
    // a language with no catalogue: English, with English rules
    assert.equal(message('practice.skipped', { count: 1 }, 'xx'), 'Left out: 1 chosen cell that does not exist in this lab.');
    // a count given as text (a resolved message reference) is read as a number
    assert.equal(message('practice.summary', { correct: 1, total: 2, hints: '1' }), '1/2 correct, 1 hint');
  });

  it('an unknown key shows itself, and hasMessage says so', () => {
    assert.equal(hasMessage('practice.summary'), true);
    assert.equal(hasMessage('summary'), false);
    assert.equal(hasMessage('toString'), false);
    assert.equal(message('practice.no.such.key', { count: 1 }), 'practice.no.such.key');
  });

  it('leaves a slot with no value as it is (the static markup fills it with an element)', () => {
    assert.equal(message('walk.position', { step: 3 }), 'Step 3 of {count}');
  });
});
