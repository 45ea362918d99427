// Practice mode's renderers: DOM nodes and textContent only (no reader text reaches markup).
// Texts arrive as message references { key, params } (see messages.mjs) and are resolved here.
import { message } from './messages.mjs';

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
 * The card of one exercise, placed beside the table that holds its blanks: heading, what it
 * cannot tell apart, Check / Hint / Show the answer, the verdict and the hints. Its blanks are
 * inputs made here and drawn into the table's cells (blanks.mjs); each is named after its cell
 * and described by the card's verdict. Returns the card and its parts.
 */
export function renderCard(exercise, { number, total, id, hints, lang }) {
  const label = resolve(exercise.label, lang);
  const card = element('div', { className: 'exercise', attributes: { role: 'group', 'aria-labelledby': `${id}-heading`, 'data-id': exercise.id, 'data-kind': exercise.cell.matrix, 'data-index': String(number - 1) } });
  const heading = element('h3', { text: message('exercise.heading', { number, total, label }, lang), attributes: { id: `${id}-heading` } });
  const locked = element('p', { className: 'hint locked-note', text: message('practice.locked', {}, lang) });
  const where = element('p', { className: 'practice-note where' });
  const blind = element('p', { className: 'practice-note blind', text: blindText(exercise.blind, lang), attributes: { id: `${id}-blind` } });
  const inputs = exercise.blanks.map((blank, k) => element('input', {
    className: 'practice-input',
    attributes: {
      id: `${id}-input-${k}`, 'data-exercise': String(number - 1), 'data-blank': String(k), type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-label': resolve(blank.label, lang),
      'aria-describedby': exercise.blind.length ? `${id}-feedback ${id}-blind` : `${id}-feedback`,
    },
  }));
  const check = element('button', { text: message('exercise.check', {}, lang), attributes: { type: 'button', 'data-role': 'check' } });
  const hint = element('button', { className: 'hint-button', text: message('exercise.hint', {}, lang), attributes: { type: 'button' } });
  const reveal = element('button', { className: 'reveal-button', text: message('exercise.showAnswer', {}, lang), attributes: { type: 'button' } });
  hint.hidden = !hints;
  const actions = element('div', { className: 'answer-row' }, [check, hint, reveal]);
  const feedback = element('p', { className: 'feedback', attributes: { id: `${id}-feedback` } });
  const hintList = element('ol', { className: 'hints' });
  card.append(heading, locked, where, blind, actions, feedback, hintList);
  return { card, inputs, check, hint, reveal, feedback, hintList, actions, where, blind };
}

// "This blank cannot show: …" for the mistakes that give the true value or another mistake's.
function blindText(blind, lang) {
  if (!blind.length) return '';
  const name = (m) => message(`name.${m.key.slice('mistake.'.length)}`, {}, lang);
  const same = blind.filter((m) => !m.like).map(name);
  // each pair once, in a fixed order
  const alike = blind.filter((m) => m.like && m.key < m.like.key).map((m) => message('exercise.blindPair', { mistake: name(m), other: name(m.like) }, lang));
  return [
    same.length ? message('exercise.blindSame', { mistakes: [...new Set(same)].join('; '), count: new Set(same).size }, lang) : '',
    alike.length ? message('exercise.blindAlike', { pairs: [...new Set(alike)].join('; ') }, lang) : '',
  ].filter(Boolean).join(' ');
}

/** Adds hint `level` (1, 2 or 3) of an exercise to its card (level 1's cells are lit in the tables). */
export function renderHint(parts, exercise, level, lang) {
  const item = element('li', { attributes: { 'data-level': String(level) } });
  const name = message('hint.level', { level }, lang);
  item.append(element('span', { className: 'hint-level', text: name }), ' ');
  let said;  // what is read out: the hint's name, then its text (the lines of hint 3 kept apart)
  if (level === 1) {
    const sources = exercise.sources.map((source) => resolve(source, lang)).join('; ');
    said = message('hint.sources', { sources }, lang);
    item.append(element('span', { text: said }));
  } else if (level === 2) {
    said = resolve(exercise.formula, lang);
    item.append(element('span', { className: 'formula', text: said }));
  } else {
    const lines = exercise.explanation(lang);
    item.append(element('ol', { className: 'explain-lines' }, lines.map((line) => element('li', { text: line }))));
    said = lines.map((line) => line.replace(/[.।]$/u, '')).join('; ');
  }
  item.dataset.spoken = `${name}: ${said}`;
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
    const button = element('button', { attributes: { type: 'button', 'data-mode': mode, 'aria-pressed': 'false' } });
    button.addEventListener('click', () => choose(mode));
    return button;
  });
  holder.append(element('span', { className: 'mode-label', attributes: { id } }), ...buttons);
  holder.setAttribute('role', 'group');
  holder.setAttribute('aria-labelledby', id);
  labelModeSwitch(holder, lang);
  return buttons;
}

/** The mode switch's words in a language. */
export function labelModeSwitch(holder, lang) {
  holder.querySelector('.mode-label').textContent = message('mode.label', {}, lang);
  for (const button of holder.querySelectorAll('button[data-mode]')) button.textContent = message(`mode.${button.dataset.mode}`, {}, lang);
}

/** The practice panel's fixed parts, appended to `section`; returns them by name. */
export function renderPanel(section, { prefix, teacher, lang }) {
  const parts = {
    title: element('h2', { attributes: { id: `${prefix}-title` } }),
    intro: element('p', { className: 'hint' }),
    announcer: element('p', { className: 'visually-hidden', attributes: { 'aria-live': 'polite', 'data-role': 'announce' } }),
    // not .hint: a compact lab hides hints, and the tolerance must stay stated
    tolerance: element('p', { className: 'practice-note tolerance' }),
    notes: element('p', { className: 'practice-note practice-notes' }),
    progressLabel: element('span'),
    progress: element('progress', { attributes: { id: `${prefix}-progress`, max: '1', value: '0' } }),
    progressText: element('span', { className: 'progress-text' }),
    score: element('p', { className: 'score', attributes: { 'data-role': 'score' } }),
    another: element('button', { attributes: { type: 'button', 'data-role': 'another' } }),
    integer: element('input', { attributes: { type: 'checkbox', 'data-role': 'integer' } }),
    integerLabel: element('span'),
    copy: element('button', { attributes: { type: 'button', 'data-role': 'copy' } }),
    list: element('ol', { className: 'exercises' }),
  };
  section.append(
    parts.title,
    parts.intro,
    parts.tolerance,
    parts.notes,
    element('div', { className: 'practice-bar' }, [
      element('label', { className: 'progress', attributes: { for: `${prefix}-progress` } }, [parts.progressLabel, parts.progress]),
      parts.progressText,
      parts.score,
    ]),
    element('div', { className: 'practice-actions' }, [
      parts.another,
      element('label', { className: 'check' }, [parts.integer, ' ', parts.integerLabel]),
      parts.copy,
      ...(teacher ? [teacher.toggle] : []),
    ]),
    ...(teacher ? [teacher.panel] : []),
    parts.list,
    parts.announcer,
  );
  section.setAttribute('aria-labelledby', `${prefix}-title`);
  labelPanel(parts, lang);
  return parts;
}

/** The panel's fixed words in a language (what changes with the exercises is written by index.mjs). */
export function labelPanel(parts, lang) {
  const t = (key) => message(key, {}, lang);
  parts.title.textContent = t('practice.title');
  parts.intro.textContent = t('practice.intro');
  parts.progressLabel.textContent = t('practice.progress');
  parts.another.textContent = t('practice.tryAnother');
  parts.integerLabel.textContent = t('practice.integer');
  parts.copy.textContent = t('practice.copySummary');
  parts.list.setAttribute('aria-label', t('practice.steps'));
}

/** Shows a card as open, answered or locked (a locked card shows only its heading and why; its blanks are disabled). */
export function showCardStatus(parts, status) {
  parts.card.dataset.status = status;
  const locked = status === 'locked';
  parts.card.querySelector('.locked-note').hidden = !locked;
  for (const part of [parts.actions, parts.feedback, parts.hintList, parts.blind]) part.hidden = locked || (part === parts.blind && !part.textContent);
  // answered (right, or shown): the value stays as it is, with nothing left to check or show
  const done = status === 'correct' || status === 'revealed';
  for (const input of parts.inputs) {
    input.disabled = locked;
    input.readOnly = done;
    input.placeholder = locked ? '?' : '';
  }
  parts.check.hidden = done;
  parts.reveal.hidden = done;
  // no more hints either (the ones taken stay on the card); hints off leave it hidden anyway
  if (done) parts.hint.hidden = true;
}

/** The verdict on a card: text, data-verdict, the mistakes matched, and which blanks are right. */
export function showFeedback(parts, text, verdict, mistakes = [], right = null) {
  parts.feedback.textContent = text;
  parts.feedback.dataset.verdict = verdict;
  parts.feedback.dataset.mistakes = mistakes.map((m) => m.key).join(' ');
  const bad = verdict === 'format' || verdict === 'wrong' || verdict === 'mistake';
  parts.inputs.forEach((input, k) => {
    const wrong = right ? !right[k] : bad;
    input.setAttribute('aria-invalid', String(wrong && verdict !== 'correct' && verdict !== 'revealed'));
    input.dataset.verdict = verdict === 'correct' || verdict === 'revealed' || (right && right[k]) ? 'right' : bad ? 'wrong' : '';
  });
}
