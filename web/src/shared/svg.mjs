// A tiny helper for building SVG with DOM calls (never markup strings).
const NS = 'http://www.w3.org/2000/svg';

export function svgElement(tag, attributes = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== null) node.textContent = text;
  parent?.append(node);
  return node;
}

export function resetSvg(svg, width, height, label) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
}

// Okabe–Ito: eight colours that stay apart under every common colour-vision deficiency.
export const HEAD_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#8C6D1F', '#7F7F7F'];
