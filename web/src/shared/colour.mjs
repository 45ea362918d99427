// The weight colour scale over [0, 1]: ColorBrewer's single-hue Blues, light to dark, so a weight
// reads as darkness alone and survives every kind of colour-vision deficiency (and greyscale print).
// Text on a cell is black or white, whichever contrasts more.
import { interpolateBlues } from 'd3-scale-chromatic';

// The scale is sampled once at the tables' precision (0.001) and looked up: a heatmap of 8 heads
// asks for thousands of colours per redraw.
const STEPS = 1000;
const TABLE = Array.from({ length: STEPS + 1 }, (_, i) => {
  const background = interpolateBlues(0.04 + 0.96 * (i / STEPS));
  // whichever of black and white contrasts more: always at least 4.5:1 (WCAG AA)
  const l = luminance(background);
  const rgb = Object.freeze(background.match(/\d+/g).slice(0, 3).map(Number));
  return Object.freeze({ background, rgb, foreground: (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff' });
});

export function weightColour(weight) {
  const t = Math.min(1, Math.max(0, weight));
  return TABLE[Math.round(t * STEPS)] ?? TABLE[0];  // NaN → the colour of 0
}

// Relative luminance of an "rgb(r, g, b)" or "#rrggbb" colour (WCAG's formula).
export function luminance(colour) {
  const channels = colour.startsWith('#')
    ? [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16))
    : colour.match(/\d+/g).slice(0, 3).map(Number);
  const [r, g, b] = channels.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
