// "Explain this number" in a lab: which computed cell is selected (click, focus, arrow keys), its
// explanation drawn in the panel, and the ways to close it (the button, Esc), after which focus
// returns to the number that was explained.
import { cellOf, select, close, redraw, forget, show, follow } from './selection.mjs';
import { renderExplanation } from './render.mjs';
import { keepRoom } from './sheet.mjs';

export { cellOf };

// selecting a computed number explains it: click, or focus (Tab, arrow keys) on a cell
function listen(panel) {
  const { root, container } = panel;
  container.addEventListener('click', (event) => {
    const td = event.target.closest('td[data-matrix]');
    // a practice blank is for typing in (an input's cell is selected by its focus); a hidden cell
    // (and one whose arithmetic shows a hidden number) says why it is not explained (guard)
    if (td && !td.querySelector('input')) select(panel, td);
  });
  container.addEventListener('focusin', (event) => {
    const td = !panel.refocusing && event.target.closest('td[data-matrix]');
    if (td && td.dataset.practice !== 'blank') select(panel, td);  // an editable input's cell too
  });
  root.getElementById('explain-close').addEventListener('click', () => close(panel));
  // a link to a cell its terms came from (another layer's, or the residual stream's)
  root.getElementById('explain-links').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-link]');
    const link = button && panel.links?.[Number(button.dataset.link)];
    if (link) follow(panel, link.target, panel.dispatch);
  });
  container.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && panel.selected) close(panel);
  });
}

function createPanel({ root, container, getView, t, guard, render, dispatch }) {
  const panel = { root, container, getView, t, guard, dispatch, selected: null, stepHeaders: null, refocusing: false, following: false, links: null, sheet: null };
  panel.render = (explanation) => {
    panel.links = explanation?.links ?? null;
    render(explanation);
    keepRoom(panel, Boolean(explanation));  // the page's scroll padding follows the sheet
  };
  listen(panel);
  return panel;
}

/**
 * The feature contract (tools/CONTRACT.md). draw() marks the selected cell again and explains its
 * value: call it after the tables are drawn. Extras: reset() forgets the selection (a new state),
 * redraw() is draw() without arguments, setGuard(fn) sets practice mode's guard (cell) → a
 * sentence said instead of the arithmetic, or null (the default: everything is explained).
 */
export function mount(ctx) {
  let guard = () => null;
  const panel = createPanel({
    root: ctx.root, container: ctx.container, getView: () => ctx.store.view, t: ctx.t,
    guard: (cell) => guard(cell), render: (explanation) => renderExplanation(ctx.root, explanation),
    // following a link: its token selected, unless it is the one shown (no new state, no redraw)
    dispatch: (action) => (action.type === 'select' && action.token === ctx.store.state.selectedToken ? redraw(panel) : ctx.store.dispatch(action)),
  });
  return {
    relabel: () => show(panel),
    redraw: () => redraw(panel),
    reset: () => forget(panel),
    setGuard(next) { guard = next ?? (() => null); },
  };
}
