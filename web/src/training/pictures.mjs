// The Train section's pictures of a run: its numbers, the loss curve, the probe sentence's attention
// per head, and W_q, W_k, W_v side by side. Drawn from the controller's `training` object.
import { renderLossCurve, renderWeightMap, sideBySide } from './render.mjs';
import { renderHeatmap } from '../shared/heatmap.mjs';
import { formatNumber } from '../shared/format.mjs';

const WEIGHT_NAMES = ['W_q', 'W_k', 'W_v'];

/** The probe menu (the held-out sentences) and the sentence counts. */
export function fillProbes({ $, t, task, examples }) {
  const select = $('train-probe');
  const keep = select.value;
  select.replaceChildren(...examples.heldOut.map((e, i) => {
    const option = document.createElement('option');
    option.value = String(i);
    option.textContent = e.sentence;
    return option;
  }).filter((_, i, all) => !task.perHead || i % 2 === 0 || all.length < 2));
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  const counts = task.loss.kind === 'next-token' ? 'train.sequenceCount' : 'train.heldOutCount';
  $('train-counts').textContent = t(counts, { train: examples.train.length, heldOut: examples.heldOut.length });
}

/** Every picture of the current run. */
export function draw(training) {
  const started = performance.now();
  drawRun(training);
  performance.measure('attention-lab:train-draw', { start: started });
}

function drawRun(training) {
  const { $, t } = training;
  const { snapshot, config, history } = training.run;
  // a cross-entropy is never 0: a 0 here is float32's p = 1, i.e. a loss under 2⁻²⁴ ≈ 6 × 10⁻⁸
  const format = (v) => (v === 0 ? t('train.lossUnder') : Number.isFinite(v) ? formatNumber(v) : '—');
  $('train-accuracy').textContent = t('train.accuracy', { percent: Math.round(snapshot.heldOut.accuracy * 100) });
  $('train-progress').textContent = t('train.progress', { steps: snapshot.steps, train: format(history.train.at(-1)?.[1]), heldOut: format(snapshot.heldOut.loss) });
  renderLossCurve($('train-loss'), history, {
    stepLabel: (steps) => t('train.stepTick', { steps }),
    label: t('train.lossCurveLabel', { steps: snapshot.steps, train: format(history.train.at(-1)?.[1]), heldOut: format(snapshot.heldOut.loss) }),
  });
  drawProbe(training, snapshot, config);
  drawWeights(training, snapshot, config);
  drawFindings(training, snapshot, config);
}

// the strongest head of `layer` by score `kind` ('previous' or 'induction'): { layer, head, score }
function strongest(scores, layer, kind) {
  return scores[layer].reduce((best, s, head) => (s[kind] > best.score ? { layer, head, score: s[kind] } : best), { layer, head: -1, score: -1 });
}

// a stack's heads the text names: the previous-token head of layer 1 and the induction heads of the
// last (every one that scores 0.5 or more, the strongest first: with two heads a layer both often
// copy, and either can stand in for the other; else the strongest, not found yet)
function namedHeads(snapshot) {
  const { scores } = snapshot;
  if (!scores) return [];
  const named = [{ ...strongest(scores, 0, 'previous'), kind: 'previous' }];
  if (scores.length < 2) return named;
  const last = scores.length - 1;
  const best = strongest(scores, last, 'induction');
  const found = scores[last].map((s, head) => ({ layer: last, head, score: s.induction, kind: 'induction' }))
    .filter((x) => x.score >= 0.5 && x.head !== best.head);
  return [...named, { ...best, kind: 'induction' }, ...found.sort((a, b) => b.score - a.score)];
}

/** The induction heads a stack's run has found now: [[layer, head], …] (the ones its text names). */
export function inductionHeadsFound(snapshot) {
  return namedHeads(snapshot).filter((x) => x.kind === 'induction' && x.score >= 0.5).map((x) => [x.layer, x.head]);
}

/** A stack's findings in words: the heads it found (induction), or what layer 1 gave 'it' (tired/wide). */
function drawFindings(training, snapshot, config) {
  const { $, t } = training;
  const lines = [];
  if (snapshot.stack) {
    for (const { layer, head, score, kind } of namedHeads(snapshot)) {
      const found = score >= 0.5 ? 'found' : 'notYet';
      lines.push(t(`train.${kind}Head.${found}`, { layer: layer + 1, head: head + 1, score: formatNumber(score) }));
    }
    const induction = inductionHeadsFound(snapshot);
    if (induction.length > 1) lines.push(t('train.inductionShared', { count: induction.length, layer: induction[0][0] + 1 }));
    $('train-ablate-induction').disabled = induction.length === 0;
    const { twin } = snapshot;
    if (twin) {
      lines.push(t('train.twin', { adjective: twin.adjective, percent: Math.round(twin.onAdjective * 100),
        first: Math.round(twin.moved[0] * 100), second: Math.round(twin.moved.at(-1) * 100) }));
    }
  }
  $('train-findings').replaceChildren(...lines.map((text) => {
    const line = document.createElement('p');
    line.textContent = text;
    return line;
  }));
  drawAblation(training, config);
}

// one checkbox per head of a stack whose task names its heads (induction), to switch it off;
// hidden for every other task (review 5, finding 5: tired/wide has no induction heads to switch off)
function drawAblation(training, config) {
  const { $, t } = training;
  const box = $('train-ablate-heads');
  const shown = Boolean(config.stack && config.ablate);
  $('train-ablate').hidden = !shown;
  if (!shown) return;
  const { layers, heads } = config.model;
  if (box.childElementCount === layers * heads && box.dataset.lang === t('train.title')) return;
  box.dataset.lang = t('train.title');
  box.replaceChildren(...Array.from({ length: layers * heads }, (_, i) => {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.name = 'train-ablate-head';
    input.value = `${Math.floor(i / heads)},${i % heads}`;
    label.append(input, ` ${t('train.layerHead', { layer: Math.floor(i / heads) + 1, head: (i % heads) + 1 })}`);
    return label;
  }));
  $('train-ablated').textContent = '';
}

// a labelled canvas: one head's heatmap, or one weight matrix
function labelledCanvas(className, text) {
  const figure = document.createElement('div');
  figure.className = className;
  const label = document.createElement('span');
  label.textContent = text;
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  figure.append(label, canvas);
  return figure;
}

/** The probe sentence's attention, one heatmap per head. */
export function drawProbe(training, snapshot, config) {
  const { $, t, task, examples } = training;
  const e = examples.heldOut[Number($('train-probe').value) || 0];
  const n = e.tokens.length;
  const box = $('train-heatmaps');
  if (config.stack) {
    drawStackProbe(training, snapshot, config, e);
    return;
  }
  const heads = config.model.heads;
  if (box.childElementCount !== heads || box.dataset.stack) {
    delete box.dataset.stack;
    box.replaceChildren(...Array.from({ length: heads }, (_, h) => labelledCanvas('train-heatmap', t('train.head', { head: h + 1 }))));
  }
  if (!snapshot.probe) return;
  // read once per colour scheme: reading a computed style makes the browser restyle there and then
  training.ink ??= getComputedStyle(training.section).color;
  const { ink } = training;
  snapshot.probe.forEach((weights, h) => {
    const canvas = box.children[h].querySelector('canvas');
    // the target's column label is marked, so the reader sees where the row should look
    const target = task.perHead ? examples.heldOut.find((x) => x.sentence === e.sentence && x.head === h)?.target : e.target;
    const columns = e.tokens.map((t, j) => (j === target && task.loss.kind === 'attend' ? `${t} ◂` : t));
    renderHeatmap(canvas, weights, n, n, { cell: 18, rowLabels: e.tokens, columnLabels: columns, ink });
    canvas.setAttribute('aria-label', t('train.probeHeatmap', { head: h + 1, query: e.tokens[e.query] }));
  });
}

// a stack's probe: one heatmap per layer and head, captioned with its scores; the named heads marked
function drawStackProbe(training, snapshot, config, e) {
  const { $, t, task } = training;
  const box = $('train-heatmaps');
  const { layers, heads } = config.model;
  if (box.childElementCount !== layers * heads || !box.dataset.stack) {
    box.dataset.stack = 'true';
    box.replaceChildren(...Array.from({ length: layers * heads }, () => labelledCanvas('train-heatmap', '')));
  }
  if (!snapshot.probe) return;
  training.ink ??= getComputedStyle(training.section).color;
  const n = e.tokens.length;
  const named = namedHeads(snapshot).filter((x) => x.score >= 0.5);
  snapshot.probe.forEach((layer, l) => layer.forEach((weights, h) => {
    const figure = box.children[l * heads + h];
    const score = snapshot.scores?.[l][h];
    const mark = named.find((x) => x.layer === l && x.head === h);
    figure.querySelector('span').textContent = [
      t('train.layerHead', { layer: l + 1, head: h + 1 }),
      score ? t('train.scores', { previous: formatNumber(score.previous), induction: formatNumber(score.induction) }) : '',
      mark ? t(`train.${mark.kind}Head`) : '',
    ].filter(Boolean).join(' · ');
    // the attend loss's target marked in the last layer, where the loss reads it
    const marked = task.loss.kind === 'attend' && l === layers - 1;
    const columns = e.tokens.map((token, j) => (marked && j === e.target ? `${token} ◂` : token));
    const canvas = figure.querySelector('canvas');
    renderHeatmap(canvas, weights, n, n, { cell: n > 12 ? 12 : 18, rowLabels: e.tokens, columnLabels: columns, ink: training.ink });
    canvas.setAttribute('aria-label', t('train.stackHeatmap', { layer: l + 1, head: h + 1, sentence: e.sentence }));
  }));
}

function drawWeights({ $, t }, snapshot, config) {
  const box = $('train-weights');
  box.closest('figure').hidden = Boolean(config.stack);
  if (config.stack) return;
  const { dModel, heads } = config.model;
  const d = dModel / heads;
  if (box.childElementCount !== 3) box.replaceChildren(...WEIGHT_NAMES.map((name) => labelledCanvas('train-weight', name)));
  ['wq', 'wk', 'wv'].forEach((name, i) => {
    const canvas = box.children[i].querySelector('canvas');
    const max = renderWeightMap(canvas, sideBySide(snapshot.weights[name], heads, dModel, d), dModel, heads * d, { cell: 7 });
    canvas.setAttribute('aria-label', t('train.weightLabel', { name: WEIGHT_NAMES[i], rows: dModel, cols: heads * d, max: formatNumber(max) }));
  });
}
