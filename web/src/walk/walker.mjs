// The walk itself: where it stands, the cells it marks, and the panel's text. Each function takes
// the walk's own object (made by walk/index.mjs):
//   walker: { container, t, focus(token, head), showLayer(l), strip, panel, parts (the panel's buttons),
//             view (the lab's view with its state), shownHead,
//             walk: { token, head, layer, steps, index, onward } while walking, else null }
import { explainCell } from '../shared/explain-cell.mjs';
import { walkSteps, cellSelector } from './steps.mjs';
import { renderWalkPanel, showMore } from './render.mjs';

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
  walker.panel.scrollTop = 0;  // a new step is read from its start
  showPanel(walker);  // first: the panel's height, with this step's text, sets where the table goes
  highlight(walker, true);
}

function clearHighlight(walker) {
  const { container, strip } = walker;
  for (const cell of container.querySelectorAll('.walk-in, .walk-out, .walk-focus')) cell.classList.remove('walk-in', 'walk-out', 'walk-focus');
  walker.header?.remove();
  walker.header = null;
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
  const focus = focusCells(walker, step, outputs);
  for (const cell of focus) cell.classList.add('walk-focus');
  if (scroll && focus.length) showBelowPanel(walker, focus);
}

const WEIGHTS = new Set(['wq', 'wk', 'wv', 'wo']);
const inMatrix = (cell) => !cell.closest('.steps');

// The cells a step points at (issue 26, point 4): the column of the weights it reads that makes the
// cell it explains (W_q's column for q's), else the cell it explains, else its first result.
function focusCells({ container }, step, outputs) {
  const weights = step.inputs.find(({ matrix }) => WEIGHTS.has(matrix));
  const col = step.explain?.col;
  if (weights) {
    const column = [...container.querySelectorAll(`${cellSelector({ ...weights, col })}.walk-in`)];
    if (column.length) return column;
  }
  const explained = step.explain && [...container.querySelectorAll(cellSelector(step.explain))].find(inMatrix);
  const first = outputs.find(inMatrix) ?? outputs[0];
  return explained ? [explained] : first ? [first] : [];
}

// The table a step points at, scrolled to just below the sticky panel so that the panel covers none
// of its headers, with the cells it points at on screen too (issue 26, point 4): its header row just
// below the panel when the first cell fits under it, else that cell at the foot of the screen, the
// table's header row then repeated just below the panel (repeatHeader). The table's scroller brings
// the cells' column in sideways, clear of the sticky token column.
function showBelowPanel(walker, focus) {
  const table = focus[0].closest('table');
  const panel = Math.ceil(walker.panel.getBoundingClientRect().height) + 8;
  const room = table.ownerDocument.defaultView.innerHeight - panel - 8;
  const top = table.getBoundingClientRect().top;
  const fits = focus.map((cell) => cell.getBoundingClientRect().bottom - top <= room);
  table.style.scrollMarginTop = `${panel}px`;
  if (fits[0]) {
    table.scrollIntoView({ block: 'start', inline: 'nearest' });
    // a column longer than the screen (Action's 64 rows): the cells pointed at are those on it
    focus.forEach((cell, i) => fits[i] || cell.classList.remove('walk-focus'));
  } else {
    const last = focus[focus.length - 1];
    last.style.scrollMarginBottom = '8px';
    last.scrollIntoView({ block: 'end', inline: 'nearest' });
    repeatHeader(walker, table, walker.panel.getBoundingClientRect().bottom);
  }
  bringInSideways(focus[0]);
}

// The header row of a table whose top is scrolled under the panel, drawn again just below the
// panel's edge (a copy in the table's scroller, the table's own column widths), until the next step.
function repeatHeader(walker, table, panelBottom) {
  const head = table.tHead;
  const scroller = table.parentElement?.closest('.scroll');
  if (!head || !scroller || head.getBoundingClientRect().top >= panelBottom - 1) return;
  const copy = table.cloneNode(false);
  copy.removeAttribute('id');
  copy.append(head.cloneNode(true));
  copy.classList.add('walk-header');
  copy.setAttribute('aria-hidden', 'true');
  const [box, frame] = [table.getBoundingClientRect(), scroller.getBoundingClientRect()];
  Object.assign(copy.style, { top: `${panelBottom - frame.top}px`, left: `${box.left - frame.left + scroller.scrollLeft}px`, width: `${box.width}px` });
  const widths = Array.from(head.rows[head.rows.length - 1].cells, (th) => th.getBoundingClientRect().width);
  Array.from(copy.tHead.rows[copy.tHead.rows.length - 1].cells).forEach((th, i) => { th.style.width = `${widths[i]}px`; th.style.boxSizing = 'border-box'; });
  scroller.append(copy);
  walker.header = copy;
}

// the cell's column brought into its scroller, its start just after the sticky token column
function bringInSideways(cell) {
  const scroller = cell.closest('.scroll');
  if (!scroller) return;
  const [box, view] = [cell.getBoundingClientRect(), scroller.getBoundingClientRect()];
  const sticky = cell.closest('tr')?.querySelector('th[scope="row"], th:first-child');
  const left = view.left + (sticky && sticky !== cell ? sticky.getBoundingClientRect().width : 0);
  if (box.left < left - 1 || box.right > view.right + 1) scroller.scrollLeft += box.left - left;
}

export function showPanel(walker) {
  const { walk, parts, t } = walker;
  if (!walk) {
    renderWalkPanel(parts, null, t);
    return showMore(walker.panel, parts.more, false);
  }
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
  showMore(walker.panel, parts.more, true);
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
