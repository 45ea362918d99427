// The pictures beside the tables (heatmaps, token lines, the embedding plot): what the reader
// chose in them, and their drawing on every new computation. The pictures' own object, which
// every function in this folder takes first:
//   pics: { $(id), t, signal, selectHead(head), view, shownHead, plotColumns, ink, numbersChosen,
//           heatmapRoom, picked, lines, lineHeads, lineHeadCount, focused, pinned, linesWidth }
import { listenHeatmaps, drawLegend, drawHeatmaps } from './heatmaps.mjs';
import { listenLines, drawLineHeadChoices, labelLineHeads, drawTokenLines } from './lines.mjs';
import { listenPlot, drawEmbeddingPlot } from './plot.mjs';
import { presetById } from '../state/presets.mjs';
import { selectionIn } from '../shared/selection.mjs';

function createPictures({ root, selectHead, signal, t }) {
  const $ = (id) => root.getElementById(id);
  const pics = {
    $, t, signal, selectHead, view: null, shownHead: 0, plotColumns: null, ink: null, numbersChosen: false, heatmapRoom: null, picked: null,
    lines: $('token-lines'), lineHeads: new Set([0]), lineHeadCount: 0, focused: null, pinned: null, linesWidth: 460,
  };
  listenHeatmaps(pics);
  listenLines(pics);
  listenPlot(pics);
  return pics;
}

/** Redraws every picture for a new computation and head ('all' shows the first); plot: the example's two columns, or null. */
function drawPictures(pics, view, head, plot) {
  pics.plotColumns = plot;
  if (!pics.view) drawLegend(pics);
  pics.view = view;
  pics.shownHead = head === 'all' ? 0 : Math.min(head, view.heads - 1);
  drawHeatmaps(pics);
  drawLineHeadChoices(pics);
  labelLineHeads(pics);
  drawTokenLines(pics);
  drawEmbeddingPlot(pics);
}

/** Reads the label colour again and redraws with it (the theme changed). */
function restyle(pics) {
  pics.ink = null;
  if (!pics.view) return;
  drawLegend(pics);
  drawHeatmaps(pics);
}

/**
 * The feature contract (tools/CONTRACT.md). A small heatmap chooses its head with a 'select'
 * action. Extra: restyle(), after a change of theme (the canvas labels' colour is read again).
 */
export function mount(ctx) {
  const pics = createPictures({
    root: ctx.root, signal: ctx.signal, t: ctx.t,
    selectHead: (head) => ctx.store.dispatch({ type: 'select', head }),
  });
  const draw = (state, view) => drawPictures(pics, view, selectionIn(state, view).head, presetById(state.preset)?.plot ?? null);
  return {
    draw,
    relabel() {
      if (!pics.view) return;
      drawLegend(pics);
      if (ctx.store.view) draw(ctx.store.state, ctx.store.view);
    },
    restyle: () => restyle(pics),
  };
}
