// The guided walk: the formula as a strip of stages (each jumps to its table) and "Step through",
// which walks one query token through one head, operation by operation, highlighting the cells that
// go in and the cell that comes out, with the arithmetic. The lab's controller calls draw() after
// every redraw; this feature asks the lab (focus) to show the token and head it walks.
import { applyTexts } from '../i18n/page.mjs';
import { buildFormulaStrip, buildWalkPanel, showMore, showRotation } from './render.mjs';
import { begin, end, go, showPanel, follow, positionOf } from './walker.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { rotated } from '../shared/formula-text.mjs';

const STAGE_TARGETS = {
  x: () => '#x-table',
  qkv: (head) => `[data-slot="head-${head}-q"]`,
  // q turned: the rotated Q's table (after "Q before rotation")
  rope: (head) => `[data-slot="head-${head}-q"]`,
  scores: (head) => `[data-slot="head-${head}-scores"]`,
  scaled: (head) => `[data-slot="head-${head}-scaled"]`,
  weights: (head) => `[data-slot="head-${head}-weights"]`,
  z: (head) => `[data-slot="head-${head}-z"]`,
  concat: () => '#concat-table',
  output: () => '#output-table',
};

// a stage of the formula: its first step while walking, else its table
function onStage(walker, event) {
  const button = event.target.closest('button[data-stage]');
  if (!button || !walker.view) return;
  const stage = button.dataset.stage;
  if (walker.walk) {
    const first = walker.walk.steps.findIndex((step) => step.stage === stage);
    if (first >= 0) return go(walker, first);
  }
  const target = walker.container.querySelector(STAGE_TARGETS[stage](walker.shownHead));
  target?.scrollIntoView({ block: 'start' });
  (target?.querySelector('td[tabindex="0"], input') ?? target)?.focus?.({ preventScroll: true });
}

function onPanelKey(walker, event) {
  const { walk } = walker;
  if (!walk) return;
  const move = { ArrowRight: 1, n: 1, N: 1, ArrowLeft: -1, p: -1, P: -1, Home: -Infinity, End: Infinity }[event.key];
  if (move) {
    event.preventDefault();
    go(walker, Number.isFinite(move) ? walk.index + move : move < 0 ? 0 : walk.steps.length - 1);
  } else if (event.key === 'Escape') {
    event.stopPropagation();
    end(walker);
  }
}

// builds the strip and the panel in the lab's markup, with their listeners
function createWalker({ root, container, focus, t }) {
  const formula = root.getElementById('formula');
  const strip = buildFormulaStrip(formula);
  applyTexts(formula, t);
  const panel = root.getElementById('walk');
  const parts = buildWalkPanel(panel);
  applyTexts(panel, t);
  const walker = { root, container, t, focus, formula, strip, panel, parts, view: null, walk: null, shownHead: 0 };
  strip.addEventListener('click', (event) => onStage(walker, event));
  parts.start.addEventListener('click', () => begin(walker));
  parts.next.addEventListener('click', () => go(walker, walker.walk.index + 1));
  parts.back.addEventListener('click', () => go(walker, walker.walk.index - 1));
  parts.stop.addEventListener('click', () => end(walker));
  panel.addEventListener('keydown', (event) => onPanelKey(walker, event));
  // the panel scrolled inside, or its width changed: is there more below what it shows?
  const more = () => showMore(panel, parts.more, Boolean(walker.walk));
  panel.addEventListener('scroll', more, { passive: true });
  // (a frame later: what it hides or shows never makes the observer's own change loop)
  if (typeof ResizeObserver === 'function') new ResizeObserver(() => requestAnimationFrame(more)).observe(panel);
  showPanel(walker);
  return walker;
}

/** The fixed texts again, in the lab's language now (the next draw redoes the steps). */
function relabel(walker) {
  applyTexts(walker.formula, walker.t);
  applyTexts(walker.panel, walker.t);
  if (!walker.walk) showPanel(walker);
}

/**
 * The feature contract (tools/CONTRACT.md). The walk chooses the token and head it shows with a
 * 'select' action (none when the lab shows them already). Extra: position, for tests.
 */
export function mount(ctx) {
  const focus = (token, head) => {
    const { selectedToken, selectedHead } = ctx.store.state;
    if (selectedToken === token && selectedHead === head) return;
    ctx.store.dispatch({ type: 'select', token, head });
  };
  const walker = createWalker({ root: ctx.root, container: ctx.container, focus, t: ctx.t });
  // a stack's walk goes on into the next layer: the lab shows it (a new view, as the layer picker)
  walker.showLayer = (layer) => ctx.store.dispatch({ type: 'settings', change: { selectedLayer: layer } });
  return {
    draw(state, view) {
      const { token, head } = selectionIn(state, view);
      // every head of a layer rotates, or none: head 1 says (the heads' overview shows no head)
      if (showRotation(walker.formula, walker.strip, rotated(view, 0))) applyTexts(walker.formula, walker.t);
      follow(walker, view, { ...state, selectedToken: token, selectedHead: head });
    },
    relabel: () => relabel(walker),
    get position() { return positionOf(walker); },
  };
}
