// Practice mode's session: one object holding everything practice keeps between draws (its parts on
// the page, the exercises, their cards, the progress), and the small steps the other files share.
// The functions of this folder take the session as their first argument; none keeps state of its own.
//
// session.host is the lab as practice sees it (index.mjs builds it from mount()'s ctx, or from
// mount(ctx)'s context):
//   root, container, embedded, links
//   t(key, values)    a message in the lab's language now;  language(): its code
//   state()           the lab's state now (never changed in place)
//   replace(state)    a whole new state (the lab recomputes)
//   select(selection) { head? }: the tables of that head shown, and the lab drawn again ({}: drawn again)
//   setOverlay(fn)    the tables' overlay that draws the blanks (null: none)
import { planBlanks } from './blanks.mjs';
import { createTables } from './tables.mjs';
import { practiceSettings } from './spec.mjs';
import { createProgress } from './progress.mjs';
import { renderModeSwitch, renderPanel } from './render.mjs';
import { createTeacherPanel } from './teacher.mjs';
import css from './practice.css';

// the tables shown one head at a time, under the head tabs
export const HEAD_TABLES = new Set(['q', 'k', 'v', 'scores', 'scaled', 'weights', 'z']);
let sheet = null;
let mounted = 0;

function adoptStyles(root) {
  if (typeof CSSStyleSheet !== 'function' || !('adoptedStyleSheets' in root)) return;
  sheet ??= new CSSStyleSheet();
  if (!sheet.cssRules.length) sheet.replaceSync(css);
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

/**
 * A session for a lab: the mode switch (full page only), the panel with its teacher's panel (a full
 * page with links), and the tables' overlay; no exercise yet. `signal` ends its listeners.
 */
export function createSession(host, signal) {
  adoptStyles(host.root);
  const prefix = `practice-${++mounted}`;
  const { container, t } = host;
  const session = {
    host,
    prefix,
    labelledIn: host.language(),  // the language the panel and cards were last written in
    modeSwitch: container.querySelector('.mode-switch'),
    view: null,
    preparedFor: null,  // the view the exercises were last chosen for
    settings: practiceSettings(null),
    exercises: [],
    cards: [],
    steps: [],          // the panel's line per exercise
    acrossLines: [],    // the list's lines for the steps across layers (panel.mjs listAcross)
    acrossSignature: null,
    acrossFor: null,
    signature: '',
    chosenWith: '',     // the settings the exercises were chosen with
    skipped: 0,
    repeated: 0,
    away: false,        // explore mode for a while: the exercises and their progress wait
    keptOn: null,       // the token the exercises stay on while another is chosen
    litFor: null,       // the exercise whose first hint's cells are lit
    focusNext: null,    // the exercise whose first blank takes the focus after the next draw
    shownInteger: null, // the settings' whole-number choice the box last showed
    plan: new Map(),    // the blanks as the tables' overlay draws them (blanks.mjs)
    progress: createProgress(),
  };
  // the mode switch is for the full page: embeds and components choose with an attribute
  session.modeButtons = renderModeSwitch(session.modeSwitch, { id: `${prefix}-mode`, t, choose: (mode) => chooseMode(session, mode) });
  session.modeSwitch.hidden = host.embedded;
  session.teacher = host.links?.page && !host.embedded
    ? createTeacherPanel({ prefix, t, getState: host.state, links: host.links, announce: (text) => announce(session, text), getLanguage: host.language })
    : null;
  session.panel = renderPanel(container.querySelector('[data-view="practice"]'), { prefix, teacher: session.teacher, t });
  session.tables = createTables({ container, t, signal });
  return session;
}

function chooseMode(session, mode) {
  const state = session.host.state();
  if ((mode === 'practice') !== Boolean(state.practice)) session.host.replace({ ...state, practice: mode === 'practice' ? {} : null });
}

/** Says `text` to a screen reader (the same sentence twice in a row is still read: cleared, then set on the next frame). */
export function announce(session, text) {
  const { announcer } = session.panel;
  announcer.textContent = '';
  requestAnimationFrame(() => { announcer.textContent = text; });
}

/** How it is going: { correct, total, hints, done, attempts, summary }, the steps across layers counted (a stack's). */
export function results(session) {
  const totals = session.progress.totals();
  const across = session.layers?.totals();
  if (across) for (const key of Object.keys(totals)) totals[key] += across[key];
  return { ...totals, summary: session.host.t('practice.summary', totals) };
}

/** An exercise's status: 'locked' until the one before it is answered, else open, correct or revealed. */
export function statusAt(session, index, unlocked = session.progress.unlocked()) {
  return unlocked[index][1] ? session.progress.status(session.exercises[index].id) : 'locked';
}

/** The plan of blanks for the exercises as they stand, given to the tables' overlay. */
export function usePlan(session) {
  session.plan = planBlanks(session.view, session.exercises, (index) => statusAt(session, index), session.settings.tolerance);
  session.tables.use(session.plan, (index, blank) => session.cards[index].inputs[blank]);
}
