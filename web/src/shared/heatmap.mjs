// Heatmaps of attention weights on <canvas>. Pure drawing: pixels from a matrix and the colour
// scale, nothing else. Every pixel of a cell holds exactly weightColour(weight), so the picture can
// be read back; masked cells are hatched grey, distinct from any weight.
import { weightColour } from './colour.mjs';
import { formatCell, formatNumber } from './format.mjs';

export const LABEL_FONT = '12px system-ui, sans-serif';
// the numbers in the cells: 11 px, never squeezed (numberFit chooses what fits instead)
export const NUMBER_FONT = '11px system-ui, sans-serif';
const NUMBER_PAD = 4;  // px kept clear in a cell beside its number
const HATCH_A = [154, 154, 162];
const HATCH_B = [214, 214, 220];

// Text widths from a canvas outside the document, which needs no style of the page: one per font.
const measurers = new Map();
function measure(text, font = LABEL_FONT) {
  let measurer = measurers.get(font);
  if (!measurer) {
    measurer = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(1, 1).getContext('2d') : document.createElement('canvas').getContext('2d');
    measurer.font = font;
    measurers.set(font, measurer);
  }
  return measurer.measureText(text).width;
}

const NUMBER_CHOICES = [null, 3, 2];  // the lab's significant digits (formatNumber), then 3 decimals, then 2

/**
 * What the numbers in cells `cell` px wide show, given the weights and the width of a text in the
 * number font (textWidth): the lab's significant digits when the widest fits, else 3 decimals,
 * else 2, else none. Pure: { mode: 'full' | 'rounded' | 'hidden', decimals (null unless rounded),
 * texts (one per weight, null for a masked one or when hidden) }. 'rounded' only when some text
 * really differs from the full one (0.5 is 0.5 in every choice).
 */
export function numberFit(cell, weights, textWidth, masked = () => false) {
  const room = cell - NUMBER_PAD;
  const full = Array.from(weights, (w, i) => (masked(i) ? null : formatNumber(w)));
  const widths = new Map();
  const width = (text) => {
    if (!widths.has(text)) widths.set(text, textWidth(text));
    return widths.get(text);
  };
  for (const decimals of NUMBER_CHOICES) {
    const texts = decimals === null ? full : full.map((text, i) => (text === null ? null : formatCell(weights[i], decimals)));
    if (!texts.every((text) => text === null || width(text) <= room)) continue;
    const rounded = texts.some((text, i) => text !== full[i]);
    return { mode: rounded ? 'rounded' : 'full', decimals: rounded ? decimals : null, texts };
  }
  return { mode: 'hidden', decimals: null, texts: full.map(() => null) };
}

// Canvases whose context already has the label font. Setting `font` on a canvas in the document
// makes the browser recompute styles on the spot, so it is set once per context, not per draw.
const hasFont = new WeakSet();

// Where the cells start (room for the labels) and the canvas's size in CSS pixels. With `room` (the
// width the canvas may take), the cells grow to fill it, from minCell up to `cell` at most.
function layoutOf(rows, cols, { cell, minCell, room, rowLabels, columnLabels }) {
  const widest = (labels) => (labels ? Math.max(0, ...labels.map((l) => measure(l))) : 0);
  const left = rowLabels ? Math.ceil(widest(rowLabels)) + 8 : 0;
  const slant = columnLabels ? Math.ceil(widest(columnLabels) * 0.72) : 0;  // rotated labels: width × cos 45°
  const top = columnLabels ? slant + 14 : 0;
  const size = room > 0 ? Math.max(minCell ?? cell, Math.min(cell, Math.floor((room - left - slant - 2) / cols))) : cell;
  return { left, top, cell: size, width: left + cols * size + 2 + slant, height: top + rows * size + 2 };
}

// Resizing a canvas reallocates it (and resets its context's state, font included): only when the size really changes.
function fitCanvas(canvas, context, { width, height }, ratio, labelled) {
  if (canvas.width === Math.round(width * ratio) && canvas.height === Math.round(height * ratio)) return;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  if (labelled) context.font = LABEL_FONT;
}

// A label's ink as measureText gives it, drawn from its anchor with the middle baseline: { left,
// right, up, down } in px (the font's LABEL_FONT)
let boxMeasurer = null;
function inkOf(text) {
  boxMeasurer ??= typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(1, 1).getContext('2d') : document.createElement('canvas').getContext('2d');
  boxMeasurer.font = LABEL_FONT;
  boxMeasurer.textBaseline = 'middle';
  const m = boxMeasurer.measureText(text);
  return { left: m.actualBoundingBoxLeft, right: m.actualBoundingBoxRight, up: m.actualBoundingBoxAscent, down: m.actualBoundingBoxDescent };
}

/**
 * The column labels drawn when they would crowd (`spaced`): every `step`-th from the first, the
 * smallest step at which no two drawn labels' ink boxes intersect as drawn (rotated 45°: in the
 * labels' own frame column c's anchor is c × cell × cos 45° along and across the text). Returns the
 * columns labelled.
 */
export function spacedColumns(labels, cell) {
  const along = cell * Math.SQRT1_2;
  const boxes = labels.map((label, c) => {
    const ink = inkOf(label);
    return { u0: c * along - ink.left, u1: c * along + ink.right, v0: c * along - ink.up, v1: c * along + ink.down };
  });
  const meet = (a, b) => a.u0 < b.u1 && b.u0 < a.u1 && a.v0 < b.v1 && b.v0 < a.v1;
  for (let step = 1; ; step++) {
    const shown = labels.map((_, c) => c).filter((c) => c % step === 0);
    if (step >= labels.length || shown.every((c, i) => shown.slice(i + 1).every((d) => !meet(boxes[c], boxes[d])))) return shown;
  }
}

// The labels; returns the columns labelled when `spaced` (spacedColumns), else null
function drawLabels(context, { left, top }, cell, rowLabels, columnLabels, spaced) {
  context.textBaseline = 'middle';
  context.textAlign = 'right';
  rowLabels?.forEach((label, r) => context.fillText(label, left - 6, top + r * cell + cell / 2));
  if (!columnLabels) return null;
  const columns = spaced ? spacedColumns(columnLabels, cell) : null;
  context.textAlign = 'left';
  columnLabels.forEach((label, c) => {
    if (columns && !columns.includes(c)) return;
    context.save();
    context.translate(left + c * cell + cell / 2, top - 6);
    context.rotate(-Math.PI / 4);
    context.fillText(label, 0, 0);
    context.restore();
  });
  return columns;
}

// Each cell's text (numberFit) in it, at its full width, in the colour that reads on its shade.
function drawNumbers(context, { left, top, cell }, texts, shades, rows, cols) {
  context.font = NUMBER_FONT;
  context.textAlign = 'center';
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const index = r * cols + c;
      if (texts[index] === null) continue;
      context.fillStyle = weightColour(shades[index]).foreground;
      context.fillText(texts[index], left + (c + 0.5) * cell, top + (r + 0.5) * cell + 1);
    }
  }
  context.font = LABEL_FONT;
}

/**
 * Draws weights (rows × cols) with token labels on both axes.
 * options: { cell, minCell, room, rowLabels, columnLabels, scaled, ink, numbers, rowScale } where
 * room (CSS px, optional) is the width the canvas may take: the cells then grow from minCell to fill
 * it, `cell` at most; scaled (same shape) marks −∞ as masked, ink is the label colour (read once by
 * the caller: reading styles per canvas forces a relayout), numbers writes each weight in its cell
 * (as numberFit chooses: 11 px, never squeezed), and rowScale stretches the colours of each row from
 * its smallest weight (lightest) to its largest (darkest); spaced draws only the column labels that
 * do not crowd one another (spacedColumns).
 * Returns the layout { left, top, cell, numbers, columns (the columns labelled, spaced; else null) } in CSS pixels so callers (and tests) can find a
 * cell; numbers is numberFit's mode ('full', 'rounded', 'hidden') and decimals, or null without numbers.
 */
export function renderHeatmap(canvas, weights, rows, cols, { cell = 26, minCell, room = 0, rowLabels = null, columnLabels = null, scaled = null, ink = '#222', numbers = false, rowScale = false, spaced = false } = {}) {
  const context = canvas.getContext('2d');
  const labelled = rowLabels || columnLabels;
  if (labelled && !hasFont.has(context)) {
    context.font = LABEL_FONT;
    hasFont.add(context);
  }
  const layout = layoutOf(rows, cols, { cell, minCell, room, rowLabels, columnLabels });
  const { left, top } = layout;
  cell = layout.cell;
  const ratio = globalThis.devicePixelRatio || 1;
  fitCanvas(canvas, context, layout, ratio, labelled);
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, canvas.width, canvas.height);
  const shades = rowScale ? stretchRows(weights, rows, cols, scaled) : weights;
  paintCells(context, shades, rows, cols, scaled, Math.round(left * ratio), Math.round(top * ratio), cell * ratio);

  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.strokeStyle = 'rgba(128, 128, 140, 0.35)';
  context.lineWidth = 1;
  context.strokeRect(left + 0.5, top + 0.5, cols * cell, rows * cell);
  context.fillStyle = ink;
  const columns = drawLabels(context, layout, cell, rowLabels, columnLabels, spaced);
  const fit = numbers ? numberFit(cell, weights, (text) => measure(text, NUMBER_FONT), (i) => scaled !== null && scaled[i] === -Infinity) : null;
  if (fit && fit.mode !== 'hidden') drawNumbers(context, layout, fit.texts, shades, rows, cols);
  return { left, top, cell, numbers: fit && { mode: fit.mode, decimals: fit.decimals }, columns };
}

// Each row mapped linearly from its own smallest weight (0) to its largest (1); masked cells kept.
function stretchRows(weights, rows, cols, scaled) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let lo = Infinity, hi = -Infinity;
    for (let c = 0; c < cols; c++) {
      if (scaled !== null && scaled[r * cols + c] === -Infinity) continue;
      lo = Math.min(lo, weights[r * cols + c]);
      hi = Math.max(hi, weights[r * cols + c]);
    }
    for (let c = 0; c < cols; c++) out[r * cols + c] = hi > lo ? (weights[r * cols + c] - lo) / (hi - lo) : weights[r * cols + c];
  }
  return out;
}

// The ImageData of the last few sizes painted, reused: every pixel of it is written by each paint
// (paintCells), so none is carried over. A new one per canvas was 0.6–0.7 MB of garbage a heatmap
// (a real model's twelve heads: 7–8 MB a run), freed only when the page's collector next ran.
const IMAGES_KEPT = 3;
const images = new Map();
function imageOf(context, width, height) {
  const key = `${width}x${height}`;
  let image = images.get(key);
  if (image) images.delete(key);
  else image = context.createImageData(width, height);
  images.set(key, image);  // the latest last
  if (images.size > IMAGES_KEPT) images.delete(images.keys().next().value);
  return image;
}

// The cells as one ImageData in device pixels: each pixel gets its cell's colour, masked cells a
// hatch of two greys. One pixel row is built per row of cells and copied down the cell's height:
// far cheaper than a fillRect per cell when eight heads redraw at once.
function paintCells(context, weights, rows, cols, scaled, x0, y0, cellSize) {
  const width = Math.round(cols * cellSize), height = Math.round(rows * cellSize);
  const image = imageOf(context, width, height);
  const data = image.data;
  const column = Array.from({ length: width }, (_, px) => Math.min(cols - 1, Math.floor(px / cellSize)));
  let py = 0;
  for (let r = 0; r < rows; r++) {
    const rowEnd = r === rows - 1 ? height : Math.round((r + 1) * cellSize);
    const first = py;
    let masked = false;
    for (let px = 0; px < width; px++) {
      const index = r * cols + column[px];
      const isMasked = scaled !== null && scaled[index] === -Infinity;
      masked ||= isMasked;
      const rgb = isMasked ? ((px + py) % 6 < 2 ? HATCH_A : HATCH_B) : weightColour(weights[index]).rgb;
      const o = (py * width + px) * 4;
      data[o] = rgb[0];
      data[o + 1] = rgb[1];
      data[o + 2] = rgb[2];
      data[o + 3] = 255;
    }
    for (py = first + 1; py < rowEnd; py++) {
      if (!masked) {
        data.copyWithin(py * width * 4, first * width * 4, (first + 1) * width * 4);
        continue;
      }
      // the hatch runs diagonally, so a row with masked cells is painted pixel by pixel
      for (let px = 0; px < width; px++) {
        const index = r * cols + column[px];
        const rgb = scaled[index] === -Infinity ? ((px + py) % 6 < 2 ? HATCH_A : HATCH_B) : weightColour(weights[index]).rgb;
        const o = (py * width + px) * 4;
        data[o] = rgb[0];
        data[o + 1] = rgb[1];
        data[o + 2] = rgb[2];
        data[o + 3] = 255;
      }
    }
  }
  context.putImageData(image, x0, y0);
}

/** The legend: the scale from 0 to 1 with ticks (or other tick labels), and the masked swatch. */
export function renderLegend(canvas, { width = 220, height = 44, ink = '#222', ticks = ['0', '0.5', '1'], masked = 'masked' } = {}) {
  const context = canvas.getContext('2d');
  const ratio = globalThis.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const barWidth = width - 70;
  const steps = Math.round(barWidth * ratio);
  paintCells(context, Float32Array.from({ length: steps }, (_, i) => i / (steps - 1)), 1, steps, null, 0, 0, 1);
  // stretch the one-pixel row to the bar's height
  context.drawImage(canvas, 0, 0, steps, 1, 0, 0, steps, Math.round(14 * ratio));
  const swatch = Math.round(14 * ratio);
  paintCells(context, [0], 1, 1, [-Infinity], Math.round((barWidth + 14) * ratio), 0, swatch);
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.font = LABEL_FONT;
  context.fillStyle = ink;
  context.textBaseline = 'top';
  [0, 0.5, 1].forEach((at, i) => {
    context.textAlign = at === 0 ? 'left' : at === 1 ? 'right' : 'center';
    context.fillText(ticks[i], at * (barWidth - 1), 20);
  });
  context.textAlign = 'left';
  context.fillText(masked, barWidth + 8, 20);
}
