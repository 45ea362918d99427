// The strongest link, in one sentence under the step table: for the chosen query token and head,
// the key it attends to most and that weight ("'it' attends most to 'tired': weight 0.1808, head 1").
// The smallest complete feature: docs/contributing.md builds it step by step.
import { selectionIn } from '../shared/selection.mjs';
import { formatCell } from '../shared/format.mjs';

// A token inside a sentence is isolated (U+2068 … U+2069), so a right-to-left word cannot reorder it.
const isolated = (text) => `\u2068${text}\u2069`;

/** The key with the largest weight in the query's row of one head (the first of equals). */
export function strongestLink(view, token, head) {
  const weights = view.result.heads[head].weights;
  const row = weights.subarray(token * view.m, (token + 1) * view.m);
  let best = 0;
  for (let key = 1; key < row.length; key++) if (row[key] > row[best]) best = key;
  return { key: best, weight: row[best] };
}

function sentence(ctx, state, view) {
  const { token, head } = selectionIn(state, view);
  const shownHead = head === 'all' ? 0 : head;
  const { key, weight } = strongestLink(view, token, shownHead);
  return ctx.t('summary.strongest', {
    query: isolated(view.tokens[token]), key: isolated(view.keyTokens[key]), weight: formatCell(weight, 4), head: shownHead + 1,
  });
}

/** mount(ctx): the feature contract (docs/architecture.md). */
export function mount(ctx) {
  const section = document.createElement('section');
  section.dataset.view = 'summary';
  const line = document.createElement('p');
  line.id = 'summary';
  line.className = 'summary';
  section.append(line);
  ctx.section('steps').after(section);
  const draw = (state, view) => {
    line.textContent = sentence(ctx, state, view);
  };
  return {
    draw,
    relabel: () => ctx.store.view && draw(ctx.store.state, ctx.store.view),
    destroy: () => section.remove(),
  };
}
