// A full block's own parameters, editable per layer (issue 23): the MLP's w1 and w2 and the two
// norms' weight γ and bias β of the shown layer, as typed tables; a real model's SwiGLU MLP (Llama,
// Qwen2, Mistral) shows its W_gate, W_up and W_down, read only, each cell explained as the others
// (review 7, finding 2); an RMSNorm shows its γ alone (it has no β). Seeded (engine/stack.mjs) until a
// cell is typed; a typed cell becomes state.blockEdits["layer:table:index"] (state/stack.mjs), which
// links carry, and the stack is computed again.
import { renderMatrix } from '../shared/matrix.mjs';
import { parseNumber } from '../shared/format.mjs';
import { numbered } from '../shared/labels.mjs';
import { FLOAT32_MAX } from '../state/model.mjs';
import { BLOCK_TABLES } from '../state/stack.mjs';
import { layerNumber, normName } from '../shared/layer-name.mjs';

const element = (tag, props = {}) => Object.assign(document.createElement(tag), props);

// A SwiGLU MLP's matrices (a real model's layer): drawn read only, before the norms
const SWIGLU_TABLES = ['wGate', 'wUp', 'wDown'];

/** The tables' parts: a folded block under the stream, one holder per table, and a line for bad input. */
export function buildParams() {
  const box = element('details', { className: 'blocks-params' });
  const summary = element('summary');
  const hint = element('p', { className: 'hint' });
  const problem = element('p', { className: 'blocks-params-problem' });
  problem.setAttribute('role', 'status');
  const tables = [...SWIGLU_TABLES, ...BLOCK_TABLES];
  const holders = Object.fromEntries(tables.map((table) => [table, element('div', { className: 'scroll' })]));
  box.append(summary, hint, problem, ...tables.map((table) => holders[table]));
  return { box, summary, hint, problem, holders };
}

// Each table's rows and columns: model dimensions by the input's names, hidden units h1 … h_f
// (the width a real model's MLP has, state.modelBlock, or the lab's 4 × d_model: w1's columns)
const hiddenOf = (view) => {
  const used = view.layerWeights?.[view.layer];
  return ((used?.w1 ?? used?.wGate)?.length ?? view.dModel * 4 * view.dModel) / view.dModel;
};

// An RMSNorm (a real model's: Llama, Qwen2) has no bias β: its table shows γ alone
const isRms = (view, table) => table.startsWith('ln') && normName(view, view.layer, table === 'ln1' ? 0 : 1).startsWith('RMS');

function labelsOf(table, view, t) {
  const hidden = numbered(hiddenOf(view), 'h');
  if (table === 'w1' || table === 'wGate' || table === 'wUp') return { rows: view.columns, columns: hidden };
  if (table === 'w2' || table === 'wDown') return { rows: hidden, columns: view.columns };
  return { rows: isRms(view, table) ? [t('blocks.params.gamma')] : [t('blocks.params.gamma'), t('blocks.params.beta')], columns: view.columns };
}

// What a table's caption and the messages name: the layer as the reader knows it (a real model's
// layer N, shared/layer-name.mjs), the MLP's width and the norms' names (LN₁ or RMSNorm₁)
const namesOf = (view) => ({ layer: layerNumber(view), hidden: hiddenOf(view), n1: normName(view, view.layer, 0), n2: normName(view, view.layer, 1) });

// The most cells one table of the MLP is drawn with: the lab's largest (d_model 128: 128 × 512). A real
// model's larger MLP (GPT-2 small: 768 × 3072) is computed with, not drawn: millions of editable cells
// would take the page minutes.
export const MAX_DRAWN_CELLS = 128 * 512;

// What the hint says: the seeded tables, or a real model's (state.modelBlock), and why a table is not drawn
function hintOf(used, view, t) {
  if (!used.norms) return t('blocks.params.hint');
  if (!used.w1) {
    const lines = [t('blocks.params.swiglu', namesOf(view))];
    if (!used.wGate || used.wGate.length > MAX_DRAWN_CELLS) {
      lines.push(t('blocks.params.tooLargeSwiglu', { dModel: view.dModel, hidden: hiddenOf(view), count: (3 * (used.wGate?.length ?? 0)).toLocaleString('en'), cap: MAX_DRAWN_CELLS.toLocaleString('en') }));
    }
    return lines.join(' ');
  }
  const lines = [t('blocks.params.modelHint', namesOf(view))];
  if (used.w1.length > MAX_DRAWN_CELLS) {
    lines.push(t('blocks.params.tooLarge', { dModel: view.dModel, hidden: hiddenOf(view), count: (2 * used.w1.length).toLocaleString('en'), cap: MAX_DRAWN_CELLS.toLocaleString('en') }));
  }
  return lines.join(' ');
}

/** Draws the shown layer's tables (a full block only; else the block is hidden). */
export function drawParams(parts, view, t) {
  const used = view.layerWeights?.[view.layer];
  parts.box.hidden = !used?.ln1;
  if (parts.box.hidden) return;
  const values = namesOf(view);
  parts.summary.textContent = t(used.w1 || !used.wGate ? 'blocks.params.title' : 'blocks.params.titleSwiglu', values);
  parts.hint.textContent = hintOf(used, view, t);
  const drawn = (table) => Boolean(used[table]) && used[table].length <= MAX_DRAWN_CELLS;
  for (const table of [...SWIGLU_TABLES, ...BLOCK_TABLES]) {
    parts.holders[table].hidden = !drawn(table);
    if (!drawn(table)) {
      parts.holders[table].replaceChildren();
      continue;
    }
    const { rows, columns } = labelsOf(table, view, t);
    const key = isRms(view, table) ? `blocks.params.${table}Rms` : `blocks.params.${table}`;
    renderMatrix(parts.holders[table], {
      caption: t(key, values), label: t(key, values), t,
      // an RMSNorm's γ only (its table's first row)
      rowLabels: rows, columnLabels: columns, values: table.startsWith('ln') ? used[table].slice(0, rows.length * columns.length) : used[table], editable: !SWIGLU_TABLES.includes(table),
      // every cell selectable and explained (shared/explain-layers.mjs), SwiGLU's read only ones too
      address: { matrix: table },
    });
  }
}

/**
 * Listens to the tables: a number typed becomes the cell's edit (dispatched as a settings change);
 * anything else is marked and said, and the last good numbers stay.
 */
export function listenToParams(parts, { getView, getState, dispatch, t }) {
  parts.box.addEventListener('input', (event) => {
    const input = event.target;
    const td = input.closest('td[data-matrix]');
    const view = getView();
    if (!td || !view) return;
    const { matrix: table, row, col } = td.dataset;
    const width = labelsOf(table, view, t).columns.length;
    const value = parseNumber(input.value);
    if (value === null || Math.abs(value) > FLOAT32_MAX) {
      input.setAttribute('aria-invalid', 'true');
      const { rows, columns } = labelsOf(table, view, t);
      parts.problem.textContent = t('blocks.params.bad', { table: t(isRms(view, table) ? `blocks.params.${table}Rms` : `blocks.params.${table}`, namesOf(view)), row: rows[row], col: columns[col], value: input.value.slice(0, 40) });
      return;
    }
    input.removeAttribute('aria-invalid');
    parts.problem.textContent = '';
    const key = `${view.layer}:${table}:${Number(row) * width + Number(col)}`;
    dispatch({ type: 'settings', change: { blockEdits: { ...getState().blockEdits, [key]: value } } });
  });
}
