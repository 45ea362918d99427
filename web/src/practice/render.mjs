// Practice mode's renderers: DOM nodes and textContent only (no reader text reaches markup).
// Every text is said by t(key, values), the lab's messages in its language now (i18n/index.mjs).
// Texts made by practice's pure core arrive as message references { key, params } whose keys are
// in the catalogue's 'practice.' namespace without that prefix (a mistake's key is also its id:
// 'mistake.noScaling'); resolve() looks them up.

/** A text: a string as it is, a { key, params } reference looked up, a list joined with spaces. */
export function resolve(text, t) {
  if (Array.isArray(text)) return text.map((part) => resolve(part, t)).join(' ');
  if (text && typeof text === 'object' && typeof text.key === 'string') {
    const params = Object.fromEntries(Object.entries(text.params ?? {}).map(([name, value]) => [name, resolve(value, t)]));
    return t(`practice.${text.key}`, params);
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
export function renderCard(exercise, { number, total, id, hints, t }) {
  const label = resolve(exercise.label, t);
  const card = element('div', { className: 'exercise', attributes: { role: 'group', 'aria-labelledby': `${id}-heading`, 'data-id': exercise.id, 'data-kind': exercise.cell.matrix, 'data-index': String(number - 1) } });
  const heading = element('h3', { text: t('practice.exercise.heading', { number, total, label }), attributes: { id: `${id}-heading` } });
  const locked = element('p', { className: 'hint locked-note', text: t('practice.locked') });
  const where = element('p', { className: 'practice-note where' });
  const blind = element('p', { className: 'practice-note blind', text: blindText(exercise.blind, t), attributes: { id: `${id}-blind` } });
  const inputs = exercise.blanks.map((blank, k) => element('input', {
    className: 'practice-input',
    attributes: {
      id: `${id}-input-${k}`, 'data-exercise': String(number - 1), 'data-blank': String(k), type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-label': resolve(blank.label, t),
      'aria-describedby': exercise.blind.length ? `${id}-feedback ${id}-blind` : `${id}-feedback`,
    },
  }));
  const check = element('button', { text: t('practice.exercise.check'), attributes: { type: 'button', 'data-role': 'check' } });
  const hint = element('button', { className: 'hint-button', text: t('practice.exercise.hint'), attributes: { type: 'button' } });
  const reveal = element('button', { className: 'reveal-button', text: t('practice.exercise.showAnswer'), attributes: { type: 'button' } });
  hint.hidden = !hints;
  const actions = element('div', { className: 'answer-row' }, [check, hint, reveal]);
  const feedback = element('p', { className: 'feedback', attributes: { id: `${id}-feedback` } });
  const hintList = element('ol', { className: 'hints' });
  card.append(heading, locked, where, blind, actions, feedback, hintList);
  return { card, inputs, check, hint, reveal, feedback, hintList, actions, where, blind };
}

// "This blank cannot show: …" for the mistakes that give the true value or another mistake's.
function blindText(blind, t) {
  if (!blind.length) return '';
  const name = (m) => t(`practice.name.${m.key.slice('mistake.'.length)}`);
  const same = blind.filter((m) => !m.like).map(name);
  // each pair once, in a fixed order
  const alike = blind.filter((m) => m.like && m.key < m.like.key).map((m) => t('practice.exercise.blindPair', { mistake: name(m), other: name(m.like) }));
  return [
    same.length ? t('practice.exercise.blindSame', { mistakes: [...new Set(same)].join('; '), count: new Set(same).size }) : '',
    alike.length ? t('practice.exercise.blindAlike', { pairs: [...new Set(alike)].join('; ') }) : '',
  ].filter(Boolean).join(' ');
}

/** Adds hint `level` (1, 2 or 3) of an exercise to its card (level 1's cells are lit in the tables). */
export function renderHint(parts, exercise, level, t) {
  const item = element('li', { attributes: { 'data-level': String(level) } });
  const name = t('practice.hint.level', { level });
  item.append(element('span', { className: 'hint-level', text: name }), ' ');
  let said;  // what is read out: the hint's name, then its text (the lines of hint 3 kept apart)
  if (level === 1) {
    const sources = exercise.sources.map((source) => resolve(source, t)).join('; ');
    said = t('practice.hint.sources', { sources });
    item.append(element('span', { text: said }));
  } else if (level === 2) {
    said = resolve(exercise.formula, t);
    item.append(element('span', { className: 'formula', text: said }));
  } else {
    const lines = exercise.explanation(t);
    item.append(element('ol', { className: 'explain-lines' }, lines.map((line) => element('li', { text: line }))));
    said = lines.map((line) => line.replace(/[.।]$/u, '')).join('; ');
  }
  item.dataset.spoken = `${name}: ${said}`;
  parts.hintList.append(item);
  parts.hint.textContent = t('practice.exercise.nextHint');
  // aria-disabled, not disabled: a focused button that became disabled would drop the focus
  if (level >= 3) parts.hint.setAttribute('aria-disabled', 'true');
}

/**
 * The mode switch (Explore | Practice) into `holder`; `choose(mode)` is called on a click.
 * Returns the buttons, to mark the current mode with aria-pressed.
 */
export function renderModeSwitch(holder, { id, choose, t }) {
  const buttons = ['explore', 'practice'].map((mode) => {
    const button = element('button', { attributes: { type: 'button', 'data-mode': mode, 'aria-pressed': 'false' } });
    button.addEventListener('click', () => choose(mode));
    return button;
  });
  holder.append(element('span', { className: 'mode-label', attributes: { id } }), ...buttons);
  holder.setAttribute('role', 'group');
  holder.setAttribute('aria-labelledby', id);
  labelModeSwitch(holder, t);
  return buttons;
}

/** The mode switch's words, in t's language. */
export function labelModeSwitch(holder, t) {
  holder.querySelector('.mode-label').textContent = t('practice.mode.label');
  for (const button of holder.querySelectorAll('button[data-mode]')) button.textContent = t(`practice.mode.${button.dataset.mode}`);
}

/** The practice panel's fixed parts, appended to `section`; returns them by name. */
export function renderPanel(section, { prefix, teacher, t }) {
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
  labelPanel(parts, t);
  return parts;
}

/** The panel's fixed words in t's language (what changes with the exercises is written by index.mjs). */
export function labelPanel(parts, t) {
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
