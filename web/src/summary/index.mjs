// The strongest link, in one sentence under the step table: for the chosen query token and head,
// the key it attends to most and that weight ("'it' attends most to 'tired': weight 0.1808, head 1").
// The smallest complete feature: docs/contributing.md builds it step by step.
import { selectionIn } from '../shared/selection.mjs';
import { formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';

/**
 * The keys with the largest weight in the query's row of one head, and that weight. Keys whose weight
 * reads the same as the largest at the tables' 4 decimals tie: a sentence naming one winner between
 * two cells that show 0.4223 would tell the reader something the table does not.
 */
export function strongestLinks(view, token, head) {
  const row = view.result.heads[head].weights.subarray(token * view.m, (token + 1) * view.m);
  const weight = Math.max(...row);
  const shown = formatNumber(weight);
  return { keys: [...row.keys()].filter((key) => formatNumber(row[key]) === shown), weight };
}

function sentence(ctx, state, view) {
  const { token, head } = selectionIn(state, view);
  const shownHead = head === 'all' ? 0 : head;
  const { keys, weight } = strongestLinks(view, token, shownHead);
  // tokens go in as slots: message() isolates one that could turn the sentence around (right-to-left text)
  const names = keys.map((key) => `'${isolate(view.keyTokens[key])}'`);
  const values = { query: view.tokens[token], weight: formatNumber(weight), head: shownHead + 1 };
  if (names.length === 1) return ctx.t('summary.strongest', { ...values, key: view.keyTokens[keys[0]] });
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
