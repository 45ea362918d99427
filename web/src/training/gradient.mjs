// One weight's gradient in the Train section (issue 26, a wish: "how would this weight change, and
// why"): the reader picks a weight of the run as it stands (W_q, W_k or W_v of a head, a row named by
// its model dimension, a column by its head dimension), and the engine gives dLoss/dw from its
// backward pass, with the loss at w ± h from its forward pass to check it by, and what the sign means
// for the next step. A small panel of its own after the pictures; index.mjs mounts it.
import { formatNumber } from '../shared/format.mjs';
import { FEATURES } from '../state/vocabulary.mjs';

const MATRICES = [['wq', 'W_q'], ['wk', 'W_k'], ['wv', 'W_v']];
const H = 0.01;

function element(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  return node;
}

function field(id, key, t, control) {
  const label = element('label', { for: id, 'data-text': key }, t(key));
  const wrap = element('div', { class: 'field' });
  wrap.append(label, control);
  return wrap;
}

/** The panel after `after` in the Train section; returns { refresh(), relabel() }. */
export function mountGradient(training) {
  const { t } = training;
  const details = element('details', { id: 'train-gradient', class: 'train-gradient' });
  const summary = element('summary', { 'data-text': 'train.gradient.title' }, t('train.gradient.title'));
  const intro = element('p', { class: 'hint', 'data-text': 'train.gradient.intro' }, t('train.gradient.intro'));
  const matrix = element('select', { id: 'train-gradient-matrix' });
  const row = element('select', { id: 'train-gradient-row' });
  const col = element('select', { id: 'train-gradient-col' });
  const go = element('button', { id: 'train-gradient-go', type: 'button', 'data-text': 'train.gradient.go' }, t('train.gradient.go'));
  const controls = element('div', { class: 'controls train-gradient-controls' });
  controls.append(field('train-gradient-matrix', 'train.gradient.matrix', t, matrix), field('train-gradient-row', 'train.gradient.row', t, row),
    field('train-gradient-col', 'train.gradient.col', t, col), go);
  const out = element('div', { id: 'train-gradient-out', class: 'train-gradient-out', role: 'status' });
  details.append(summary, intro, controls, out);
  training.section.append(details);
  const panel = { training, matrix, row, col, out, shapes: null, last: null, config: null };
  matrix.addEventListener('change', () => fillAxes(panel));
  // the menus follow the run: filled when the panel opens, and again if the run changed since
  details.addEventListener('toggle', () => details.open && fillMenus(panel));
  go.addEventListener('click', () => compute(panel));
  return { refresh: () => fillMenus(panel), relabel: () => relabel(panel, details), get last() { return panel.last; } };
}

// the menus from the run's model: each head's W_q, W_k, W_v that the run trains; rows by feature
function fillMenus(panel) {
  const { training, matrix } = panel;
  const config = training.run?.config;
  panel.config = config ?? null;
  const usable = config && !config.stack;
  panel.out.replaceChildren();
  panel.last = null;
  if (!usable) {
    matrix.replaceChildren();
    panel.out.append(element('p', { class: 'hint' }, training.t('train.gradient.none')));
    return;
  }
  const { dModel, heads } = config.model;
  const dK = config.model.dK ?? Math.floor(dModel / heads);
  panel.shapes = { dModel, heads, dK, dV: config.model.dV ?? dK };
  const options = [];
  for (const [name, label] of MATRICES) {
    if (!config.train.includes(name)) continue;
    for (let h = 0; h < heads; h++) options.push([`${name}:${h}`, heads > 1 ? `${label}, head ${h + 1}` : label]);
  }
  const before = matrix.value;
  matrix.replaceChildren(...options.map(([value, text]) => element('option', { value }, text)));
  if (options.some(([value]) => value === before)) matrix.value = before;
  fillAxes(panel);
}

function fillAxes(panel) {
  const { shapes, matrix, row, col } = panel;
  if (!shapes || !matrix.value) return;
  const width = matrix.value.startsWith('wv') ? shapes.dV : shapes.dK;
  const names = Array.from({ length: shapes.dModel }, (_, i) => FEATURES[i] ?? `e${i + 1}`);
  const keep = (select, n) => Math.min(Number(select.value) || 0, n - 1);
  const [r, c] = [keep(row, names.length), keep(col, width)];
  row.replaceChildren(...names.map((name, i) => element('option', { value: String(i) }, name)));
  col.replaceChildren(...Array.from({ length: width }, (_, i) => element('option', { value: String(i) }, String(i + 1))));
  row.value = String(r);
  col.value = String(c);
}

async function compute(panel) {
  const { training, matrix, row, col } = panel;
  if (!panel.shapes || !matrix.value || panel.config !== (training.run?.config ?? null)) {
    fillMenus(panel);
    if (!panel.shapes || !matrix.value) return;
  }
  const { shapes } = panel;
  const [name, head] = matrix.value.split(':');
  const width = name === 'wv' ? shapes.dV : shapes.dK;
  const index = (Number(head) * shapes.dModel + Number(row.value)) * width + Number(col.value);
  const answer = await training.engine.gradient({ name, index, h: H });
  panel.last = answer?.error ? null : { ...answer, label: matrix.selectedOptions[0].textContent, rowName: row.selectedOptions[0].textContent, colName: col.value ? String(Number(col.value) + 1) : '' };
  show(panel, answer);
}

function show(panel, answer) {
  const { t } = panel.training;
  if (!answer || answer.error) {
    panel.out.replaceChildren(element('p', { class: 'error' }, answer?.error?.message ?? t('train.gradient.none')));
    return;
  }
  const { label, rowName, colName, value, gradient, loss, plus, minus, h } = panel.last;
  const difference = (plus - minus) / (2 * h);
  const sign = Math.abs(gradient) < 1e-6 ? 'flat' : gradient < 0 ? 'down' : 'up';
  panel.out.replaceChildren(
    element('p', {}, t('train.gradient.value', { weight: label, row: rowName, col: colName, value: formatNumber(value), loss: formatNumber(loss), gradient: formatNumber(gradient) })),
    // the two losses at 7 digits (about float32's): at 4 they would read the same and their difference 0
    element('p', {}, t('train.gradient.check', { h: formatNumber(h), twoH: formatNumber(2 * h), plus: formatNumber(plus, 7), minus: formatNumber(minus, 7), difference: formatNumber(difference) })),
    element('p', { class: `train-gradient-${sign}` }, t(`train.gradient.${sign}`, { gradient: formatNumber(gradient), row: rowName })),
  );
}

function relabel(panel, details) {
  for (const node of details.querySelectorAll('[data-text]')) node.textContent = panel.training.t(node.dataset.text);
  if (panel.last) show(panel, panel.last);
  else if (!panel.training.run) fillMenus(panel);
}
