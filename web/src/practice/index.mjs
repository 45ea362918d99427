// Practice mode: a feature of the lab (STYLE.md, "How the page grows"; the feature contract of
// issue 21). The lab mounts it with mount(ctx), asks it which views to show, lets it set
// the tables' overlay (the blanks drawn into the computed tables), calls prepare() before each draw
// of the tables and draw() after it; everything else lives in this folder:
//   session.mjs    what practice keeps between draws, and the steps every file shares
//   prepare.mjs    the exercises for a computation, and the plan of blanks
//   cards.mjs      the cards and the list of steps; a change of language
//   answering.mjs  Check, Hint, Show the answer
//   panel.mjs      the panel's buttons, notes and progress; what is drawn after the tables
//   render.mjs, tables.mjs, teacher.mjs: the DOM;  exercises.mjs, blanks.mjs, check.mjs, answer.mjs …: pure
//
// The lab's state carries `practice` (spec.mjs): null explores, an object practises. Chosen cells
// of the lab's own tables (Q, scores, scaled, weights, z, concatenation, output) become labelled
// inputs in place, and cells that would give an unanswered exercise away show "?" (blanks.mjs).
// Each exercise has a card beside its table (verdict, hints, the answer); each opens when the one
// before it is answered. Results stay in the page. After each answer, hint or reveal the lab's
// element dispatches
//   attention-lab:practice  (bubbling, composed)  detail { correct, total, hints, done, attempts, summary }
// for a host that reports a score (an LMS, a SCORM wrapper). In a stack, the sequence across layers
// (layers-panel.mjs) counts in it as exercises of their own, and in the work kept.
import { cellKey } from './blanks.mjs';
import { sourceCellsOf } from './exercises.mjs';
import { createSession, results, statusAt } from './session.mjs';
import { wirePanel, drawPanel, showProgress } from './panel.mjs';
import { prepare, leave } from './prepare.mjs';
import { relabel } from './cards.mjs';
import { restoreWork } from './answering.mjs';
import { mountLayerPractice } from './layers-panel.mjs';

/**
 * The feature contract: ctx is the lab's context (root, container, t, language(), store, services, …). Returns
 *   draw(state, view)      after the tables are drawn: the cards beside them, the panel
 *   relabel()              every word in ctx.language(), the student's work kept
 *   destroy()              its listeners ended, its parts removed, no overlay
 *   views(shown, state)    the views to show (practice hides those that would give answers away)
 *   prepare(view, state)   before the tables are drawn: the exercises and the blanks. Returns the
 *                          selection the lab moves to first, { type: 'select', token, head }, or null
 *                          (a new computation's first exercise; the lab applies it before it draws)
 *   explainGuard(cell)     null, or why "explain this number" must not explain `cell` now
 *   results, exercises     how it is going; the exercises on screen
 * Practice changes the state only by ctx.store.dispatch: 'replace' (the mode, new inputs) and
 * 'select' (another head's tables shown; { type: 'select' } alone asks for a draw, after an answer).
 */
export function mount(ctx) {
  const lifetime = new AbortController();
  const session = createSession({
    root: ctx.root,
    container: ctx.container,
    embedded: ctx.embedded,
    links: ctx.links,
    t: ctx.t,
    language: ctx.language,
    state: () => ctx.store.state,
    replace: (state) => ctx.store.dispatch({ type: 'replace', state }),
    select: (selection) => ctx.store.dispatch({ type: 'select', ...selection }),
    setOverlay: (overlay) => ctx.services.setOverlay?.(overlay),
  }, lifetime.signal);
  wirePanel(session);
  // practice across layers (in a stack): its steps count in the progress, the score and the work
  const layers = mountLayerPractice({ section: ctx.section('practice'), t: ctx.t, onAnswer: () => showProgress(session) });
  session.layers = layers;
  return {
    /** Before the tables: its blanks planned; returns a selection ({ token, head }) the tables must show, or null. */
    prepare: (state, view) => prepare(session, view, state),
    draw: (state) => {
      if (state.practice) layers.draw(state, ctx.store.view);  // across layers, in a stack: before the progress counts it
      drawPanel(session, state);
    },
    relabel: () => {
      relabel(session);
      layers.relabel();
    },
    views: (shown, state) => viewsFor(session, shown, state),
    explainGuard: (cell) => explainGuard(session, cell),
    /** How it is going: { correct, total, hints, done, attempts, summary }. */
    get results() { return results(session); },
    /** The exercises on screen, for tests and course authors: [{ id, cell, blanks, truth, mistakes, blind, … }]. */
    get exercises() { return session.exercises; },
    /** The work so far, to keep (SCORM's suspend data): [{ id, status, hints, attempts, answers: [typed text] }], the steps across layers last. */
    get work() {
      const cards = session.progress.records().map((record, index) => ({ ...record, answers: (session.cards[index]?.inputs ?? []).map((input) => input.value) }));
      return [...cards, ...layers.records()];
    },
    /** Puts saved work back (a SCORM relaunch); returns how many exercises matched (steps across layers drawn later: when drawn). */
    resume: (saved) => {
      if (!Array.isArray(saved) || !session.exercises.length) return 0;
      const across = layers.restore(saved);
      return restoreWork(session, saved) + across;
    },
    destroy() {
      lifetime.abort();
      leave(session);
      session.modeSwitch.replaceChildren();
      session.panel.title.parentElement?.replaceChildren();
    },
  };
}

/**
 * Which views to show: practice keeps the tables its blanks are in (and what they are made from)
 * and hides the ones that would give the answers away (the step table, the pictures). Called
 * before each draw, so it also marks the mode switch at once.
 */
function viewsFor(session, shown, state) {
  for (const button of session.modeButtons) button.setAttribute('aria-pressed', String((button.dataset.mode === 'practice') === Boolean(state.practice)));
  // every section's view name, read once (the sections are made as the lab mounts)
  session.viewNames ??= [...session.host.container.querySelectorAll('[data-view]')].map((part) => part.dataset.view);
  const all = session.viewNames;
  if (!state.practice) return new Set((shown ? [...shown] : all).filter((name) => name !== 'practice'));
  const views = new Set(['practice', 'inputs', 'parameters', 'matrices', 'output']);
  for (const optional of ['controls', 'tokens']) if (!session.host.embedded || shown?.has(optional)) views.add(optional);
  return views;
}

/**
 * What "explain this number" may say of a computed cell while practising: null (explain it), or a
 * sentence saying why not (the cell is hidden, or its arithmetic prints a hidden number).
 */
function explainGuard(session, cell) {
  const { view, exercises, plan, host } = session;
  if (!host.state().practice || !view || !exercises.length) return null;
  // a hidden cell, or the blank of an exercise not answered yet (an answered one shows its value)
  const withheld = (key) => {
    const entry = plan.get(key);
    return Boolean(entry) && (entry.hidden || !['correct', 'revealed'].includes(statusAt(session, entry.exercise)));
  };
  if (withheld(cellKey(cell))) return host.t('practice.explainHidden');
  return sourceCellsOf(view, cell).some((source) => withheld(cellKey(source))) ? host.t('practice.explainUses') : null;
}
