// Sliding windows, as a chapter (issue 25, view "window"): the lab's sentence as causal self-attention
// with a window of w keys (key j visible to query i when 0 ≤ i − j < w, the core's rule), its weights
// from the core as a banded table, and how far information travels through L layers, measured: a stack
// of L attention-only blocks (engine.transformer(), the lab's layer repeated, with the window) is run
// again with one token's vector changed, and the tokens whose output moved are marked, layer by layer
// (engine/api.mjs windowReach, on the learning engine, loaded when the reader first asks).
import { buildRequest } from '../state/request.mjs';
import { selectionIn } from '../shared/selection.mjs';
import { formatNumber } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { chapterParts, element, labelled, numberInput } from '../shared/chapter.mjs';
import { mountPractice } from '../shared/chapter-practice.mjs';
import { firstKeyQuestion, reachQuestion } from './practice.mjs';

const MAX_LAYERS = 8;

// The chapter's markup, built once (shared/chapter.mjs): every text is set by relabel() (textContent only).
function build(ctx) {
  const parts = chapterParts({ view: 'window', key: 'window', className: 'flash window-chapter', line: 'reach' });
  parts.size = numberInput({ min: 1, max: 64, value: 2, data: { window: 'size' } });
  parts.layers = numberInput({ min: 1, max: MAX_LAYERS, value: 3, data: { window: 'layers' } });
  parts.token = element('select');
  parts.token.dataset.window = 'token';
  parts.controls.prepend(labelled(parts, 'size', parts.size), labelled(parts, 'layers', parts.layers), labelled(parts, 'token', parts.token));
  parts.rule = element('p');
  parts.rule.dataset.window = 'rule';
  const scroll = element('div', 'scroll');
  scroll.tabIndex = 0;
  parts.reachTable = element('table', 'flash-table window-reach');
  parts.reachTable.dataset.window = 'reach-table';
  scroll.append(parts.reachTable);
  parts.body.insertBefore(parts.rule, parts.prev.parentNode);
  parts.body.insertBefore(scroll, parts.prev.parentNode);
  (ctx.section('kv-cache') ?? ctx.section('lab')).after(parts.section);
  return parts;
}

function headerRow(ctx, tokens, corner) {
  const tr = element('tr');
  const first = element('th', '', ctx.t(corner));
  first.scope = 'col';
  tr.append(first);
  tokens.forEach((token, j) => {
    const th = element('th', '', `${j + 1}: ${isolate(token)}`);  // reader text, isolated
    th.scope = 'col';
    tr.append(th);
  });
  const thead = element('thead');
  thead.append(tr);
  return thead;
}

// The chosen head's weights with the window: a number where the key is visible, '·' where it is masked.
function renderWeights(ctx, parts, chapter) {
  const { answer, tokens, head, window } = chapter;
  const n = tokens.length;
  const weights = answer.attention.heads[head].weights;
  const tbody = element('tbody');
  for (let i = 0; i < n; i++) {
    const tr = element('tr');
    const th = element('th', '', `${i + 1}: ${isolate(tokens[i])}`);
    th.scope = 'row';
    tr.append(th);
    for (let j = 0; j < n; j++) {
      const visible = i - j >= 0 && i - j < window;
      const cell = element('td', visible ? 'in-window' : 'masked', visible ? formatNumber(weights[i * n + j]) : '·');
      if (i === chapter.token) cell.classList.add('chosen');
      tr.append(cell);
    }
    tbody.append(tr);
  }
  parts.table.replaceChildren(element('caption', '', ctx.t('window.caption', { head: head + 1, window })),
    headerRow(ctx, tokens, 'window.col.query'), tbody);
}

// Layer by layer, the tokens whose change moved the chosen token's output (measured by the engine).
function renderReach(ctx, parts, chapter) {
  const { answer, tokens, token, step } = chapter;
  const tbody = element('tbody');
  answer.reach.forEach((layer, l) => {
    const reached = new Set(layer[token]);
    const tr = element('tr');
    if (l === step) tr.className = 'current';
    if (l > step) tr.hidden = true;
    const th = element('th', '', ctx.t('window.layer', { layer: l + 1 }));
    th.scope = 'row';
    tr.append(th);
    tokens.forEach((_, j) => tr.append(element('td', reached.has(j) ? 'reached' : '', reached.has(j) ? '●' : '·')));
    tbody.append(tr);
  });
  parts.reachTable.replaceChildren(element('caption', '', ctx.t('window.reachCaption', { token: tokens[token], index: token + 1 })),
    headerRow(ctx, tokens, 'window.col.after'), tbody);
}

function renderLine(ctx, parts, chapter) {
  const { answer, tokens, token, step, window, layers } = chapter;
  const reached = answer.reach[step][token];
  parts.reach.textContent = ctx.t('window.reach', {
    layer: step + 1, layers, token: tokens[token], first: reached[0] + 1, last: reached.at(-1) + 1, count: reached.length,
    back: window - 1, rule: (window - 1) * (step + 1) + 1,
  });
  parts.rule.textContent = ctx.t('window.rule', { window, back: window - 1, layers, rule: (window - 1) * layers + 1, mistral: window * layers });
  parts.prev.disabled = step === 0;
  parts.next.disabled = step === layers - 1;
}

function redraw(ctx, parts, chapter) {
  if (!chapter.answer) return;
  renderWeights(ctx, parts, chapter);
  renderReach(ctx, parts, chapter);
  renderLine(ctx, parts, chapter);
  for (const practice of parts.practice) practice.refresh();
  parts.body.hidden = false;
}

function fillTokens(parts, tokens, chosen) {
  const same = parts.token.options.length === tokens.length && [...parts.token.options].every((o, i) => o.dataset.token === tokens[i]);
  if (!same) {
    parts.token.replaceChildren(...tokens.map((token, i) => {
      const option = element('option', '', `${i + 1}: ${isolate(token)}`);
      option.value = String(i);
      option.dataset.token = token;
      return option;
    }));
    parts.token.value = String(chosen);
  }
  return Math.min(tokens.length - 1, Number(parts.token.value) || 0);
}

function relabel(ctx, parts, chapter) {
  for (const [part, key] of [['title', 'window.title'], ['intro', 'window.intro'], ['sizeText', 'window.size'], ['layersText', 'window.layers'],
    ['tokenText', 'window.token'], ['run', 'window.run'], ['prev', 'window.prev'], ['next', 'window.next']]) parts[part].textContent = ctx.t(key);
  if (chapter.error) parts.status.textContent = ctx.t('window.error', { message: chapter.error });
  redraw(ctx, parts, chapter);
}

const whole = (input, min, max) => {
  const value = Math.max(min, Math.min(max, Math.round(Number(input.value)) || min));
  input.value = String(value);
  return value;
};

async function compute(ctx, parts, chapter) {
  const state = ctx.store.state, view = ctx.store.view;
  if (!view) return;
  const token = fillTokens(parts, view.tokens, view.tokens.length - 1);
  if (!chapter.started) return;
  const built = buildRequest(state);
  if (built.problems) return;
  const window = whole(parts.size, 1, 64), layers = whole(parts.layers, 1, MAX_LAYERS);
  const id = ++chapter.request;
  parts.status.textContent = ctx.t('window.computing');
  const answer = await ctx.compute.windowReach(built.request, window, layers);
  if (id !== chapter.request || ctx.signal.aborted) return;
  chapter.error = answer.error ? answer.error.message : null;
  parts.status.textContent = answer.error ? ctx.t('window.error', { message: answer.error.message }) : '';
  if (answer.error) return;
  const { head } = selectionIn(state, view);
  Object.assign(chapter, { answer, window, layers, token, tokens: view.tokens, head: head === 'all' ? 0 : head, step: 0 });
  redraw(ctx, parts, chapter);
}

/** mount(ctx): the feature contract (docs/architecture.md). Computes only once the reader asks. */
export function mount(ctx) {
  const parts = build(ctx);
  const chapter = { started: false, answer: null, error: null, tokens: [], token: 0, head: 0, step: 0, window: 2, layers: 3, request: 0 };
  parts.practice = [mountPractice(ctx, parts.body, 'window', () => firstKeyQuestion(ctx, chapter)),
    mountPractice(ctx, parts.body, 'windowReach', () => reachQuestion(ctx, chapter), { heading: false })];
  const again = () => compute(ctx, parts, chapter);
  parts.run.addEventListener('click', () => {
    chapter.started = true;
    again();
  });
  for (const input of [parts.size, parts.layers, parts.token]) input.addEventListener('change', again);
  const move = (by) => {
    chapter.step = Math.max(0, Math.min(chapter.layers - 1, chapter.step + by));
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
