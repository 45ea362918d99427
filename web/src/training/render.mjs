// Pictures of a training run: the loss curve (SVG) and a weight matrix as a small heatmap (canvas).
// Pure drawing: numbers in, pixels or SVG nodes out.
import { interpolateRdBu } from 'd3-scale-chromatic';
import { svgElement, resetSvg } from '../shared/svg.mjs';

// The diverging scale, sampled once: blue for negative, red for positive, white for 0.
const DIVERGING = Array.from({ length: 201 }, (_, i) => interpolateRdBu(1 - i / 200).match(/\d+/g).slice(0, 3).map(Number));

/**
 * A (rows × cols) matrix as cells of `cell` px, coloured by value / max|value|. Returns the
 * largest magnitude (the scale). NaN cells are drawn as 0.
 */
export function renderWeightMap(canvas, values, rows, cols, { cell = 6 } = {}) {
  let max = 0;
  for (const v of values) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  const ratio = globalThis.devicePixelRatio || 1;
  const width = cols * cell, height = rows * cell;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const context = canvas.getContext('2d');
  const image = context.createImageData(canvas.width, canvas.height);
  const size = cell * ratio;
  for (let py = 0; py < canvas.height; py++) {
    const r = Math.min(rows - 1, Math.floor(py / size));
    for (let px = 0; px < canvas.width; px++) {
      const c = Math.min(cols - 1, Math.floor(px / size));
      const v = values[r * cols + c];
      const t = max > 0 && Number.isFinite(v) ? v / max : 0;
      const [red, green, blue] = DIVERGING[Math.round((t + 1) * 100)];
      const o = (py * canvas.width + px) * 4;
      image.data[o] = red; image.data[o + 1] = green; image.data[o + 2] = blue; image.data[o + 3] = 255;
    }
  }
  context.putImageData(image, 0, 0);
  return max;
}

/** heads × dModel × d (head-major) → dModel × (heads·d): the heads side by side. */
export function sideBySide(values, heads, dModel, d) {
  const out = new Float32Array(dModel * heads * d);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < dModel; i++)
      for (let j = 0; j < d; j++) out[i * heads * d + h * d + j] = values[(h * dModel + i) * d + j];
  return out;
}

/**
 * The loss curve: training loss per step (a line) and held-out loss at the steps it was measured
 * (a dashed line), on a linear axis from 0 to the largest loss. stepLabel(steps): the last step's tick, in the lab's language.
 */
export function renderLossCurve(svg, { train, heldOut }, { width = 360, height = 180, label = '', stepLabel = (steps) => `step ${steps}` } = {}) {
  resetSvg(svg, width, height, label);
  const left = 40, right = 10, top = 10, bottom = 26;
  // the last step recorded (0 before training, as the status says); the axis spans at least one step
  const last = Math.max(0, train.length ? train.at(-1)[0] : 0, heldOut.length ? heldOut.at(-1)[0] : 0);
  const steps = Math.max(1, last);
  const finite = [...train, ...heldOut].map(([, v]) => v).filter(Number.isFinite);
  const top_ = Math.max(1e-6, ...finite);
  const x = (s) => left + (s / steps) * (width - left - right);
  const y = (v) => top + (1 - Math.min(v, top_) / top_) * (height - top - bottom);
  svgElement('line', { x1: left, y1: y(0), x2: width - right, y2: y(0), class: 'axis' }, svg);
  svgElement('line', { x1: left, y1: top, x2: left, y2: y(0), class: 'axis' }, svg);
  svgElement('text', { x: left - 4, y: y(top_) + 4, 'text-anchor': 'end', class: 'tick' }, svg, top_.toFixed(2));
  svgElement('text', { x: left - 4, y: y(0) + 4, 'text-anchor': 'end', class: 'tick' }, svg, '0');
  svgElement('text', { x: width - right, y: height - 8, 'text-anchor': 'end', class: 'tick' }, svg, stepLabel(last));
  // at most about one point per pixel: a long run stays cheap to draw
  const thin = (points) => (points.length > width ? points.filter((_, i) => i % Math.ceil(points.length / width) === 0 || i === points.length - 1) : points);
  const path = (points) => thin(points).filter(([, v]) => Number.isFinite(v)).map(([s, v], i) => `${i ? 'L' : 'M'}${x(s).toFixed(1)},${y(v).toFixed(1)}`).join('');
  if (train.length) svgElement('path', { d: path(train), class: 'loss-train' }, svg);
  if (heldOut.length) svgElement('path', { d: path(heldOut), class: 'loss-held-out' }, svg);
}
