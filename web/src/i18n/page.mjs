// The reader's language: which one a page or an attribute asks for, and the static markup's texts.
// There is no global language: each lab holds its own (two labs on one page may differ), and passes
// a `t(key, values)` for it to whatever draws text.
import { message, LANGUAGES } from './index.mjs';

/**
 * The language a `?lang=` or a `lang` attribute names: 'hi', 'HI' or 'hi-IN' give 'hi'; nothing gives
 * English; an unknown one gives English and a problem naming the value (for the lab's messages).
 */
export function resolveLanguage(text) {
  if (text === null || text === undefined || String(text).trim() === '') return { language: 'en', problem: null };
  const code = String(text).trim().toLowerCase().split(/[-_]/)[0];
  if (LANGUAGES.includes(code)) return { language: code, problem: null };
  return { language: 'en', problem: problemOf('lang', 'language.unknown', { value: String(text).slice(0, 40) }) };
}

/**
 * A problem to show in a lab: its field, its message's key and values (the lab says it in its own
 * language), and the message in English (for the API, logs and tests).
 */
export function problemOf(field, key, values = {}) {
  return { field, key, values, message: message(key, values) };
}

/** A translator bound to a language: t(key, values). */
export function translator(language) {
  return (key, values) => message(key, values, language);
}

// The elements a message's {slots} are filled with (see applyTexts), kept across languages.
const slotNodes = new WeakMap();

/** The full page in `language`: <html lang> (screen readers, fonts), its title, header and footer. */
export function showPageLanguage(language) {
  const t = translator(language);
  document.documentElement.lang = language;
  document.title = t('page.title');
  for (const part of document.querySelectorAll('.masthead, .footer')) applyTexts(part, t);
  // lang-early.js hid them until now, so that they do not show in English first
  document.documentElement.removeAttribute('data-texts-pending');
}

/** `address` with ?lang= for `language` (none for English, the default). */
export function addressWithLanguage(address, language) {
  const url = new URL(address);
  if (language === 'en') url.searchParams.delete('lang');
  else url.searchParams.set('lang', language);
  return url.href;
}

/**
 * Sets the text of our own static markup under `root` from the catalogue:
 *   data-text="key"   the element's text; children marked data-slot="name" fill the {name} slots
 *                     (a <code>, a control), so no sentence is put together from pieces in code;
 *   data-label="key"  its aria-label;   data-title="key"  its title.
 */
export function applyTexts(root, t) {
  for (const node of root.querySelectorAll('[data-text]')) {
    if (!slotNodes.has(node)) slotNodes.set(node, new Map([...node.querySelectorAll(':scope > [data-slot]')].map((slot) => [slot.dataset.slot, slot])));
    const slots = slotNodes.get(node);
    const text = t(node.dataset.text);
    if (!slots.size) node.textContent = text;
    else node.replaceChildren(...text.split(/\{(\w+)\}/).map((part, i) => (i % 2 ? slots.get(part) ?? `{${part}}` : part)));
  }
  for (const node of root.querySelectorAll('[data-label]')) node.setAttribute('aria-label', t(node.dataset.label));
  for (const node of root.querySelectorAll('[data-title]')) node.title = t(node.dataset.title);
}
