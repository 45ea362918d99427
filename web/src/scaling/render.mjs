// The scaling lab's pictures: the measured variance of q·k against d_k on log axes, and softmax
// rows as bars. Pure drawing from numbers the engine computed.
import { svgElement, resetSvg } from '../shared/svg.mjs';
import { formatNumber } from '../shared/format.mjs';
import { message } from '../i18n/index.mjs';

const FULL_WIDTH = 460;
const FULL_HEIGHT = 300;
const PAD = { left: 52, right: 16, top: 28, bottom: 44 };

// The width a picture is shown at (its parent's, without padding), within [least, full]: drawn at that
// width, its 12 px labels stay 12 px on a phone (issue 26, point 11), as the embedding plot's do.
function shownWidth(svg, full, least) {
  const parent = svg.parentElement;
  if (!parent) return full;
  const style = getComputedStyle(parent);
  const room = parent.clientWidth - parseFloat(style.paddingLeft || 0) - parseFloat(style.paddingRight || 0);
  return room > 0 ? Math.max(least, Math.min(full, Math.floor(room))) : full;
}

/** rows: [{ dk, unscaled, scaled }] with d_k from 1 to 512; both axes are logarithmic. t: the lab's language. */
export function renderVariancePlot(svg, rows, t = message) {
  const WIDTH = shownWidth(svg, FULL_WIDTH, 280);
  const HEIGHT = Math.round(FULL_HEIGHT * Math.max(0.85, WIDTH / FULL_WIDTH));
  resetSvg(svg, WIDTH, HEIGHT, t('lab.varianceLabel'));
  const xMin = 1, xMax = 512, yMin = 0.1, yMax = 1000;
  const sx = (v) => PAD.left + (Math.log2(v) - Math.log2(xMin)) / (Math.log2(xMax) - Math.log2(xMin)) * (WIDTH - PAD.left - PAD.right);
  const sy = (v) => HEIGHT - PAD.bottom - (Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin)) * (HEIGHT - PAD.top - PAD.bottom);
  for (const dk of [1, 4, 16, 64, 256, 512]) {
    svgElement('line', { x1: sx(dk), y1: sy(yMin), x2: sx(dk), y2: sy(yMax), class: 'grid' }, svg);
    svgElement('text', { x: sx(dk), y: HEIGHT - PAD.bottom + 16, 'text-anchor': 'middle', class: 'tick' }, svg, String(dk));
  }
  for (const v of [0.1, 1, 10, 100, 1000]) {
    svgElement('line', { x1: sx(xMin), y1: sy(v), x2: sx(xMax), y2: sy(v), class: 'grid' }, svg);
    svgElement('text', { x: PAD.left - 6, y: sy(v), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick' }, svg, String(v));
  }
  svgElement('text', { x: WIDTH - PAD.right, y: HEIGHT - 8, 'text-anchor': 'end', class: 'axis-title' }, svg, t('lab.axisDk'));
  svgElement('text', { x: 6, y: 12, class: 'axis-title' }, svg, t('lab.axisVariance'));
  // theory: Var(q·k) = d_k for unit-variance entries, and 1 after dividing by √d_k
  svgElement('line', { x1: sx(1), y1: sy(1), x2: sx(512), y2: sy(512), class: 'theory' }, svg);
  svgElement('line', { x1: sx(1), y1: sy(1), x2: sx(512), y2: sy(1), class: 'theory' }, svg);
  const series = [['unscaled', 'series-a', 'q·k'], ['scaled', 'series-b', 'q·k / √d_k']];
  for (const [key, cls] of series) {
    const path = rows.map((r, i) => `${i ? 'L' : 'M'} ${sx(r.dk).toFixed(1)} ${sy(r[key]).toFixed(1)}`).join(' ');
    svgElement('path', { d: path, class: `${cls} line` }, svg);
    for (const r of rows) {
      svgElement('circle', { cx: sx(r.dk), cy: sy(r[key]), r: 3.5, class: cls, 'data-dk': r.dk, 'data-variance': r[key] }, svg);
    }
  }
  const legend = svgElement('g', { transform: `translate(${PAD.left + 10}, ${PAD.top + 8})` }, svg);
  series.forEach(([, cls, label], i) => {
    svgElement('circle', { cx: 4, cy: i * 16 + 4, r: 4, class: cls }, legend);
    svgElement('text', { x: 14, y: i * 16 + 4, 'dominant-baseline': 'middle', class: 'tick' }, legend, label);
  });
  svgElement('line', { x1: 0, x2: 10, y1: 36, y2: 36, class: 'theory' }, legend);
  svgElement('text', { x: 14, y: 36, 'dominant-baseline': 'middle', class: 'tick' }, legend, t('lab.theoryLegend'));
}

/** Horizontal bars of one softmax row, labelled, with each weight written out. */
export function renderSoftmaxBars(svg, labels, weights, caption) {
  const rowHeight = 22;
  const height = labels.length * rowHeight + 8;
  const width = shownWidth(svg, 360, 240);
  const long = Math.min(200, width - 156);  // a bar of weight 1, with room after it for its number
  resetSvg(svg, width, height, caption);
  labels.forEach((label, i) => {
    const y = 4 + i * rowHeight;
    svgElement('text', { x: 92, y: y + 9, 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick' }, svg, label);
    svgElement('rect', { x: 100, y, width: Math.max(0.5, weights[i] * long), height: rowHeight - 6, class: 'bar', 'data-weight': weights[i] }, svg);
    svgElement('text', { x: 106 + weights[i] * long, y: y + 9, 'dominant-baseline': 'middle', class: 'tick' }, svg, formatNumber(weights[i]));
  });
}
