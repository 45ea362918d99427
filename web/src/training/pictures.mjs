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
  $('train-counts').textContent = t('train.heldOutCount', { train: examples.train.length, heldOut: examples.heldOut.length });
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
  const format = (v) => (Number.isFinite(v) ? formatNumber(v) : '—');
  $('train-accuracy').textContent = t('train.accuracy', { percent: Math.round(snapshot.heldOut.accuracy * 100) });
  $('train-progress').textContent = t('train.progress', { steps: snapshot.steps, train: format(history.train.at(-1)?.[1]), heldOut: format(snapshot.heldOut.loss) });
  renderLossCurve($('train-loss'), history, {
    stepLabel: (steps) => t('train.stepTick', { steps }),
    label: t('train.lossCurveLabel', { steps: snapshot.steps, train: format(history.train.at(-1)?.[1]), heldOut: format(snapshot.heldOut.loss) }),
  });
  drawProbe(training, snapshot, config);
  drawWeights(training, snapshot, config);
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
  const heads = config.model.heads;
  if (box.childElementCount !== heads) {
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

function drawWeights({ $, t }, snapshot, config) {
  const box = $('train-weights');
  const { dModel, heads } = config.model;
  const d = dModel / heads;
  if (box.childElementCount !== 3) box.replaceChildren(...WEIGHT_NAMES.map((name) => labelledCanvas('train-weight', name)));
  ['wq', 'wk', 'wv'].forEach((name, i) => {
    const canvas = box.children[i].querySelector('canvas');
    const max = renderWeightMap(canvas, sideBySide(snapshot.weights[name], heads, dModel, d), dModel, heads * d, { cell: 7 });
    canvas.setAttribute('aria-label', t('train.weightLabel', { name: WEIGHT_NAMES[i], rows: dModel, cols: heads * d, max: formatNumber(max) }));
  });
}
