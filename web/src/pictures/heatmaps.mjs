// The attention heatmaps: the shown head large, every head small beside it (a button that opens
// it), the legend, and the reader's choices (numbers in cells, each row stretched to its own range).
//   pics: { $(id), t, signal, selectHead(head), view, shownHead, ink, numbersChosen }
import { renderHeatmap, renderLegend } from '../shared/heatmap.mjs';

// The colour of canvas labels, read from the styles once per colour scheme: reading a computed
// style in every redraw makes the browser recompute all styles there and then.
export function labelInk(pics) {
  return (pics.ink ??= getComputedStyle(pics.$('heatmap')).color);
}

export function listenHeatmaps(pics) {
  const { $ } = pics;
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { pics.ink = null; }, { signal: pics.signal });
  $('heatmap-grid').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-head]');
    if (button) pics.selectHead(Number(button.dataset.head));
  });
  // numbers in the heatmap's cells: on for small tables until the reader says otherwise
  $('heatmap-numbers').addEventListener('change', () => { pics.numbersChosen = true; drawHeatmaps(pics); });
  $('heatmap-row-scale').addEventListener('change', () => {
    drawLegend(pics);
    drawHeatmaps(pics);
  });
}

export function drawLegend(pics) {
  const { $, t } = pics;
  const stretched = $('heatmap-row-scale').checked;
  renderLegend($('heatmap-legend'), { ink: labelInk(pics), ticks: stretched ? [t('heatmap.rowMin'), '', t('heatmap.rowMax')] : undefined, masked: t('pictures.masked') });
  $('heatmap-legend').setAttribute('aria-label', t(stretched ? 'heatmap.legendStretched' : 'heatmap.legend'));
}

// every head small, when there are several: the shown one pressed
function drawHeadGrid({ $, t, view, shownHead }) {
  const { heads, tokens, m, result } = view;
  const grid = $('heatmap-grid');
  if (heads <= 1) return grid.replaceChildren();
  if (grid.childElementCount !== heads) {
    grid.replaceChildren(...Array.from({ length: heads }, (_, h) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.head = String(h);
      const canvas = document.createElement('canvas');
      button.append(canvas, document.createElement('span'));
      return button;
    }));
  }
  for (const button of grid.children) {
    const h = Number(button.dataset.head);
    button.setAttribute('aria-pressed', String(h === shownHead));
    button.querySelector('span').textContent = t('caption.head', { head: h + 1 });
    button.setAttribute('aria-label', t('pictures.openHead', { head: h + 1 }));
    renderHeatmap(button.querySelector('canvas'), result.heads[h].weights, tokens.length, m, { cell: 8, scaled: result.heads[h].scaled });
  }
}

export function drawHeatmaps(pics) {
  const { $, t, view, shownHead } = pics;
  const { tokens, keyTokens, m, result } = view;
  const ink = labelInk(pics);
  drawHeadGrid(pics);
  const canvas = $('heatmap');
  if (!pics.numbersChosen) $('heatmap-numbers').checked = tokens.length <= 12 && m <= 12;
  canvas.setAttribute('aria-label', t('pictures.heatmapLabel', { head: shownHead + 1 }));
  const layout = renderHeatmap(canvas, result.heads[shownHead].weights, tokens.length, m, {
    cell: tokens.length > 24 || m > 24 ? 14 : 26, rowLabels: tokens, columnLabels: keyTokens, scaled: result.heads[shownHead].scaled, ink,
    numbers: $('heatmap-numbers').checked && tokens.length <= 24 && m <= 24, rowScale: $('heatmap-row-scale').checked,
  });
  Object.assign(canvas.dataset, { head: String(shownHead), left: String(layout.left), top: String(layout.top), cell: String(layout.cell) });
}
