// The RoPE chapter's scores (web/src/rope/index.mjs): the chosen query's row of q·k without and with
// RoPE, shifted and reversed; the largest change each makes over the whole head; the core's score
// against distance as an SVG line; and sinusoidal beside rotary. Texts by textContent only.
import { formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { element } from '../shared/chapter.mjs';
import { svgElement, resetSvg } from '../shared/svg.mjs';

// Scores of query token i and key token j in each pass (the reversed passes hold token t at row n − 1 − t).
function scoresOf(r, head, i, j) {
  const n = r.plain.shape.n;
  const at = (result, row, col) => result.heads[head].scores[row * n + col];
  const ri = n - 1 - i, rj = n - 1 - j;
  return {
    plain: at(r.plain, i, j), rotated: at(r.rotated, i, j), shifted: at(r.shifted, i, j),
    plainReversed: at(r.plainReversed, ri, rj), rotatedReversed: at(r.rotatedReversed, ri, rj),
  };
}

/** Over every (query, key) pair of the chosen head: the largest change the shift and the reversals make, and the largest |score|. */
export function differences(chapter) {
  const { r, head } = chapter;
  const n = r.plain.shape.n;
  const out = { shifted: 0, plainReversed: 0, rotatedReversed: 0, largest: 0 };
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const s = scoresOf(r, head, i, j);
      out.largest = Math.max(out.largest, Math.abs(s.rotated));
      out.shifted = Math.max(out.shifted, Math.abs(s.shifted - s.rotated));
      out.plainReversed = Math.max(out.plainReversed, Math.abs(s.plainReversed - s.plain));
      out.rotatedReversed = Math.max(out.rotatedReversed, Math.abs(s.rotatedReversed - s.rotated));
    }
  }
  return out;
}

function headerRow(ctx, keys, slots = {}) {
  const header = element('tr');
  for (const key of keys) {
    const cell = element('th', '', ctx.t(key, slots));
    cell.scope = 'col';
    header.append(cell);
  }
  const thead = element('thead');
  thead.append(header);
  return thead;
}

export function renderScores(ctx, parts, chapter) {
  const { r, head, query, tokens } = chapter;
  parts.scores.replaceChildren();
  const thead = headerRow(ctx, ['rope.col.key', 'rope.col.distance', 'rope.col.plain', 'rope.col.rotated', 'rope.col.shifted',
    'rope.col.plainReversed', 'rope.col.rotatedReversed'], { shift: r.shift });
  const tbody = element('tbody');
  tokens.forEach((token, j) => {
    const s = scoresOf(r, head, query, j);
    const tr = element('tr');
    if (j === chapter.key) tr.className = 'current';
    const th = element('th', '', `${j + 1}: ${isolate(token)}`);
    th.scope = 'row';
    tr.append(th, element('td', '', String(query - j)), ...['plain', 'rotated', 'shifted', 'plainReversed', 'rotatedReversed']
      .map((name) => element('td', '', formatNumber(s[name]))));
    tbody.append(tr);
  });
  const caption = element('caption', '', ctx.t('rope.scoresCaption', { query: tokens[query], head: head + 1 }));
  parts.scores.append(caption, thead, tbody);
}

const WIDTH = 560, HEIGHT = 220, LEFT = 56, RIGHT = 12, TOP = 12, BOTTOM = 36;

/** The core's score of the fixed q and k against distance 0 … D − 1, the score without RoPE dashed, this pair's distance a dot. */
export function renderCurve(ctx, parts, chapter) {
  const { r, query, key } = chapter;
  const values = Array.from(r.curve);
  const plain = values[0];  // distance 0: neither is turned, q·k as without RoPE
  const low = Math.min(...values, plain), high = Math.max(...values, plain);
  const span = high - low || 1;
  const x = (d) => LEFT + (d / (values.length - 1)) * (WIDTH - LEFT - RIGHT);
  const y = (v) => TOP + (1 - (v - low) / span) * (HEIGHT - TOP - BOTTOM);
  const svg = parts.curve;
  resetSvg(svg, WIDTH, HEIGHT, ctx.t('rope.curveLabel', { count: values.length }));
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  svgElement('line', { x1: LEFT, y1: HEIGHT - BOTTOM, x2: WIDTH - RIGHT, y2: HEIGHT - BOTTOM, class: 'axis' }, svg);
  svgElement('line', { x1: LEFT, y1: TOP, x2: LEFT, y2: HEIGHT - BOTTOM, class: 'axis' }, svg);
  svgElement('line', { x1: LEFT, y1: y(plain), x2: WIDTH - RIGHT, y2: y(plain), class: 'plain' }, svg);
  svgElement('polyline', { points: values.map((v, d) => `${x(d).toFixed(1)},${y(v).toFixed(1)}`).join(' '), class: 'rotated' }, svg);
  const distance = query - key;
  if (distance >= 0 && distance < values.length) svgElement('circle', { cx: x(distance), cy: y(values[distance]), r: 4, class: 'chosen' }, svg);
  svgElement('text', { x: LEFT - 4, y: TOP + 4, 'text-anchor': 'end' }, svg, formatNumber(high));
  svgElement('text', { x: LEFT - 4, y: HEIGHT - BOTTOM, 'text-anchor': 'end' }, svg, formatNumber(low));
  svgElement('text', { x: LEFT, y: HEIGHT - BOTTOM + 16, 'text-anchor': 'middle' }, svg, '0');
  svgElement('text', { x: WIDTH - RIGHT, y: HEIGHT - BOTTOM + 16, 'text-anchor': 'end' }, svg, String(values.length - 1));
  svgElement('text', { x: (LEFT + WIDTH) / 2, y: HEIGHT - 4, 'text-anchor': 'middle' }, svg, ctx.t('rope.curveAxis'));
  parts.curveNote.textContent = distance >= 0 && distance < values.length
    ? ctx.t('rope.curveNote', { plain: formatNumber(plain), distance, score: formatNumber(values[distance]) })
    : ctx.t('rope.curveNoteAfter', { plain: formatNumber(plain), distance });
}

/** Sinusoidal (added to x) beside rotary (multiplied into q and k): a short table of texts. */
export function renderCompare(ctx, parts) {
  parts.compare.replaceChildren();
  const thead = headerRow(ctx, ['rope.compare.aspect', 'rope.compare.sinusoidal', 'rope.compare.rotary']);
  const tbody = element('tbody');
  for (const row of ['how', 'where', 'score', 'models']) {
    const tr = element('tr');
    const th = element('th', '', ctx.t(`rope.compare.${row}`));
    th.scope = 'row';
    tr.append(th, element('td', '', ctx.t(`rope.compare.${row}.sinusoidal`)), element('td', '', ctx.t(`rope.compare.${row}.rotary`)));
    tbody.append(tr);
  }
  parts.compare.append(element('caption', '', ctx.t('rope.compare.caption')), thead, tbody);
}
