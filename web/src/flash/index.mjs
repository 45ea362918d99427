// FlashAttention's online softmax, as a chapter (issue 25, view "flash"): the chosen query token's row of
// the chosen head computed by the core tile by tile (engine.flashAttention(), on the learning engine,
// loaded when the reader first asks), with a table of the running maximum m, the rescaling factor
// e^(m_old − m_new), the running sum ℓ and the running output o after each tile, a step-through that
// shows one tile's arithmetic, and the result against the exact softmax(QKᵀ/√d_k)·V.
import { buildRequest } from '../state/request.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { formatNumber, formatNumbers } from '../shared/format.mjs';
import { chapterParts, element, setLineText } from '../shared/chapter.mjs';
import { mountPractice } from '../shared/chapter-practice.mjs';
import { maxQuestion, flashQuestion, outputQuestion } from './practice.mjs';

// The chapter's markup, built once (shared/chapter.mjs): every text is set by relabel() (textContent only).
function build(ctx) {
  const parts = chapterParts({ view: 'flash', key: 'flash', className: 'flash', line: 'arithmetic' });
  parts.tileLabel = element('label');
  parts.tileText = element('span');
  parts.tile = element('input');
  Object.assign(parts.tile, { type: 'number', min: '1', max: '64', step: '1', value: '2' });
  parts.tile.dataset.flash = 'tile';
  parts.tileLabel.append(parts.tileText, ' ', parts.tile);
  parts.controls.prepend(parts.tileLabel);
  parts.result = element('p');
  parts.result.dataset.flash = 'result';
  parts.memory = element('p');
  parts.memory.dataset.flash = 'memory';
  parts.body.append(parts.result, parts.memory);
  ctx.section('lab').after(parts.section);
  return parts;
}

// One tile's row of the table: t, its keys, the tile's largest score, m, r, ℓ and o after it.
function tileRow(r, head, row, t) {
  const at = row * r.tiles + t;
  const first = t * r.tile, last = Math.min(r.shape.m, first + r.tile) - 1;
  const dV = r.shape.dV;
  const o = head.runningOutput.slice(at * dV, (at + 1) * dV);
  return { t, first, last, m: head.runningMax[at], rescale: head.rescale[at], sum: head.runningSum[at], o };
}

function renderTable(ctx, parts, chapter) {
  const { r, head, row, step } = chapter;
  const h = r.heads[head];
  parts.table.replaceChildren();
  const caption = element('caption', '', ctx.t('flash.caption', { token: chapter.tokenName, head: head + 1, tile: r.tile }));
  const header = element('tr');
  for (const key of ['flash.col.tile', 'flash.col.keys', 'flash.col.tileMax', 'flash.col.m', 'flash.col.rescale', 'flash.col.sum', 'flash.col.output']) {
    const cell = element('th', '', ctx.t(key));
    cell.scope = 'col';
    header.append(cell);
  }
  const thead = element('thead');
  thead.append(header);
  const tbody = element('tbody');
  const scaled = r.exact.heads[head].scaled;
  for (let t = 0; t < r.tiles; t++) {
    const tile = tileRow(r, h, row, t);
    let tileMax = -Infinity;
    for (let j = tile.first; j <= tile.last; j++) tileMax = Math.max(tileMax, scaled[row * r.shape.m + j]);
    const tr = element('tr');
    if (t === step) tr.className = 'current';
    if (t > step) tr.hidden = true;
    const th = element('th', '', String(t + 1));
    th.scope = 'row';
    tr.append(th, element('td', '', `${tile.first + 1}–${tile.last + 1}`), element('td', '', formatNumber(tileMax)),
      element('td', '', formatNumber(tile.m)), element('td', '', formatNumber(tile.rescale)), element('td', '', formatNumber(tile.sum)),
      element('td', '', formatNumbers(tile.o)));
    tbody.append(tr);
  }
  parts.table.append(caption, thead, tbody);
}

// The arithmetic of the step's tile, with the previous tile's m, ℓ and o.
function renderArithmetic(ctx, parts, chapter) {
  const { r, head, row, step } = chapter;
  const h = r.heads[head];
  const now = tileRow(r, h, row, step);
  const before = step > 0 ? tileRow(r, h, row, step - 1) : null;
  setLineText(parts.arithmetic, ctx.t('flash.arithmetic', {
    tile: step + 1, tiles: r.tiles,
    mOld: before ? formatNumber(before.m) : '−∞', m: formatNumber(now.m), rescale: formatNumber(now.rescale),
    sumOld: before ? formatNumber(before.sum) : '0', sum: formatNumber(now.sum),
  }));
  parts.prev.disabled = step === 0;
  parts.next.disabled = step === r.tiles - 1;
  const dV = r.shape.dV;
  const z = h.z.slice(row * dV, (row + 1) * dV);
  const exact = r.exact.heads[head].z.slice(row * dV, (row + 1) * dV);
  const difference = Math.max(...z.map((value, c) => Math.abs(value - exact[c])));
  parts.result.textContent = ctx.t('flash.result', { z: formatNumbers(z), exact: formatNumbers(exact), difference: formatNumber(difference) });
  parts.memory.textContent = ctx.t('flash.memory', { full: r.memory.fullValues, tiled: r.memory.tiledValues, n: r.shape.n, m: r.shape.m });
}

function redraw(ctx, parts, chapter) {
  if (!chapter.r) return;
  renderTable(ctx, parts, chapter);
  renderArithmetic(ctx, parts, chapter);
  for (const practice of parts.practice) practice.refresh();
  parts.body.hidden = false;
}

function relabel(ctx, parts, chapter) {
  parts.title.textContent = ctx.t('flash.title');
  parts.intro.textContent = ctx.t('flash.intro');
  parts.tileText.textContent = ctx.t('flash.tile');
  parts.run.textContent = ctx.t('flash.run');
  parts.prev.textContent = ctx.t('flash.prev');
  parts.next.textContent = ctx.t('flash.next');
  if (chapter.error) parts.status.textContent = ctx.t('flash.error', { message: chapter.error });
  redraw(ctx, parts, chapter);
}

/** mount(ctx): the feature contract (docs/architecture.md). Computes only once the reader asks. */
export function mount(ctx) {
  const parts = build(ctx);
  const chapter = { started: false, r: null, error: null, head: 0, row: 0, step: 0, tokenName: '', request: 0 };
  parts.practice = [mountPractice(ctx, parts.body, 'flashMax', () => maxQuestion(ctx, chapter)),
    mountPractice(ctx, parts.body, 'flash', () => flashQuestion(ctx, chapter), { heading: false }), mountPractice(ctx, parts.body, 'flashOut', () => outputQuestion(ctx, chapter), { heading: false })];
  const compute = async () => {
    const state = ctx.store.state, view = ctx.store.view;
    if (!chapter.started || !view) return;
    const built = buildRequest(state);
    if (built.problems) return;
    const { token, head } = selectionIn(state, view);
    const tile = Math.max(1, Math.min(64, Math.round(Number(parts.tile.value)) || 1));
    parts.tile.value = String(tile);
    const id = ++chapter.request;
    parts.status.textContent = ctx.t('flash.computing');
    const answer = await ctx.compute.flash(built.request, tile);
    if (id !== chapter.request || ctx.signal.aborted) return;
    if (answer.error) {
      chapter.error = answer.error.message;
      parts.status.textContent = ctx.t('flash.error', { message: answer.error.message });
      return;
    }
    Object.assign(chapter, { r: answer.result, error: null, head: head === 'all' ? 0 : head, row: token, tokenName: view.tokens[token] });
    chapter.step = 0;  // the walk starts at the first tile: the reader predicts each next one
    parts.status.textContent = '';
    redraw(ctx, parts, chapter);
  };
  parts.run.addEventListener('click', () => {
    chapter.started = true;
    compute();
  });
  parts.tile.addEventListener('change', compute);
  parts.prev.addEventListener('click', () => {
    chapter.step = Math.max(0, chapter.step - 1);
    redraw(ctx, parts, chapter);
  });
  parts.next.addEventListener('click', () => {
    chapter.step = Math.min(chapter.r.tiles - 1, chapter.step + 1);
    redraw(ctx, parts, chapter);
  });
  relabel(ctx, parts, chapter);
  return {
    draw: () => compute(),
    relabel: () => relabel(ctx, parts, chapter),
    destroy: () => parts.section.remove(),
  };
}
