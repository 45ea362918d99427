// The per-head matrices (a tab per head, or every head's weights side by side) and the heads put
// together: their concatenation and the output through W_O.
//   page: { $(id), t(key, values), overlay (practice mode's blanks, or null) }
import { renderMatrix } from '../shared/matrix.mjs';
import { slotIn, unchanged } from './slots.mjs';
import { kvHeadOf } from '../state/modern.mjs';
import { keyColumns, valueColumns, concatColumns } from '../shared/labels.mjs';

export function renderHeadTabs({ $, t }, heads, selected) {
  const tabs = [...Array.from({ length: heads }, (_, h) => [String(h), t('caption.head', { head: h + 1 })]), ...(heads > 1 ? [['all', t('pictures.allHeads')]] : [])];
  const container = $('head-tabs');
  if (unchanged(container, `${heads}|${selected}`)) return;
  container.replaceChildren(...tabs.map(([value, text]) => {
    const tab = document.createElement('button');
    tab.type = 'button';
    tab.setAttribute('role', 'tab');
    tab.id = `tab-${value}`;
    tab.dataset.head = value;
    tab.textContent = text;
    const isSelected = String(selected) === value;
    tab.setAttribute('aria-selected', String(isSelected));
    tab.tabIndex = isSelected ? 0 : -1;
    return tab;
  }));
  $('head-panel').setAttribute('aria-labelledby', `tab-${selected}`);
}

/** selected: a head's index, or 'all' for every head's weights. */
export function renderHeadPanel({ $, t, overlay }, view, selected) {
  const panel = $('head-panel');
  const heads = selected === 'all' ? Array.from({ length: view.heads }, (_, h) => h) : [selected];
  // with rotary positions, q and k before the rotation, then turned (the trace keeps both)
  const qk = view.rotary
    ? [['qUnrotated', t('modern.qBefore')], ['q', t('modern.qRotated')], ['kUnrotated', t('modern.kBefore')], ['k', t('modern.kRotated')]]
    : [['q', 'Q'], ['k', 'K']];
  const matrices = selected === 'all'
    ? [['weights', t('caption.weights')]]
    : [...qk, ['v', 'V'], ['scores', t('caption.scores')], ['scaled', t('table.scaled')], ['weights', t('caption.weights')], ['z', t('caption.z')]];
  const kvHeads = view.kvHeads ?? view.heads;
  const signature = `${selected}|${view.heads}|${Boolean(view.rotary)}|${kvHeads}`;
  if (panel.dataset.signature !== signature) {
    panel.dataset.signature = signature;
    panel.replaceChildren();
    panel.classList.toggle('overview', selected === 'all');
  }
  // grouped-query attention: each query head says which key/value head its K and V are
  if (selected !== 'all' && kvHeads !== view.heads) {
    const line = panel.querySelector('p.uses-kv') ?? panel.appendChild(Object.assign(document.createElement('p'), { className: 'uses-kv hint' }));
    line.textContent = t('modern.usesKv', { head: selected + 1, group: kvHeadOf(selected, view.heads, kvHeads) + 1 });
  }
  for (const h of heads) {
    for (const [name, title] of matrices) {
      const slot = slotIn(panel, `head-${h}-${name}`);
      const trace = view.result.heads[h];
      const square = name === 'scores' || name === 'scaled' || name === 'weights';
      renderMatrix(slot, {
        caption: t('caption.perHead', { table: title, head: h + 1 }), t,
        rowLabels: name === 'k' || name === 'kUnrotated' || name === 'v' ? view.keyTokens : view.tokens,
        columnLabels: square ? view.keyTokens : name === 'v' || name === 'z' ? valueColumns(view) : keyColumns(view),
        values: trace[name],
        shade: name === 'weights', rowSums: name === 'weights',
        address: { matrix: name, head: h }, overlay,
      });
    }
  }
}

export function renderMultihead({ $, t, overlay }, view) {
  // with W = I the values, and so the heads' outputs, keep the input's columns
  const concat = concatColumns(view);
  renderMatrix($('concat-table'), {
    caption: view.heads === 1 ? t('caption.concatOne', { n: view.tokens.length, width: view.dV })
      : t('caption.concat', { heads: view.heads, n: view.tokens.length, width: view.heads * view.dV }),
    t, rowLabels: view.tokens, columnLabels: concat, values: view.result.concat, address: { matrix: 'concat' }, overlay,
  });
  renderMatrix($('output-table'), {
    caption: view.weights.wo ? t('caption.output', { n: view.tokens.length, width: view.dModel }) : t('caption.outputNoWo'),
    t, rowLabels: view.tokens, columnLabels: view.weights.wo ? view.columns : concat,
    values: view.result.output, address: { matrix: 'output' }, overlay,
  });
}
