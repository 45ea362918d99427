// Rotary positions (RoPE), as a chapter (issue 25, view "rope"): the lab's sentence as self-attention
// (its weights, no mask) run by the core without and with RoPE, with every position shifted by s and
// with the tokens reversed (engine/modern-calls.mjs ropeLab). For the chosen query token and head and
// a key token chosen here: the table of dimension pairs (angle, cos, sin, the pair before and after the
// core's rotation), a step-through with one pair's arithmetic, the scores with and without RoPE, the
// shift and reversal in numbers, the core's score against distance as a picture, and sinusoidal
// (added) beside rotary (multiplied). The chapter only reads the core's numbers; cos and sin of the
// angle are written out so the reader can redo the rotation by hand.
import { buildRequest } from '../state/request.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { chapterParts, element, labelled, numberInput } from '../shared/chapter.mjs';
import { renderCurve, renderScores, renderCompare, differences } from './scores.mjs';
import { mountPractice } from '../shared/chapter-practice.mjs';
import { ropeQuestion } from './practice.mjs';

// The chapter's markup, built once (shared/chapter.mjs): every text is set by relabel() (textContent only).
function build(ctx) {
  const parts = chapterParts({ view: 'rope', key: 'rope', className: 'flash rope', line: 'arithmetic' });
  parts.key = element('select');
  parts.key.dataset.rope = 'key';
  parts.theta = numberInput({ min: 2, max: 1000000, value: 10000, data: { rope: 'theta' } });
  parts.shift = numberInput({ min: 0, max: 100000, value: 5, data: { rope: 'shift' } });
  parts.controls.prepend(labelled(parts, 'key', parts.key), labelled(parts, 'theta', parts.theta), labelled(parts, 'shift', parts.shift));
  parts.scoresCaption = element('h3');
  const scroll = element('div', 'scroll');
  scroll.tabIndex = 0;
  parts.scores = element('table', 'flash-table');
  parts.scores.dataset.rope = 'scores';
  scroll.append(parts.scores);
  parts.property = element('p');
  parts.property.dataset.rope = 'property';
  parts.curveTitle = element('h3');
  parts.curve = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  parts.curve.dataset.rope = 'curve';
  parts.curve.classList.add('rope-curve');
  parts.curveNote = element('p');
  parts.curveNote.dataset.rope = 'curve-note';
  const compareScroll = element('div', 'scroll');
  compareScroll.tabIndex = 0;
  parts.compare = element('table', 'flash-table rope-compare');
  parts.compare.dataset.rope = 'compare';
  compareScroll.append(parts.compare);
  parts.body.append(parts.scoresCaption, scroll, parts.property, parts.curveTitle, parts.curve, parts.curveNote, compareScroll);
  (ctx.section('kv-cache') ?? ctx.section('flash') ?? ctx.section('lab')).after(parts.section);
  return parts;
}

/** Pair c of the chosen head: θ_c, and for the query and the key their position, angle, cos, sin, pair before and after. */
export function pairOf(chapter, c) {
  const { r, head, query, key } = chapter;
  const { dims, theta, shift } = r;
  const dK = r.rotated.shape.dK, half = dims / 2;
  const rate = theta ** (-2 * c / dims);
  const h = r.rotated.heads[head];
  const side = (before, after, row) => {
    const position = row;  // the unshifted pass: row i at position i
    const angle = position * rate;
    return {
      position, angle, cos: Math.cos(angle), sin: Math.sin(angle),
      before: [before[row * dK + c], before[row * dK + c + half]],
      after: [after[row * dK + c], after[row * dK + c + half]],
    };
  };
  return { c, a: c + 1, b: c + half + 1, rate, shift, q: side(h.qUnrotated, h.q, query), k: side(h.kUnrotated, h.k, key) };
}

function renderPairs(ctx, parts, chapter) {
  const { r, step } = chapter;
  parts.table.replaceChildren();
  const caption = element('caption', '', ctx.t('rope.caption', {
    query: chapter.tokens[chapter.query], key: chapter.tokens[chapter.key], head: chapter.head + 1, dims: r.dims, theta: formatNumber(r.theta),
  }));
  const header = element('tr');
  for (const name of ['pair', 'rate', 'qAngle', 'cos', 'sin', 'qBefore', 'qAfter', 'kAngle', 'kBefore', 'kAfter']) {
    const cell = element('th', '', ctx.t(`rope.col.${name}`));
    cell.scope = 'col';
    header.append(cell);
  }
  const thead = element('thead');
  thead.append(header);
  const tbody = element('tbody');
  const pair = (values) => `(${values.map((v) => formatNumber(v)).join(', ')})`;
  for (let c = 0; c < r.dims / 2; c++) {
    const p = pairOf(chapter, c);
    const tr = element('tr');
    if (c === step) tr.className = 'current';
    const th = element('th', '', `${p.a}, ${p.b}`);
    th.scope = 'row';
    tr.append(th, element('td', '', formatNumber(p.rate)), element('td', '', formatNumber(p.q.angle)), element('td', '', formatNumber(p.q.cos)),
      element('td', '', formatNumber(p.q.sin)), element('td', '', pair(p.q.before)), element('td', '', pair(p.q.after)),
      element('td', '', formatNumber(p.k.angle)), element('td', '', pair(p.k.before)), element('td', '', pair(p.k.after)));
    tbody.append(tr);
  }
  parts.table.append(caption, thead, tbody);
}

// One pair's arithmetic: θ_c, the query's angle, its rotation by hand, and what the core gives.
function renderArithmetic(ctx, parts, chapter) {
  const { r, step } = chapter;
  const p = pairOf(chapter, step);
  const [x, y] = p.q.before;
  parts.arithmetic.textContent = ctx.t('rope.arithmetic', {
    pair: step + 1, pairs: r.dims / 2, a: p.a, b: p.b, theta: formatNumber(r.theta), c: step, dims: r.dims, rate: formatNumber(p.rate),
    token: chapter.tokens[chapter.query], position: p.q.position, angle: formatNumber(p.q.angle),
    cos: formatNumber(p.q.cos), sin: formatNumber(p.q.sin), x: formatNumber(x), y: formatNumber(y),
    first: formatNumber(x * p.q.cos - y * p.q.sin), second: formatNumber(y * p.q.cos + x * p.q.sin),
    core: `(${p.q.after.map((v) => formatNumber(v)).join(', ')})`,
  });
  parts.prev.disabled = step === 0;
  parts.next.disabled = step === r.dims / 2 - 1;
}

function redraw(ctx, parts, chapter) {
  if (!chapter.r) return;
  renderPairs(ctx, parts, chapter);
  renderArithmetic(ctx, parts, chapter);
  renderScores(ctx, parts, chapter);
  const d = differences(chapter);
  // reversing flips every distance's sign; when no score cares (q = k under identity weights, some embeddings), say so
  const symmetric = d.rotatedReversed <= 1e-5 * Math.max(1, d.largest);
  parts.property.textContent = ctx.t(symmetric ? 'rope.propertySymmetric' : 'rope.property', {
    shift: chapter.r.shift, shifted: formatNumber(d.shifted), plainReversed: formatNumber(d.plainReversed), rotatedReversed: formatNumber(d.rotatedReversed),
  });
  renderCurve(ctx, parts, chapter);
  parts.practice.refresh();
  parts.body.hidden = false;
}

function relabel(ctx, parts, chapter) {
  for (const [part, key] of [['title', 'rope.title'], ['intro', 'rope.intro'], ['keyText', 'rope.key'], ['thetaText', 'rope.theta'],
    ['shiftText', 'rope.shift'], ['run', 'rope.run'], ['prev', 'rope.prev'], ['next', 'rope.next'], ['scoresCaption', 'rope.scoresTitle'],
    ['curveTitle', 'rope.curveTitle']]) parts[part].textContent = ctx.t(key);
  renderCompare(ctx, parts);
  if (chapter.error) parts.status.textContent = ctx.t('rope.error', { message: chapter.error });
  redraw(ctx, parts, chapter);
}

// The key menu: one option per token of the sentence, the chosen one kept when it still exists.
function fillKeys(parts, tokens) {
  const chosen = Number(parts.key.value) || 0;
  if (parts.key.options.length !== tokens.length || [...parts.key.options].some((o, i) => o.textContent !== `${i + 1}: ${isolate(tokens[i])}`)) {
    parts.key.replaceChildren(...tokens.map((token, i) => Object.assign(element('option', '', `${i + 1}: ${isolate(token)}`), { value: String(i) })));
  }
  parts.key.value = String(Math.min(chosen, tokens.length - 1));
  return Number(parts.key.value);
}

const whole = (input, low, high, fallback) => {
  const value = Math.max(low, Math.min(high, Math.round(Number(input.value))));
  input.value = String(Number.isFinite(value) ? value : fallback);
  return Number(input.value);
};

async function compute(ctx, parts, chapter) {
  const state = ctx.store.state, view = ctx.store.view;
  if (!view) return;
  const key = fillKeys(parts, view.tokens);  // the menu is ready before the reader asks
  if (!chapter.started) return;
  const built = buildRequest(state);
  if (built.problems) return;
  const { token, head } = selectionIn(state, view);
  const theta = whole(parts.theta, 2, 1000000, 10000), shift = whole(parts.shift, 0, 100000, 5);
  const options = { theta, shift, head: head === 'all' ? 0 : head, query: token, key };
  const id = ++chapter.request;
  parts.status.textContent = ctx.t('rope.computing');
  const answer = await ctx.compute.rope(built.request, options);
  if (id !== chapter.request || ctx.signal.aborted) return;
  chapter.error = answer.error ? answer.error.message : null;
  parts.status.textContent = answer.error ? ctx.t('rope.error', { message: answer.error.message }) : '';
  if (answer.error) return;
  const sameSetting = chapter.r && chapter.r.dims === answer.dims;
  Object.assign(chapter, { r: answer, tokens: view.tokens, head: options.head, query: token, key, step: sameSetting ? Math.min(chapter.step, answer.dims / 2 - 1) : 0 });
  redraw(ctx, parts, chapter);
}

/** mount(ctx): the feature contract (docs/architecture.md). Computes only once the reader asks. */
export function mount(ctx) {
  const parts = build(ctx);
  const chapter = { started: false, r: null, error: null, tokens: [], head: 0, query: 0, key: 0, step: 0, request: 0 };
  parts.practice = mountPractice(ctx, parts.body, 'rope', () => ropeQuestion(ctx, chapter));
  const again = () => compute(ctx, parts, chapter);
  parts.run.addEventListener('click', () => {
    chapter.started = true;
    again();
  });
  for (const input of [parts.key, parts.theta, parts.shift]) input.addEventListener('change', again);
  const move = (by) => {
    chapter.step = Math.max(0, Math.min(chapter.r.dims / 2 - 1, chapter.step + by));
    redraw(ctx, parts, chapter);
  };
  parts.prev.addEventListener('click', () => move(-1));
  parts.next.addEventListener('click', () => move(1));
  relabel(ctx, parts, chapter);
  return {
    draw: again,
    relabel: () => relabel(ctx, parts, chapter),
    destroy: () => parts.section.remove(),
  };
}
