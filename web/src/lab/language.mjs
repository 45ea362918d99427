// A lab's language: the menu on the full page, and the switch that shows every text again in
// another language while the state, the reader's edits, the chosen token and head, and the scroll stay.
import { message, LANGUAGES } from '../i18n/index.mjs';
import { applyTexts } from '../i18n/page.mjs';

// Cells typed wrong keep their text across the redraw (the tables show the last good value beneath).
function keepTypedWrong(container) {
  const typed = [...container.querySelectorAll('td[data-matrix] input[aria-invalid="true"]')]
    .map((input) => ({ cell: input.closest('td').dataset, text: input.value }));
  return () => {
    for (const { cell, text } of typed) {
      const input = container.querySelector(`td[data-matrix="${cell.matrix}"][data-row="${cell.row}"][data-col="${cell.col}"]${cell.head === undefined ? '' : `[data-head="${cell.head}"]`} input`);
      if (!input) continue;
      input.value = text;
      input.setAttribute('aria-invalid', 'true');
    }
  };
}

/** Shows every text of the lab in `lab.language` now (features relabel, the tables redraw). */
export function relabelLab({ container, t, language, features, redraw, after }) {
  container.lang = language;
  applyTexts(container, t);
  const restore = keepTypedWrong(container);
  // drawn parts that keep what they drew while it is unchanged: draw them again
  for (const part of container.querySelectorAll('[data-signature]')) delete part.dataset.signature;
  for (const feature of features) feature.relabel?.();
  redraw();
  restore();
  after();
}

/** The language menu, on the full page only (`onLanguage` given): each language named in its own script. */
export function fillLanguageMenu(root, { current, onLanguage, choose }) {
  const menu = root.getElementById('language');
  menu.closest('.language-menu').hidden = !onLanguage;
  if (!onLanguage) return;
  menu.replaceChildren(...LANGUAGES.map((code) => {
    const option = document.createElement('option');
    option.value = code;
    option.lang = code;
    option.textContent = message('language.name', {}, code);
    return option;
  }));
  menu.value = current;
  menu.addEventListener('change', () => {
    choose(menu.value);
    onLanguage(menu.value);
  });
}
