// The attention heatmaps: the shown head large, every head small beside it (a button that opens
// it), the legend, and the reader's choices (numbers in cells, each row stretched to its own range).
// The large one fills its figure's width (cells of 14 to 44 px); a note under it says when its
// numbers are rounded or hidden, and a cell pointed at (title) or tapped (the readout line) gives
// its exact weight.
//   pics: { $(id), t, signal, selectHead(head), view, shownHead, ink, numbersChosen, heatmapRoom, picked }
import { renderHeatmap, renderLegend } from '../shared/heatmap.mjs';
import { formatFull } from '../shared/format.mjs';

const MAX_CELL = 44, MIN_CELL = 14;

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
  listenCells(pics);
}

// the figure's width less its padding: the room the large heatmap fills
function roomOf(figure) {
  const style = getComputedStyle(figure);
  return Math.floor(figure.clientWidth - parseFloat(style.paddingLeft || 0) - parseFloat(style.paddingRight || 0));
}

// The cell under a pointer event on the large heatmap, { row, col }, or null (a label, the margin).
function cellAt(canvas, event) {
  const { left, top, cell } = canvas.dataset;
  if (cell === undefined) return null;
  const box = canvas.getBoundingClientRect();
  const scale = box.width / parseFloat(canvas.style.width || box.width);
  const col = Math.floor(((event.clientX - box.left) / scale - Number(left)) / Number(cell));
  const row = Math.floor(((event.clientY - box.top) / scale - Number(top)) / Number(cell));
  return row >= 0 && col >= 0 && row < Number(canvas.dataset.rows) && col < Number(canvas.dataset.cols) ? { row, col } : null;
}

function listenCells(pics) {
  const { $ } = pics;
  const canvas = $('heatmap');
  // the heatmap is drawn at the width of its figure (wider cells, readable numbers, where there is room)
  const figure = canvas.closest('figure') ?? canvas.parentElement;
  const resizes = new ResizeObserver(() => {
    const room = roomOf(figure);
    if (room === pics.heatmapRoom || room <= 0) return;
    pics.heatmapRoom = room;
    if (pics.view) drawHeatmaps(pics);
  });
  resizes.observe(figure);
  pics.signal?.addEventListener('abort', () => resizes.disconnect());
  // pointed at: the exact weight in the title
  canvas.addEventListener('pointermove', (event) => {
    const at = pics.view && cellAt(canvas, event);
    const { text } = at ? weightAt(pics, at) : { text: '' };
    if (canvas.title !== text) canvas.title = text;
  }, { signal: pics.signal });
  // tapped (or clicked): the exact weight in the readout line under the heatmap
  canvas.addEventListener('click', (event) => {
    const at = pics.view && cellAt(canvas, event);
    if (!at) return;
    pics.picked = at;
    drawReadout(pics);
  }, { signal: pics.signal });
}

// The weight of the shown head at { row, col }: its text ("Row 'it', column 'too': weight 0.05265…",
// the tokens isolated by t() where they could turn the sentence around: a title has no <bdi>) and
// the parts for the readout.
function weightAt({ t, view, shownHead }, { row, col }) {
  const { tokens, keyTokens, m, result } = view;
  const head = result.heads[shownHead];
  const masked = head.scaled?.[row * m + col] === -Infinity;
  const weight = masked ? t('pictures.masked') : formatFull(head.weights[row * m + col]);
  const parts = { row: tokens[row], col: keyTokens[col], weight };
  return { parts, text: t('heatmap.readout', parts) };
}

// The readout line: the template's words as text, each token in a <bdi>, the weight as text.
function drawReadout(pics) {
  const readout = pics.$('heatmap-readout');
  const { picked, view } = pics;
  if (!picked || !view || picked.row >= view.tokens.length || picked.col >= view.m) {
    pics.picked = null;
    readout.hidden = true;
    return readout.replaceChildren();
  }
  const { parts } = weightAt(pics, picked);
  const nodes = pics.t('heatmap.readout').split(/\{(row|col|weight)\}/).map((piece, i) => {
    if (i % 2 === 0) return document.createTextNode(piece);
    const node = document.createElement(piece === 'weight' ? 'strong' : 'bdi');
    node.textContent = parts[piece];
    if (piece === 'weight') node.dataset.weight = '';
    return node;
  });
  readout.replaceChildren(...nodes);
  readout.hidden = false;
}

// The note under the heatmap: said only when its numbers are rounded or hidden.
function drawNote({ $, t }, numbers) {
  const note = $('heatmap-note');
  const mode = numbers?.mode;
  note.hidden = mode !== 'rounded' && mode !== 'hidden';
  note.textContent = note.hidden ? '' : t(mode === 'rounded' ? 'heatmap.numbersRounded' : 'heatmap.numbersHidden', { decimals: numbers.decimals });
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
  const numbers = $('heatmap-numbers').checked;
  canvas.setAttribute('aria-label', t('pictures.heatmapLabel', { head: shownHead + 1 }));
  // the cells fill the figure's width, 14 to 44 px (until that width is known, a frame after the
  // first draw: 26 px, or 14 past 24 tokens); the numbers show as they fit (the note says how)
  const room = pics.heatmapRoom ?? 0;
  const layout = renderHeatmap(canvas, result.heads[shownHead].weights, tokens.length, m, {
    cell: room > 0 ? MAX_CELL : (tokens.length <= 24 && m <= 24 ? 26 : MIN_CELL), minCell: MIN_CELL, room,
    rowLabels: tokens, columnLabels: keyTokens, scaled: result.heads[shownHead].scaled, ink, numbers, rowScale: $('heatmap-row-scale').checked,
  });
  Object.assign(canvas.dataset, {
    head: String(shownHead), left: String(layout.left), top: String(layout.top), cell: String(layout.cell),
    rows: String(tokens.length), cols: String(m), numbers: layout.numbers?.mode ?? 'off',
  });
  drawNote(pics, layout.numbers);
  drawReadout(pics);
}
