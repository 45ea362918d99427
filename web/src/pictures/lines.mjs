// The token lines: which heads are drawn (a box each), and which token's lines alone are shown —
// the one hovered, else the one focused, else the one pinned by a tap or Enter (a second tap unpins
// it). Touch has no hover, so pinning is how it works there.
//   pics: { $(id), t, signal, view, shownHead, lines (the svg), lineHeads, lineHeadCount,
//           focused, pinned, linesWidth }
import { renderTokenLines, highlightTokenLines } from './token-lines.mjs';
import { HEAD_COLOURS } from '../shared/svg.mjs';

const current = (pics) => pics.focused ?? pics.pinned;
const same = (a, b) => a && b && a.side === b.side && a.index === b.index;

function tokenOf(event) {
  const node = event.target.closest?.('.token-node');
  return node ? { side: node.dataset.side, index: Number(node.dataset.index) } : null;
}

function togglePin(pics, event) {
  const token = tokenOf(event);
  if (!token) return;
  pics.pinned = same(pics.pinned, token) ? null : token;
  highlightTokenLines(pics.lines, current(pics));
}

export function listenLines(pics) {
  const { $, lines } = pics;
  $('line-heads').addEventListener('change', (event) => {
    const box = event.target;
    if (box.checked) pics.lineHeads.add(Number(box.value));
    else pics.lineHeads.delete(Number(box.value));
    drawTokenLines(pics);
  });
  lines.addEventListener('pointerover', (event) => highlightTokenLines(lines, tokenOf(event) ?? current(pics)));
  lines.addEventListener('pointerleave', () => highlightTokenLines(lines, current(pics)));
  lines.addEventListener('focusin', (event) => { pics.focused = tokenOf(event); highlightTokenLines(lines, current(pics)); });
  lines.addEventListener('focusout', () => { pics.focused = null; highlightTokenLines(lines, current(pics)); });
  lines.addEventListener('click', (event) => togglePin(pics, event));
  // the token lines are drawn at the width of their figure (a phone gets a narrower picture, not smaller text)
  const resizes = new ResizeObserver(([entry]) => {
    const width = Math.floor(entry.contentRect.width);
    if (width === pics.linesWidth || width <= 0) return;
    pics.linesWidth = width;
    if (pics.view) drawTokenLines(pics);
  });
  resizes.observe(lines.parentElement);
  pics.signal?.addEventListener('abort', () => resizes.disconnect());
  lines.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      togglePin(pics, event);
    }
  });
}

// a box per head, made again when the number of heads changes (the shown head checked)
export function drawLineHeadChoices(pics) {
  const { view } = pics;
  if (pics.lineHeadCount === view.heads) return;
  pics.lineHeadCount = view.heads;
  pics.lineHeads = new Set([Math.min(pics.shownHead, view.heads - 1)]);
  pics.$('line-heads').replaceChildren(...Array.from({ length: view.heads }, (_, h) => {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = String(h);
    box.checked = pics.lineHeads.has(h);
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.backgroundColor = HEAD_COLOURS[h % HEAD_COLOURS.length];
    const name = document.createElement('span');
    name.dataset.head = String(h);
    label.append(box, swatch, name);
    return label;
  }));
}

export function labelLineHeads({ $, t }) {
  for (const name of $('line-heads').querySelectorAll('span[data-head]')) name.textContent = t('caption.head', { head: Number(name.dataset.head) + 1 });
}

export function drawTokenLines(pics) {
  const { view, lines } = pics;
  const heads = [...pics.lineHeads].sort((a, b) => a - b).filter((h) => h < view.heads)
    .map((h) => ({ index: h, weights: view.result.heads[h].weights }));
  // the token focused by keyboard keeps the focus in the new drawing (a resize redraws, and the
  // picture's first rendering, when its section comes near the screen, is a resize)
  const keep = lines.contains(lines.getRootNode().activeElement) ? pics.focused : null;
  renderTokenLines(lines, view.tokens, view.keyTokens, heads, { width: pics.linesWidth, t: pics.t });
  const count = (token) => (token.side === 'query' ? view.tokens : view.keyTokens).length;
  if (pics.pinned && pics.pinned.index >= count(pics.pinned)) pics.pinned = null;
  if (keep && keep.index < count(keep)) lines.querySelector(`.token-node[data-side="${keep.side}"][data-index="${keep.index}"]`)?.focus();
  if (pics.focused && pics.focused.index >= count(pics.focused)) pics.focused = null;
  highlightTokenLines(lines, current(pics));
}
