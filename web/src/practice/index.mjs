// Practice mode: a feature of the lab (STYLE.md, "How the page grows"). app.mjs mounts it with
// mountPractice() and calls draw() after each computation; everything else lives here.
//
// The lab's state carries `practice` (spec.mjs): null explores, an object practises. Chosen cells
// become labelled inputs, one card per exercise in the order of the computation; each card opens
// when the one before it is answered. Results stay in the page. After each answer, hint or reveal
// the lab's element dispatches
//   attention-lab:practice  (bubbling, composed)  detail { correct, total, hints, done, attempts, summary }
// for a host that reports a score (an LMS, a SCORM wrapper).
import { message } from './messages.mjs';
import { parseAnswer } from './answer.mjs';
import { judge, allowance } from './check.mjs';
import { defaultCells, buildExercises, cellFits } from './exercises.mjs';
import { forward64 } from './forward64.mjs';
import { practiceSettings } from './spec.mjs';
import { withNewInputs } from './inputs.mjs';
import { element, renderCard, renderHint, resolve } from './render.mjs';
import { createTeacherPanel } from './teacher.mjs';
import { formatFull } from '../format.mjs';
import css from './practice.css';

let sheet = null;
let mounted = 0;

function adoptStyles(root) {
  if (typeof CSSStyleSheet !== 'function' || !('adoptedStyleSheets' in root)) return;
  sheet ??= new CSSStyleSheet();
  if (!sheet.cssRules.length) sheet.replaceSync(css);
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

/**
 * container: the lab's element; embedded: inside a host page; links: { page, embed, component } or null;
 * getState / setState: the lab's state (setState recomputes); lang: the message catalogue.
 * Returns { draw(view, state), views(shown, state) }.
 */
export function mountPractice({ container, root, embedded, links, getState, setState, lang = 'en' }) {
  adoptStyles(root);
  const prefix = `practice-${++mounted}`;
  const t = (key, params) => message(key, params, lang);
  const section = container.querySelector('[data-view="practice"]');
  const modeSwitch = container.querySelector('.mode-switch');

  // ---- the mode switch (the full page only: embeds and components choose with an attribute)
  const modeButtons = ['explore', 'practice'].map((mode) => {
    const button = element('button', { text: t(`mode.${mode}`), attributes: { type: 'button', 'data-mode': mode, 'aria-pressed': 'false' } });
    button.addEventListener('click', () => {
      const state = getState();
      if ((mode === 'practice') === Boolean(state.practice)) return;
      setState({ ...state, practice: mode === 'practice' ? {} : null });
    });
    return button;
  });
  modeSwitch.append(element('span', { className: 'mode-label', text: t('mode.label'), attributes: { id: `${prefix}-mode` } }), ...modeButtons);
  modeSwitch.setAttribute('role', 'group');
  modeSwitch.setAttribute('aria-labelledby', `${prefix}-mode`);
  modeSwitch.hidden = embedded;

  // ---- the panel's fixed parts
  const announcer = element('p', { className: 'visually-hidden', attributes: { 'aria-live': 'polite', 'data-role': 'announce' } });
  const tolerance = element('p', { className: 'hint tolerance' });
  const notes = element('p', { className: 'hint practice-notes' });
  const progress = element('progress', { attributes: { id: `${prefix}-progress`, max: '1', value: '0' } });
  const progressText = element('span', { className: 'progress-text' });
  const score = element('p', { className: 'score', attributes: { 'data-role': 'score' } });
  const anotherButton = element('button', { text: t('practice.tryAnother'), attributes: { type: 'button', 'data-role': 'another' } });
  const integerBox = element('input', { attributes: { type: 'checkbox', 'data-role': 'integer' } });
  const copyButton = element('button', { text: t('practice.copySummary'), attributes: { type: 'button', 'data-role': 'copy' } });
  const list = element('ol', { className: 'exercises' });
  const teacher = links?.page && !embedded ? createTeacherPanel({ prefix, t, getState, links, announce: (text) => announce(text) }) : null;
  section.append(
    element('h2', { text: t('practice.title'), attributes: { id: `${prefix}-title` } }),
    element('p', { className: 'hint', text: t('practice.intro') }),
    tolerance,
    notes,
    element('div', { className: 'practice-bar' }, [
      element('label', { className: 'progress', attributes: { for: `${prefix}-progress` } }, [element('span', { text: t('practice.progress') }), progress]),
      progressText,
      score,
    ]),
    element('div', { className: 'practice-actions' }, [
      anotherButton,
      element('label', { className: 'check' }, [integerBox, ' ', t('practice.integer')]),
      copyButton,
      ...(teacher ? [teacher.toggle] : []),
    ]),
    ...(teacher ? [teacher.panel] : []),
    list,
    announcer,
  );
  section.setAttribute('aria-labelledby', `${prefix}-title`);

  // ---- what is being practised, and how it went
  let view = null;
  let settings = practiceSettings(null);
  let exercises = [];
  let cards = [];
  let signature = '';
  const progressOf = new Map();  // exercise id → { status: 'open' | 'correct' | 'revealed', hints, attempts }

  const announce = (text) => {
    // the same sentence twice in a row is still read: clear, then set on the next frame
    announcer.textContent = '';
    requestAnimationFrame(() => { announcer.textContent = text; });
  };

  function totals() {
    let correct = 0, hints = 0, done = 0, attempts = 0;
    for (const exercise of exercises) {
      const p = progressOf.get(exercise.id);
      if (p.status === 'correct') correct++;
      if (p.status !== 'open') done++;
      hints += p.hints;
      attempts += p.attempts;
    }
    const summary = t('practice.summary', { correct, total: exercises.length, hints });
    return { correct, total: exercises.length, hints, done, attempts, summary };
  }

  function showTotals({ report = true } = {}) {
    const result = totals();
    progress.max = Math.max(result.total, 1);
    progress.value = result.done;
    progressText.textContent = t('practice.progressText', { done: result.done, total: result.total });
    score.textContent = t('practice.score', result);
    // each card opens once the one before it is answered: later ones would show its result
    let open = true;
    cards.forEach((parts, index) => {
      const status = progressOf.get(exercises[index].id).status;
      parts.card.dataset.status = open ? status : 'locked';
      const locked = !open;
      parts.card.querySelector('.locked-note').hidden = !locked;
      parts.givens.hidden = locked;
      parts.form.hidden = locked;
      parts.feedback.hidden = locked;
      parts.hintList.hidden = locked;
      if (status === 'open') open = false;
    });
    if (report) container.dispatchEvent(new CustomEvent('attention-lab:practice', { bubbles: true, composed: true, detail: result }));
    return result;
  }

  function setFeedback(parts, text, verdict, mistakes = []) {
    parts.feedback.textContent = text;
    parts.feedback.dataset.verdict = verdict;
    parts.feedback.dataset.mistakes = mistakes.map((m) => m.key).join(' ');
    parts.input.setAttribute('aria-invalid', String(verdict === 'format' || verdict === 'wrong' || verdict === 'mistake'));
  }

  function onCheck(index) {
    const exercise = exercises[index];
    const parts = cards[index];
    const p = progressOf.get(exercise.id);
    const read = parseAnswer(parts.input.value);
    if (read.value === undefined) {
      const text = t(read.problem, read.params);
      setFeedback(parts, text, 'format');
      announce(text);
      return;
    }
    const verdict = judge(read.value, exercise, settings.tolerance);
    let text;
    if (verdict.correct) {
      const first = p.status === 'open';
      if (p.status !== 'revealed') p.status = 'correct';
      text = t('verdict.correct', { value: exercise.shown });
      setFeedback(parts, text, 'correct');
      const result = showTotals();
      if (first && result.done === result.total) text = `${text} ${t('practice.finished', { summary: result.summary })}`;
    } else {
      p.attempts++;
      text = verdict.mistakes.length
        ? t('verdict.mistake', { mistake: resolve(verdict.mistakes[0], lang) })
        : t(settings.hints ? 'verdict.notQuiteHints' : 'verdict.notQuite');
      setFeedback(parts, text, verdict.mistakes.length ? 'mistake' : 'wrong', verdict.mistakes);
      showTotals();
    }
    announce(text);
  }

  function onHint(index) {
    const exercise = exercises[index];
    const parts = cards[index];
    const p = progressOf.get(exercise.id);
    if (!settings.hints) return;
    if (p.hints >= 3) {
      announce(t('hint.noMoreHints'));
      return;
    }
    p.hints++;
    renderHint(parts, exercise, p.hints, lang);
    announce(parts.hintList.lastElementChild.textContent);
    showTotals();
  }

  function onReveal(index) {
    const exercise = exercises[index];
    const parts = cards[index];
    const p = progressOf.get(exercise.id);
    if (p.status === 'open') p.status = 'revealed';
    const text = t('verdict.revealed', { value: exercise.shown });
    setFeedback(parts, text, 'revealed');
    showTotals();
    announce(text);
  }

  function renderCards() {
    cards = exercises.map((exercise, index) => {
      const parts = renderCard(exercise, { number: index + 1, total: exercises.length, id: `${prefix}-${index}`, hints: settings.hints, lang });
      parts.form.addEventListener('submit', (event) => {
        event.preventDefault();
        onCheck(index);
      });
      parts.hint.addEventListener('click', () => onHint(index));
      parts.reveal.addEventListener('click', () => onReveal(index));
      return parts;
    });
    list.replaceChildren(...cards.map((parts) => parts.card));
  }

  anotherButton.addEventListener('click', () => {
    if (!view) return;
    const state = getState();
    const seed = practiceSettings(state.practice).seed + 1;
    setState(withNewInputs(state, view, seed, { integer: integerBox.checked }));
    announce(t('practice.another', { seed }));
  });

  copyButton.addEventListener('click', async () => {
    const { summary } = totals();
    try {
      await navigator.clipboard.writeText(summary);
      announce(t('practice.copied', { summary }));
    } catch {
      // no clipboard here (an insecure origin, a denied permission): say it, to copy by hand
      announce(t('practice.copyFailed', { summary }));
      notes.textContent = t('practice.copyFailed', { summary });
    }
  });

  return {
    /** Rebuilds the exercises for a new computation; progress is kept while the exercises stay the same. */
    draw(nextView, state) {
      for (const button of modeButtons) button.setAttribute('aria-pressed', String((button.dataset.mode === 'practice') === Boolean(state.practice)));
      if (!state.practice) return;
      view = nextView;
      settings = practiceSettings(state.practice);
      integerBox.checked = settings.integer;
      const head = state.selectedHead === 'all' ? 0 : state.selectedHead;
      const f64 = forward64(view);  // once per computation: the true values and every mistake come from it
      const chosen = settings.cells ?? defaultCells(view, { query: state.selectedToken, head }, f64);
      const cells = chosen.filter((cell) => cellFits(view, cell));
      exercises = buildExercises(view, cells, settings.tolerance, f64);
      const { relative, absolute } = settings.tolerance;
      tolerance.textContent = t('practice.tolerance', { relative: formatFull(relative * 100), absolute: formatFull(absolute) });
      const skipped = chosen.length - cells.length;
      const noteKeys = [];
      if (!settings.hints) noteKeys.push(t('practice.noHints'));
      if (!settings.cells && view.result.shape.scale === 1) noteKeys.push(t('practice.scaleOff'));
      if (skipped) noteKeys.push(t(cells.length ? 'practice.skipped' : 'practice.noCells', { count: skipped }));
      notes.textContent = noteKeys.join(' ');
      teacher?.fill(view, state);
      const next = JSON.stringify([settings.hints, exercises.map((e) => [e.id, e.truth])]);
      if (next === signature) return;
      signature = next;
      progressOf.clear();
      for (const exercise of exercises) progressOf.set(exercise.id, { status: 'open', hints: 0, attempts: 0 });
      renderCards();
      showTotals({ report: false });
    },

    /** Which views to show: practice hides every table that would give the answers away. */
    views(shown, state) {
      const all = [...container.querySelectorAll('[data-view]')].map((part) => part.dataset.view);
      if (!state.practice) return new Set((shown ? [...shown] : all).filter((name) => name !== 'practice'));
      const views = new Set(['practice']);
      if (!embedded || shown?.has('controls')) views.add('controls');
      return views;
    },

    /** How it is going: { correct, total, hints, done, attempts, summary }. */
    get results() {
      return totals();
    },

    /** The exercises on screen, for tests and course authors: [{ id, cell, truth, mistakes, … }]. */
    get exercises() {
      return exercises;
    },

    /** The allowance for an exercise's true value under the current tolerance. */
    allowance(exercise) {
      return allowance(exercise.truth, settings.tolerance);
    },
  };
}
