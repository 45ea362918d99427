// The toolbar's picture exports: the heatmap of a head or the token lines, as SVG or PNG.
import { settingsOf } from './formats.mjs';
import { download } from './toolbar.mjs';
import { weightColour } from '../shared/colour.mjs';
import { svgElement } from '../shared/svg.mjs';
import { message } from '../i18n/index.mjs';

// Styles an exported SVG needs once it leaves the page (light scheme, system fonts).
const SVG_STYLE = `text { font-family: system-ui, sans-serif; font-size: 12px; fill: #1c1c1e; }
.axis-title, .tick { fill: #5b5b63; font-size: 11px; } .token-hit { fill: none; }
.token-node text { font-family: ui-monospace, Menlo, Consolas, monospace; }`;

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
    svg = heatmapSvg(view, Number($('heatmap').dataset.head ?? 0), t);
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

/** The heatmap of one head as SVG: a rect per cell filled with the weight's colour, labels as text. */
export function heatmapSvg(view, head, t = message) {
  const cell = 26, left = 90, top = 80;
  const { tokens, keyTokens, m } = view;
  const trace = view.result.heads[head];
  const width = left + m * cell + 60, height = top + tokens.length * cell + 10;
  const svg = svgElement('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('export.headWeights', { head: head + 1 }) });
  tokens.forEach((token, r) => {
    svgElement('text', { x: left - 6, y: top + r * cell + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, svg, token);
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
    svgElement('text', { x: left + c * cell + cell / 2, y: top - 6, transform: `rotate(-45 ${left + c * cell + cell / 2} ${top - 6})` }, svg, token);
  });
  return svg;
}
