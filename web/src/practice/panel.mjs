// The practice panel as the exercises go: its buttons (Try another, whole numbers, Copy summary),
// the sentences above the steps, the progress and score, and what it draws after the lab's tables.
import { practiceSettings } from './spec.mjs';
import { withNewInputs, nextSeed } from './inputs.mjs';
import { showCardStatus } from './render.mjs';
import { announce, results, statusAt } from './session.mjs';
import { formatNumber } from '../shared/format.mjs';

/** The panel's buttons: new inputs from the next seed, whole numbers or decimals, the summary copied. */
export function wirePanel(session) {
  const { panel, host } = session;
  const { t } = host;
  panel.another.addEventListener('click', () => {
    const { view } = session;
    if (!view) return;
    const state = host.state();
    const seed = nextSeed(practiceSettings(state.practice).seed);
    host.replace(withNewInputs(state, view, seed, { integer: panel.integer.checked }));
    announce(session, t('practice.another', { seed }));
  });
  panel.integer.addEventListener('change', () => announce(session, t(panel.integer.checked ? 'practice.integerNext' : 'practice.decimalNext')));
  panel.copy.addEventListener('click', async () => {
    const { summary } = results(session);
    try {
      await navigator.clipboard.writeText(summary);
      announce(session, t('practice.copied', { summary }));
    } catch {
      // no clipboard here (an insecure origin, a denied permission): show it, to copy by hand
      panel.notes.textContent = t('practice.copyFailed', { summary });
      announce(session, panel.notes.textContent);
    }
  });
}

/** Progress bar, score, which cards are open; then the host is told (report: false, not). */
export function showProgress(session, { report = true } = {}) {
  const { panel, host, exercises, cards, steps } = session;
  const { t } = host;
  const now = results(session);
  panel.progress.max = Math.max(now.total, 1);
  panel.progress.value = now.done;
  panel.progressText.textContent = t('practice.progressText', now);
  panel.score.textContent = t('practice.score', now);
  const unlocked = session.progress.unlocked();
  exercises.forEach((exercise, index) => {
    const status = statusAt(session, index, unlocked);
    showCardStatus(cards[index], status);
    steps[index].dataset.status = status;
    steps[index].querySelector('.step-status').textContent = t(`practice.status.${status}`);
  });
  if (report) host.container.dispatchEvent(new CustomEvent('attention-lab:practice', { bubbles: true, composed: true, detail: now }));
  return now;
}

/** The sentences above the steps: the tolerance, and what was left out and why. */
export function showNotes(session) {
  const { panel, settings, view, exercises, skipped, repeated, keptOn } = session;
  const { t } = session.host;
  const { relative, absolute } = settings.tolerance;
  panel.tolerance.textContent = t('practice.tolerance', { relative: formatNumber(relative * 100), absolute: formatNumber(absolute) });
  const notes = [];
  if (!settings.hints) notes.push(t('practice.noHints'));
  if (!settings.cells && view.result.shape.scale === 1) notes.push(t('practice.scaleOff'));
  if (skipped) notes.push(t(exercises.length ? 'practice.skipped' : 'practice.noCells', { count: skipped }));
  if (repeated) notes.push(t('practice.repeated', { count: repeated }));
  if (keptOn !== null) notes.push(t('practice.keptOn', { token: view.tokens[keptOn] }));
  panel.notes.textContent = notes.join(' ');
}

/** After the lab's tables are drawn: the cards beside them, the lit sources, the panel. */
export function drawPanel(session, state) {
  if (!state.practice) return;
  const { panel, settings } = session;
  // the box follows the settings when they change (a link, try another), not on every draw:
  // ticked, it waits for the next Try another
  if (settings.integer !== session.shownInteger) panel.integer.checked = session.shownInteger = settings.integer;
  showNotes(session);
  session.teacher?.fill(session.view, state);
  session.tables.place(session.exercises, session.cards, session.steps);
  session.tables.relight();
  showProgress(session, { report: false });
  if (session.focusNext !== null) {
    const input = session.cards[session.focusNext]?.inputs[0];
    session.focusNext = null;
    if (input?.isConnected && !input.disabled) input.focus();
  }
}
