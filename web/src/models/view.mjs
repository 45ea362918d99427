// The "Real models" view's renderers: the tokens as the tokenizer made them, the next-token list,
// and every layer's heads with the lab's heatmap (shared/heatmap.mjs) and table (shared/matrix.mjs)
// renderers. DOM nodes and textContent only; a token's text is the reader's model's, isolated.
import { renderHeatmap, renderLegend, LABEL_FONT } from '../shared/heatmap.mjs';
import { renderMatrix } from '../shared/matrix.mjs';
import { formatFull, formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { partOf, readableToken, tokenLabel, tokenName } from './names.mjs';
import { scrollCue, watchedScrollCue } from './scroll-cue.mjs';
import { exportButtons, fileStem, guessesTable, settingsFor, weightsTable } from './table-export.mjs';

const element = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** The tokens, each with its id; a space mark (Ġ, ▁) written · as in the lab (the raw token in data-token). */
export function renderTokens(container, result, t) {
  const { tokens, ids, pieces = [] } = result;
  const bytes = new Set(pieces);
  const items = tokens.map((token, i) => {
    // a token that is only bytes of a longer character (pieces): marked, and said once below
    const chip = element('span', bytes.has(i) ? 'model-token model-token-byte' : 'model-token', readableToken(token));
    chip.dir = 'auto';
    chip.dataset.token = token;
    chip.append(element('small', '', String(ids[i])));
    // a byte piece's id with the character it is part of (review 9: the chip alone shows a byte)
    chip.title = t('models.tokenId', { id: ids[i] }) + (partOf(result, i) ? `: ${tokenName(result, i, t)}` : '');
    return chip;
  });
  const list = element('div', 'model-token-list');
  list.append(...items);
  // byte-level BPE (GPT-2, Llama 3) writes a leading space as Ġ, SentencePiece as ▁: said once, when seen
  const marks = [...new Set(tokens.join('').match(/[Ġ▁]/gu) ?? [])];
  const note = marks.length ? [element('p', 'hint', t('models.spaceDot', { marks: marks.join(' ') }))] : [];
  // WordPiece (BERT) marks a piece that continues the word before it with ##
  if (tokens.some((token) => token.startsWith('##') && token.length > 2)) note.push(element('p', 'model-note', t('models.pieceMark')));
  if (bytes.size) note.push(element('p', 'model-note', t('models.bytePieces', { count: bytes.size, of: tokens.length })));
  container.replaceChildren(element('h3', '', t('models.tokens', { count: tokens.length })), ...note, list);
}

// A decoded text with its invisible characters shown: · a space, ↵ a new line, ⇥ a tab, any other
// control character by its code as \x0b (the page's fonts have no control pictures such as ␋)
const visible = (text) => Array.from(text, (c) => {
  const code = c.codePointAt(0);
  if (code > 32 && code !== 127) return c;
  return { 32: '·', 10: '↵', 9: '⇥' }[code] ?? `\\x${code.toString(16).padStart(2, '0')}`;
}).join('');

/**
 * The next-token list (causal models): each token as the vocabulary writes it, its text (`text`, the
 * tokenizer's own decoding, done in the worker that holds the tokenizer), id and probability; a model
 * without one says why. `after`: the token the list follows as its caption names it (names.mjs tokenName).
 */
export function renderNext(container, next, t, { causal = true, exporting = null, after = null } = {}) {
  if (!next) {
    container.replaceChildren(...(causal ? [] : [element('p', 'model-note', t('models.noNext'))]));
    return;
  }
  // which token the list follows (the last one typed), as the tokens above show it
  const caption = typeof after === 'string' ? t('models.nextAfter', { count: next.length, token: after }) : t('models.next', { count: next.length });
  const bar = exporting ? [guessesExport(exporting, next, caption, 'next-tokens', t)] : [];
  const table = guessTable(next, caption, t);
  // the heading one line, the token it follows on a line under it (review 7, finding 5: it wrapped at 1280 px)
  if (typeof after === 'string') {
    table.caption.replaceChildren(element('span', 'model-next-title', t('models.next', { count: next.length })), ' ', element('span', 'model-next-after', t('models.nextAfterLine', { token: after })));
  }
  container.replaceChildren(table, ...bar, element('p', 'model-note', t('models.nextNoteDot')));
}

/**
 * The buttons that save a list of guesses (the next tokens, a [MASK]'s) as a file named
 * `<model>-<what>.<format>`. exporting: { model, sentence, download(name, blob) }, the model's name
 * and the sentence as typed.
 */
function guessesExport(exporting, list, caption, what, t, more = {}) {
  return exportButtons({
    stem: `${fileStem(exporting.model)}-${what}`, label: caption, download: exporting.download, t,
    table: () => guessesTable(list, caption, readableToken), settings: () => settingsFor(exporting, more),
  });
}

// A table of guessed tokens (the next ones, or a [MASK]'s): token, decoded text, id, probability; the
// text column left out when `plain` and every text is its token (WordPiece's whole words)
function guessTable(list, caption, t, { plain = false } = {}) {
  const shown = (decoded) => (typeof decoded === 'string' ? visible(decoded) : '…');
  const withText = !plain || list.some(({ token, text }) => shown(text) !== readableToken(token));
  const table = element('table', 'model-next');
  table.append(element('caption', '', caption));
  const head = element('tr');
  head.append(element('th', '', t('models.nextToken')), ...(withText ? [element('th', '', t('models.nextText'))] : []), element('th', '', t('models.nextId')), element('th', '', t('models.nextProbability')));
  table.append(head);
  for (const { id, token, text: decoded, probability } of list) {
    const row = element('tr');
    const cell = element('td', 'model-token', readableToken(token));
    cell.dir = 'auto';
    cell.dataset.token = token;
    row.append(cell);
    if (withText) {
      // the decoded text, its spaces shown (·) and a byte that is only part of a character (�) as it is
      const text = element('td', 'model-text', shown(decoded));
      text.dir = 'auto';
      row.append(text);
    }
    const p = element('td', 'model-probability', formatNumber(probability));
    p.title = p.dataset.value = formatFull(probability);
    const idCell = element('td', 'model-id', String(id));
    row.append(idCell, p);
    table.append(row);
  }
  return table;
}

// The special tokens a [MASK]'s context leaves out, and the mask tokens it shows as they are
const SPECIAL = new Set(['[CLS]', '[SEP]', '[PAD]', '<s>', '</s>', '<pad>']);

/** The words around position p, the mask itself as ___: "the ___ sat on" (WordPiece's ## joined, Ġ dropped). */
export function maskContext(tokens, p) {
  const side = (from, to) => tokens.slice(Math.max(0, from), Math.max(0, to)).filter((token) => !SPECIAL.has(token));
  // whole words at both ends: a ## piece takes the pieces before it along
  let start = Math.max(0, p - 3), end = p + 4;
  while (start > 0 && start < p && tokens[start].startsWith('##')) start--;
  while (end < tokens.length && tokens[end].startsWith('##')) end++;
  const words = [...side(start, p), '___', ...side(p + 1, end)];
  return words.join(' ').replace(/ ##(?=\S)/gu, '').replace(/[Ġ▁]/gu, '').replace(/ {2,}/g, ' ').trim();
}

/**
 * A masked language model's guesses (result.masked, BERT): the explanation, then for each [MASK] token
 * its top 10, captioned with its position and the words around it; a sentence without one is told how to
 * ask. `tokens`: the sentence's, for the captions; `text`: what the reader typed ([mask] in small letters
 * is not the mask token: said).
 */
export function renderMasked(container, masked, tokens, t, { text = '', exporting = null } = {}) {
  const lower = /\[mask\]/iu.test(String(text).replace(/\[MASK\]/gu, '')) ? [element('p', 'model-note model-mask-case', t('models.maskedCase'))] : [];
  if (!masked?.length) {
    container.replaceChildren(...lower, element('p', 'model-note', t('models.maskedNone')));
    return;
  }
  const tables = masked.map(({ position, top }) => {
    const caption = t('models.masked', { count: top.length, row: position + 1, context: isolate(maskContext(tokens, position)) });
    const table = guessTable(top, caption, t, { plain: true });
    table.dataset.position = String(position);
    if (!exporting) return table;
    const holder = element('div', 'model-mask');
    holder.dataset.position = String(position);
    holder.append(table, guessesExport(exporting, top, caption, `mask-position${position + 1}-guesses`, t, { position: position + 1 }));
    return holder;
  });
  // special tokens among the guesses ([SEP], [CLS]): one remark, as transformers' fill-mask lists them too
  const special = [...new Set(masked.flatMap(({ top }) => top.map(({ token }) => token)).filter((token) => GUESSED_SPECIAL.has(token)))];
  const remark = special.length ? [element('p', 'model-note model-mask-special', t('models.maskedSpecial', { names: special.join(', ') }))] : [];
  container.replaceChildren(...lower, element('p', 'model-note', t('models.maskedNote')), ...tables, ...remark);
}

// The special tokens a tokenizer adds to a sentence (its start, its end, padding), which a masked LM may guess
const GUESSED_SPECIAL = new Set(['[CLS]', '[SEP]', '[PAD]', '<s>', '</s>', '<pad>']);

// −∞ above the diagonal of a causal model (the lab's heatmap hatches those cells), else nothing masked.
function maskOf(n, causal) {
  if (!causal) return null;
  const scaled = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) scaled[i * n + j] = -Infinity;
  return scaled;
}

// The heatmap's cells: at most about 416 px of them, the lab's 26 px up to 16 tokens, smaller beyond
// (128 tokens at 26 px made 3328 px canvases, 44 MB each); token labels while a cell still holds a line
// of text (12 px and up). Labelled, the cells shrink to the room (CSS px) down to 12 px and no further,
// the labels drawn at the lab's 12 px and scaled to their figure (models.css) to 11 px at the least (a
// 22-token heatmap scaled to a 375 px screen wrote them at 8 px): a heatmap wider than that scrolls
// sideways in its own box (.model-scroll), as the lab’s own heatmap does. Without labels it is scaled to its figure.
const CELLS_PX = 416, LABEL_CELL = 12, LABEL_PX = parseFloat(LABEL_FONT), LEAST_LABEL_PX = 11;
/** The most tokens whose heatmaps have token labels on any screen (34: a cell of 416 / 34 = 12.2 px still holds one). */
export const LABELLED_TOKENS = Math.floor(CELLS_PX / LABEL_CELL);
// Where the figure has the room (a wide screen), up to 64 tokens keep their labels at 12 px cells, as
// wide as the room holds without scrolling (review 9: 44 tokens unnamed beside 700 px of empty
// page); the row labels' room is ROW_LABELS_PX at most. A canvas stays within WIDE_CANVAS_PX device
// pixels a side (3.2 MB; 12 heads 69 MB; 34 tokens at a 2× screen were 1040 px already): on a 2×
// screen up to 42 tokens, at 1× up to 64.
const WIDE_LABELLED_TOKENS = 64, ROW_LABELS_PX = 96, WIDE_CANVAS_PX = 1200;
/** The most tokens labelled in a figure `room` CSS px wide. */
export const labelledIn = (room = 0) => {
  const pixels = Math.floor((WIDE_CANVAS_PX / (globalThis.devicePixelRatio || 1) - ROW_LABELS_PX) / LABEL_CELL);
  return Math.max(LABELLED_TOKENS, Math.min(WIDE_LABELLED_TOKENS, pixels, Math.floor((room - ROW_LABELS_PX) / LABEL_CELL)));
};
function cellsOf(n, room = 0) {
  const most = Math.max(3, Math.min(26, Math.floor(CELLS_PX / n)));
  if (most < LABEL_CELL && n <= labelledIn(room)) return { cell: LABEL_CELL, minCell: LABEL_CELL, labelled: true, room };
  const labelled = most >= LABEL_CELL;
  return { cell: most, minCell: labelled ? LABEL_CELL : most, labelled, room: labelled ? room : 0 };
}

// each head figure's scroll cue's update (scroll-cue.mjs), run again whenever it is drawn anew
const cues = new WeakMap();

// One head: its weights as a heatmap, and as a table when its details are opened. room: the width
// (CSS px) its figure may take; its painter (painters) draws the heatmap again for another.
function headFigure(result, l, h, t, { ink, onOpen, causal, exporting, room = 0 }) {
  const { n } = result;
  // the lab's convention: a space mark written · (review 8, finding 9); a byte piece as its character's
  const tokens = result.tokens.map((_, i) => tokenLabel(result, i));
  const weights = result.layers[l].heads[h].weights;
  const figure = element('figure', 'model-head');
  figure.dataset.layer = String(l);
  figure.dataset.head = String(h);
  const canvas = element('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', t('models.headLabel', { layer: l + 1, head: h + 1 }));
  // no numbers in the cells (shrunk to fit they cannot be read): the exact ones are in "as a table"
  const scaled = maskOf(n, causal);
  let layout = null;
  // when the column labels that would cross are left out, a line says so (review 8, finding 3)
  const fewer = element('p', 'hint model-fewer-labels');
  const paint = (width) => {
    const { labelled, ...cells } = cellsOf(n, width);
    const labels = labelled ? tokens : null;
    // the column labels that would cross one another left out (review 7, finding 3): the tooltip names every cell
    layout = renderHeatmap(canvas, weights, n, n, { ...cells, rowLabels: labels, columnLabels: labels, scaled, ink, spaced: true });
    canvas.style.minWidth = labelled ? `${Math.ceil(parseFloat(canvas.style.width) * LEAST_LABEL_PX / LABEL_PX)}px` : '';
    // where the cells are, in the canvas's own CSS px (tests point at a cell by them)
    Object.assign(canvas.dataset, { left: String(layout.left), top: String(layout.top), cell: String(layout.cell), columns: layout.columns?.join(' ') ?? '' });
    const shown = layout.columns?.length ?? n;
    fewer.hidden = !labelled || shown >= n;
    fewer.textContent = fewer.hidden ? '' : t('models.fewerLabels', { shown, n });
  };
  paint(room);
  painters.set(figure, paint);
  // a cell's exact weight in the canvas's tooltip, under the pointer; a tap (a phone has no pointer
  // to rest) writes it in a line under the heatmap (review 9, finding 1)
  // (`mark`: the tokens isolated for bidirectional text in the line; the tooltip is the browser's)
  const cellText = (event, mark = (token) => token) => {
    // on a narrow screen the canvas is scaled down to its figure's width (models.css): back to its own pixels
    const box = canvas.getBoundingClientRect();
    const scale = box.width > 0 ? (parseFloat(canvas.style.width) || box.width) / box.width : 1;
    const r = Math.floor(((event.clientY - box.top) * scale - layout.top) / layout.cell), c = Math.floor(((event.clientX - box.left) * scale - layout.left) / layout.cell);
    const inside = r >= 0 && r < n && c >= 0 && c < n;
    return !inside ? '' : t('models.cellTip', { query: mark(tokens[r]), key: mark(tokens[c]),
      weight: scaled?.[r * n + c] === -Infinity ? t('pictures.masked') : formatFull(weights[r * n + c]) });
  };
  canvas.addEventListener('pointermove', (event) => { canvas.title = cellText(event); });
  const tapped = element('p', 'model-cell-tip');
  tapped.setAttribute('aria-live', 'polite');
  tapped.hidden = true;
  canvas.addEventListener('click', (event) => {
    tapped.textContent = cellText(event, isolate);
    tapped.hidden = tapped.textContent === '';
  });
  const table = headTable(tokens, weights, l, h, t, { exporting, scaled });
  const open = element('button', 'model-open', t('models.openInLab'));
  open.type = 'button';
  open.setAttribute('aria-label', t('models.openInLabLabel', { layer: l + 1, head: h + 1 }));
  open.addEventListener('click', () => onOpen(l, h));
  // only the heatmap scrolls sideways, in its own box: its figure's caption and buttons stay in place (review 6, finding 3)
  const scroller = element('div', 'model-scroll');
  scroller.append(canvas);
  const line = element('p', 'hint model-scroll-cue', t('models.scrollCue', { n }));
  figure.append(element('figcaption', '', t('models.head', { head: h + 1 })), line, fewer, scroller, tapped, table, open);
  cues.set(figure, scrollCue(scroller, line));
  return figure;
}

// "as a table": the head's weights, each written by one rule (weightText) with its exact float32 in
// its tooltip (a cell the causal mask hides, −∞ in `scaled`, hatched as in the heatmap), and (with `exporting`) the buttons that save them as <model>-layer<l>-head<h>-weights
function headTable(tokens, weights, l, h, t, { exporting, scaled }) {
  const table = element('details');
  table.append(element('summary', '', t('models.headTable')));
  table.addEventListener('toggle', () => {
    if (!table.open || table.childElementCount > 1) return;
    // a table wider than the figure scrolls in its own box too (the figure does not scroll)
    const holder = element('div', 'model-scroll');
    // and says so, its cut edge fading (review 9, finding 3: a cut number read as a weight above 1)
    table.append(watchedScrollCue(holder, t('models.streamScrollCue')), holder);
    const caption = t('models.headLabel', { layer: l + 1, head: h + 1 });
    renderMatrix(holder, { caption, rowLabels: tokens, columnLabels: tokens, values: weights, shade: true, rowSums: true, address: { matrix: null }, t });
    const n = tokens.length;
    for (const [r, row] of [...holder.querySelector('table').tBodies[0].rows].entries()) {
      for (let c = 0; c < n; c++) {
        const cell = row.cells[c + 1], value = weights[r * n + c];
        cell.textContent = weightText(value);
        const masked = scaled?.[r * n + c] === -Infinity;
        cell.classList.toggle('masked', masked);
        cell.title = formatFull(value);
      }
    }
    if (!exporting) return;
    table.append(exportButtons({
      stem: `${fileStem(exporting.model)}-layer${l + 1}-head${h + 1}-weights`, label: caption, download: exporting.download, t,
      table: () => weightsTable(weights, tokens, caption), settings: () => settingsFor(exporting, { layer: l + 1, head: h + 1 }),
    }));
  });
  return table;
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/**
 * A weight as the lab writes numbers (formatNumber: its digits), and every weight under 0.001 as
 * × 10ⁿ (formatNumber alone writes 8.706 × 10⁻⁸ but 0.00000166: review 10, finding G).
 */
export function weightText(value) {
  const text = formatNumber(value);
  if (value === 0 || !(Math.abs(value) < 1e-3) || text.includes('×')) return text;
  const [mantissa, exponent] = Number(text).toExponential().split('e');
  return `${mantissa} × 10${[...String(Number(exponent))].map((c) => SUPERSCRIPT[c]).join('')}`;
}

/**
 * Every layer, every head: the first layer open, the others a click away (a partial result, layer 1
 * alone, says how many layers the model has), under the colour legend. onOpen(l, h): "Open this
 * layer in the lab"; causal: the heatmaps hatch the masked cells above the diagonal.
 */
export function renderLayers(container, result, t, ink, onOpen, { causal = false, keepFirst = false, exporting = null } = {}) {
  const count = result.partial?.of ?? result.layers.length;
  // the whole result after layer 1 alone: layer 1's heads are drawn already (the same numbers), the rest added
  const first = keepFirst ? container.querySelector(':scope > details.model-layer[data-layer="0"]') : null;
  // the hint drawn with layer 1 stays when the rest is added (its fold listener writes to it too)
  const hint = (first && container.querySelector(':scope > p.hint')) || element('p', 'hint', t(count > 1 ? 'models.layersHint' : 'models.layerHint', { count, open: '1' }));
  // which layers are open, said again on every fold and unfold (review 6, finding 9), read from the
  // page: layer 1's listener comes from the partial result's drawing
  const said = () => {
    const open = [...container.querySelectorAll(':scope > details.model-layer')].filter((details) => details.open).map((details) => Number(details.dataset.layer) + 1);
    if (count > 1) hint.textContent = t('models.layersHint', { count, open: open.length ? open.join(', ') : t('models.layersNone') });
  };
  let drawFirst = null;
  const sections = result.layers.map((layer, l) => {
    if (l === 0 && first) return first;
    const details = element('details', 'model-layer');
    details.open = l === 0;
    details.dataset.layer = String(l);
    details.append(element('summary', '', t('models.layer', { layer: l + 1, count })));
    const heads = element('div', 'model-heads');
    // above the tokens its room labels the heatmaps have no labels: said once, under the layer's
    // heading (review 6, finding 2), again whenever its room changes
    const labelLine = noLabelsLine(details, heads, result.n, t);
    // drawn in the page (its room measured), and again when its room changes (roomOf)
    const draw = () => {
      const room = roomOf(heads);
      labelLine(room);
      heads.replaceChildren(...layer.heads.map((_, h) => headFigure(result, l, h, t, { ink, onOpen, causal, exporting, room })));
      for (const figure of heads.children) cues.get(figure)?.();
    };
    if (l === 0) drawFirst = draw;
    details.addEventListener('toggle', () => {
      if (details.open && !heads.childElementCount) draw();
      said();
    });
    details.append(heads);
    return details;
  });
  if (first) {
    container.append(...sections.slice(1));
    said();
  } else {
    // the legend drawn with layer 1's heads, kept when the rest is added
    const legend = element('canvas', 'model-legend');
    legend.setAttribute('role', 'img');
    legend.setAttribute('aria-label', t('heatmap.legend'));
    renderLegend(legend, { ink, masked: t('pictures.masked') });
    release(container);
    container.replaceChildren(hint, legend, ...sections);
  }
  // layer 1 drawn once its heads' box is in the page, where its width is known
  drawFirst?.();
  watchRoom(container);
}

// The layer's line saying that its heatmaps have no token labels, in `details` (above 34 tokens),
// kept by `heads`' width: shown, its number said, when a figure that wide has no labels
const labelLines = new WeakMap();
function noLabelsLine(details, heads, n, t) {
  if (n <= LABELLED_TOKENS) return () => {};
  const line = element('p', 'hint model-no-labels');
  details.append(line);
  const update = (room) => {
    line.hidden = cellsOf(n, room).labelled;
    line.textContent = line.hidden ? '' : t('models.noLabels', { most: labelledIn(room), n });
  };
  update(0);  // until drawn in the page, with its room
  labelLines.set(heads, update);
  return update;
}

// The figures' painters (headFigure's), and each heatmap box's width as last drawn
const painters = new WeakMap();
const rooms = new WeakMap();
const roomOf = (heads) => {
  rooms.set(heads, heads.clientWidth);
  return heads.clientWidth;
};

// One observer per container: a box of heads whose width changed (a phone turned, a window resized)
// has its heatmaps drawn again for it; release() lets it go with the canvases.
const observers = new WeakMap();
function watchRoom(container) {
  if (typeof ResizeObserver !== 'function') return;
  let observer = observers.get(container);
  if (!observer) {
    observer = new ResizeObserver((entries) => {
      for (const { target } of entries) {
        if (!target.isConnected || target.clientWidth === rooms.get(target) || target.clientWidth === 0) continue;
        const room = roomOf(target);
        labelLines.get(target)?.(room);
        for (const figure of target.children) painters.get(figure)?.(room);
        for (const figure of target.children) cues.get(figure)?.();
      }
    });
    observers.set(container, observer);
  }
  for (const heads of container.querySelectorAll(':scope > details.model-layer > .model-heads')) observer.observe(heads);
}

// The heatmaps a new run replaces give back their pixels now (a canvas's backing store is freed when
// its size is 0), not when the collector reaches the detached canvas: each run drew layer 1's twelve
// heads and the legend anew, and runs came faster than the page's collections.
function release(container) {
  observers.get(container)?.disconnect();
  for (const canvas of container.querySelectorAll('canvas')) canvas.width = canvas.height = 0;
}
