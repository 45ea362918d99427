// The practice panel as the exercises go: its buttons (Try another, whole numbers, Copy summary),
// the sentences above the steps, the progress and score, and what it draws after the lab's tables.
import { practiceSettings } from './spec.mjs';
import { withNewInputs, nextSeed } from './inputs.mjs';
import { showCardStatus, element, resolve } from './render.mjs';
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
  listAcross(session, exercises.length);
  if (report) host.container.dispatchEvent(new CustomEvent('attention-lab:practice', { bubbles: true, composed: true, detail: now }));
  return now;
}

/**
 * The steps across layers (a stack's, layers-panel.mjs) in the list of steps after the cards' own,
 * numbered on from them, each a button to its first blank with its status; every line's "of N"
 * counts them too (review 6, finding 3). Lines made again only when the steps or their words change.
 */
function listAcross(session, cardCount) {
  const { panel, host } = session;
  const { t } = host;
  const across = session.layers?.lines() ?? [];
  const total = cardCount + across.length;
  // in a stack, the cards' lines and headings name the layer their tables are of (review 6, finding 3)
  const layer = (session.view?.result.layers?.length ?? 1) > 1 ? session.view.layer + 1 : null;
  const signature = JSON.stringify([total, layer, across.map((line) => [line.id, line.text])]);
  if (session.acrossSignature !== signature || session.acrossFor !== session.steps) {
    Object.assign(session, { acrossSignature: signature, acrossFor: session.steps });
    session.acrossLines = across.map((line, k) => {
      const jump = element('button', { className: 'step-label', text: t('practice.exercise.heading', { number: cardCount + k + 1, total, label: line.text }), attributes: { type: 'button' } });
      jump.addEventListener('click', () => {
        const now = session.layers.lines()[k];
        if (now?.status === 'locked') announce(session, t('practice.locked'));
        else now?.focus();
      });
      return element('li', { className: 'step', attributes: { 'data-id': line.id } }, [jump, ' ', element('span', { className: 'step-status' })]);
    });
    // the cards' own lines and headings say the same total
    session.steps.forEach((step, index) => {
      const own = resolve(session.exercises[index].label, t);
      const label = layer === null ? own : t('practice.inLayer', { layer, label: own });
      const text = t('practice.exercise.heading', { number: index + 1, total, label });
      step.querySelector('.step-label').textContent = text;
      const heading = session.cards[index]?.card.querySelector('h3');
      if (heading) heading.textContent = text;
    });
  }
  across.forEach((line, k) => {
    const item = session.acrossLines[k];
    item.dataset.status = line.status;
    item.querySelector('.step-status').textContent = t(`practice.status.${line.status}`);
  });
  const lines = [...session.steps, ...session.acrossLines];
  if (panel.list.children.length !== lines.length || lines.some((line, k) => panel.list.children[k] !== line)) panel.list.replaceChildren(...lines);
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
