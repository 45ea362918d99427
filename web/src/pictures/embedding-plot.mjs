// The embedding plot: each token before attention (x, hollow) and after (the output, filled) on two
// chosen columns, with an arrow from before to after: the notes' geometric picture (000) of 'bank'
// moving toward 'money' or 'river'.
import { svgElement, resetSvg } from '../shared/svg.mjs';
import { message } from '../i18n/index.mjs';
import { formatCell } from '../shared/format.mjs';

const WIDTH = 460;
const HEIGHT = 340;
const PAD = { left: 48, right: 16, top: 28, bottom: 40 };

export function renderEmbeddingPlot(svg, { tokens, before, after, width, xColumn, yColumn, xLabel, yLabel, t = message }) {
  resetSvg(svg, WIDTH, HEIGHT, t('pictures.plotLabel', { x: xLabel, y: yLabel }));
  const point = (matrix, i) => [matrix[i * width + xColumn], matrix[i * width + yColumn]];
  const all = tokens.flatMap((_, i) => [point(before, i), point(after, i)]);
  const range = (k) => {
    let lo = Math.min(0, ...all.map((p) => p[k])), hi = Math.max(0, ...all.map((p) => p[k]));
    if (hi - lo < 1e-6) { lo -= 0.5; hi += 0.5; }
    const margin = (hi - lo) * 0.08;
    return [lo - margin, hi + margin];
  };
  const [x0, x1] = range(0), [y0, y1] = range(1);
  const sx = (v) => PAD.left + ((v - x0) / (x1 - x0)) * (WIDTH - PAD.left - PAD.right);
  const sy = (v) => HEIGHT - PAD.bottom - ((v - y0) / (y1 - y0)) * (HEIGHT - PAD.top - PAD.bottom);

  const defs = svgElement('defs', {}, svg);
  const marker = svgElement('marker', { id: `${svg.id}-arrow`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
  svgElement('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }, marker);

  // axes through zero, labelled at their ends
  svgElement('line', { x1: sx(x0), y1: sy(0), x2: sx(x1), y2: sy(0), class: 'axis' }, svg);
  svgElement('line', { x1: sx(0), y1: sy(y0), x2: sx(0), y2: sy(y1), class: 'axis' }, svg);
  svgElement('text', { x: WIDTH - PAD.right, y: HEIGHT - 10, 'text-anchor': 'end', class: 'axis-title' }, svg, `${xLabel} →`);
  svgElement('text', { x: 8, y: 12, class: 'axis-title' }, svg, `↑ ${yLabel}`);
  for (const [v, k] of [[x0, 'x'], [x1, 'x'], [y0, 'y'], [y1, 'y']]) {
    const attrs = k === 'x' ? { x: sx(v), y: HEIGHT - PAD.bottom + 14, 'text-anchor': 'middle' } : { x: PAD.left - 6, y: sy(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' };
    svgElement('text', { ...attrs, class: 'tick' }, svg, formatCell(v, 2));
  }

  // every point is labelled, before (below, muted) and after (above); tokens that land on the
  // same spot share one label: "the, of, so, …"
  const labels = new Map();
  const place = (which, matrix) => tokens.forEach((token, i) => {
    const [px, py] = point(matrix, i);
    const key = `${which}:${Math.round(sx(px) / 8)},${Math.round(sy(py) / 8)}`;
    if (!labels.has(key)) labels.set(key, { which, x: sx(px), y: sy(py), names: [] });
    const names = labels.get(key).names;
    if (!names.includes(token)) names.push(token);
  });
  place('before', before);
  place('after', after);

  tokens.forEach((token, i) => {
    const [bx, by] = point(before, i), [ax, ay] = point(after, i);
    const g = svgElement('g', { class: 'embedding-token', 'data-index': i }, svg);
    svgElement('title', {}, g, `${token}: (${formatCell(bx, 2)}, ${formatCell(by, 2)}) → (${formatCell(ax, 2)}, ${formatCell(ay, 2)})`);
    if (Math.hypot(sx(ax) - sx(bx), sy(ay) - sy(by)) > 4) {
      svgElement('line', { x1: sx(bx), y1: sy(by), x2: sx(ax), y2: sy(ay), class: 'move', 'marker-end': `url(#${svg.id}-arrow)` }, g);
    }
    svgElement('circle', { cx: sx(bx), cy: sy(by), r: 4.5, class: 'before' }, g);
    svgElement('circle', { cx: sx(ax), cy: sy(ay), r: 4.5, class: 'after', 'data-x': ax, 'data-y': ay }, g);
  });
  for (const { which, x, y, names } of labels.values()) {
    const text = names.length > 3 ? `${names.slice(0, 3).join(', ')}, … (${names.length})` : names.join(', ');
    // near the right edge a label runs leftwards, so it stays inside the picture
    const side = x > WIDTH - 90 ? { x: x - 7, 'text-anchor': 'end' } : { x: x + 7 };
    const attrs = which === 'after' ? { ...side, y: y - 7, class: 'point-label', 'data-which': 'after' }
      : { ...side, y: y + 14, class: 'point-label before-label', 'data-which': 'before' };
    svgElement('text', attrs, svg, text);
  }
}
