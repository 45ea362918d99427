// Practice for the chapters of modern attention (issue 25: rope, gqa, flash, kv-cache): one question,
// one number typed, checked against the engine's number, and when it is wrong, the typical mistake
// that gives it named ("rotating by the wrong position", "forgetting to rescale ℓ", "counting K but
// not V"). A chapter gives `question()` → { id, text, want, mistakes: [{ key, value }], exact } or null
// (no question now; { text } alone says why). `id` names the question across languages. Texts by textContent only; the typed answer is read as
// a number and never echoed into markup.
import { element } from './chapter.mjs';
import { formatNumber, parseNumber } from './format.mjs';

/** Whether `typed` is `want` to the rounding a reader writes (4 significant digits), or exactly for whole numbers. */
export function close(typed, want, exact = false) {
  if (exact) return typed === want;
  return Math.abs(typed - want) <= Math.max(5e-3 * Math.abs(want), 5e-4);
}

/**
 * The verdict on a typed answer: 'unreadable' (not a number), 'right', 'mistake' (with the key of the
 * first typical mistake that gives it; a mistake that also gives the right number is skipped) or 'wrong'.
 */
export function judge(text, { want, mistakes = [], exact = false }) {
  const typed = parseNumber(text);
  if (typed === null) return { verdict: 'unreadable' };
  if (close(typed, want, exact)) return { verdict: 'right', typed };
  const mistake = mistakes.find(({ value }) => Number.isFinite(value) && !close(value, want, exact) && close(typed, value, exact));
  return mistake ? { verdict: 'mistake', typed, mistake: mistake.key } : { verdict: 'wrong', typed };
}

/** The box: a heading, the question, a labelled input, a check button and a live feedback line; `key` names the parts (data-<key>-practice). */
export function practiceParts(key) {
  const parts = { box: element('div', 'chapter-practice') };
  parts.box.dataset[`${key}Practice`] = 'box';
  parts.title = element('h3');
  parts.question = element('p');
  parts.question.dataset[`${key}Practice`] = 'question';
  const row = element('div', 'flash-controls');
  const label = element('label');
  parts.answerText = element('span');
  parts.input = element('input');
  Object.assign(parts.input, { type: 'text', inputMode: 'decimal', autocomplete: 'off', spellcheck: false });
  parts.input.dataset[`${key}Practice`] = 'answer';
  label.append(parts.answerText, ' ', parts.input);
  parts.check = element('button');
  parts.check.type = 'button';
  parts.check.dataset[`${key}Practice`] = 'check';
  row.append(label, parts.check);
  parts.feedback = element('p', 'flash-status');
  parts.feedback.dataset[`${key}Practice`] = 'feedback';
  parts.feedback.setAttribute('aria-live', 'polite');
  parts.box.append(parts.title, parts.question, row, parts.feedback);
  return parts;
}

function feedbackText(ctx, result, { want, exact }) {
  if (result.verdict === 'unreadable') return ctx.t('chapterPractice.unreadable');
  const shown = (value) => (exact ? String(value) : formatNumber(value));  // a whole number in full
  const typed = shown(result.typed);
  if (result.verdict === 'right') return ctx.t('chapterPractice.right', { want: shown(want) });
  if (result.verdict === 'mistake') return ctx.t('chapterPractice.mistake', { typed, mistake: ctx.t(`chapterPractice.mistake.${result.mistake}`) });
  return ctx.t('chapterPractice.wrong', { typed });
}

/**
 * Practice in `body` for a chapter: returns { refresh() } to call after each redraw and relabel (a new
 * question clears the answer and the feedback). `question()` as above; `heading: false` leaves the
 * "Practice" heading out (a chapter's questions after its first).
 */
export function mountPractice(ctx, body, key, question, { heading = true } = {}) {
  const parts = practiceParts(key);
  parts.title.hidden = !heading;  // a chapter's second and third questions go under the first's heading
  body.append(parts.box);
  let asked = null, shown = '';
  const check = () => {
    if (!asked || asked.want === undefined) return;
    parts.feedback.textContent = feedbackText(ctx, judge(parts.input.value, asked), asked);
  };
  parts.check.addEventListener('click', check);
  parts.input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') check();
  });
  const refresh = () => {
    parts.title.textContent = ctx.t('chapterPractice.title');
    parts.answerText.textContent = ctx.t('chapterPractice.answer');
    parts.check.textContent = ctx.t('chapterPractice.check');
    asked = question();
    const text = asked?.text ?? '', id = asked?.id ?? text;
    parts.box.hidden = !asked;
    parts.input.disabled = !asked || asked.want === undefined;
    parts.check.disabled = parts.input.disabled;
    if (id !== shown) {  // a new question: the last answer and its verdict go
      parts.input.value = '';
      parts.feedback.textContent = '';
    } else if (parts.feedback.textContent) {
      check();  // the same question in another language: the verdict again, in it
    }
    parts.question.textContent = text;
    shown = id;
  };
  return { refresh };
}
