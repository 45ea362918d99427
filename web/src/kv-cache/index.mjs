// The KV cache, as a chapter (issue 25, view "kv-cache"): the lab's sentence as causal self-attention,
// its first tokens prefilled and the rest decoded one token at a time by the core (engine.kvCache(), on
// the learning engine, loaded when the reader first asks). A table per step: the token, its position,
// the cached keys it reads, the multiply-adds with the cache and without, the cache's size, and whether
// its output row equals the full causal pass's row; a step-through shows one step's numbers.
import { buildRequest } from '../state/request.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { formatNumber, formatNumbers } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { chapterParts, element, labelled } from '../shared/chapter.mjs';
import { mountPractice } from '../shared/chapter-practice.mjs';
import { cacheQuestion } from './practice.mjs';

// The chapter's markup, built once (shared/chapter.mjs): every text is set by relabel() (textContent only).
function build(ctx) {
  const parts = chapterParts({ view: 'kv-cache', key: 'kv', className: 'flash kv-cache', line: 'detail' });
  parts.prefill = element('input');
  Object.assign(parts.prefill, { type: 'number', min: '1', step: '1', value: '1' });
  parts.prefill.dataset.kv = 'prefill';
  parts.rope = element('input');
  parts.rope.type = 'checkbox';
  parts.rope.dataset.kv = 'rope';
  parts.controls.prepend(labelled(parts, 'prefill', parts.prefill), labelled(parts, 'rope', parts.rope));
  (ctx.section('flash') ?? ctx.section('lab')).after(parts.section);
  return parts;
}

// The step's output row against the full pass's row i: 0 when bit for bit the same.
function differenceOf(answer, step, index) {
  const dOut = step.output.length;
  const row = answer.full.output.slice(index * dOut, (index + 1) * dOut);
  return Math.max(...step.output.map((value, c) => Math.abs(value - row[c])));
}

function sameText(ctx, difference) {
  return difference === 0 ? ctx.t('kv.same') : ctx.t('kv.differs', { difference: formatNumber(difference) });
}

function renderTable(ctx, parts, chapter) {
  const { answer, tokens, step: current } = chapter;
  parts.table.replaceChildren();
  const header = element('tr');
  for (const key of ['kv.col.token', 'kv.col.position', 'kv.col.keys', 'kv.col.work', 'kv.col.full', 'kv.col.cache', 'kv.col.same']) {
    const cell = element('th', '', ctx.t(key));
    cell.scope = 'col';
    header.append(cell);
  }
  const thead = element('thead');
  thead.append(header);
  const tbody = element('tbody');
  answer.steps.forEach((step, k) => {
    const index = step.length - 1;
    const tr = element('tr');
    if (k === current) tr.className = 'current';
    if (k > current) tr.hidden = true;
    const th = element('th', '', `${index + 1}: ${isolate(tokens[index])}`);  // reader text, isolated
    th.scope = 'row';
    // positions counted from 1, as the token column and the other chapters count (the core's from 0)
    tr.append(th, element('td', '', String(step.position + 1)), element('td', '', `${step.firstKey + 1}–${step.length}`),
      element('td', '', String(step.multiplyAdds)), element('td', '', String(step.fullMultiplyAdds)),
      element('td', '', ctx.t('kv.cacheSize', { values: step.cacheValues, bytes: step.cacheBytes })),
      element('td', '', sameText(ctx, differenceOf(answer, step, index))));
    tbody.append(tr);
  });
  parts.table.append(element('caption', '', ctx.t('kv.caption', { prefill: chapter.prefill })), thead, tbody);
}

function renderDetail(ctx, parts, chapter) {
  const { answer, tokens, step: k, head } = chapter;
  const step = answer.steps[k];
  const index = step.length - 1, visible = step.length - step.firstKey;
  const weights = step.weights.slice(head * visible, (head + 1) * visible);
  parts.detail.textContent = ctx.t('kv.detail', {
    step: k + 1, steps: answer.steps.length, token: tokens[index], position: step.position + 1, cached: index,
    head: head + 1, weights: formatNumbers(weights), output: formatNumbers(step.output),
    same: sameText(ctx, differenceOf(answer, step, index)),
  });
  parts.prev.disabled = k === 0;
  parts.next.disabled = k === answer.steps.length - 1;
}

function redraw(ctx, parts, chapter) {
  if (!chapter.answer) return;
  parts.body.hidden = chapter.answer.steps.length === 0;
  if (parts.body.hidden) return;
  renderTable(ctx, parts, chapter);
  renderDetail(ctx, parts, chapter);
  parts.practice.refresh();
}

function relabel(ctx, parts, chapter) {
  for (const [part, key] of [['title', 'kv.title'], ['intro', 'kv.intro'], ['prefillText', 'kv.prefill'], ['ropeText', 'kv.rope'],
    ['run', 'kv.run'], ['prev', 'kv.prev'], ['next', 'kv.next']]) parts[part].textContent = ctx.t(key);
  if (chapter.error) parts.status.textContent = ctx.t('kv.error', { message: chapter.error });
  redraw(ctx, parts, chapter);
}

async function compute(ctx, parts, chapter) {
  const state = ctx.store.state, view = ctx.store.view;
  if (!chapter.started || !view) return;
  const built = buildRequest(state);
  if (built.problems) return;
  const n = view.tokens.length;
  const prefill = Math.max(1, Math.min(n, Math.round(Number(parts.prefill.value)) || 1));
  parts.prefill.value = String(prefill);
  parts.prefill.max = String(n);
  const dims = Math.floor(view.dK / 2) * 2;
  const rotary = parts.rope.checked && dims > 0 ? { dims } : null;
  const id = ++chapter.request;
  parts.status.textContent = ctx.t('kv.computing');
  const answer = await ctx.compute.kvDecode(built.request, prefill, rotary);
  if (id !== chapter.request || ctx.signal.aborted) return;
  chapter.error = answer.error ? answer.error.message : null;
  parts.status.textContent = answer.error ? ctx.t('kv.error', { message: answer.error.message })
    : answer.steps.length ? '' : ctx.t('kv.nothing');
  if (answer.error) return;
  const { head } = selectionIn(state, view);
  Object.assign(chapter, { answer, prefill, tokens: view.tokens, head: head === 'all' ? 0 : head, step: 0 });  // from the first decoded step
  redraw(ctx, parts, chapter);
}

/** mount(ctx): the feature contract (docs/architecture.md). Computes only once the reader asks. */
export function mount(ctx) {
  const parts = build(ctx);
  const chapter = { started: false, answer: null, error: null, prefill: 1, tokens: [], head: 0, step: 0, request: 0 };
  parts.practice = mountPractice(ctx, parts.body, 'kv', () => cacheQuestion(ctx, chapter));
  const again = () => compute(ctx, parts, chapter);
  parts.run.addEventListener('click', () => {
    chapter.started = true;
    again();
  });
  parts.prefill.addEventListener('change', again);
  parts.rope.addEventListener('change', again);
  const move = (by) => {
    chapter.step = Math.max(0, Math.min(chapter.answer.steps.length - 1, chapter.step + by));
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
