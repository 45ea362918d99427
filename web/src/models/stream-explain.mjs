// The residual stream explained with the reader's own numbers: what it is, how a layer adds to it
// (x entering, a attention's output, m the MLP's, as in the lab; pre-LN: leaving = x + a + m; BERT's
// post-LN: u = LN₁(x + a), leaving = LN₂(u + m)), a
// layer's parts for the chosen token with the check that they add up (stream-check.mjs; the MLP
// recomputed from the layer's weights, read again from the folder), and a walk through the stages.
// DOM nodes and textContent only.
import { watchedScrollCue } from './scroll-cue.mjs';
import { formatFull, formatNumber } from '../shared/format.mjs';
import { layerParts, normOf, SUMMARY_FEATURES } from './stream-check.mjs';
import { rowName, tokenName } from './names.mjs';

const element = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

function numberCell(value) {
  const td = element('td', '', formatNumber(value));
  td.title = td.dataset.value = formatFull(value);
  return td;
}

// Below this (largest difference over the largest value) the sum is the model's state: float32's
// rounding through a block of a few hundred additions, with room
export const CHECK_TOLERANCE = 1e-4;

/** What a pre-LN layer's two norms are called in the text: RMSNorm₁/₂ for the Llama family (review 7, 14). */
const rmsNorms = (report) => report.family === 'llama';
const normNames = (report) => (rmsNorms(report) ? { norm1: 'RMSNorm₁', norm2: 'RMSNorm₂' } : { norm1: 'LN₁', norm2: 'LN₂' });

/** The parts of layer l for token i as a table: a row per part, its norm and first features. */
function partsTable(parts, l, i, token, t, { last, norms }) {
  const d = parts.leaving.length;
  const shown = Math.min(d, SUMMARY_FEATURES);
  const table = element('table', 'model-stream-parts');
  Object.assign(table.dataset, { layer: String(l), token: String(i) });
  table.append(element('caption', '', t(`models.streamParts.${parts.arrangement}`, { layer: l + 1, token, row: i + 1 })));
  const head = element('tr');
  head.append(element('th', '', ''), element('th', '', t('models.streamNorm')), ...Array.from({ length: shown }, (_, j) => element('th', '', `e${j + 1}`)));
  const body = element('tbody');
  for (const [key, values] of parts.rows) {
    const tr = element('tr');
    tr.dataset.part = key;
    const pre = parts.arrangement === 'pre';
    const name = key === 'mlp' && pre && !parts.exact ? 'mlpRemainder' : key === 'leaving' && pre && last ? 'leavingLast' : key;
    tr.append(rowName(t(`models.streamPart.${parts.arrangement}.${name}`, { layer: l + 1, ...norms })), numberCell(normOf(values)), ...Array.from(values.slice(0, shown), numberCell));
    body.append(tr);
  }
  table.append(element('thead'), body);
  table.tHead.append(head);
  return table;
}

// What the check says: the sum against the model's state, or why it cannot be made yet
function checkText(parts, l, t) {
  if (parts.error === null) return t('models.streamCheckWaiting', { layer: l + 1 });
  if (!parts.exact) return t('models.streamCheckRemainder', { layer: l + 1 });
  const values = { layer: l + 1, error: parts.error.toExponential(1) };
  const key = parts.error <= CHECK_TOLERANCE ? `models.streamCheck.${parts.arrangement}` : 'models.streamCheckOff';
  return t(key, values);
}

/** What the stream is, and the block's formula (pre-LN or BERT's post-LN): two paragraphs. */
export function streamIntro(result, report, t) {
  const d = result.hidden[0].length / result.n;
  // Llama, Qwen2, Mistral: their norms are RMSNorms (review 7, finding 14)
  const formula = report.family === 'bert' ? 'post' : rmsNorms(report) ? 'preRms' : 'pre';
  return [element('p', '', t('models.streamWhat', { d })), element('p', '', t(`models.streamFormula.${formula}`))];
}

/**
 * Layer l's parts for token i with its check. `blockOf(l)` gives the layer's block (a promise; null when it cannot be read).
 */
export function renderExplanation(holder, { result, report, t, token, layer, blockOf, onShown = () => {} }) {
  const arrangement = report.family === 'bert' ? 'post' : 'pre';
  const parts = layerParts(result, layer, token, { arrangement });
  const table = element('div', 'model-stream-box');
  const check = element('p', 'model-stream-check');
  check.setAttribute('role', 'status');
  const show = (p) => {
    table.replaceChildren(partsTable(p, layer, token, tokenName(result, token, t), t, { last: layer === result.layers.length - 1, norms: normNames(report) }));
    check.textContent = checkText(p, layer, t);
    check.dataset.error = p.error === null ? '' : String(p.error);
    check.dataset.exact = String(p.exact);
    onShown();
  };
  show(parts);
  holder.replaceChildren(watchedScrollCue(table, t('models.streamScrollCue')), table, check, element('p', 'hint', t(`models.streamHonest.${arrangement}`)));
  return blockOf(layer).then((block) => {
    if (!holder.isConnected || holder.dataset.key !== `${token}:${layer}`) return;
    // the folder could not be read again (a file moved away): said, the rows stay what the page has
    if (!block) check.textContent = t('models.streamCheckUnread', { layer: layer + 1 });
    else show(layerParts(result, layer, token, { block, arrangement }));
  });
}

// The parts-table rows each step of the walk describes
const PARTS = {
  pre: { attention: ['attention', 'middle'], mlp: ['mlp', 'computed', 'leaving'] },
  post: { attention: ['attention', 'sum1', 'norm1'], mlp: ['mlp', 'sum2', 'computed', 'leaving'] },
};

// The embeddings' step: learned positions (GPT-2; BERT with token types and a norm), or none (rotary)
const embedKey = (report) => (report.family === 'bert' ? 'models.streamWalk.embedPost' : report.ropeLayout ? 'models.streamWalk.embedRope' : 'models.streamWalk.embed');

/**
 * The walk's steps for token i: [{ stage (the summary row to mark: streamStages' key), layer, parts
 * (the parts-table rows to mark), text }]: the embeddings, then for each layer its attention and its
 * MLP, then the final norm where there is one. A causal model's first token attends to itself alone.
 */
// The walk's last words: the unembedding scores the next token from the last token's row only.
// (a message within the message: translated, its tokens isolated, with the step's text)
function readsText(result, i, t) {
  const last = result.tokens.length - 1;
  return i === last ? { key: 'models.streamWalk.readsLast', values: {} } : { key: 'models.streamWalk.readsOther', values: { token: tokenName(result, i, t), last: tokenName(result, last, t) } };
}

export function walkSteps(result, report, i, t) {
  const d = result.hidden[0].length / result.n;
  const rowOf = (values) => values.subarray(i * d, (i + 1) * d);
  const norm = (values) => formatNumber(normOf(Float64Array.from(rowOf(values))));
  // quoted, a byte piece with the character it is part of
  const token = tokenName(result, i, t);
  const count = result.layers.length;
  const post = report.family === 'bert';
  const parts = PARTS[post ? 'post' : 'pre'];
  const steps = [{ stage: '0', layer: 0, parts: ['entering'], text: t(embedKey(report), { token, norm: norm(result.hidden[0]), d }) }];
  result.layers.forEach((layer, l) => {
    const entering = rowOf(result.hidden[l]), attention = rowOf(layer.output), leaving = rowOf(layer.hidden);
    const sum = Float64Array.from(entering, (x, j) => x + attention[j]);
    const values = { ...normNames(report), layer: l + 1, token, entering: norm(result.hidden[l]), attention: norm(layer.output), sum: formatNumber(normOf(sum)), leaving: norm(layer.hidden) };
    const mlp = formatNumber(normOf(Float64Array.from(leaving, (x, j) => x - sum[j])));
    const alone = report.causal && i === 0;
    const last = !post && l === count - 1;
    steps.push({ stage: String(l), layer: l, parts: parts.attention,
      text: t(post ? 'models.streamWalk.attentionPost' : alone ? 'models.streamWalk.attentionSelf' : 'models.streamWalk.attention', values) });
    steps.push({ stage: last ? 'before-norm' : String(l + 1), layer: l, parts: parts.mlp,
      text: t(post ? 'models.streamWalk.mlpPost' : last ? 'models.streamWalk.mlpLast' : 'models.streamWalk.mlp', { ...values, mlp }) });
  });
  if (!post) {
    steps.push({ stage: String(count), layer: count - 1, parts: ['leaving'], text: t('models.streamWalk.final', { layer: count, before: norm(result.layers[count - 1].hidden), after: norm(result.hidden[count]),
      norm: t(rmsNorms(report) ? 'models.norm.rmsnorm' : 'models.norm.layernorm'), reads: readsText(result, i, t) }) });
  }
  return steps;
}

/**
 * The walk's panel: Step through, Back, Next, Stop, the position and the step's sentence; onStep(step
 * or null) marks the stage (the summary's row) and shows its layer. Keys as the lab's walk.
 */
export function walkPanel(steps, t, onStep) {
  const panel = element('div', 'model-stream-walk');
  const button = (key, name) => {
    const b = element('button', '', t(key));
    b.type = 'button';
    b.dataset.walk = name;
    return b;
  };
  const start = button('walk.start', 'start'), back = button('walk.back', 'back'), next = button('walk.next', 'next'), stop = button('walk.stop', 'stop');
  const position = element('span', 'walk-position');
  position.setAttribute('aria-live', 'polite');
  const text = element('p', 'walk-text');
  text.setAttribute('aria-live', 'polite');
  let at = -1;
  const go = (to) => {
    at = to < 0 ? -1 : Math.max(0, Math.min(steps.length - 1, to));
    const walking = at >= 0;
    start.hidden = walking;
    for (const b of [back, next, stop]) b.hidden = !walking;
    back.disabled = at <= 0;
    next.disabled = at >= steps.length - 1;
    position.textContent = walking ? t('walk.position', { step: at + 1, count: steps.length }) : '';
    text.textContent = walking ? steps[at].text : t('models.streamWalkIntro', { count: steps.length });
    panel.dataset.step = String(at);
    onStep(walking ? steps[at] : null);
  };
  // a button hidden or disabled by its own click hands the focus on (keyboard readers keep their place)
  const refocus = (from) => {
    if (from?.hidden || from?.disabled) [next, back, stop, start].find((b) => !b.hidden && !b.disabled)?.focus();
  };
  const keep = (from, to) => () => {
    go(to());
    refocus(from);
  };
  start.addEventListener('click', keep(start, () => 0));
  back.addEventListener('click', keep(back, () => at - 1));
  next.addEventListener('click', keep(next, () => at + 1));
  stop.addEventListener('click', keep(stop, () => -1));
  panel.addEventListener('keydown', (event) => {
    const moves = { ArrowRight: at + 1, n: at + 1, ArrowLeft: at - 1, p: at - 1, Home: 0, End: steps.length - 1, Escape: -1 };
    if (at < 0 || !(event.key in moves)) return;
    event.preventDefault();
    go(moves[event.key]);
    refocus(event.target);
  });
  const bar = element('div', 'walk-bar');
  bar.append(start, back, next, stop, position);
  panel.append(element('h4', '', t('models.streamWalkTitle')), bar, text, element('p', 'hint walk-keys', t('walk.keys')));
  go(-1);
  return { panel, go, get at() { return at; } };
}
