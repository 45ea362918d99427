// The walk itself: where it stands, the cells it marks, and the panel's text. Each function takes
// the walk's own object (made by walk/index.mjs):
//   walker: { container, t, focus(token, head), showLayer(l), strip, panel, parts (the panel's buttons),
//             view (the lab's view with its state), shownHead,
//             walk: { token, head, layer, steps, index, onward } while walking, else null }
import { explainCell } from '../shared/explain-cell.mjs';
import { walkSteps, cellSelector } from './steps.mjs';
import { renderWalkPanel } from './render.mjs';

export function begin(walker) {
  if (!walker.view) return;
  walker.walk = { token: null, head: null, steps: [], index: 0 };
  walker.panel.classList.add('active');
  sync(walker);
  go(walker, 0);
  walker.parts.next.focus();
}

export function end(walker) {
  walker.walk = null;
  for (const details of walker.opened ?? []) details.open = false;
  walker.opened?.clear();
  walker.panel.classList.remove('active');
  clearHighlight(walker);
  showPanel(walker);
  walker.parts.start.focus();
}

// the token and head of the lab now; a new token or head (or new numbers) rebuild the steps
function sync(walker) {
  const { walk, view } = walker;
  const token = view.state.selectedToken;
  const head = walker.shownHead;
  if (walk.token !== token || walk.head !== head) walk.index = 0;
  walk.token = token;
  walk.head = head;
  walk.steps = walkSteps(view, token, head, walker.t);
  // another layer shown: the walk goes on at its first step (Next) or its last (Back)
  if (walk.layer !== undefined && walk.layer !== view.layer) walk.index = walk.onward === 'back' ? walk.steps.length - 1 : 0;
  walk.layer = view.layer;
  walk.onward = null;
  walk.index = Math.min(walk.index, walk.steps.length - 1);
}

// In a stack, past a layer's last step the walk goes on into the next layer, and back before its
// first into the one before (the lab shows that layer: a new view, then follow() goes on)
function crossLayer(walker, index) {
  const { walk, view } = walker;
  const layers = view.result.layers?.length ?? 1;
  const to = index >= walk.steps.length ? view.layer + 1 : index < 0 ? view.layer - 1 : view.layer;
  if (to === view.layer || to < 0 || to >= layers) return false;
  walk.onward = to > view.layer ? 'next' : 'back';
  walker.showLayer(to);
  return true;
}

export function go(walker, index) {
  const { walk } = walker;
  if (!walk || crossLayer(walker, index)) return;
  walk.index = Math.max(0, Math.min(index, walk.steps.length - 1));
  walker.focus(walk.token, walk.head);  // the lab redraws if it showed another head
  showPanel(walker);  // first: the panel's height, with this step's text, sets where the table goes
  highlight(walker, true);
}

function clearHighlight({ container, strip }) {
  for (const cell of container.querySelectorAll('.walk-in, .walk-out')) cell.classList.remove('walk-in', 'walk-out');
  for (const b of strip.querySelectorAll('button')) b.removeAttribute('aria-current');
}

// a parameter block the step reads (W_q, W_k, W_v of a head; W_O) is opened so that its cells can be
// outlined; true when one was closed (its cells are drawn on its toggle event)
// (closed again when the walk ends: walker.opened)
function openBlocks({ container, opened: openedBefore }, step, again) {
  let opened = false;
  for (const { matrix, head } of step.inputs) {
    if (!['wq', 'wk', 'wv', 'wo'].includes(matrix)) continue;
    const details = container.querySelector(`#weights details[data-block="${matrix === 'wo' ? 'wo' : `head-${head}`}"]`);
    if (!details || details.open) continue;
    details.addEventListener('toggle', again, { once: true });
    details.open = true;
    openedBefore.add(details);
    opened = true;
  }
  return opened;
}

function highlight(walker, scroll) {
  const { container, strip, walk } = walker;
  clearHighlight(walker);
  const step = walk.steps[walk.index];
  walker.opened ??= new Set();
  if (openBlocks(walker, step, () => walker.walk?.steps[walker.walk.index] === step && highlight(walker, scroll))) return;
  for (const address of step.inputs) for (const cell of container.querySelectorAll(cellSelector(address))) cell.classList.add('walk-in');
  const outputs = step.outputs.flatMap((address) => [...container.querySelectorAll(cellSelector(address))]);
  for (const cell of outputs) cell.classList.add('walk-out');
  strip.querySelector(`[data-stage="${step.stage}"]`)?.setAttribute('aria-current', 'step');
  // bring the result into view: the matrix's cell when there is one, else the step table's
  const shown = outputs.find((cell) => !cell.closest('.steps')) ?? outputs[0];
  if (scroll) showBelowPanel(walker, step, shown);
}

const WEIGHTS = new Set(['wq', 'wk', 'wv', 'wo']);

// The table a step points at, scrolled to just below the sticky panel so that the panel covers none
// of its headers (issue 26, point 4): the weights it reads when it reads some (W_q at step 1), else
// the table of its result; then that table's scroller brings the marked cell's column in sideways.
function showBelowPanel(walker, step, shown) {
  const weights = step.inputs.find(({ matrix }) => WEIGHTS.has(matrix));
  const cell = (weights && walker.container.querySelector(`${cellSelector(weights)}.walk-in`)) ?? shown;
  const table = cell?.closest('table');
  if (!table) return;
  table.style.scrollMarginTop = `${Math.ceil(walker.panel.getBoundingClientRect().height) + 8}px`;
  table.scrollIntoView({ block: 'start', inline: 'nearest' });
  const scroller = table.parentElement?.closest('.scroll');
  if (!scroller) return;
  const [box, view] = [cell.getBoundingClientRect(), scroller.getBoundingClientRect()];
  if (box.right > view.right) scroller.scrollLeft += box.right - view.right + 8;
}

export function showPanel(walker) {
  const { walk, parts, t } = walker;
  if (!walk) return renderWalkPanel(parts, null, t);
  const step = walk.steps[walk.index];
  let lines = step.arithmetic;
  if (!lines && step.explain) {
    const explained = explainCell(walker.view, step.explain, t);
    lines = [t('walk.arithmeticOf', { cell: explained.title }), ...explained.lines, ...(explained.value === null ? [] : [`= ${explained.value}`])];
  }
  const { layer, result } = walker.view;
  const layers = result.layers?.length ?? 1;
  // in a stack: which layer, and whether Next and Back go on into another
  const across = layers > 1 ? { layer: layer + 1, layers, onward: layer + 1 < layers, backward: layer > 0 } : {};
  renderWalkPanel(parts, { index: walk.index, count: walk.steps.length, text: step.text, lines: lines ?? [], ...across }, t);
}

/** After each redraw of the lab: keep the walk on the numbers now shown. */
export function follow(walker, view, state) {
  walker.view = { ...view, state };
  walker.shownHead = state.selectedHead === 'all' ? 0 : state.selectedHead;
  if (!walker.walk) return;
  const crossed = walker.walk.onward !== null && walker.walk.onward !== undefined && walker.walk.layer !== view.layer;
  sync(walker);
  if (crossed) return go(walker, walker.walk.index);  // the step reached in the other layer, scrolled to
  highlight(walker, false);
  showPanel(walker);
}

/** The walk's position, for tests: { index, count, stage } or null. */
export function positionOf({ walk }) {
  return walk ? { index: walk.index, count: walk.steps.length, stage: walk.steps[walk.index].stage } : null;
}
