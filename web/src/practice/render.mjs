// Practice mode's renderers: DOM nodes and textContent only (no reader text reaches markup).
// Texts arrive as message references { key, params } (see messages.mjs) and are resolved here.
import { message } from './messages.mjs';
import { formatFull } from '../format.mjs';

/** A text: a string as it is, a { key, params } reference looked up, a list joined with spaces. */
export function resolve(text, lang = 'en') {
  if (Array.isArray(text)) return text.map((part) => resolve(part, lang)).join(' ');
  if (text && typeof text === 'object' && typeof text.key === 'string') {
    const params = Object.fromEntries(Object.entries(text.params ?? {}).map(([name, value]) => [name, resolve(value, lang)]));
    return message(text.key, params, lang);
  }
  return String(text);
}

/** An element with a class and text (or children). */
export function element(tag, { className = null, text = null, attributes = {} } = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/**
 * One table of the numbers given beside a blank: { caption, rowLabels, columnLabels, values, sources }.
 * Cells listed in `sources` (or every cell, for 'all') get data-source, for the first hint to light up.
 */
export function renderGiven(given, lang) {
  const cols = given.columnLabels.length;
  const table = element('table', { className: 'matrix given' });
  table.append(element('caption', { text: resolve(given.caption, lang) }));
  const headRow = element('tr', {}, [element('td', { className: 'corner' })]);
  for (const label of given.columnLabels) headRow.append(element('th', { text: resolve(label, lang), attributes: { scope: 'col' } }));
  const body = element('tbody');
  const sources = given.sources === 'all' ? null : new Set(given.sources.map(([r, c]) => `${r}:${c}`));
  given.rowLabels.forEach((label, r) => {
    const tr = element('tr', {}, [element('th', { text: resolve(label, lang), attributes: { scope: 'row' } })]);
    for (let c = 0; c < cols; c++) {
      const td = element('td', { text: formatFull(given.values[r * cols + c]) });
      if (!sources || sources.has(`${r}:${c}`)) td.dataset.source = '';
      tr.append(td);
    }
    body.append(tr);
  });
  table.append(element('thead', {}, [headRow]), body);
  return element('div', { className: 'scroll' }, [table]);
}

/**
 * The card of one exercise: heading, givens, the labelled input with Check / Hint / Show the answer,
 * the feedback line and the list of hints. Returns the card and its parts.
 */
export function renderCard(exercise, { number, total, id, hints, lang }) {
  const label = resolve(exercise.label, lang);
  const card = element('li', { className: 'exercise', attributes: { 'data-id': exercise.id, 'data-kind': exercise.cell.matrix } });
  const heading = element('h3', { text: message('exercise.heading', { number, total, label }, lang) });
  const locked = element('p', { className: 'hint locked-note', text: message('practice.locked', {}, lang) });
  const givens = element('div', { className: 'givens' }, exercise.given.map((given) => renderGiven(given, lang)));
  const input = element('input', { attributes: { id: `${id}-input`, type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `${id}-feedback` } });
  const check = element('button', { text: message('exercise.check', {}, lang), attributes: { type: 'submit' } });
  const hint = element('button', { className: 'hint-button', text: message('exercise.hint', {}, lang), attributes: { type: 'button' } });
  const reveal = element('button', { className: 'reveal-button', text: message('exercise.showAnswer', {}, lang), attributes: { type: 'button' } });
  hint.hidden = !hints;
  const form = element('form', { className: 'answer', attributes: { novalidate: '' } }, [
    element('label', { text: label, attributes: { for: `${id}-input` } }),
    element('div', { className: 'answer-row' }, [input, check, hint, reveal]),
  ]);
  const feedback = element('p', { className: 'feedback', attributes: { id: `${id}-feedback` } });
  const hintList = element('ol', { className: 'hints' });
  card.append(heading, locked, givens, form, feedback, hintList);
  return { card, input, form, hint, reveal, feedback, hintList, givens };
}

/** Adds hint `level` (1, 2 or 3) of an exercise to its card. */
export function renderHint(parts, exercise, level, lang) {
  const item = element('li', { attributes: { 'data-level': String(level) } });
  item.append(element('span', { className: 'hint-level', text: message('hint.level', { level }, lang) }), ' ');
  if (level === 1) {
    const sources = exercise.sources.map((source) => resolve(source, lang)).join('; ');
    item.append(element('span', { text: message('hint.sources', { sources }, lang) }));
    for (const cell of parts.givens.querySelectorAll('td[data-source]')) cell.classList.add('source');
  } else if (level === 2) {
    item.append(element('span', { className: 'formula', text: resolve(exercise.formula, lang) }));
  } else {
    item.append(element('ol', { className: 'explain-lines' }, exercise.explanation.map((line) => element('li', { text: line }))));
  }
  parts.hintList.append(item);
  parts.hint.textContent = message('exercise.nextHint', {}, lang);
  // aria-disabled, not disabled: a focused button that became disabled would drop the focus
  if (level >= 3) parts.hint.setAttribute('aria-disabled', 'true');
}

/**
 * The mode switch (Explore | Practice) into `holder`; `choose(mode)` is called on a click.
 * Returns the buttons, to mark the current mode with aria-pressed.
 */
export function renderModeSwitch(holder, { id, choose, lang }) {
  const buttons = ['explore', 'practice'].map((mode) => {
    const button = element('button', { text: message(`mode.${mode}`, {}, lang), attributes: { type: 'button', 'data-mode': mode, 'aria-pressed': 'false' } });
    button.addEventListener('click', () => choose(mode));
    return button;
  });
  holder.append(element('span', { className: 'mode-label', text: message('mode.label', {}, lang), attributes: { id } }), ...buttons);
  holder.setAttribute('role', 'group');
  holder.setAttribute('aria-labelledby', id);
  return buttons;
}

/** The practice panel's fixed parts, appended to `section`; returns them by name. */
export function renderPanel(section, { prefix, teacher, lang }) {
  const t = (key) => message(key, {}, lang);
  const parts = {
    announcer: element('p', { className: 'visually-hidden', attributes: { 'aria-live': 'polite', 'data-role': 'announce' } }),
    // not .hint: a compact lab hides hints, and the tolerance must stay stated
    tolerance: element('p', { className: 'practice-note tolerance' }),
    notes: element('p', { className: 'practice-note practice-notes' }),
    progress: element('progress', { attributes: { id: `${prefix}-progress`, max: '1', value: '0' } }),
    progressText: element('span', { className: 'progress-text' }),
    score: element('p', { className: 'score', attributes: { 'data-role': 'score' } }),
    another: element('button', { text: t('practice.tryAnother'), attributes: { type: 'button', 'data-role': 'another' } }),
    integer: element('input', { attributes: { type: 'checkbox', 'data-role': 'integer' } }),
    copy: element('button', { text: t('practice.copySummary'), attributes: { type: 'button', 'data-role': 'copy' } }),
    list: element('ol', { className: 'exercises' }),
  };
  section.append(
    element('h2', { text: t('practice.title'), attributes: { id: `${prefix}-title` } }),
    element('p', { className: 'hint', text: t('practice.intro') }),
    parts.tolerance,
    parts.notes,
    element('div', { className: 'practice-bar' }, [
      element('label', { className: 'progress', attributes: { for: `${prefix}-progress` } }, [element('span', { text: t('practice.progress') }), parts.progress]),
      parts.progressText,
      parts.score,
    ]),
    element('div', { className: 'practice-actions' }, [
      parts.another,
      element('label', { className: 'check' }, [parts.integer, ' ', t('practice.integer')]),
      parts.copy,
      ...(teacher ? [teacher.toggle] : []),
    ]),
    ...(teacher ? [teacher.panel] : []),
    parts.list,
    parts.announcer,
  );
  section.setAttribute('aria-labelledby', `${prefix}-title`);
  return parts;
}

/** Shows a card as open, answered or locked (a locked card shows only its heading and why). */
export function showCardStatus(parts, status) {
  parts.card.dataset.status = status;
  const locked = status === 'locked';
  parts.card.querySelector('.locked-note').hidden = !locked;
  for (const part of [parts.givens, parts.form, parts.feedback, parts.hintList]) part.hidden = locked;
}

/** The verdict under a card's input: text, data-verdict and the names of the mistakes matched. */
export function showFeedback(parts, text, verdict, mistakes = []) {
  parts.feedback.textContent = text;
  parts.feedback.dataset.verdict = verdict;
  parts.feedback.dataset.mistakes = mistakes.map((m) => m.key).join(' ');
  parts.input.setAttribute('aria-invalid', String(verdict === 'format' || verdict === 'wrong' || verdict === 'mistake'));
}
