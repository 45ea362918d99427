// The parameters: one <details> per weight block (a head's W_q, W_k, W_v and biases; W_O and b_o);
// closed ones are filled when opened (large W_k tables cost time).
//   page: { $(id), t(key, values) }
import { renderMatrix } from '../shared/matrix.mjs';
import { slotIn } from './slots.mjs';
import { kvHeadOf, queryHeadsOf } from '../state/modern.mjs';
import { tableLabels, keyColumns, valueColumns, outputProjectionRows } from '../shared/labels.mjs';

/** openBlocks: the keys of the blocks the reader opened ('head-0', …, 'wo'). */
export function renderWeights(page, view, openBlocks) {
  const { $, t } = page;
  const container = $('weights');
  const blocks = [];
  for (let h = 0; h < view.heads; h++) {
    blocks.push({ key: `head-${h}`, title: t('caption.weightBlock', { head: h + 1, dModel: view.dModel, dK: view.dK, dV: view.dV }), head: h });
  }
  if (view.weights.wo) blocks.push({ key: 'wo', title: t('caption.woBlock', { rows: view.heads * view.dV, cols: view.dModel }) });
  const signature = blocks.map((b) => b.title).join('|');
  if (container.dataset.signature !== signature) {
    container.dataset.signature = signature;
    container.replaceChildren(...blocks.map((block) => {
      const details = document.createElement('details');
      details.dataset.block = block.key;
      details.open = openBlocks.has(block.key);
      const summary = document.createElement('summary');
      summary.textContent = block.title;
      const body = document.createElement('div');
      body.className = 'weight-tables';
      details.append(summary, body);
      return details;
    }));
  }
  for (const details of container.querySelectorAll('details')) {
    if (details.open) fillWeightBlock(page, details, view);
  }
}

function fillOutputProjection(t, slot, view) {
  renderMatrix(slot('wo'), {
    caption: 'W_O', t, rowLabels: outputProjectionRows(view), columnLabels: view.columns,
    values: view.weights.wo, editable: true, address: { matrix: 'wo' },
  });
  if (view.weights.bo) {
    renderMatrix(slot('bo'), { caption: 'b_o', t, rowLabels: ['b'], columnLabels: view.columns, values: view.weights.bo, address: { matrix: null } });
  }
}

export function fillWeightBlock({ t }, details, view) {
  const body = details.querySelector('.weight-tables');
  const key = details.dataset.block;
  const slot = (name) => slotIn(body, name);
  if (key === 'wo') return fillOutputProjection(t, slot, view);
  const h = Number(key.slice('head-'.length));
  // grouped-query attention: W_k and W_v (b_k, b_v) hold kvHeads heads, shown in the block of the
  // first query head reading each; the other blocks say which one they read
  const kvHeads = view.kvHeads ?? view.heads;
  const g = kvHeadOf(h, view.heads, kvHeads);
  const ownsKv = queryHeadsOf(g, view.heads, kvHeads)[0] === h;
  const captionOf = (table, name) => (name === 'wq' || name === 'bq' || kvHeads === view.heads ? t('caption.perHead', { table, head: h + 1 }) : kvCaption(t, table, g, view.heads, kvHeads));
  const usesKv = body.querySelector('p.uses-kv') ?? body.appendChild(Object.assign(document.createElement('p'), { className: 'uses-kv hint' }));
  usesKv.hidden = kvHeads === view.heads;
  usesKv.textContent = usesKv.hidden ? '' : t('modern.usesKv', { head: h + 1, group: g + 1 });
  for (const [name, width] of [['wq', view.dK], ['wk', view.dK], ['wv', view.dV]]) {
    const size = view.dModel * width;
    const at = name === 'wq' ? h : g;
    const target = slot(name);
    target.hidden = name !== 'wq' && !ownsKv;
    if (target.hidden) continue;
    renderMatrix(target, {
      caption: captionOf({ wq: 'W_q', wk: 'W_k', wv: 'W_v' }[name], name), t,
      rowLabels: view.columns, columnLabels: tableLabels(view, name).columns,
      values: view.weights[name].subarray(at * size, (at + 1) * size), editable: true,
      address: { matrix: name, head: at },
    });
  }
  // a loaded or trained layer's biases, added after the projections (shown, not edited here)
  for (const [name, width] of [['bq', view.dK], ['bk', view.dK], ['bv', view.dV]]) {
    if (!view.weights[name] || (name !== 'bq' && !ownsKv)) continue;
    const at = name === 'bq' ? h : g;
    renderMatrix(slot(name), {
      caption: captionOf({ bq: 'b_q', bk: 'b_k', bv: 'b_v' }[name], name), t, rowLabels: ['b'], columnLabels: name === 'bv' ? valueColumns(view) : keyColumns(view),
      values: view.weights[name].subarray(at * width, (at + 1) * width), address: { matrix: null },
    });
  }
}

// W_k's (or b_k's …) caption for key/value head g and the query heads that read it
function kvCaption(t, table, g, heads, kvHeads) {
  const [first, last] = queryHeadsOf(g, heads, kvHeads);
  return first === last ? t('modern.kvBlockOne', { table, group: g + 1, first: first + 1 })
    : t('modern.kvBlock', { table, group: g + 1, first: first + 1, last: last + 1 });
}
