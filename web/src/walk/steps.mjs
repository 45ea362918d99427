// The guided walk: the computation of one query token in one head, one operation at a time, as
// data. Pure: takes the shown computation (`view`, as in explain.mjs) and returns the steps, each
// naming the stage of the formula, the sentence that says what happens, the cells that go in and
// the cells that come out (addresses of the tables' cells), and the cell whose arithmetic is shown.
//   cell address: { matrix, head?, row?, col? } for the matrices (row or col omitted: all of them),
//                 { part, key? } for the step table's columns (q k v scores scaled weights weighted z)
import { modelMlpFormula } from '../shared/mlp-text.mjs';
import { message } from '../i18n/index.mjs';
import { formatNumber } from '../shared/format.mjs';
import { layerCount, layerNumber, modelLayerOf, normName, stageValues } from '../shared/layer-name.mjs';
import { projectionFormula, rotated, rotationArithmetic } from '../shared/formula-text.mjs';

/** The stages of the formula strip, in the order of the computation ('rope' only shown when the layer rotates). */
export const STAGES = ['x', 'qkv', 'rope', 'scores', 'scaled', 'weights', 'z', 'concat', 'output'];

// the column of a row that carries the most (largest |value|): the cell a step explains
function largest(values, width, r) {
  let best = 0;
  for (let c = 1; c < width; c++) if (Math.abs(values[r * width + c]) > Math.abs(values[r * width + best])) best = c;
  return best;
}

export function walkSteps(view, query, head, t = message) {
  const { tokens, keyTokens, m, dK, dV, result } = view;
  const token = tokens[query];
  const h = result.heads[head];
  const hd = head + 1;
  const steps = [];
  const add = (stage, text, inputs, outputs, explain = null, arithmetic = null) => steps.push({ stage, text, inputs, outputs, explain, arithmetic });
  const weightsRow = Array.from(h.weights.subarray(query * m, (query + 1) * m));
  // the K and V steps explain the row of the key this query weighs most
  const strongest = weightsRow.indexOf(Math.max(...weightsRow));

  steps.push(...projectionSteps(view, query, head, strongest, t));
  for (let j = 0; j < m; j++) {
    // the key's row named (two keys may be the same word), and a score the mask removes said to be
    // unused (review 8, finding 8)
    const masked = h.scaled[query * m + j] === -Infinity;
    add('scores', t(masked ? 'walk.scoreMasked' : 'walk.score', { token, key: keyTokens[j], row: j + 1, dK }),
      [{ matrix: 'q', head, row: query }, { matrix: 'k', head, row: j }, { part: 'q' }, { part: 'k', key: j }],
      [{ matrix: 'scores', head, row: query, col: j }], { matrix: 'scores', head, row: query, col: j });
  }
  const scaleText = view.scaleMode === 'none'
    ? t('walk.scaleNone', { token })
    : t('walk.scale', { token, divisor: view.scaleMode === 'sqrt_dk' ? `√${dK} = ${formatNumber(result.shape.scale)}` : formatNumber(result.shape.scale) });
  add('scaled', scaleText, [{ matrix: 'scores', head, row: query }], [{ matrix: 'scaled', head, row: query }],
    { matrix: 'scaled', head, row: query, col: strongest });
  add('weights', t('walk.softmax', { token }), [{ matrix: 'scaled', head, row: query }], [{ matrix: 'weights', head, row: query }],
    { matrix: 'weights', head, row: query, col: strongest });
  for (let j = 0; j < m; j++) {
    const weight = weightsRow[j];
    const value = Array.from(h.v.subarray(j * dV, (j + 1) * dV));
    add('z', t('walk.weighted', { token, key: keyTokens[j] }),
      [{ matrix: 'weights', head, row: query, col: j }, { matrix: 'v', head, row: j }, { part: 'weights', key: j }, { part: 'v', key: j }],
      [{ part: 'weighted', key: j }], null,
      [`${formatNumber(weight)} × [${value.map((v) => formatNumber(v)).join(', ')}]`, `= [${value.map((v) => formatNumber(Math.fround(weight * v))).join(', ')}]`]);
  }
  add('z', t('walk.sum', { token, head: hd }), [{ matrix: 'weights', head, row: query }, { matrix: 'v', head }, { part: 'weighted' }],
    [{ matrix: 'z', head, row: query }, { part: 'z' }], { matrix: 'z', head, row: query, col: largest(h.z, dV, query) });
  add('concat', t(view.heads === 1 ? 'walk.concatOne' : 'walk.concat', { token }), [{ matrix: 'z', head, row: query }], [{ matrix: 'concat', row: query }],
    { matrix: 'concat', row: query, col: head * dV + largest(h.z, dV, query) });
  add('output', t(view.weights.wo ? 'walk.wo' : 'walk.noWo', { token }), [{ matrix: 'concat', row: query }, { matrix: 'wo' }], [{ matrix: 'output', row: query }],
    { matrix: 'output', row: query, col: largest(result.output, result.shape.dOut, query) });
  if (result.layers) steps.push(...stackSteps(view, query, t));
  if (result.arrangement === 'pre') steps.unshift(normFirst(view, query, t));
  return steps;
}

// The q, k and v steps (and q's rotation): their headlines give the formula computed
function projectionSteps(view, query, head, strongest, t) {
  const { tokens, keyTokens, dK, dV, result } = view;
  const token = tokens[query];
  const h = result.heads[head];
  const hd = head + 1;
  // grouped-query attention: W_k and W_v are those of the key/value head this head reads
  const kvHead = Math.floor(head / (view.heads / (view.kvHeads ?? view.heads)));
  const input = view.self ? 'x' : 'context';
  const steps = [];
  const add = (stage, text, inputs, outputs, explain = null, arithmetic = null) => steps.push({ stage, text, inputs, outputs, explain, arithmetic });
  // pre-LN: the query reads LN₁(x), as the step table's caption says (review 6, finding 11); the
  // headline's formula is the one computed: its bias, its rotation (review 8, findings 1 and 5)
  const pre = result.arrangement === 'pre';
  const n1 = pre ? normName(view, result.layer ?? 0, 0) : null;
  const qKey = !pre ? 'walk.q' : n1.startsWith('RMS') ? 'walk.qNormRms' : 'walk.qNorm';
  const turned = rotated(view, head);
  const source = view.self ? 'X' : 'C';
  const also = (matrix, row) => [
    ...(view.weights?.[`b${matrix}`] ? [t('walk.biasAdded', { bias: `b_${matrix}` })] : []),
    ...(turned && matrix !== 'v' ? [t(matrix === 'q' ? 'walk.rotatedNext' : 'walk.rotatedKeys', { position: row, row: row + 1 })] : []),
  ].map((text) => ` ${text}`).join('');
  add('qkv', t(qKey, { token, head: hd, formula: `q = ${projectionFormula(view, 'q', pre ? `${n1}(x)` : 'x', head)}` }) + also('q', query),
    [{ matrix: 'x', row: query }, { matrix: 'wq', head }], [{ matrix: turned ? 'qUnrotated' : 'q', head, row: query }, ...(turned ? [] : [{ part: 'q' }])],
    { matrix: turned ? 'qUnrotated' : 'q', head, row: query, col: largest(h.q, dK, query) });
  if (turned) steps.push(rotationStep(view, query, head, t));
  add('qkv', t('walk.k', { head: hd, key: keyTokens[strongest], source, formula: `K = ${projectionFormula(view, 'k', source, head)}` }) + also('k', strongest),
    [{ matrix: input }, { matrix: 'wk', head: kvHead }], [{ matrix: 'k', head }, { part: 'k' }],
    { matrix: 'k', head, row: strongest, col: largest(h.k, dK, strongest) });
  add('qkv', t('walk.v', { head: hd, key: keyTokens[strongest], source, formula: `V = ${projectionFormula(view, 'v', source, head)}` }) + also('v', strongest),
    [{ matrix: input }, { matrix: 'wv', head: kvHead }], [{ matrix: 'v', head }, { part: 'v' }],
    { matrix: 'v', head, row: strongest, col: largest(h.v, dV, strongest) });
  return steps;
}

// RoPE on the query's q (review 8, finding 1): one pair of features turned, its angle and arithmetic
function rotationStep(view, query, head, t) {
  const { lines, position, half, dims, pair, col } = rotationArithmetic(view, query, head);
  return {
    stage: 'rope',
    text: t('walk.rotate', { token: view.tokens[query], head: head + 1, position, row: query + 1, half, dims, feature: pair[0], partner: pair[1], theta: formatNumber(view.rotary.theta) }),
    inputs: [{ matrix: 'qUnrotated', head, row: query }],
    outputs: [{ matrix: 'q', head, row: query }, { part: 'q' }],
    explain: { matrix: 'q', head, row: query, col },
    arithmetic: lines,
  };
}

// A pre-LN block normalises first: the attention reads LN₁ of the stream (the tables' X)
function normFirst(view, query, t) {
  const { tokens, dModel, result } = view;
  const layer = result.layers[result.layer];
  const row = (values) => `[${Array.from(values.subarray(query * dModel, (query + 1) * dModel), (v) => formatNumber(v)).join(', ')}]`;
  return {
    stage: 'x', text: t(normName(view, result.layer, 0).startsWith('RMS') ? 'walk.stack.norm1PreRms' : 'walk.stack.norm1Pre', { ...stageValues(view, result.layer), token: tokens[query] }),
    inputs: [], outputs: [{ matrix: 'x', row: query }], explain: null, arithmetic: [`${normName(view, result.layer, 0)}(${row(layer.input)})`, `= ${row(layer.norm1)}`],
  };
}

// A stack's block after its attention (issue 23), for the query token's row of the stream: the
// residual additions, the norms and the MLP, each with its arithmetic, then where the stream goes on.
function stackSteps(view, query, t) {
  const { tokens, dModel, result } = view;
  const l = result.layer;
  const layer = result.layers[l];
  const row = (values) => `[${Array.from(values.subarray(query * dModel, (query + 1) * dModel), (v) => formatNumber(v)).join(', ')}]`;
  const values = { ...stageValues(view, l), layers: layerCount(view), token: tokens[query], next: layerNumber(view, l) + 1 };
  const step = (key, lines) => ({ stage: 'output', text: t(key, values), inputs: [], outputs: [], explain: null, arithmetic: lines });
  // pre-LN: the attention read LN₁(x), the sum adds x (review 5, finding 13)
  const steps = [step(result.arrangement === 'pre' ? 'walk.stack.addPre' : 'walk.stack.add', [`${row(layer.input)} + ${row(layer.attention)}`, `= ${row(layer.attended)}`])];
  if (layer.mlpOut) {
    const post = result.arrangement === 'post';
    if (post) steps.push(step('walk.stack.norm1', [`${values.n1}(${row(layer.attended)})`, `= ${row(layer.middle)}`]));
    else steps.push(step('walk.stack.norm2Pre', [`${values.n2}(${row(layer.attended)})`, `= ${row(layer.norm2)}`]));
    const formula = modelMlpFormula(view, l, post ? 'u' : `${values.n2}(x + a)`);
    const mlp = step(post ? 'walk.stack.mlpPost' : 'walk.stack.mlpPre', [`MLP(${row(post ? layer.middle : layer.norm2)})`, `= ${row(layer.mlpOut)}`]);
    // a real model's MLP (its biases, or SwiGLU) said as it is
    steps.push(formula ? { ...mlp, text: t('walk.stack.mlpModel', { ...values, formula }) } : mlp);
    steps.push(step('walk.stack.addMlp', [`${row(layer.middle)} + ${row(layer.mlpOut)}`, `= ${row(layer.summed)}`]));
    if (post) steps.push(step('walk.stack.norm2', [`${values.n2}(${row(layer.summed)})`, `= ${row(layer.output)}`]));
  }
  // a real model's layer is not the model's last: it is the one block the lab holds (review 7, finding 5)
  const last = modelLayerOf(view) ? 'walk.stack.lastModel' : 'walk.stack.last';
  steps.push(step(l + 1 < result.layers.length ? 'walk.stack.next' : last, [`${row(layer.output)}`]));
  return steps;
}

/** A CSS selector for the cells an address names, inside the lab. */
export function cellSelector(address) {
  if (address.part) {
    return `.steps td[data-part="${address.part}"]${address.key === undefined ? '' : `[data-key="${address.key}"]`}`;
  }
  let selector = `td[data-matrix="${address.matrix}"]`;
  if (address.head !== undefined) selector += `[data-head="${address.head}"]`;
  if (address.row !== undefined) selector += `[data-row="${address.row}"]`;
  if (address.col !== undefined) selector += `[data-col="${address.col}"]`;
  return selector;
}
