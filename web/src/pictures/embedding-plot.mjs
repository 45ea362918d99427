// The embedding plot: each token before attention (x, hollow) and after (the output, filled) on two
// chosen columns, with an arrow from before to after: the notes' geometric picture (000) of 'bank'
// moving toward 'money' or 'river'.
import { svgElement, resetSvg } from '../shared/svg.mjs';
import { message } from '../i18n/index.mjs';
import { formatCell } from '../shared/format.mjs';

const FULL_WIDTH = 460;
const FULL_HEIGHT = 340;
const PAD = { left: 48, right: 16, top: 28, bottom: 40 };
const FONT = 12;          // every label at least 12 px as shown (issue 26): the picture is drawn at its shown width
const CHAR = 0.62 * FONT;  // a label's width per character, roughly, for keeping labels apart

// The label's box [left, top, right, bottom] around (x, y) for `anchor` start or end.
function boxOf(x, y, text, anchor) {
  const width = text.length * CHAR;
  const left = anchor === 'end' ? x - width : x;
  return [left, y - FONT, left + width, y + 3];
}
const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

// The first of y, y + 14, y − 14, y + 28, … where the label's box meets no box placed before.
function freeY(placed, x, y, text, anchor, height) {
  for (const shift of [0, 14, -14, 28, -28, 42, -42, 56, -56]) {
    const at = y + shift;
    const box = boxOf(x, at, text, anchor);
    if (box[1] < 0 || box[3] > height) continue;
    if (!placed.some((other) => overlaps(box, other))) {
      placed.push(box);
      return at;
    }
  }
  placed.push(boxOf(x, y, text, anchor));
  return y;
}

export function renderEmbeddingPlot(svg, { tokens, before, after, width, xColumn, yColumn, xLabel, yLabel, t = message }) {
  // drawn at the width it is shown (a phone's is narrower), so that 12 px labels stay 12 px
  const parent = svg.parentElement;
  const style = parent && getComputedStyle(parent);
  const room = parent ? parent.clientWidth - parseFloat(style.paddingLeft || 0) - parseFloat(style.paddingRight || 0) : 0;
  const WIDTH = room > 0 ? Math.max(280, Math.min(FULL_WIDTH, Math.floor(room))) : FULL_WIDTH;
  const HEIGHT = Math.round(FULL_HEIGHT * Math.max(0.85, WIDTH / FULL_WIDTH));
  resetSvg(svg, WIDTH, HEIGHT, t('pictures.plotLabel', { x: xLabel, y: yLabel }));
  const placed = [];
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
  svgElement('text', { x: 8, y: 14, class: 'axis-title' }, svg, `↑ ${yLabel}`);
  placed.push(boxOf(WIDTH - PAD.right, HEIGHT - 10, `${xLabel} →`, 'end'), boxOf(8, 14, `↑ ${yLabel}`, 'start'));
  for (const [v, k] of [[x0, 'x'], [x1, 'x'], [y0, 'y'], [y1, 'y']]) {
    const text = formatCell(v, 2);
    // the x ticks run inwards from their ends, clear of the y ticks at the corner
    const attrs = k === 'x' ? { x: sx(v), y: HEIGHT - PAD.bottom + 16, 'text-anchor': v === x0 ? 'start' : 'end' } : { x: PAD.left - 6, y: sy(v) + 4, 'text-anchor': 'end' };
    svgElement('text', { ...attrs, class: 'tick' }, svg, text);
    placed.push(boxOf(attrs.x, attrs.y, text, attrs['text-anchor']));
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
    const anchor = x + 7 + text.length * CHAR > WIDTH ? 'end' : 'start';
    const side = anchor === 'end' ? { x: x - 7, 'text-anchor': 'end' } : { x: x + 7 };
    // moved up or down, a step at a time, until it meets no other label
    const y0 = which === 'after' ? y - 7 : y + 14;
    const at = freeY(placed, side.x, y0, text, anchor, HEIGHT);
    const attrs = which === 'after' ? { ...side, y: at, class: 'point-label', 'data-which': 'after' }
      : { ...side, y: at, class: 'point-label before-label', 'data-which': 'before' };
    svgElement('text', attrs, svg, text);
  }
}
