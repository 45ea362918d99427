// The strongest link, in one sentence under the step table: for the chosen query token and head,
// the key it attends to most and that weight ("'it' attends most to 'tired': weight 0.1808, head 1").
// The smallest complete feature: docs/contributing.md builds it step by step.
import { selectionIn } from '../shared/selection.mjs';
import { formatCell } from '../shared/format.mjs';

// A token inside a sentence is isolated (U+2068 … U+2069), so a right-to-left word cannot reorder it.
const isolated = (text) => `\u2068${text}\u2069`;

/** The keys with the largest weight in the query's row of one head (several when they tie), and that weight. */
export function strongestLinks(view, token, head) {
  const row = view.result.heads[head].weights.subarray(token * view.m, (token + 1) * view.m);
  const weight = Math.max(...row);
  return { keys: [...row.keys()].filter((key) => row[key] === weight), weight };
}

function sentence(ctx, state, view) {
  const { token, head } = selectionIn(state, view);
  const shownHead = head === 'all' ? 0 : head;
  const { keys, weight } = strongestLinks(view, token, shownHead);
  const names = keys.map((key) => `'${isolated(view.keyTokens[key])}'`);
  const values = { query: isolated(view.tokens[token]), weight: formatCell(weight, 4), head: shownHead + 1 };
  if (names.length === 1) return ctx.t('summary.strongest', { ...values, key: names[0] });
  return ctx.t('summary.tied', { ...values, keys: names.join(', ') });
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
