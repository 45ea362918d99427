// Attention sinks, as a chapter (issue 25, view "sinks"): why a softmax row puts all its weight
// somewhere (its weights sum to 1), a "no-op" head that parks it on the first token, a sink logit per
// head (gpt-oss's learned one, or "softmax + 1" with σ = 0) that lets a row spend less than 1 (rows'
// sums shown; engine.flashAttention() with `sinks`, on the example of example.mjs), and StreamingLLM's
// cache cut to a budget that keeps the first tokens and the most recent (engine.kvCache({ evict }) on
// the lab's sentence), each decoded row against the full causal pass. On the learning engine, loaded
// when the reader first asks.
import { buildRequest } from '../state/request.mjs';
import { chapterParts, element, labelled, numberInput } from '../shared/chapter.mjs';
import { TOKENS, exampleOptions } from './example.mjs';
import { renderSinkTable, renderEvictTable, renderLines } from './render.mjs';
import { mountPractice } from '../shared/chapter-practice.mjs';
import { sinkQuestion, practiceSigma } from './practice.mjs';

function control(parts, name, input) {
  input.dataset.sinks = name;
  parts[name] = input;
  return labelled(parts, name, input);
}

function select(values) {
  const input = element('select');
  input.append(...values.map((value) => Object.assign(element('option'), { value })));
  return input;
}

// The chapter's markup, built once (shared/chapter.mjs): every text is set by relabel() (textContent only).
function build(ctx) {
  const parts = chapterParts({ view: 'sinks', key: 'sinks', className: 'flash sinks-chapter', line: 'evictLine' });
  parts.controls.prepend(control(parts, 'head', select(['0', '1'])), control(parts, 'mode', select(['none', 'one', 'learned'])),
    control(parts, 'sigma', numberInput({ min: -20, max: 20, step: 0.5, value: 3 })), control(parts, 'keep', numberInput({ min: 0, max: 64, step: 1, value: 1 })),
    control(parts, 'budget', numberInput({ min: 1, max: 64, step: 1, value: 3 })));
  parts.mode.value = 'learned';
  const scroll = element('div', 'scroll');
  scroll.tabIndex = 0;
  parts.sinkTable = element('table', 'flash-table');
  parts.sinkTable.dataset.sinks = 'sink-table';
  scroll.append(parts.sinkTable);
  parts.sums = element('p');
  parts.sums.dataset.sinks = 'sums';
  parts.evictTitle = element('h3');
  parts.evictIntro = element('p');
  parts.body.prepend(scroll, parts.sums, parts.evictTitle, parts.evictIntro);
  (ctx.section('window') ?? ctx.section('kv-cache') ?? ctx.section('lab')).after(parts.section);
  return parts;
}

function redraw(ctx, parts, chapter) {
  if (!chapter.sinkAnswer || !chapter.evictAnswer) return;
  parts.body.hidden = false;
  renderSinkTable(ctx, parts.sinkTable, chapter);
  renderEvictTable(ctx, parts.table, chapter);
  renderLines(ctx, parts, chapter);
  parts.practice.refresh();
}

const LABELS = [['title', 'sinks.title'], ['intro', 'sinks.intro'], ['headText', 'sinks.head'], ['modeText', 'sinks.mode'], ['sigmaText', 'sinks.sigma'],
  ['keepText', 'sinks.keep'], ['budgetText', 'sinks.budget'], ['run', 'sinks.run'], ['prev', 'sinks.prev'], ['next', 'sinks.next'],
  ['evictTitle', 'sinks.evictTitle'], ['evictIntro', 'sinks.evictIntro']];

function relabel(ctx, parts, chapter) {
  for (const [part, key] of LABELS) parts[part].textContent = ctx.t(key);
  [...parts.head.options].forEach((option, h) => { option.textContent = ctx.t(h === 0 ? 'sinks.head.noop' : 'sinks.head.plain'); });
  for (const option of parts.mode.options) option.textContent = ctx.t(`sinks.mode.${option.value}`);
  if (chapter.error) parts.status.textContent = ctx.t('sinks.error', { message: chapter.error });
  if (chapter.sinkAnswer) chapter.sinkText = sinkText(ctx, chapter.sinkMode, chapter.sigma);
  redraw(ctx, parts, chapter);
}

function sinkText(ctx, mode, sigma) {
  return mode === 'learned' ? ctx.t('sinks.with.learned', { sigma }) : ctx.t(`sinks.with.${mode}`);
}

const whole = (input, min, max) => {
  const value = Math.max(min, Math.min(max, Math.round(Number(input.value)) || 0));
  input.value = String(value);
  return value;
};

async function compute(ctx, parts, chapter) {
  const view = ctx.store.view;
  if (!chapter.started || !view) return;
  const built = buildRequest(ctx.store.state);
  if (built.problems) return;
  const mode = parts.mode.value;
  const sigma = Number.isFinite(Number(parts.sigma.value)) ? Math.max(-20, Math.min(20, Number(parts.sigma.value))) : 0;
  parts.sigma.disabled = mode !== 'learned';
  const logit = mode === 'learned' ? sigma : 0;
  const keep = whole(parts.keep, 0, 64), budget = Math.max(keep + 1, whole(parts.budget, 1, 64));
  parts.budget.value = String(budget);
  const kept = Math.min(budget, view.tokens.length);  // the cache holds at most the sentence
  const id = ++chapter.request;
  parts.status.textContent = ctx.t('sinks.computing');
  // no sink is σ = −∞ in the core (the same arithmetic as the plain softmax, bit for bit)
  const sinkLogit = mode === 'none' ? -Infinity : logit, asked = practiceSigma(mode, sigma);
  const [sinkAnswer, evictAnswer, practiceAnswer] = await Promise.all([
    ctx.compute.sinkAttention(exampleOptions(), [sinkLogit, sinkLogit]),
    ctx.compute.evictDecode(built.request, keep, kept),
    ctx.compute.sinkAttention(exampleOptions(), [asked, asked]),
  ]);
  if (id !== chapter.request || ctx.signal.aborted) return;
  const error = sinkAnswer.error ?? evictAnswer.error ?? practiceAnswer.error;
  chapter.error = error ? error.message : null;
  parts.status.textContent = error ? ctx.t('sinks.error', { message: error.message }) : evictAnswer.steps.length ? '' : ctx.t('sinks.nothing');
  if (error || !evictAnswer.steps.length) return;
  Object.assign(chapter, {
    sinkAnswer: sinkAnswer.result, evictAnswer, practiceAnswer: practiceAnswer.result, practiceSigma: asked, sinkMode: mode, sigma, sinkText: sinkText(ctx, mode, sigma), evictSinks: keep, budget: kept,
    tokens: TOKENS, lineTokens: view.tokens, head: Number(parts.head.value), step: 0,
  });
  redraw(ctx, parts, chapter);
}

/** mount(ctx): the feature contract (docs/architecture.md). Computes only once the reader asks. */
export function mount(ctx) {
  const parts = build(ctx);
  const chapter = { started: false, sinkAnswer: null, evictAnswer: null, error: null, head: 0, step: 0, request: 0 };
  const practice = element('div');  // under the sink table it asks about, before StreamingLLM's part
  parts.sums.after(practice);
  parts.practice = mountPractice(ctx, practice, 'sinks', () => sinkQuestion(ctx, chapter));
  const again = () => compute(ctx, parts, chapter);
  parts.run.addEventListener('click', () => {
    chapter.started = true;
    again();
  });
  for (const name of ['mode', 'sigma', 'keep', 'budget']) parts[name].addEventListener('change', again);
  parts.head.addEventListener('change', () => {
    chapter.head = Number(parts.head.value);
    redraw(ctx, parts, chapter);
  });
  const move = (by) => {
    chapter.step = Math.max(0, Math.min(chapter.evictAnswer.steps.length - 1, chapter.step + by));
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
