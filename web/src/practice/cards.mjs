// The exercises' cards (one beside the table of its blanks) and the panel's list of steps, made for
// the exercises of a computation, and made again in another language with the student's work kept.
import { renderCard, renderHint, labelModeSwitch, labelPanel, resolve, element } from './render.mjs';
import { HEAD_TABLES, announce, statusAt, usePlan } from './session.mjs';
import { check, hint, reveal, say } from './answering.mjs';

/** The cards and the steps for session.exercises; keepLit: the same exercises in another language, whose first hints' cells stay lit. */
export function renderCards(session, { keepLit = false } = {}) {
  const { exercises, host } = session;
  for (const parts of session.cards) parts.card.remove();
  if (!keepLit) {
    session.tables.unlight();
    session.litFor = null;
  }
  session.cards = exercises.map((exercise, index) => cardOf(session, exercise, index));
  // each step's name is a button to its blank (the tables hold many cells to Tab through)
  session.steps = exercises.map((exercise, index) => {
    const text = host.t('practice.exercise.heading', { number: index + 1, total: exercises.length, label: resolve(exercise.label, host.t) });
    const jump = element('button', { className: 'step-label', text, attributes: { type: 'button' } });
    jump.addEventListener('click', () => goTo(session, index));
    return element('li', { className: 'step' }, [jump, ' ', element('span', { className: 'step-status' })]);
  });
  session.panel.list.replaceChildren(...session.steps);
}

function cardOf(session, exercise, index) {
  const { exercises, settings, prefix, host } = session;
  const parts = renderCard(exercise, { number: index + 1, total: exercises.length, id: `${prefix}-${index}`, hints: settings.hints, t: host.t });
  for (const [k, input] of parts.inputs.entries()) {
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      // in a row of blanks, Enter goes on to the next empty box; the last one checks
      const next = parts.inputs.slice(k + 1).find((box) => box.value.trim() === '');
      if (next && input.value.trim() !== '') next.focus();
      else check(session, index);
    });
  }
  parts.check.addEventListener('click', () => check(session, index));
  parts.hint.addEventListener('click', () => hint(session, index));
  parts.reveal.addEventListener('click', () => reveal(session, index));
  return parts;
}

// The focus to exercise `index`'s first blank, its head's tab chosen first when the blank is on
// another; a locked one says what to answer first.
function goTo(session, index) {
  if (statusAt(session, index) === 'locked') {
    announce(session, session.host.t('practice.locked'));
    return;
  }
  const input = session.cards[index].inputs[0];
  if (input.isConnected && input.getClientRects().length) {
    input.focus();
    return;
  }
  const blank = session.exercises[index].blanks[0].cell;
  session.focusNext = index;
  session.host.select(HEAD_TABLES.has(blank.matrix) ? { head: blank.head } : {});  // from All heads too
}

/**
 * Every word in the lab's language now, when it is not the one they were written in: the switch,
 * the panel, the teacher's panel and the cards, made again with what the student typed, the
 * verdicts and the hints taken. The lab draws next, which puts the new cards and blanks in place.
 */
export function relabel(session) {
  const { host } = session;
  if (host.language() === session.labelledIn) return;
  session.labelledIn = host.language();
  session.panel.announcer.textContent = '';  // said already, in the other language
  labelModeSwitch(session.modeSwitch, host.t);
  labelPanel(session.panel, host.t);
  session.teacher?.relabel();
  if (!session.cards.length) return;
  const active = host.root.activeElement;
  const kept = session.cards.map((parts) => keptOf(parts, active));
  renderCards(session, { keepLit: true });
  kept.forEach((before, index) => restore(session, index, before));
  usePlan(session);
  // the focus stays where the student was (after the lab's draw has placed the new card)
  const refocus = kept.findIndex((before) => before.focused >= 0 || before.focusedButton >= 0);
  if (refocus >= 0) {
    const before = kept[refocus];
    const parts = session.cards[refocus];
    const target = before.focused >= 0 ? parts.inputs[before.focused] : [parts.check, parts.hint, parts.reveal][before.focusedButton];
    requestAnimationFrame(() => target.focus());
  }
}

// What a card holds of the student's work, to write it again in another language.
function keptOf(parts, active) {
  return {
    values: parts.inputs.map((input) => input.value),
    invalid: parts.inputs.map((input) => input.getAttribute('aria-invalid')),
    said: parts.said,
    focused: parts.inputs.indexOf(active),
    focusedButton: [parts.check, parts.hint, parts.reveal].indexOf(active),
  };
}

function restore(session, index, before) {
  const parts = session.cards[index];
  const exercise = session.exercises[index];
  parts.inputs.forEach((input, k) => { input.value = before.values[k]; });
  for (let level = 1; level <= session.progress.hints(exercise.id); level++) renderHint(parts, exercise, level, session.host.t);
  if (before.said) say(session, index, before.said.make, before.said.kind, before.said.mistakes, before.said.right);
  // a blank marked wrong for its format stays marked
  before.invalid.forEach((value, k) => { if (value !== null) parts.inputs[k].setAttribute('aria-invalid', value); });
}
