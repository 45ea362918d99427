// Practice mode: a feature of the lab (STYLE.md, "How the page grows"). app.mjs mounts it with
// mountPractice(), asks it which views to show, and calls draw() after each computation;
// everything else lives in this folder.
//
// The lab's state carries `practice` (spec.mjs): null explores, an object practises. Chosen cells
// become labelled inputs, one card per exercise in the order of the computation; each card opens
// when the one before it is answered. Results stay in the page. After each answer, hint or reveal
// the lab's element dispatches
//   attention-lab:practice  (bubbling, composed)  detail { correct, total, hints, done, attempts, summary }
// for a host that reports a score (an LMS, a SCORM wrapper).
import { message } from './messages.mjs';
import { parseAnswer } from './answer.mjs';
import { judge } from './check.mjs';
import { defaultCells, buildExercises, cellFits } from './exercises.mjs';
import { forward64 } from './forward64.mjs';
import { practiceSettings } from './spec.mjs';
import { withNewInputs } from './inputs.mjs';
import { createProgress } from './progress.mjs';
import { renderCard, renderHint, renderModeSwitch, renderPanel, showCardStatus, showFeedback, resolve } from './render.mjs';
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
 * container: the lab's element, holding .mode-switch and [data-view="practice"] (app.html);
 * embedded: inside a host page; links: { page, embed, component } or null;
 * getState / setState: the lab's state (setState recomputes); lang: the message catalogue.
 * Returns { draw(view, state), views(shown, state), results, exercises }.
 */
export function mountPractice({ container, root, embedded, links, getState, setState, lang = 'en' }) {
  adoptStyles(root);
  const prefix = `practice-${++mounted}`;
  const t = (key, params) => message(key, params, lang);

  // the mode switch is for the full page: embeds and components choose with an attribute
  const modeSwitch = container.querySelector('.mode-switch');
  const modeButtons = renderModeSwitch(modeSwitch, {
    id: `${prefix}-mode`,
    lang,
    choose(mode) {
      const state = getState();
      if ((mode === 'practice') !== Boolean(state.practice)) setState({ ...state, practice: mode === 'practice' ? {} : null });
    },
  });
  modeSwitch.hidden = embedded;

  const teacher = links?.page && !embedded ? createTeacherPanel({ prefix, t, getState, links, announce: (text) => announce(text) }) : null;
  const panel = renderPanel(container.querySelector('[data-view="practice"]'), { prefix, teacher, lang });

  let view = null;
  let settings = practiceSettings(null);
  let exercises = [];
  let cards = [];
  let signature = '';
  const progress = createProgress();

  function announce(text) {
    // the same sentence twice in a row is still read: clear, then set on the next frame
    panel.announcer.textContent = '';
    requestAnimationFrame(() => { panel.announcer.textContent = text; });
  }

  function results() {
    const totals = progress.totals();
    return { ...totals, summary: t('practice.summary', totals) };
  }

  // progress bar, score, which cards are open; then tell the host
  function showProgress({ report = true } = {}) {
    const now = results();
    panel.progress.max = Math.max(now.total, 1);
    panel.progress.value = now.done;
    panel.progressText.textContent = t('practice.progressText', now);
    panel.score.textContent = t('practice.score', now);
    progress.unlocked().forEach(([id, unlocked], index) => showCardStatus(cards[index], unlocked ? progress.status(id) : 'locked'));
    if (report) container.dispatchEvent(new CustomEvent('attention-lab:practice', { bubbles: true, composed: true, detail: now }));
    return now;
  }

  function check(index) {
    const exercise = exercises[index];
    const parts = cards[index];
    const read = parseAnswer(parts.input.value);
    if (read.value === undefined) {
      const text = t(read.problem, read.params);
      showFeedback(parts, text, 'format');
      announce(text);
      return;
    }
    const verdict = judge(read.value, exercise, settings.tolerance);
    let text;
    if (verdict.correct) {
      const first = progress.correct(exercise.id);
      text = t('verdict.correct', { value: exercise.shown });
      showFeedback(parts, text, 'correct');
      const now = showProgress();
      if (first && now.done === now.total) text = `${text} ${t('practice.finished', { summary: now.summary })}`;
    } else {
      progress.wrong(exercise.id);
      const [mistake] = verdict.mistakes;
      text = mistake ? t('verdict.mistake', { mistake: resolve(mistake, lang) }) : t(settings.hints ? 'verdict.notQuiteHints' : 'verdict.notQuite');
      showFeedback(parts, text, mistake ? 'mistake' : 'wrong', verdict.mistakes);
      showProgress();
    }
    announce(text);
  }

  function hint(index) {
    if (!settings.hints) return;
    const level = progress.hint(exercises[index].id);
    if (level === null) {
      announce(t('hint.noMoreHints'));
      return;
    }
    renderHint(cards[index], exercises[index], level, lang);
    announce(cards[index].hintList.lastElementChild.textContent);
    showProgress();
  }

  function reveal(index) {
    progress.reveal(exercises[index].id);
    const text = t('verdict.revealed', { value: exercises[index].shown });
    showFeedback(cards[index], text, 'revealed');
    showProgress();
    announce(text);
  }

  function renderCards() {
    cards = exercises.map((exercise, index) => {
      const parts = renderCard(exercise, { number: index + 1, total: exercises.length, id: `${prefix}-${index}`, hints: settings.hints, lang });
      parts.form.addEventListener('submit', (event) => {
        event.preventDefault();
        check(index);
      });
      parts.hint.addEventListener('click', () => hint(index));
      parts.reveal.addEventListener('click', () => reveal(index));
      return parts;
    });
    panel.list.replaceChildren(...cards.map((parts) => parts.card));
  }

  panel.another.addEventListener('click', () => {
    if (!view) return;
    const state = getState();
    const seed = practiceSettings(state.practice).seed + 1;
    setState(withNewInputs(state, view, seed, { integer: panel.integer.checked }));
    announce(t('practice.another', { seed }));
  });

  panel.copy.addEventListener('click', async () => {
    const { summary } = results();
    try {
      await navigator.clipboard.writeText(summary);
      announce(t('practice.copied', { summary }));
    } catch {
      // no clipboard here (an insecure origin, a denied permission): show it, to copy by hand
      panel.notes.textContent = t('practice.copyFailed', { summary });
      announce(panel.notes.textContent);
    }
  });

  // the sentences above the cards: tolerance, and what was left out and why
  function showNotes(state, chosen, cells) {
    const { relative, absolute } = settings.tolerance;
    panel.tolerance.textContent = t('practice.tolerance', { relative: formatFull(relative * 100), absolute: formatFull(absolute) });
    const notes = [];
    if (!settings.hints) notes.push(t('practice.noHints'));
    if (!settings.cells && view.result.shape.scale === 1) notes.push(t('practice.scaleOff'));
    const skipped = chosen.length - cells.length;
    if (skipped) notes.push(t(cells.length ? 'practice.skipped' : 'practice.noCells', { count: skipped }));
    panel.notes.textContent = notes.join(' ');
  }

  return {
    /** Rebuilds the exercises for a new computation; progress is kept while the exercises stay the same. */
    draw(nextView, state) {
      if (!state.practice) return;
      view = nextView;
      settings = practiceSettings(state.practice);
      panel.integer.checked = settings.integer;
      const f64 = forward64(view);  // once per computation: the true values and every mistake come from it
      const head = state.selectedHead === 'all' ? 0 : state.selectedHead;
      const chosen = settings.cells ?? defaultCells(view, { query: state.selectedToken, head }, f64);
      const seen = new Set();
      const cells = chosen.filter((cell) => {
        const key = `${cell.matrix}:${cell.head}:${cell.row}:${cell.col}`;
        if (seen.has(key) || !cellFits(view, cell)) return false;
        seen.add(key);
        return true;
      });
      exercises = buildExercises(view, cells, settings.tolerance, f64);
      showNotes(state, chosen, cells);
      teacher?.fill(view, state);
      const next = JSON.stringify([settings.hints, exercises.map((e) => [e.id, e.truth])]);
      if (next === signature) return;
      signature = next;
      progress.reset(exercises.map((e) => e.id));
      renderCards();
      showProgress({ report: false });
    },

    /**
     * Which views to show: practice hides every table that would give the answers away. Called
     * before each draw, so it also marks the mode switch at once.
     */
    views(shown, state) {
      for (const button of modeButtons) button.setAttribute('aria-pressed', String((button.dataset.mode === 'practice') === Boolean(state.practice)));
      const all = [...container.querySelectorAll('[data-view]')].map((part) => part.dataset.view);
      if (!state.practice) return new Set((shown ? [...shown] : all).filter((name) => name !== 'practice'));
      const views = new Set(['practice']);
      if (!embedded || shown?.has('controls')) views.add('controls');
      return views;
    },

    /** How it is going: { correct, total, hints, done, attempts, summary }. */
    get results() {
      return results();
    },

    /** The exercises on screen, for tests and course authors: [{ id, cell, truth, mistakes, … }]. */
    get exercises() {
      return exercises;
    },
  };
}
