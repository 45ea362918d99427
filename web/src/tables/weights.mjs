// The parameters: one <details> per weight block (a head's W_q, W_k, W_v and biases; W_O and b_o);
// closed ones are filled when opened (large W_k tables cost time).
//   page: { $(id), t(key, values) }
import { renderMatrix } from '../shared/matrix.mjs';
import { slotIn } from './slots.mjs';
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
  for (const [name, width] of [['wq', view.dK], ['wk', view.dK], ['wv', view.dV]]) {
    const size = view.dModel * width;
    renderMatrix(slot(name), {
      caption: t('caption.perHead', { table: { wq: 'W_q', wk: 'W_k', wv: 'W_v' }[name], head: h + 1 }), t,
      rowLabels: view.columns, columnLabels: tableLabels(view, name).columns,
      values: view.weights[name].subarray(h * size, (h + 1) * size), editable: true,
      address: { matrix: name, head: h },
    });
  }
  // a loaded or trained layer's biases, added after the projections (shown, not edited here)
  for (const [name, width] of [['bq', view.dK], ['bk', view.dK], ['bv', view.dV]]) {
    if (!view.weights[name]) continue;
    renderMatrix(slot(name), {
      caption: t('caption.perHead', { table: { bq: 'b_q', bk: 'b_k', bv: 'b_v' }[name], head: h + 1 }), t, rowLabels: ['b'], columnLabels: name === 'bv' ? valueColumns(view) : keyColumns(view),
      values: view.weights[name].subarray(h * width, (h + 1) * width), address: { matrix: null },
    });
  }
}
