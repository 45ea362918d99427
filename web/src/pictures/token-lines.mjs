// Token lines, the view readers know from BertViz: queries on the left, keys on the right, one line
// per (query, key, head) whose opacity is the weight. Tokens are focusable buttons; focusing or
// hovering one (highlightTokenLines) shows only its lines.
import { svgElement, resetSvg, HEAD_COLOURS } from '../shared/svg.mjs';
import { message } from '../i18n/index.mjs';

// A row is 28 px, so each token's target is at least 24 px high; the picture is drawn at the width
// it is shown at (at most 460 px), so its 12.5 px labels are never scaled down on a phone.
const ROW = 28;
const MAX_WIDTH = 460;

/**
 * heads: [{ index, weights }] for the heads shown, overlaid in their own colours.
 * Lines carry data-head, data-query, data-key and data-weight; stroke-opacity is the weight.
 */
export function renderTokenLines(svg, queryTokens, keyTokens, heads, { width = MAX_WIDTH, t = message } = {}) {
  const WIDTH = Math.max(240, Math.min(MAX_WIDTH, width));
  const LEFT_X = Math.round(WIDTH * 0.326);
  const RIGHT_X = WIDTH - LEFT_X;
  const rows = Math.max(queryTokens.length, keyTokens.length);
  const height = rows * ROW + 30;
  resetSvg(svg, WIDTH, height, t('pictures.linesLabel', { queries: queryTokens.length, keys: keyTokens.length, heads: heads.length }));
  svg.setAttribute('role', 'group');  // it holds buttons, so it is not a plain image
  svgElement('text', { x: LEFT_X, y: 14, 'text-anchor': 'end', class: 'axis-title' }, svg, t('pictures.queries'));
  svgElement('text', { x: RIGHT_X, y: 14, class: 'axis-title' }, svg, t('pictures.keys'));
  const y = (i) => 30 + i * ROW + ROW / 2;
  const m = keyTokens.length;
  const lines = svgElement('g', { class: 'lines' }, svg);
  for (const { index, weights } of heads) {
    const colour = HEAD_COLOURS[index % HEAD_COLOURS.length];
    for (let i = 0; i < queryTokens.length; i++) {
      for (let j = 0; j < m; j++) {
        const weight = weights[i * m + j];
        if (weight <= 0) continue;
        const line = svgElement('line', {
          x1: LEFT_X + 6, y1: y(i), x2: RIGHT_X - 6, y2: y(j), stroke: colour, 'stroke-width': 2.5,
          'stroke-opacity': weight, 'data-head': index, 'data-query': i, 'data-key': j, 'data-weight': weight,
        }, lines);
        // a dark page lightens the head's colour (styles.css), so a larger weight still stands out more;
        // set through the CSSOM, which a strict style-src allows (a style attribute it refuses)
        line.style.stroke = `var(--head-${index % HEAD_COLOURS.length}, ${colour})`;
      }
    }
  }
  const tokenButton = (side, i, text, x, anchor) => {
    const g = svgElement('g', {
      class: `token-node ${side}`, tabindex: 0, role: 'button', 'data-side': side, 'data-index': i,
      'aria-label': t(side === 'query' ? 'pictures.queryNode' : 'pictures.keyNode', { index: i + 1, token: text }),
    }, svg);
    const reach = LEFT_X - 6;
    svgElement('rect', { x: anchor === 'end' ? x - reach + 4 : x - 4, y: y(i) - ROW / 2 + 2, width: reach, height: ROW - 4, rx: 4, class: 'token-hit' }, g);
    svgElement('text', { x, y: y(i), 'text-anchor': anchor, 'dominant-baseline': 'middle' }, g, text);
  };
  queryTokens.forEach((text, i) => tokenButton('query', i, text, LEFT_X, 'end'));
  keyTokens.forEach((text, j) => tokenButton('key', j, text, RIGHT_X, 'start'));
}

/** Shows only the lines of one token ({ side, index }), or all lines when focus is null. */
export function highlightTokenLines(svg, focus) {
  for (const line of svg.querySelectorAll('line[data-query]')) {
    const mine = !focus || line.dataset[focus.side === 'query' ? 'query' : 'key'] === String(focus.index);
    line.style.display = mine ? '' : 'none';
  }
  for (const node of svg.querySelectorAll('.token-node')) {
    node.classList.toggle('active', !!focus && node.dataset.side === focus.side && node.dataset.index === String(focus.index));
  }
}
