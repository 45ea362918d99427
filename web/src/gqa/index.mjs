// Grouped-query and multi-query attention, as a chapter (issue 25, view "gqa"): heads and key/value
// heads chosen here; the table of which query heads read which K/V head (query head h, counted from
// 0, reads ⌊h · kvHeads / heads⌋, as the core and transformers' repeat_kv do), with a step-through
// over the query heads; the KV cache's bytes per token and layer for MHA, GQA and MQA, of this layer
// and of a model the reader types; and a seeded MHA layer on the lab's sentence converted to GQA by
// averaging its key and value heads, with the output error that costs and kvHeads = heads checked
// against MHA bit for bit (engine/modern-calls.mjs gqaLab, on the forward engine).
import { buildRequest } from '../state/request.mjs';
import { formatNumber } from '../shared/format.mjs';
import { chapterParts, element, labelled, numberInput } from '../shared/chapter.mjs';
import { MODEL_DEFAULTS, renderCache, readModel } from './cache.mjs';
import { mountPractice } from '../shared/chapter-practice.mjs';
import { groupQuestion, cacheQuestion } from './practice.mjs';

// The model form: its fields (Llama-3-8B's numbers) in a fieldset with its legend.
function buildModel(parts) {
  parts.model = {};
  const fieldset = element('fieldset', 'flash-controls gqa-model');
  parts.modelLegend = element('legend');
  fieldset.append(parts.modelLegend);
  for (const [field, value] of Object.entries(MODEL_DEFAULTS)) {
    parts.model[field] = numberInput({ min: 1, max: 10000000, value, data: { gqa: `model-${field}` } });
    fieldset.append(labelled(parts, `model-${field}`, parts.model[field]));
  }
  parts.modelProblem = element('p', 'flash-status');
  parts.modelProblem.dataset.gqa = 'model-problem';
  parts.modelProblem.setAttribute('role', 'status');
  const scroll = element('div', 'scroll');
  scroll.tabIndex = 0;
  parts.modelCache = element('table', 'flash-table');
  parts.modelCache.dataset.gqa = 'model-cache';
  scroll.append(parts.modelCache);
  return [fieldset, parts.modelProblem, scroll];
}

// The chapter's markup, built once (shared/chapter.mjs): every text is set by relabel() (textContent only).
function build(ctx) {
  const parts = chapterParts({ view: 'gqa', key: 'gqa', className: 'flash gqa', line: 'reads' });
  parts.heads = numberInput({ min: 1, max: 16, value: 8, data: { gqa: 'heads' } });
  parts.kvHeads = numberInput({ min: 1, max: 16, value: 2, data: { gqa: 'kv-heads' } });
  parts.dHead = numberInput({ min: 1, max: 64, value: 4, data: { gqa: 'd-head' } });
  parts.controls.prepend(labelled(parts, 'heads', parts.heads), labelled(parts, 'kvHeads', parts.kvHeads), labelled(parts, 'dHead', parts.dHead));
  parts.cacheTitle = element('h3');
  const scroll = element('div', 'scroll');
  scroll.tabIndex = 0;
  parts.cache = element('table', 'flash-table');
  parts.cache.dataset.gqa = 'cache';
  scroll.append(parts.cache);
  parts.convert = element('p');
  parts.convert.dataset.gqa = 'convert';
  parts.same = element('p');
  parts.same.dataset.gqa = 'same';
  parts.modelTitle = element('h3');
  parts.body.append(parts.convert, parts.same, parts.cacheTitle, scroll, parts.modelTitle, ...buildModel(parts));
  (ctx.section('rope') ?? ctx.section('kv-cache') ?? ctx.section('lab')).after(parts.section);
  return parts;
}

/** The K/V head query head h (from 0) reads: ⌊h · kvHeads / heads⌋. */
export const kvHeadOf = (h, heads, kvHeads) => Math.floor((h * kvHeads) / heads);

function renderGroups(ctx, parts, chapter) {
  const { heads, kvHeads } = chapter.r;
  parts.table.replaceChildren();
  const header = element('tr');
  for (const key of ['gqa.col.kvHead', 'gqa.col.queries']) {
    const cell = element('th', '', ctx.t(key));
    cell.scope = 'col';
    header.append(cell);
  }
  const thead = element('thead');
  thead.append(header);
  const tbody = element('tbody');
  for (let g = 0; g < kvHeads; g++) {
    const readers = [];
    for (let h = 0; h < heads; h++) if (kvHeadOf(h, heads, kvHeads) === g) readers.push(h + 1);
    const tr = element('tr');
    if (g === kvHeadOf(chapter.step, heads, kvHeads)) tr.className = 'current';
    const th = element('th', '', String(g + 1));
    th.scope = 'row';
    tr.append(th, element('td', '', readers.join(', ')));
    tbody.append(tr);
  }
  parts.table.append(element('caption', '', ctx.t('gqa.caption', { heads, kvHeads })), thead, tbody);
}

function renderReads(ctx, parts, chapter) {
  const { heads, kvHeads } = chapter.r;
  const h = chapter.step;
  parts.reads.textContent = ctx.t('gqa.reads', { head: h + 1, index: h, heads, kvHeads, product: h * kvHeads, mod: h % kvHeads, g: kvHeadOf(h, heads, kvHeads), kvHead: kvHeadOf(h, heads, kvHeads) + 1 });
  parts.prev.disabled = h === 0;
  parts.next.disabled = h === heads - 1;
}

/** The largest |a − b| and ‖a − b‖ / ‖b‖ over two outputs. */
export function outputError(a, b) {
  let largest = 0, difference = 0, norm = 0;
  for (let i = 0; i < a.length; i++) {
    largest = Math.max(largest, Math.abs(a[i] - b[i]));
    difference += (a[i] - b[i]) ** 2;
    norm += b[i] ** 2;
  }
  return { largest, relative: Math.sqrt(difference / (norm || 1)) };
}

function renderModel(ctx, parts) {
  const read = readModel(parts.model);
  parts.modelProblem.textContent = read.problem
    ? ctx.t(read.problem.heads ? 'gqa.model.divides' : 'gqa.model.problem', { ...read.problem, field: ctx.t(`gqa.model.${read.problem.field}`) })
    : '';
  parts.modelCache.hidden = Boolean(read.problem);
  if (read.model) renderCache(ctx, parts.modelCache, read.model, ctx.t('gqa.model.caption', read.model));
  parts.cachePractice?.refresh();
}

function redraw(ctx, parts, chapter) {
  if (!chapter.r) return;
  const { r } = chapter;
  renderGroups(ctx, parts, chapter);
  renderReads(ctx, parts, chapter);
  renderCache(ctx, parts.cache, { heads: r.heads, kvHeads: r.kvHeads, dHead: r.dHead, bytes: 4 }, ctx.t('gqa.cache.caption', { heads: r.heads, dHead: r.dHead }));
  const error = outputError(r.gqa, r.mha);
  parts.convert.textContent = ctx.t('gqa.convert', { heads: r.heads, kvHeads: r.kvHeads, group: r.heads / r.kvHeads, largest: formatNumber(error.largest), relative: formatNumber(error.relative) });
  const same = outputError(r.same, r.mha).largest;
  parts.groupPractice.refresh();
  parts.same.textContent = same === 0 ? ctx.t('gqa.same', { heads: r.heads }) : ctx.t('gqa.differs', { heads: r.heads, difference: formatNumber(same) });
  parts.body.hidden = false;
}

function relabel(ctx, parts, chapter) {
  for (const [part, key] of [['title', 'gqa.title'], ['intro', 'gqa.intro'], ['headsText', 'gqa.heads'], ['kvHeadsText', 'gqa.kvHeads'],
    ['dHeadText', 'gqa.dHead'], ['run', 'gqa.run'], ['prev', 'gqa.prev'], ['next', 'gqa.next'], ['cacheTitle', 'gqa.cacheTitle'],
    ['modelTitle', 'gqa.modelTitle'], ['modelLegend', 'gqa.modelLegend']]) parts[part].textContent = ctx.t(key);
  for (const field of Object.keys(MODEL_DEFAULTS)) parts[`model-${field}Text`].textContent = ctx.t(`gqa.model.${field}`);
  if (chapter.error) parts.status.textContent = ctx.t('gqa.error', { message: chapter.error });
  renderModel(ctx, parts);
  redraw(ctx, parts, chapter);
}

async function compute(ctx, parts, chapter) {
  const state = ctx.store.state, view = ctx.store.view;
  if (!chapter.started || !view) return;
  const built = buildRequest(state);
  if (built.problems) return;
  const { x, n, dModel, scale } = built.request;
  const options = { x, n, dModel, scale, seed: state.seed, heads: Number(parts.heads.value), kvHeads: Number(parts.kvHeads.value), dHead: Number(parts.dHead.value) };
  const id = ++chapter.request;
  parts.status.textContent = ctx.t('gqa.computing');
  const answer = await ctx.compute.gqa(options);
  if (id !== chapter.request || ctx.signal.aborted) return;
  chapter.error = answer.error ? answer.error.message : null;
  parts.status.textContent = answer.error ? ctx.t('gqa.error', { message: answer.error.message }) : '';
  if (answer.error) return;
  Object.assign(chapter, { r: answer, step: Math.min(chapter.step, answer.heads - 1) });
  redraw(ctx, parts, chapter);
}

/** mount(ctx): the feature contract (docs/architecture.md). Computes only once the reader asks. */
export function mount(ctx) {
  const parts = build(ctx);
  const chapter = { started: false, r: null, error: null, step: 0, request: 0 };
  parts.groupPractice = mountPractice(ctx, parts.body, 'gqa', () => groupQuestion(ctx, chapter));
  parts.cachePractice = mountPractice(ctx, parts.body, 'gqaCache', () => cacheQuestion(ctx, parts.model), { heading: false });
  const again = () => compute(ctx, parts, chapter);
  parts.run.addEventListener('click', () => {
    chapter.started = true;
    again();
  });
  for (const input of [parts.heads, parts.kvHeads, parts.dHead]) input.addEventListener('change', again);
  for (const input of Object.values(parts.model)) input.addEventListener('input', () => renderModel(ctx, parts));
  const move = (by) => {
    chapter.step = Math.max(0, Math.min(chapter.r.heads - 1, chapter.step + by));
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
