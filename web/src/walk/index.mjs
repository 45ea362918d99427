// The guided walk: the formula as a strip of stages (each jumps to its table) and "Step through",
// which walks one query token through one head, operation by operation, highlighting the cells that
// go in and the cell that comes out, with the arithmetic. The lab's controller calls draw() after
// every redraw; this feature asks the lab (focus) to show the token and head it walks.
import { applyTexts } from '../i18n/page.mjs';
import { explainCell } from '../shared/explain-cell.mjs';
import { walkSteps, cellSelector } from './steps.mjs';
import { buildFormulaStrip, buildWalkPanel, renderWalkPanel } from './render.mjs';

const STAGE_TARGETS = {
  x: () => '#x-table',
  qkv: (head) => `[data-slot="head-${head}-q"]`,
  scores: (head) => `[data-slot="head-${head}-scores"]`,
  scaled: (head) => `[data-slot="head-${head}-scaled"]`,
  weights: (head) => `[data-slot="head-${head}-weights"]`,
  z: (head) => `[data-slot="head-${head}-z"]`,
  concat: () => '#concat-table',
  output: () => '#output-table',
};

export function createLearn({ root, container, focus, t }) {
  const $ = (id) => root.getElementById(id);
  let view = null;
  let walk = null;      // { token, head, steps, index } while walking
  let shownHead = 0;

  // ---- the formula strip

  const strip = buildFormulaStrip($('formula'));
  applyTexts($('formula'), t);
  strip.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-stage]');
    if (!button || !view) return;
    const stage = button.dataset.stage;
    if (walk) {
      const first = walk.steps.findIndex((step) => step.stage === stage);
      if (first >= 0) return go(first);
    }
    const target = container.querySelector(STAGE_TARGETS[stage](shownHead));
    target?.scrollIntoView({ block: 'start' });
    (target?.querySelector('td[tabindex="0"], input') ?? target)?.focus?.({ preventScroll: true });
  });

  // ---- the walk panel

  const panel = $('walk');
  const parts = buildWalkPanel(panel);
  applyTexts(panel, t);
  const { start, back, next, stop } = parts;

  start.addEventListener('click', () => begin());
  next.addEventListener('click', () => go(walk.index + 1));
  back.addEventListener('click', () => go(walk.index - 1));
  stop.addEventListener('click', () => end());
  panel.addEventListener('keydown', (event) => {
    if (!walk) return;
    const move = { ArrowRight: 1, n: 1, N: 1, ArrowLeft: -1, p: -1, P: -1, Home: -Infinity, End: Infinity }[event.key];
    if (move) {
      event.preventDefault();
      go(Number.isFinite(move) ? walk.index + move : move < 0 ? 0 : walk.steps.length - 1);
    } else if (event.key === 'Escape') {
      event.stopPropagation();
      end();
    }
  });

  function begin() {
    if (!view) return;
    walk = { token: null, head: null, steps: [], index: 0 };
    panel.classList.add('active');
    sync();
    go(0);
    next.focus();
  }

  function end() {
    walk = null;
    panel.classList.remove('active');
    clearHighlight();
    showPanel();
    start.focus();
  }

  // the token and head of the lab now; a new token or head (or new numbers) rebuild the steps
  function sync() {
    const token = view.state.selectedToken;
    const head = shownHead;
    if (walk.token !== token || walk.head !== head) walk.index = 0;
    walk.token = token;
    walk.head = head;
    walk.steps = walkSteps(view, token, head, t);
    walk.index = Math.min(walk.index, walk.steps.length - 1);
  }

  function go(index) {
    if (!walk) return;
    walk.index = Math.max(0, Math.min(index, walk.steps.length - 1));
    focus(walk.token, walk.head);  // the lab redraws if it showed another head
    highlight(true);
    showPanel();
  }

  function clearHighlight() {
    for (const cell of container.querySelectorAll('.walk-in, .walk-out')) cell.classList.remove('walk-in', 'walk-out');
    for (const b of strip.querySelectorAll('button')) b.removeAttribute('aria-current');
  }

  function highlight(scroll) {
    clearHighlight();
    const step = walk.steps[walk.index];
    for (const address of step.inputs) for (const cell of container.querySelectorAll(cellSelector(address))) cell.classList.add('walk-in');
    const outputs = step.outputs.flatMap((address) => [...container.querySelectorAll(cellSelector(address))]);
    for (const cell of outputs) cell.classList.add('walk-out');
    strip.querySelector(`[data-stage="${step.stage}"]`)?.setAttribute('aria-current', 'step');
    // bring the result into view: the matrix's cell when there is one, else the step table's
    const shown = outputs.find((cell) => !cell.closest('.steps')) ?? outputs[0];
    if (scroll) shown?.scrollIntoView({ block: 'center', inline: 'nearest' });
  }

  function showPanel() {
    if (!walk) return renderWalkPanel(parts, null, t);
    const step = walk.steps[walk.index];
    let lines = step.arithmetic;
    if (!lines && step.explain) {
      const explained = explainCell(view, step.explain, t);
      lines = [t('walk.arithmeticOf', { cell: explained.title }), ...explained.lines, ...(explained.value === null ? [] : [`= ${explained.value}`])];
    }
    renderWalkPanel(parts, { index: walk.index, count: walk.steps.length, text: step.text, lines: lines ?? [] }, t);
  }

  showPanel();

  return {
    /** After each redraw of the lab: keep the walk on the numbers now shown. */
    draw(nextView, state) {
      view = { ...nextView, state };
      shownHead = state.selectedHead === 'all' ? 0 : state.selectedHead;
      if (!walk) return;
      sync();
      highlight(false);
      showPanel();
    },
    /** The fixed texts again, in the lab's language now (the next draw redoes the steps). */
    relabel() {
      applyTexts($('formula'), t);
      applyTexts(panel, t);
      if (!walk) showPanel();
    },
    /** The walk's position, for tests: { index, count, stage } or null. */
    get position() {
      return walk ? { index: walk.index, count: walk.steps.length, stage: walk.steps[walk.index].stage } : null;
    },
  };
}
