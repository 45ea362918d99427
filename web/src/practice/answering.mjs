// A student at work on an exercise's card: Check (the typed blanks judged), Hint (the next of three)
// and Show the answer; then what an answer changes (the plan of blanks, the next card, the focus).
import { parseAnswer } from './answer.mjs';
import { judgeBlanks } from './check.mjs';
import { renderHint, showFeedback, resolve } from './render.mjs';
import { HEAD_TABLES, announce, results, statusAt, usePlan } from './session.mjs';
import { showProgress } from './panel.mjs';
import { formatNumber } from '../shared/format.mjs';

/**
 * A verdict on a card, kept as a function of the language (`make`): a language chosen later writes
 * it again. Returns the text said.
 */
export function say(session, index, make, kind, mistakes = [], right = null) {
  const parts = session.cards[index];
  parts.said = { make, kind, mistakes, right };
  showFeedback(parts, make(), kind, mistakes, right);
  return parts.feedback.textContent;
}

// The typed blanks as numbers ({ values }), or the first that is not one ({ problem() , at }).
function readBlanks(session, index) {
  const { t } = session.host;
  const { inputs } = session.cards[index];
  const values = [];
  const many = inputs.length > 1;
  for (const [k, input] of inputs.entries()) {
    const read = parseAnswer(input.value);
    if (read.value === undefined) {
      // the blank's name as its card says it now (the cards are made again in another language)
      const problem = () => {
        const text = resolve({ key: read.problem, params: read.params }, t);
        return many ? t('practice.verdict.blankFormat', { blank: session.cards[index].inputs[k].getAttribute('aria-label'), problem: text }) : text;
      };
      return { problem, at: k };
    }
    values.push(read.value);
  }
  return { values };
}

// the true value into a blank, read from its start (a long value written into a focused input
// would show its last digits)
function showValue(input, value) {
  input.value = value;
  input.title = value;
  if (value.length > 7) input.style.width = `calc(${value.length}ch + 1rem)`;  // the whole value, not its first digits
  input.setSelectionRange(0, 0);
  input.scrollLeft = 0;
}

/** Check: the blanks judged against the true values, a mistake named, the progress counted. */
export function check(session, index) {
  const exercise = session.exercises[index];
  const parts = session.cards[index];
  if (statusAt(session, index) !== 'open') return;  // locked, or answered already
  const read = readBlanks(session, index);
  if (read.problem) {
    const text = say(session, index, read.problem, 'format');
    parts.inputs[read.at].setAttribute('aria-invalid', 'true');
    announce(session, text);
    return;
  }
  const verdict = judgeBlanks(read.values, exercise, session.settings.tolerance);
  const text = verdict.correct ? sayCorrect(session, index) : sayWrong(session, index, verdict, rowSum(exercise, read.values));
  announce(session, text);
}

function sayCorrect(session, index) {
  const { t } = session.host;
  const exercise = session.exercises[index];
  const first = session.progress.correct(exercise.id);
  exercise.blanks.forEach((blank, k) => showValue(session.cards[index].inputs[k], blank.shown));
  const many = exercise.blanks.length > 1;
  let text = say(session, index, () => t(many ? 'practice.verdict.rowCorrect' : 'practice.verdict.correct', { value: exercise.said }), 'correct');
  const now = results(session);
  if (first && now.done === now.total) text = `${text} ${t('practice.finished', { summary: now.summary })}`;
  answered(session, index);
  return text;
}

// a softmax row's typed weights that do not add to 1 (to 4 significant digits): their sum, else null
function rowSum(exercise, values) {
  if (!exercise.id.startsWith('softmax:') || values.length < 2) return null;
  const sum = values.reduce((a, b) => a + b, 0);
  return Math.abs(sum - 1) < 5e-4 ? null : sum;
}

function sayWrong(session, index, verdict, sum = null) {
  const { t } = session.host;
  const exercise = session.exercises[index];
  session.progress.wrong(exercise.id);
  const many = exercise.blanks.length > 1;
  const [mistake] = verdict.mistakes;
  const counts = { right: verdict.right.filter(Boolean).length, total: exercise.blanks.length };
  const hints = session.settings.hints;
  let make;
  if (mistake) make = () => t(many ? 'practice.verdict.rowMistake' : 'practice.verdict.mistake', { ...counts, mistake: resolve(mistake, t) });
  else if (many) make = () => t(hints ? 'practice.verdict.rowNotQuiteHints' : 'practice.verdict.rowNotQuite', counts);
  else make = () => t(hints ? 'practice.verdict.notQuiteHints' : 'practice.verdict.notQuite');
  if (sum !== null && mistake?.key !== 'mistake.notesSlip') {  // the notes' slip says its sum already
    const said = make;
    make = () => `${said()} ${t('practice.verdict.rowSum', { sum: formatNumber(sum) })}`;
  }
  const text = say(session, index, make, mistake ? 'mistake' : 'wrong', verdict.mistakes, many ? verdict.right : null);
  showProgress(session);
  return text;
}

/** The next hint on the card; the first lights the cells it names (and shows their head's tables). */
export function hint(session, index) {
  const { exercises, cards } = session;
  if (!session.settings.hints || statusAt(session, index) === 'locked') return;
  const level = session.progress.hint(exercises[index].id);
  if (level === null) {
    announce(session, session.host.t('practice.hint.noMoreHints'));
    return;
  }
  renderHint(cards[index], exercises[index], level, session.host.t);
  if (level === 1) {
    session.tables.light(exercises[index].sourceCells, session.view);  // in place of an earlier hint's
    session.litFor = index;
    showSourceHead(session, exercises[index]);
  }
  const given = cards[index].hintList.lastElementChild;
  announce(session, given.dataset.spoken ?? given.textContent);
  showProgress(session);
}

// Sources in another head's tables (a concatenation entry's z): that head's tab is chosen, so that
// the lit cells are on screen.
function showSourceHead(session, exercise) {
  const state = session.host.state();
  const heads = new Set(exercise.sourceCells.filter((cell) => HEAD_TABLES.has(cell.matrix)).map((cell) => cell.head));
  if (heads.size !== 1 || state.selectedHead === 'all') return;
  const [head] = heads;
  if (head === state.selectedHead) return;
  session.host.select({ head });
}

/** Show the answer: the true values in the blanks, counted as not correct. */
export function reveal(session, index) {
  if (statusAt(session, index) !== 'open') return;
  const exercise = session.exercises[index];
  session.progress.reveal(exercise.id);
  exercise.blanks.forEach((blank, k) => showValue(session.cards[index].inputs[k], blank.shown));
  const key = exercise.blanks.length > 1 ? 'practice.verdict.rowRevealed' : 'practice.verdict.revealed';
  const text = say(session, index, () => session.host.t(key, { value: exercise.said }), 'revealed');
  answered(session, index);
  announce(session, text);
}

// After an answer: the plan changes (what it hid is shown, the next blanks open), the tables follow.
// Its first hint's cells go dark; the next open exercise's head is shown, and its first blank
// takes the focus when the student was working on this card.
function answered(session, index) {
  const { exercises, host } = session;
  if (session.litFor === index) {
    session.tables.unlight();
    session.litFor = null;
  }
  const selection = {};
  const next = exercises.findIndex((_, k) => statusAt(session, k) === 'open');
  if (next >= 0) {
    const state = host.state();
    const blank = exercises[next].blanks[0].cell;
    // its head's tab (the All heads overview shows the weights alone)
    if (HEAD_TABLES.has(blank.matrix) && (state.selectedHead !== 'all' || blank.matrix !== 'weights')) selection.head = blank.head;
    const parts = session.cards[index];
    const active = host.root.activeElement;
    if (parts.inputs.includes(active) || parts.card.contains(active)) session.focusNext = next;
  }
  usePlan(session);
  showProgress(session);
  host.select(selection);
}

/**
 * A saved session's work put back on the cards (a SCORM relaunch): each exercise's record (status,
 * hints, attempts), its hints shown again, its answer (the true value when answered, else what was
 * typed). `saved` is [{ id, status, hints, attempts, answers }]; returns how many were put back.
 */
export function restoreWork(session, saved) {
  const { exercises, cards, host } = session;
  const { t } = host;
  let restored = 0;
  exercises.forEach((exercise, index) => {
    const record = saved.find((entry) => entry && entry.id === exercise.id);
    if (!record || !session.progress.restore(exercise.id, record)) return;
    restored++;
    for (let level = 1; level <= session.progress.hints(exercise.id); level++) renderHint(cards[index], exercise, level, t);
    const status = session.progress.status(exercise.id);
    if (status === 'open') {
      cards[index].inputs.forEach((input, k) => { input.value = typeof record.answers?.[k] === 'string' ? record.answers[k].slice(0, 100) : ''; });
      return;
    }
    exercise.blanks.forEach((blank, k) => showValue(cards[index].inputs[k], blank.shown));
    const many = exercise.blanks.length > 1;
    const key = status === 'correct' ? (many ? 'practice.verdict.rowCorrect' : 'practice.verdict.correct') : (many ? 'practice.verdict.rowRevealed' : 'practice.verdict.revealed');
    say(session, index, () => t(key, { value: exercise.said }), status);
  });
  usePlan(session);
  showProgress(session, { report: false });
  host.select({});
  return restored;
}
