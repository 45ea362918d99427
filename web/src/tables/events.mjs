// The tables' own controls, as actions: the query token (buttons, arrow keys), the head tabs, an
// example's note buttons (an experiment it proposes, or back to the example), and the step
// table's ÷ √d_k box.

const select = (ctx, selection) => ctx.store.dispatch({ type: 'select', ...selection });

function listenToTokens(ctx, $) {
  $('tokens').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-index]');
    if (!button || !ctx.store.view) return;
    select(ctx, { token: Number(button.dataset.index) });
    $('tokens').querySelector(`[data-index="${ctx.store.state.selectedToken}"]`)?.focus();
  });
  // arrow keys move between the token buttons (one Tab stop: the chosen token)
  $('tokens').addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key] ?? 0;
    const jump = event.key === 'Home' ? -Infinity : event.key === 'End' ? Infinity : 0;
    const view = ctx.store.view;
    if (!view || (!step && !jump) || !event.target.closest('button[data-index]')) return;
    event.preventDefault();
    const last = view.tokens.length - 1;
    const next = jump ? (jump < 0 ? 0 : last) : Math.max(0, Math.min(last, ctx.store.state.selectedToken + step));
    $('tokens').querySelector(`[data-index="${next}"]`)?.click();
  });
}

function listenToHeadTabs(ctx, $) {
  $('head-tabs').addEventListener('click', (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (!tab || !ctx.store.view) return;
    select(ctx, { head: tab.dataset.head === 'all' ? 'all' : Number(tab.dataset.head) });
    $(`tab-${ctx.store.state.selectedHead}`)?.focus();
  });
  $('head-tabs').addEventListener('keydown', (event) => {
    const tabs = [...$('head-tabs').querySelectorAll('[role="tab"]')];
    const at = tabs.indexOf(ctx.root.activeElement);
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (at < 0 || !step) return;
    tabs[(at + step + tabs.length) % tabs.length].click();
  });
}

// A key typed in a cell of a computed X (a layer past the first) says where X is typed, rather than
// nothing (review 6, finding 10)
function listenToComputedX(ctx, $) {
  $('x-table').addEventListener('keydown', (event) => {
    const view = ctx.store.view;
    const typing = event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey;
    if (!typing || !view || view.typedX !== false || !event.target.closest('td[data-matrix="x"]')) return;
    const said = $('x-computed');
    if (!said) return;
    said.textContent = ctx.t('section.xComputed', { layer: view.layer + 1 });
    said.dataset.layer = String(view.layer);
    said.hidden = false;
    // above X, where the explanation panel (open on the cell) does not cover it
    said.scrollIntoView({ block: 'nearest' });
  });
}

/** Wires the tables' controls to the store (ctx: the feature contract's). */
export function listenToTables(ctx) {
  const $ = (id) => ctx.root.getElementById(id);
  listenToTokens(ctx, $);
  listenToHeadTabs(ctx, $);
  listenToComputedX(ctx, $);
  $('notes').addEventListener('click', (event) => {
    const key = event.target.closest('button[data-action]')?.dataset.action;
    if (key) ctx.store.dispatch({ type: 'note', key });
  });
  $('steps-scale').addEventListener('change', (event) => ctx.store.dispatch({ type: 'scaling', on: event.target.checked }));
}
