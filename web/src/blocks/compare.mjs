// The compare view's difference tables (issue 23): two labs' chosen head and layer, B − A, cell by
// cell, coloured by sign (a negative one also shows its minus sign, so the colour is never the only cue). Pure but for
// the rendering; the two labs themselves are mounted by hosts/compare.mjs.
import { renderMatrix } from '../shared/matrix.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { isolate } from '../shared/bidi.mjs';
import { tableLabels } from '../shared/labels.mjs';
import { streamRows } from './stream.mjs';
import { arrangementOf } from '../state/stack.mjs';
import { stageValues } from '../shared/layer-name.mjs';

/**
 * The differences of two labs' views ({ state, view } each): { weights, output } as
 * { rows, cols, values, rowLabels, columnLabels }, or { mismatch: { a, b } } when the tokens differ in number.
 */
export function differences(a, b) {
  if (a.view.tokens.length !== b.view.tokens.length || a.view.m !== b.view.m) {
    return { mismatch: { a: a.view.tokens.length, b: b.view.tokens.length } };
  }
  const pick = ({ state, view }) => {
    const { head } = selectionIn(state, view);
    return { head: head === 'all' ? 0 : head, view };
  };
  const [pa, pb] = [pick(a), pick(b)];
  const label = (ta, tb) => ta.map((token, i) => (token === tb[i] ? token : `${token} / ${tb[i]}`));
  const minus = (x, y) => Float64Array.from(y, (value, i) => value - x[i]);
  const rowLabels = label(a.view.tokens, b.view.tokens);
  // the layer each side's tables show (its "Show layer"), named when either lab is a stack of more than one
  const stacked = [a, b].some(({ view }) => (view.result.layers?.length ?? 1) > 1);
  const weights = {
    rowLabels, columnLabels: label(a.view.keyTokens, b.view.keyTokens), heads: [pa.head + 1, pb.head + 1],
    layers: stacked ? [(a.view.layer ?? 0) + 1, (b.view.layer ?? 0) + 1] : null,
    values: minus(pa.view.result.heads[pa.head].weights, pb.view.result.heads[pb.head].weights),
  };
  const output = pa.view.result.output.length === pb.view.result.output.length
    // the output's columns named as the lab's output table names them (one rule per axis, issue 26)
    ? { rowLabels, columnLabels: label(tableLabels(pa.view, 'output').columns, tableLabels(pb.view, 'output').columns),
      values: minus(pa.view.result.output, pb.view.result.output) }
    : null;
  return { weights, output, stream: streamDifference(a, b) };
}

/**
 * The residual streams of A's chosen token, B − A, stage by stage through every layer, when both
 * labs are stacks of as many layers and as wide a stream: { rows: [{ key, layer }], values,
 * columnLabels, token }; with blocks of different kinds, only what enters and leaves each layer. Else null.
 */
export function streamDifference(a, b) {
  const [la, lb] = [a.view.result.layers, b.view.result.layers];
  if (!la || !lb || la.length !== lb.length || a.view.dModel !== b.view.dModel) return null;
  const { token } = selectionIn(a.state, a.view);
  const [arrA, arrB] = [arrangementOf(a.state), arrangementOf(b.state)];
  const same = arrA === arrB;
  const rowsOf = (layers, arrangement) => streamRows(layers, arrangement, token, a.view.dModel)
    .filter((row) => same || row.name === 'input' || row.name === 'output');
  const [ra, rb] = [rowsOf(la, arrA), rowsOf(lb, arrB)];
  const values = Float64Array.from(ra.flatMap((row, r) => Array.from(row.values, (v, c) => rb[r].values[c] - v)));
  return { rows: ra.map(({ key, layer }) => ({ key: same ? key : key === 'blocks.stream.enter' ? key : 'blocks.stream.leaves', layer })), values, columnLabels: a.view.columns, token: a.view.tokens[token] };
}

// The row labels of the weights' rows that are 0 in every cell (the same weights in A and B).
function unchangedRows({ values, rowLabels }) {
  const width = values.length / rowLabels.length;
  return rowLabels.filter((_, r) => values.subarray(r * width, (r + 1) * width).every((v) => v === 0));
}

// Each computed cell marked by the sign of its value: the styles colour them (.diff-pos, .diff-neg).
function markSigns(table, values) {
  table.querySelectorAll('tbody td').forEach((td, i) => {
    td.classList.toggle('diff-pos', values[i] > 0);
    td.classList.toggle('diff-neg', values[i] < 0);
  });
}

/** Draws the difference tables into `parts` ({ weights, output, stream?, note }: containers) in the language of `t`. */
export function renderDifferences(parts, a, b, t) {
  const found = differences(a, b);
  if (found.mismatch) {
    parts.note.textContent = t('blocks.compare.mismatch', found.mismatch);
    parts.weights.replaceChildren();
    parts.output.replaceChildren();
    parts.stream?.replaceChildren();
    return found;
  }
  const { weights, output } = found;
  // rows whose weights are the same in both labs, said: a reader expects every row to change
  const same = unchangedRows(weights);
  const hint = weights.layers ? `${t('blocks.compare.hint')} ${t('blocks.compare.layerHint')}` : t('blocks.compare.hint');
  parts.note.textContent = same.length
    ? `${hint} ${t('blocks.compare.same', { tokens: same.map((token) => `‘${isolate(token)}’`).join(', '), count: same.length })}`
    : hint;
  const table = (container, spec, caption) => markSigns(renderMatrix(container, { ...spec, caption, t, address: { matrix: null } }), spec.values);
  // with layers, each caption says which layer of A and of B it shows (review 5, finding 9)
  const [la, lb] = weights.layers ?? [];
  const heads = { a: weights.heads[0], b: weights.heads[1], la, lb };
  table(parts.weights, weights, t(la ? 'blocks.compare.weightsLayers' : 'blocks.compare.weights', heads));
  if (output) table(parts.output, output, la ? t('blocks.compare.outputLayers', heads) : t('blocks.compare.output'));
  else parts.output.replaceChildren();
  // the residual stream, B − A per layer (both labs stacks of as many layers)
  const { stream } = found;
  if (stream && parts.stream) {
    const spec = { rowLabels: stream.rows.map((row) => t(row.key, { ...stageValues(a.view, row.layer - 1), layer: row.layer })), columnLabels: stream.columnLabels, values: stream.values };
    table(parts.stream, spec, t('blocks.compare.stream', { token: stream.token }));
  } else parts.stream?.replaceChildren();
  return found;
}
