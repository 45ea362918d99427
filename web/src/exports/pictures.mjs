// The toolbar's picture exports: the heatmap of a head or the token lines, as SVG or PNG.
import { settingsOf } from './formats.mjs';
import { download } from './toolbar.mjs';
import { weightColour } from '../shared/colour.mjs';
import { svgElement } from '../shared/svg.mjs';
import { message } from '../i18n/index.mjs';

// Styles an exported SVG needs once it leaves the page (light scheme, system fonts).
const SVG_STYLE = `text { font-family: system-ui, sans-serif; font-size: 12px; fill: #1c1c1e; }
.axis-title, .tick { fill: #5b5b63; font-size: 11px; } .token-hit { fill: none; }
.token-node text { font-family: ui-monospace, Menlo, Consolas, monospace; }
.title { font-size: 14px; font-weight: 600; } .token { unicode-bidi: isolate; }`;

/** The chosen picture as a standalone SVG element, its settings in its <desc>. */
export function pictureSvg({ $, getView, getState, t }) {
  const view = getView();
  const state = getState();
  const settings = settingsOf(state, view, t);
  let svg;
  if ($('export-picture').value === 'lines') {
    svg = $('token-lines').cloneNode(true);
    for (const line of svg.querySelectorAll('line')) line.style.removeProperty('display');
  } else {
    svg = heatmapSvg(view, Number($('heatmap').dataset.head ?? 0), t, { source: state.modelBlock?.source ?? null });
  }
  svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  svg.removeAttribute('id');
  const style = svgElement('style', {}, null, SVG_STYLE);
  const description = svgElement('desc', {}, null, `Attention Lab: ${JSON.stringify(settings)}`);
  svg.prepend(description, style);
  return svg;
}

// the picture drawn at twice its size on white
async function savePng(toolbar) {
  const svg = pictureSvg(toolbar);
  const width = Number(svg.getAttribute('width')), height = Number(svg.getAttribute('height'));
  const image = new Image();
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(svg)], { type: 'image/svg+xml' }));
  image.src = url;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = width * 2;
  canvas.height = height * 2;
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  URL.revokeObjectURL(url);
  canvas.toBlob((blob) => download(toolbar, `attention-lab-${toolbar.$('export-picture').value}.png`, blob), 'image/png');
}

export function wirePictures(toolbar) {
  const { $ } = toolbar;
  $('export-svg').addEventListener('click', () => {
    const text = new XMLSerializer().serializeToString(pictureSvg(toolbar));
    download(toolbar, `attention-lab-${$('export-picture').value}.svg`, new Blob([text], { type: 'image/svg+xml' }));
  });
  $('export-png').addEventListener('click', () => savePng(toolbar));
}

// A label's width in px at the exported font (12 px system-ui), measured by the browser; 7.5 px a
// character where there is no canvas (Node)
function labelWidths(font = '12px system-ui, sans-serif') {
  const context = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (context) context.font = font;
  return (text) => (context ? context.measureText(text).width : 7.5 * text.length);
}

// The picture's frame: margins sized from its longest labels (rows at the left, the keys' labels at
// 45° above), a title line and a source line on top, the colour legend at the right
function heatmapFrame(view, lines, width, titleWidth) {
  const cell = 26, legend = 84;
  const widest = (texts) => Math.max(0, ...texts.map(width));
  const left = Math.max(40, Math.ceil(widest(view.tokens)) + 14);
  const titles = 14 + lines.length * 18;
  const slanted = Math.ceil(widest(view.keyTokens) * Math.SQRT1_2);
  const top = titles + Math.max(24, slanted + 14);
  const grid = left + view.m * cell;
  const right = Math.max(grid + legend, grid - cell / 2 + slanted + 10, Math.ceil(Math.max(0, ...lines.map((l) => titleWidth(l.text)))) + 20);
  return { cell, left, top, titles, width: right, height: Math.max(top + view.tokens.length * cell + 10, top + 150) };
}

// The legend: weight 0 (light) to 1 (dark) as a bar, and the masked cells' grey
function heatmapLegend(svg, frame, grid, t) {
  const x = grid + 16, y = frame.top, height = 110;
  const gradient = svgElement('linearGradient', { id: 'weight-scale', x1: 0, y1: 1, x2: 0, y2: 0 }, svgElement('defs', {}, svg));
  for (let i = 0; i <= 10; i++) svgElement('stop', { offset: i / 10, 'stop-color': weightColour(i / 10).background }, gradient);
  svgElement('rect', { x, y, width: 14, height, fill: 'url(#weight-scale)', stroke: '#8e8e96', 'stroke-width': 0.5 }, svg);
  svgElement('text', { x: x + 20, y: y + 9, class: 'tick' }, svg, '1');
  svgElement('text', { x: x + 20, y: y + height, class: 'tick' }, svg, '0');
  svgElement('rect', { x, y: y + height + 12, width: 14, height: 14, fill: '#d6d6dc' }, svg);
  svgElement('text', { x: x + 20, y: y + height + 23, class: 'tick' }, svg, t('pictures.masked'));
}

/** The heatmap of one head as SVG: a title (the head, and the model's layer when it is one), a rect per
 * cell filled with the weight's colour, the tokens as text, and the colour legend. */
export function heatmapSvg(view, head, t = message, { source = null, width = labelWidths(), titleWidth = labelWidths('600 14px system-ui, sans-serif') } = {}) {
  const lines = [{ text: t('export.heatmapTitle', { head: head + 1 }), className: 'title' }];
  if (source) lines.push({ text: t('export.setting.model', { model: source.model, layer: source.layer, layers: source.layers }), className: 'tick' });
  const frame = heatmapFrame(view, lines, width, titleWidth);
  const { cell, left, top } = frame;
  const { tokens, keyTokens, m } = view;
  const trace = view.result.heads[head];
  const svg = svgElement('svg', { width: frame.width, height: frame.height, viewBox: `0 0 ${frame.width} ${frame.height}`, role: 'img', 'aria-label': t('export.headWeights', { head: head + 1 }) });
  lines.forEach((line, i) => svgElement('text', { x: 8, y: 22 + i * 18, class: line.className }, svg, line.text));
  tokens.forEach((token, r) => {
    svgElement('text', { x: left - 6, y: top + r * cell + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'token' }, svg, token);
    for (let c = 0; c < m; c++) {
      const masked = trace.scaled[r * m + c] === -Infinity;
      const weight = trace.weights[r * m + c];
      svgElement('rect', {
        x: left + c * cell, y: top + r * cell, width: cell, height: cell,
        fill: masked ? '#d6d6dc' : weightColour(weight).background, 'data-weight': masked ? 'masked' : weight,
      }, svg);
    }
  });
  keyTokens.forEach((token, c) => {
    const x = left + c * cell + cell / 2;
    svgElement('text', { x, y: top - 6, transform: `rotate(-45 ${x} ${top - 6})`, class: 'token' }, svg, token);
  });
  heatmapLegend(svg, frame, left + m * cell, t);
  return svg;
}
