// The embedding plot's controller: which two columns are its axes, and its drawing.
//   pics: { $(id), t, view, plotColumns (the example's own two columns, or null) }
import { renderEmbeddingPlot } from './embedding-plot.mjs';
import { variance } from '../shared/stats.mjs';

export function listenPlot(pics) {
  for (const id of ['plot-x', 'plot-y']) pics.$(id).addEventListener('change', () => drawEmbeddingPlot(pics));
}

// a new sentence or new columns: start on the example's own columns (finance × nature for
// 'bank'), else on the two columns in which the tokens differ most
function chooseAxes({ $, view, plotColumns }) {
  const { columns, dModel } = view;
  const key = `${columns.join('|')}#${view.tokens.join('|')}#${plotColumns?.join('|') ?? ''}`;
  if ($('plot-x').dataset.key === key) return;
  const spread = columns.map((_, c) => variance(view.tokens.map((__, i) => view.x[i * dModel + c])));
  const chosen = (plotColumns ?? []).map((name) => columns.indexOf(name));
  const [first, second = first] = chosen.length === 2 && chosen.every((c) => c >= 0) ? chosen
    : columns.map((_, c) => c).sort((a, b) => spread[b] - spread[a] || a - b);
  for (const [id, column] of [['plot-x', first], ['plot-y', second]]) {
    const select = $(id);
    select.dataset.key = key;
    select.replaceChildren(...columns.map((name, c) => {
      const option = document.createElement('option');
      option.value = String(c);
      option.textContent = name;
      return option;
    }));
    select.value = String(column);
  }
}

export function drawEmbeddingPlot(pics) {
  const { $, t, view } = pics;
  const { columns, dModel, result } = view;
  const note = $('embedding-note');
  const svg = $('embedding-plot');
  if (result.dOut !== dModel || !view.self) {
    svg.replaceChildren();
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    note.textContent = !view.self ? t('pictures.crossPlot') : t('pictures.widthPlot', { dOut: result.dOut, dModel });
    return;
  }
  note.textContent = '';
  chooseAxes(pics);
  const xColumn = Number($('plot-x').value), yColumn = Number($('plot-y').value);
  renderEmbeddingPlot(svg, {
    tokens: view.tokens, before: view.x, after: result.output, width: dModel,
    xColumn, yColumn, xLabel: columns[xColumn], yLabel: columns[yColumn], t,
  });
}
