// The query token and head a view can show: the state's choice, within the view's sizes (a new
// sentence may be shorter, a new layer may have fewer heads).

/** { token, head } with head an index or 'all'. */
export function selectionIn(state, view) {
  const token = Math.min(state.selectedToken, view.tokens.length - 1);
  const head = state.selectedHead !== 'all' && state.selectedHead >= view.heads ? 0 : state.selectedHead;
  return { token, head };
}
