// Practice mode: a feature of the lab (STYLE.md, "How the page grows"). app.mjs mounts it with
// mountPractice(), asks it which views to show, lets it set the page's overlay (the blanks drawn
// into the computed tables), calls prepare() before each draw of the tables and draw() after it;
// everything else lives in this folder.
//
// The lab's state carries `practice` (spec.mjs): null explores, an object practises. Chosen cells
// of the lab's own tables (Q, scores, scaled, weights, z, concatenation, output) become labelled
// inputs in place, and cells that would give an unanswered exercise away show "?" (blanks.mjs).
// Each exercise has a card beside its table (verdict, hints, the answer); each opens when the one
// before it is answered. Results stay in the page. After each answer, hint or reveal the lab's
// element dispatches
//   attention-lab:practice  (bubbling, composed)  detail { correct, total, hints, done, attempts, summary }
// for a host that reports a score (an LMS, a SCORM wrapper).
import { message } from './messages.mjs';
import { parseAnswer } from './answer.mjs';
import { judgeBlanks } from './check.mjs';
import { defaultCells, buildExercises, cellFits, sourceCellsOf } from './exercises.mjs';
import { planBlanks, withoutOverlaps, cellKey } from './blanks.mjs';
import { createTables } from './tables.mjs';
import { forward64 } from './forward64.mjs';
import { practiceSettings } from './spec.mjs';
import { withNewInputs, nextSeed } from './inputs.mjs';
import { createProgress } from './progress.mjs';
import { renderCard, renderHint, renderModeSwitch, labelModeSwitch, renderPanel, labelPanel, showCardStatus, showFeedback, resolve, element } from './render.mjs';
import { createTeacherPanel } from './teacher.mjs';
import { formatFull } from '../format.mjs';
import css from './practice.css';

// the tables shown one head at a time, under the head tabs
const HEAD_TABLES = new Set(['q', 'k', 'v', 'scores', 'scaled', 'weights', 'z']);
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
 * getState / setState: the lab's state (setState recomputes); setOverlay(fn | null): gives the
 * page's tables the overlay that draws the blanks (page.setOverlay); redraw(): draws the tables
 * again (after an answer reveals what it hid); lang: the message catalogue.
 * Returns { prepare(view, state), draw(view, state), views(shown, state), setLanguage(code), results, exercises }.
 */
export function mountPractice({ container, root, embedded, links, getState, setState, setOverlay, redraw = () => {}, lang: initialLang = 'en' }) {
  adoptStyles(root);
  const prefix = `practice-${++mounted}`;
  let lang = initialLang;
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

  const teacher = links?.page && !embedded ? createTeacherPanel({ prefix, t, getState, links, announce: (text) => announce(text), getLanguage: () => lang }) : null;
  const panel = renderPanel(container.querySelector('[data-view="practice"]'), { prefix, teacher, lang });
  const tables = createTables({ container, t });

  let view = null;
  let preparedFor = null;     // the view the exercises were last chosen for
  let settings = practiceSettings(null);
  let exercises = [];
  let cards = [];
  let steps = [];             // the panel's line per exercise
  let signature = '';
  let chosenWith = '';       // the settings the exercises were chosen with
  let skipped = 0;    // chosen cells this lab does not have
  let repeated = 0;   // chosen cells asked already by another chosen cell (kept once)
  let away = false;           // explore mode for a while: the exercises and their progress wait
  let keptOn = null;          // the token the exercises stay on while another is chosen
  let litFor = null;          // the exercise whose first hint's cells are lit
  let focusNext = null;       // the exercise whose first blank takes the focus after the next draw
  let shownInteger = null;    // the settings' whole-number choice the box last showed
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

  const statusAt = (index, unlocked = progress.unlocked()) => (unlocked[index][1] ? progress.status(exercises[index].id) : 'locked');

  // progress bar, score, which cards are open; then tell the host
  function showProgress({ report = true } = {}) {
    const now = results();
    panel.progress.max = Math.max(now.total, 1);
    panel.progress.value = now.done;
    panel.progressText.textContent = t('practice.progressText', now);
    panel.score.textContent = t('practice.score', now);
    const unlocked = progress.unlocked();
    exercises.forEach((exercise, index) => {
      const status = statusAt(index, unlocked);
      showCardStatus(cards[index], status);
      steps[index].dataset.status = status;
      steps[index].querySelector('.step-status').textContent = t(`status.${status}`);
    });
    if (report) container.dispatchEvent(new CustomEvent('attention-lab:practice', { bubbles: true, composed: true, detail: now }));
    return now;
  }

  // ---- the blanks in the tables

  // After an answer: the plan changes (what it hid is shown, the next blanks open), the tables follow.
  // Its first hint's cells go dark; the next open exercise's head is shown, and its first blank
  // takes the focus when the student was working on this card.
  function answered(index) {
    if (litFor === index) {
      tables.unlight();
      litFor = null;
    }
    const next = exercises.findIndex((_, k) => statusAt(k) === 'open');
    if (next >= 0) {
      const state = getState();
      const blank = exercises[next].blanks[0].cell;
      // its head's tab (the All heads overview shows the weights alone)
      if (HEAD_TABLES.has(blank.matrix) && (state.selectedHead !== 'all' || blank.matrix !== 'weights')) state.selectedHead = blank.head;
      const parts = cards[index];
      if (parts.inputs.includes(root.activeElement) || parts.card.contains(root.activeElement)) focusNext = next;
    }
    usePlan();
    showProgress();
    redraw();
  }

  // A verdict on a card, kept as a function of the language: a language chosen later writes it again.
  function say(index, make, kind, mistakes = [], right = null) {
    const parts = cards[index];
    parts.said = { make, kind, mistakes, right };
    showFeedback(parts, make(), kind, mistakes, right);
    return parts.feedback.textContent;
  }

  function readBlanks(index) {
    const values = [];
    const many = cards[index].inputs.length > 1;
    for (const [k, input] of cards[index].inputs.entries()) {
      const read = parseAnswer(input.value);
      if (read.value === undefined) {
        // the blank's name as its card says it now (the cards are made again in another language)
        const problem = () => {
          const text = t(read.problem, read.params);
          return many ? t('verdict.blankFormat', { blank: cards[index].inputs[k].getAttribute('aria-label'), problem: text }) : text;
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

  function check(index) {
    const exercise = exercises[index];
    const parts = cards[index];
    if (statusAt(index) !== 'open') return;  // locked, or answered already
    const read = readBlanks(index);
    if (read.problem) {
      const text = say(index, read.problem, 'format');
      parts.inputs[read.at].setAttribute('aria-invalid', 'true');
      announce(text);
      return;
    }
    const verdict = judgeBlanks(read.values, exercise, settings.tolerance);
    const many = exercise.blanks.length > 1;
    let text;
    if (verdict.correct) {
      const first = progress.correct(exercise.id);
      exercise.blanks.forEach((blank, k) => showValue(parts.inputs[k], blank.shown));
      text = say(index, () => t(many ? 'verdict.rowCorrect' : 'verdict.correct', { value: exercise.said }), 'correct');
      const now = results();
      if (first && now.done === now.total) text = `${text} ${t('practice.finished', { summary: now.summary })}`;
      answered(index);
    } else {
      progress.wrong(exercise.id);
      const [mistake] = verdict.mistakes;
      const right = verdict.right.filter(Boolean).length;
      const counts = { right, total: exercise.blanks.length };
      const hints = settings.hints;
      let make;
      if (mistake) make = () => t(many ? 'verdict.rowMistake' : 'verdict.mistake', { ...counts, mistake: resolve(mistake, lang) });
      else if (many) make = () => t(hints ? 'verdict.rowNotQuiteHints' : 'verdict.rowNotQuite', counts);
      else make = () => t(hints ? 'verdict.notQuiteHints' : 'verdict.notQuite');
      text = say(index, make, mistake ? 'mistake' : 'wrong', verdict.mistakes, many ? verdict.right : null);
      showProgress();
    }
    announce(text);
  }

  function hint(index) {
    if (!settings.hints || statusAt(index) === 'locked') return;
    const level = progress.hint(exercises[index].id);
    if (level === null) {
      announce(t('hint.noMoreHints'));
      return;
    }
    renderHint(cards[index], exercises[index], level, lang);
    if (level === 1) {
      tables.light(exercises[index].sourceCells, view);  // in place of an earlier hint's
      litFor = index;
      showSourceHead(exercises[index]);
    }
    const given = cards[index].hintList.lastElementChild;
    announce(given.dataset.spoken ?? given.textContent);
    showProgress();
  }

  // Sources in another head's tables (a concatenation entry's z): that head's tab is chosen, so that
  // the lit cells are on screen.
  function showSourceHead(exercise) {
    const state = getState();
    const heads = new Set(exercise.sourceCells.filter((cell) => HEAD_TABLES.has(cell.matrix)).map((cell) => cell.head));
    if (heads.size !== 1 || state.selectedHead === 'all') return;
    const [head] = heads;
    if (head === state.selectedHead) return;
    state.selectedHead = head;
    redraw();
  }

  function reveal(index) {
    if (statusAt(index) !== 'open') return;
    progress.reveal(exercises[index].id);
    const exercise = exercises[index];
    exercise.blanks.forEach((blank, k) => showValue(cards[index].inputs[k], blank.shown));
    const text = say(index, () => t(exercise.blanks.length > 1 ? 'verdict.rowRevealed' : 'verdict.revealed', { value: exercise.said }), 'revealed');
    answered(index);
    announce(text);
  }

  // the plan of blanks for the exercises as they stand, drawn by the tables' overlay
  let plan = new Map();
  function usePlan() {
    plan = planBlanks(view, exercises, (index) => statusAt(index), settings.tolerance);
    tables.use(plan, (index, blank) => cards[index].inputs[blank]);
  }

  // Back to exploring: every cell given back to its table, no card, no lit cell, and no overlay
  // (the tables draw as they do without practice mode). The exercises, the cards with what was
  // typed, and the progress wait: back in practice on the same computation, they are as they were.
  function leave() {
    tables.clear();  // its lit cells too; back in practice, the hint being worked on lights them again
    for (const parts of cards) parts.card.remove();
    away = true;
    setOverlay(null);
  }

  // The focus to exercise `index`'s first blank, its head's tab chosen first when the blank is on
  // another; a locked one says what to answer first.
  function goTo(index) {
    if (statusAt(index) === 'locked') {
      announce(t('practice.locked'));
      return;
    }
    const input = cards[index].inputs[0];
    if (input.isConnected && input.getClientRects().length) {
      input.focus();
      return;
    }
    const state = getState();
    const blank = exercises[index].blanks[0].cell;
    if (HEAD_TABLES.has(blank.matrix)) state.selectedHead = blank.head;  // from All heads too
    focusNext = index;
    redraw();
  }

  // keepLit: the same exercises in another language, whose first hints' cells stay lit
  function renderCards({ keepLit = false } = {}) {
    for (const parts of cards) parts.card.remove();
    if (!keepLit) {
      tables.unlight();
      litFor = null;
    }
    cards = exercises.map((exercise, index) => {
      const parts = renderCard(exercise, { number: index + 1, total: exercises.length, id: `${prefix}-${index}`, hints: settings.hints, lang });
      for (const input of parts.inputs) {
        input.addEventListener('keydown', (event) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          check(index);
        });
      }
      parts.check.addEventListener('click', () => check(index));
      parts.hint.addEventListener('click', () => hint(index));
      parts.reveal.addEventListener('click', () => reveal(index));
      return parts;
    });
    // each step's name is a button to its blank (the tables hold many cells to Tab through)
    steps = exercises.map((exercise, index) => {
      const jump = element('button', { className: 'step-label', text: t('exercise.heading', { number: index + 1, total: exercises.length, label: resolve(exercise.label, lang) }), attributes: { type: 'button' } });
      jump.addEventListener('click', () => goTo(index));
      return element('li', { className: 'step' }, [jump, ' ', element('span', { className: 'step-status' })]);
    });
    panel.list.replaceChildren(...steps);
  }

  panel.another.addEventListener('click', () => {
    if (!view) return;
    const state = getState();
    const seed = nextSeed(practiceSettings(state.practice).seed);
    setState(withNewInputs(state, view, seed, { integer: panel.integer.checked }));
    announce(t('practice.another', { seed }));
  });

  panel.integer.addEventListener('change', () => announce(t(panel.integer.checked ? 'practice.integerNext' : 'practice.decimalNext')));

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

  // the sentences above the steps: tolerance, and what was left out and why
  function showNotes(chosen) {
    const { relative, absolute } = settings.tolerance;
    panel.tolerance.textContent = t('practice.tolerance', { relative: formatFull(relative * 100), absolute: formatFull(absolute) });
    const notes = [];
    if (!settings.hints) notes.push(t('practice.noHints'));
    if (!settings.cells && view.result.shape.scale === 1) notes.push(t('practice.scaleOff'));
    if (skipped) notes.push(t(exercises.length ? 'practice.skipped' : 'practice.noCells', { count: skipped }));
    if (repeated) notes.push(t('practice.repeated', { count: repeated }));
    if (keptOn !== null) notes.push(t('practice.keptOn', { token: view.tokens[keptOn] }));
    panel.notes.textContent = notes.join(' ');
    return chosen;
  }

  // The exercises for a computation: a teacher's cells, or the default sequence. For a new
  // computation the generator may choose another query token and head (where the typical mistakes
  // can be told apart); the lab then shows that token and head.
  // `keep`: the cells of the exercises before (back from explore mode), asked again; on the same
  // numbers they are the same exercises, and their progress stays.
  function chooseExercises(state, keep = null) {
    const f64 = forward64(view);  // once per computation: the true values and every mistake come from it
    const fresh = preparedFor !== view;
    preparedFor = view;
    let chosen = settings.cells ?? keep;
    if (!chosen) {
      chosen = defaultCells(view, { query: state.selectedToken, head: 0, anyQuery: fresh }, f64, settings.tolerance);
    }
    // the lab shows the first exercise's token and head (a teacher's link opens on its blanks)
    const first = chosen.find((cell) => cellFits(view, cell));
    if (first && (fresh || !settings.cells)) {
      state.selectedToken = first.row;
      if (state.selectedHead !== 'all' && (HEAD_TABLES.has(first.matrix) || first.matrix === 'softmax')) state.selectedHead = first.head;
    }
    const fitting = chosen.filter((cell) => cellFits(view, cell));
    const built = withoutOverlaps(buildExercises(view, fitting, settings.tolerance, f64));
    skipped = chosen.length - fitting.length;
    repeated = fitting.length - built.length;
    return built;
  }

  return {
    /**
     * Before the tables are drawn: the exercises for this computation (progress is kept while they
     * stay the same) and the plan of blanks the overlay draws. Outside practice mode, no blanks.
     */
    prepare(nextView, state) {
      if (!state.practice) {
        if (exercises.length) leave();
        return;
      }
      setOverlay(tables.overlay);
      const back = away;
      away = false;
      view = nextView;
      settings = practiceSettings(state.practice);
      // The same computation and settings keep their exercises (a head's tab chosen, an answer
      // redrawn, a visit to explore mode). Another token chosen gives exercises on it, unless work
      // has started on these: then they stay, and the panel says so.
      const settingsKey = JSON.stringify(settings);
      const tokenMoved = !settings.cells && !back && exercises.length > 0 && exercises[0].cell.row !== state.selectedToken;
      const started = progress.started() || cards.some((parts) => parts.inputs.some((input) => input.value.trim() !== ''));
      keptOn = tokenMoved && started && preparedFor === view && settingsKey === chosenWith ? exercises[0].cell.row : null;
      if (preparedFor !== view || settingsKey !== chosenWith || (tokenMoved && !started)) {
        const keep = back && settingsKey === chosenWith && exercises.length ? exercises.map((e) => e.cell) : null;
        const chosenToken = state.selectedToken;
        chosenWith = settingsKey;
        exercises = chooseExercises(state, keep);
        // back from Explore with another token chosen there: the exercises stay on theirs, and say so
        if (keep && started && exercises.length && exercises[0].cell.row !== chosenToken) keptOn = exercises[0].cell.row;
      }
      if (back && litFor !== null && exercises[litFor] && statusAt(litFor) === 'open') tables.light(exercises[litFor].sourceCells, view);
      const next = [JSON.stringify(settings), JSON.stringify(exercises.map((e) => [e.id, e.blanks.map((b) => b.truth)]))].join('\u0001');
      if (next !== signature) {
        signature = next;
        progress.reset(exercises.map((e) => e.id));
        panel.announcer.textContent = '';  // the last verdict was on exercises that are gone
        renderCards();
      }
      usePlan();
    },

    /** After the tables are drawn: the cards beside them, the lit sources, the panel. */
    draw(nextView, state) {
      if (!state.practice) return;
      // the box follows the settings when they change (a link, try another), not on every draw:
      // ticked, it waits for the next Try another
      if (settings.integer !== shownInteger) panel.integer.checked = shownInteger = settings.integer;
      showNotes();
      teacher?.fill(view, state);
      tables.place(exercises, cards, steps);
      tables.relight();
      showProgress({ report: false });
      if (focusNext !== null) {
        const input = cards[focusNext]?.inputs[0];
        focusNext = null;
        if (input?.isConnected && !input.disabled) input.focus();
      }
    },

    /**
     * Which views to show: practice keeps the tables its blanks are in (and what they are made
     * from) and hides the ones that would give the answers away (the step table, the pictures).
     * Called before each draw, so it also marks the mode switch at once.
     */
    views(shown, state) {
      for (const button of modeButtons) button.setAttribute('aria-pressed', String((button.dataset.mode === 'practice') === Boolean(state.practice)));
      const all = [...container.querySelectorAll('[data-view]')].map((part) => part.dataset.view);
      if (!state.practice) return new Set((shown ? [...shown] : all).filter((name) => name !== 'practice'));
      const views = new Set(['practice', 'inputs', 'parameters', 'matrices', 'output']);
      for (const optional of ['controls', 'tokens']) if (!embedded || shown?.has(optional)) views.add(optional);
      return views;
    },

    /**
     * Every word in another language ('en', 'hi'): the switch, the panel, the teacher's panel and
     * the cards, made again with what the student typed, the verdicts and the hints taken. The lab
     * draws next, which puts the new cards and blanks in place.
     */
    setLanguage(code) {
      if (code === lang) return;
      lang = code;
      panel.announcer.textContent = '';  // said already, in the other language
      labelModeSwitch(modeSwitch, lang);
      labelPanel(panel, lang);
      teacher?.relabel();
      if (!cards.length) return;
      const active = root.activeElement;
      const kept = cards.map((parts) => ({
        values: parts.inputs.map((input) => input.value),
        invalid: parts.inputs.map((input) => input.getAttribute('aria-invalid')),
        said: parts.said,
        focused: parts.inputs.indexOf(active),
        focusedButton: [parts.check, parts.hint, parts.reveal].indexOf(active),
      }));
      renderCards({ keepLit: true });
      kept.forEach((before, index) => {
        const parts = cards[index];
        parts.inputs.forEach((input, k) => { input.value = before.values[k]; });
        for (let level = 1; level <= progress.hints(exercises[index].id); level++) renderHint(parts, exercises[index], level, lang);
        if (before.said) say(index, before.said.make, before.said.kind, before.said.mistakes, before.said.right);
        // a blank marked wrong for its format stays marked
        before.invalid.forEach((value, k) => { if (value !== null) parts.inputs[k].setAttribute('aria-invalid', value); });
      });
      usePlan();
      // the focus stays where the student was (after the lab's draw has placed the new card)
      const refocus = kept.findIndex((before) => before.focused >= 0 || before.focusedButton >= 0);
      if (refocus >= 0) {
        const before = kept[refocus];
        const parts = cards[refocus];
        const target = before.focused >= 0 ? parts.inputs[before.focused] : [parts.check, parts.hint, parts.reveal][before.focusedButton];
        requestAnimationFrame(() => target.focus());
      }
    },

    /**
     * What "explain this number" may say of a computed cell while practising: null (explain it),
     * or a sentence saying why not (the cell is hidden, or its arithmetic prints a hidden number).
     */
    explainGuard(cell) {
      if (!getState().practice || !view || !exercises.length) return null;
      // a hidden cell, or the blank of an exercise not answered yet (an answered one shows its value)
      const withheld = (key) => {
        const entry = plan.get(key);
        return Boolean(entry) && (entry.hidden || !['correct', 'revealed'].includes(statusAt(entry.exercise)));
      };
      if (withheld(cellKey(cell))) return t('practice.explainHidden');
      return sourceCellsOf(view, cell).some((source) => withheld(cellKey(source))) ? t('practice.explainUses') : null;
    },

    /** How it is going: { correct, total, hints, done, attempts, summary }. */
    get results() {
      return results();
    },

    /** The exercises on screen, for tests and course authors: [{ id, cell, blanks, truth, mistakes, blind, … }]. */
    get exercises() {
      return exercises;
    },
  };
}
