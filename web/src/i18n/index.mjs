// Text the reader sees, looked up by key: one catalogue per language (en.mjs, hi.mjs), one message().
// Whole sentences with named slots ({word}), never assembled from fragments in code, so that another
// language can order its words its own way; a sentence that depends on a number has plural forms.
//
// Unknown keys: message() shows the key itself. A page never breaks over a missing text, and a reader
// who reports one names the key. Tests make sure there is none: every language has every key with the
// same slots and plural forms, and every key the code names is in the catalogue
// (tests/web/i18n.test.mjs). Code that must know asks hasMessage(key).
import { EN } from './en.mjs';
import { HI } from './hi.mjs';
import { isolate } from '../shared/bidi.mjs';

// Adding a language: a catalogue file like hi.mjs (its 'language.name' in its own script) and one
// entry here; the menu, ?lang= and lang="…" then offer it.
const CATALOGUES = { en: EN, hi: HI };

/** The languages there are catalogues for, by code ('en', 'hi'). */
export const LANGUAGES = Object.keys(CATALOGUES);

export { EN };

const pluralRules = new Map();
function pluralForm(language, count) {
  if (!pluralRules.has(language)) pluralRules.set(language, new Intl.PluralRules(language));
  return pluralRules.get(language).select(count);
}

/** True when `key` is a message (English has every key; the other languages are tested to match). */
export function hasMessage(key) {
  return Object.hasOwn(EN, key);
}

// The template for `key` and the language it is written in: the language's own, else English's.
function templateOf(key, language) {
  const own = Object.hasOwn(CATALOGUES, language) ? CATALOGUES[language] : EN;
  if (Object.hasOwn(own, key)) return { template: own[key], written: own === EN ? 'en' : language };
  return { template: Object.hasOwn(EN, key) ? EN[key] : key, written: 'en' };
}

/**
 * The text for `key` in `language` ('en' when there is no such catalogue), its {slots} filled from
 * `values`. A template may be plural, { plural: 'slot', one: '…', other: '…' } (the forms are the
 * language's Intl.PluralRules categories): the form for Number(values[slot]) is used, else `other`.
 * A value that is itself a message ({ key, values }) is said in the same language; a list of values
 * is joined by "; ". A slot without a value stays as it is ({name}): page.mjs applyTexts fills such
 * slots with elements. An unknown key gives the key itself (see above).
 */
export function message(key, values = {}, language = 'en') {
  const { template, written } = templateOf(key, language);
  const text = typeof template === 'string' ? template : pluralText(template, values, written);
  const fill = (value) => {
    if (Array.isArray(value)) return value.map(fill).join('; ');
    // user text in a slot (a token, a name, a value given) is isolated when it could turn the sentence around
    return value !== null && typeof value === 'object' && typeof value.key === 'string' ? message(value.key, value.values, language) : isolate(value);
  };
  return text.replace(/\{(\w+)\}/g, (slot, name) => (Object.hasOwn(values, name) ? fill(values[name]) : slot));
}

function pluralText(forms, values, language) {
  const form = pluralForm(language, Number(values[forms.plural]));
  return Object.hasOwn(forms, form) ? forms[form] : forms.other;
}
