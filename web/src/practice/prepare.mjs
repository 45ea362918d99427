// Before the lab's tables are drawn: the exercises for this computation (kept, with their progress,
// while the computation and the settings stay the same) and the plan of blanks the overlay draws.
import { defaultCells, buildExercises, cellFits } from './exercises.mjs';
import { withoutOverlaps } from './blanks.mjs';
import { forward64 } from './forward64.mjs';
import { practiceSettings } from './spec.mjs';
import { HEAD_TABLES, statusAt, usePlan } from './session.mjs';
import { renderCards } from './cards.mjs';
import { withNotesSlips } from './slips.mjs';

/**
 * Prepares practice for a draw of `view` with `state`. Returns the selection the lab moves to
 * before it draws, { type: 'select', token, head } (a new computation's first exercise: its query
 * token and head), or null. Outside practice mode there are no blanks.
 */
export function prepare(session, view, state) {
  if (!state.practice) {
    if (session.exercises.length) leave(session);
    return null;
  }
  session.host.setOverlay(session.tables.overlay);
  const back = session.away;
  session.away = false;
  session.view = view;
  session.settings = practiceSettings(state.practice);
  const selection = exercisesFor(session, state, back);
  if (back && session.litFor !== null && session.exercises[session.litFor] && statusAt(session, session.litFor) === 'open') {
    session.tables.light(session.exercises[session.litFor].sourceCells, view);
  }
  const next = [JSON.stringify(session.settings), JSON.stringify(session.exercises.map((e) => [e.id, e.blanks.map((b) => b.truth)]))].join('\u0001');
  if (next !== session.signature) {
    session.signature = next;
    session.progress.reset(session.exercises.map((e) => e.id));
    session.panel.announcer.textContent = '';  // the last verdict was on exercises that are gone
    renderCards(session);
  }
  usePlan(session);
  return selection;
}

// What the exercises were asked on: the sentence's tokens and, for a real model's layer, which one
const onWhat = (view) => JSON.stringify([view.tokens, view.model?.model ?? null, view.model?.layer ?? null]);

// The same computation and settings keep their exercises (a head's tab chosen, an answer redrawn, a
// visit to explore mode). Another token chosen gives exercises on it, unless work has started on
// these: then they stay, and the panel says so. Returns the selection new exercises move the lab to.
function exercisesFor(session, state, back) {
  const { exercises, view } = session;
  const settingsKey = JSON.stringify(session.settings);
  const tokenMoved = !session.settings.cells && !back && exercises.length > 0 && exercises[0].cell.row !== state.selectedToken;
  const started = session.progress.started() || session.cards.some((parts) => parts.inputs.some((input) => input.value.trim() !== ''));
  const same = session.preparedFor === view && settingsKey === session.chosenWith;
  session.keptOn = tokenMoved && started && same ? exercises[0].cell.row : null;
  if (same && !(tokenMoved && !started)) return null;
  // back from Explore on the same sentence (and model layer): the same cells; on another, new ones
  // (a BERT layer's cells kept for a Qwen2 layer asked a score of a pair its causal mask removes)
  const on = onWhat(view);
  const keep = back && settingsKey === session.chosenWith && on === session.chosenOn && exercises.length ? exercises.map((e) => e.cell) : null;
  session.chosenWith = settingsKey;
  session.chosenOn = on;
  const { chosen, selection } = chooseExercises(session, state, keep);
  session.exercises = chosen;
  // back from Explore with another token chosen there: the exercises stay on theirs, and say so
  if (keep && started && chosen.length && chosen[0].cell.row !== state.selectedToken) session.keptOn = chosen[0].cell.row;
  return selection;
}

// The exercises for a computation: a teacher's cells, or the default sequence, first on the head the
// lab shows (review 6, finding 13: a model's layer opened on head 2 practised head 1). For a new
// computation the generator may choose another query token and head (where the typical mistakes
// can be told apart); the lab then shows that token and head (the selection returned).
// `keep`: the cells of the exercises before (back from explore mode), asked again; on the same
// numbers they are the same exercises, and their progress stays.
// The query and head the default sequence starts from: a head other than the first that the reader
// selected (as "Open this layer in the lab" selects one) is kept while any query fits it
function chosenHead(state, fresh) {
  const head = Number.isInteger(state.selectedHead) ? state.selectedHead : 0;
  return { query: state.selectedToken, head, anyQuery: fresh, stayOnHead: head > 0 };
}

function chooseExercises(session, state, keep = null) {
  const { view, settings } = session;
  const f64 = forward64(view);  // once per computation: the true values and every mistake come from it
  const fresh = session.preparedFor !== view;
  session.preparedFor = view;
  const cells = settings.cells ?? keep ?? defaultCells(view, chosenHead(state, fresh), f64, settings.tolerance);
  // the lab shows the first exercise's token and head (a teacher's link opens on its blanks)
  const first = cells.find((cell) => cellFits(view, cell));
  let selection = null;
  if (first && (fresh || !settings.cells)) {
    const showsHead = state.selectedHead !== 'all' && (HEAD_TABLES.has(first.matrix) || first.matrix === 'softmax');
    selection = { type: 'select', token: first.row, head: showsHead ? first.head : state.selectedHead };
  }
  const fitting = cells.filter((cell) => cellFits(view, cell));
  const chosen = withNotesSlips(withoutOverlaps(buildExercises(view, fitting, settings.tolerance, f64)), view, state, settings.tolerance);
  session.skipped = cells.length - fitting.length;  // chosen cells this lab does not have
  session.repeated = fitting.length - chosen.length;  // asked already by another chosen cell (kept once)
  return { chosen, selection };
}

// Back to exploring: every cell given back to its table, no card, no lit cell, and no overlay
// (the tables draw as they do without practice mode). The exercises, the cards with what was
// typed, and the progress wait: back in practice on the same computation, they are as they were.
export function leave(session) {
  session.tables.clear();  // its lit cells too; back in practice, the hint being worked on lights them again
  for (const parts of session.cards) parts.card.remove();
  session.away = true;
  session.host.setOverlay(null);
}
