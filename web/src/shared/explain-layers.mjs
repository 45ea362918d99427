// "Explain this number" across layers (issue 23). Pure, as explain-cell.mjs: a cell of the residual
// stream's table, and X of a layer past the first (the stream entering it, or its LN₁), explained
// from the layer before: the residual sums, the norms and the MLP, with the actual values, and with
// links to the cells each term comes from, in a layer's own tables or in the stream's table.
//   link: { text, target: { layer?, matrix, head?, row, col, token? } } (layer: 0-based, the layer
//   whose tables hold the cell; token: the stream table's token, its rows being stages)
import { modelMlpFormula } from './mlp-text.mjs';
import { formatNumber } from './format.mjs';
import { streamRows } from './stream-rows.mjs';
import { layerCount, modelLayerOf, normName, stageValues, layerNumber } from './layer-name.mjs';

/** The tables explained here rather than by explain-cell.mjs's own: the stream, and a block's MLP and norms (state/stack.mjs BLOCK_TABLES). */
export const LAYER_TABLES = new Set(['stream', 'w1', 'w2', 'wGate', 'wUp', 'wDown', 'ln1', 'ln2']);

const f = (value) => formatNumber(value);
const EPS = 1e-5;  // the lab's LayerNorm (engine/stack.mjs: weight 1, bias 0, eps 1e-5)

// "− 0.03908" for minus a negative, "+ 0.03908" for plus a negative: the sign folded into the operator,
// never "− -0.03908" (review 5, finding 3)
export function signed(op, value) {
  if (value >= 0 || Number.isNaN(value)) return `${op} ${f(value)}`;
  return `${op === '+' ? '−' : '+'} ${f(-value)}`;
}

// A row's mean and variance (over d_model, as LayerNorm divides: by n, not n − 1), and the cell's
// normalised value written out, with the norm's weight γ and bias β of that column (1 and 0 unless
// typed: view.layerWeights[l].ln1 / ln2, 2 × d_model)
// A real model's block (engine/stack.mjs `norms`) says each norm's kind and ε: RMSNorm divides by the
// root of the mean square, subtracts no mean and adds no bias.
// `which`: 0 for the first norm (LN₁ or RMSNorm₁), 1 for the second; `l`: the layer, 0-based.
function normLines(t, { view, which, values, col, l }) {
  const used = view.layerWeights?.[l];
  const table = used?.[which === 0 ? 'ln1' : 'ln2'];
  const [gamma, beta] = table ? [table[col], table[values.length + col]] : [1, 0];
  const [norm, layer] = [normName(view, l, which), layerNumber(view, l)];
  const eps = used?.norms?.eps[which] ?? EPS;
  if (used?.norms?.kind[which] === 'rmsnorm') {
    const square = values.reduce((a, b) => a + b * b, 0) / values.length;
    return [
      t('explain.layers.rmsnorm', { norm, layer, count: values.length, square: f(square), eps: String(eps), gamma: f(gamma) }),
      `${f(values[col])} / √(${f(square)} + ${eps}) × ${gamma < 0 ? `(${f(gamma)})` : f(gamma)}`,
    ];
  }
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return [
    t('explain.layers.norm', { norm, layer, count: values.length, mean: f(mean), variance: f(variance), gamma: f(gamma), beta: f(beta) }),
    `(${f(values[col])} ${signed('−', mean)}) / √(${f(variance)} + ${eps}) × ${gamma < 0 ? `(${f(gamma)})` : f(gamma)} ${signed('+', beta)}`,
  ];
}

const rowOf = (values, dModel, row) => Array.from(values.subarray(row * dModel, (row + 1) * dModel));

// A link to a cell of the stream's table: the token's row of a stage in a layer, named as the table
// names that row
function streamLink(view, t, { token, layer, name, col }) {
  const rows = streamRows(view.result.layers, view.result.arrangement, token, view.dModel);
  const row = rows.findIndex((r) => r.layer === layer + 1 && r.name === name);
  return {
    text: t('explain.layers.toStream', { token: view.tokens[token], stage: t(rows[row].key, stageValues(view, layer)), col: view.columns[col] }),
    target: { matrix: 'stream', row, col, token },
  };
}

// A link to a cell of one layer's tables (the tables switch to that layer)
function tableLink(view, t, { layer, matrix, row, col }) {
  return {
    text: t('explain.layers.toTable', { layer: layerNumber(view, layer), table: t(`table.${matrix}`), row: view.tokens[row], col: view.columns[col] }),
    target: { layer, matrix, row, col },
  };
}

// a + b = value, with a link to each term
function sumOf(view, t, { token, col, layer, terms, intro }) {
  const { layers } = view.result;
  const values = terms.map((name) => layers[layer][name][token * view.dModel + col]);
  const written = values.map((v, i) => (i === 0 ? f(v) : signed('+', v))).join(' ');
  return { lines: [intro, written], links: terms.map((name) => streamLink(view, t, { token, layer, name, col })) };
}

/** X of a layer past the first, in a stack (lab/run.mjs chosenLayer): from the layer before. */
export function explainLayerInput({ view, t, row, col, title, rowName, colName }) {
  const { layers, arrangement } = view.result;
  const l = view.layer;
  const x = view.x[row * view.dModel + col];
  const names = { row: rowName, col: colName, layer: layerNumber(view, l), previous: l };
  if (arrangement === 'pre') {
    // the attention reads LN₁ of the stream; the stream is what the layer before gave out (or the
    // sentence). In reading order: where the stream came from and its sum, then the norm of that sum.
    const stream = rowOf(layers[l].input, view.dModel, row);
    const lines = [];
    const links = [];
    if (l > 0) {
      const sum = sumOf(view, t, { token: row, col, layer: l - 1, terms: ['attended', 'mlpOut'], intro: t('explain.layers.fromPre', names) });
      lines.push(...sum.lines, `= ${f(stream[col])}`);
      links.push(...sum.links);
    }
    lines.push(...normLines(t, { view, which: 0, values: stream, col, l }));
    links.push(streamLink(view, t, { token: row, layer: l, name: 'input', col }));
    return { title, lines, value: f(x), links };
  }
  if (l === 0) return null;
  if (arrangement === 'post') {
    const summed = rowOf(layers[l - 1].summed, view.dModel, row);
    return {
      title, value: f(x),
      lines: [t('explain.layers.fromPost', names), ...normLines(t, { view, which: 1, values: summed, col, l: l - 1 })],
      links: [streamLink(view, t, { token: row, layer: l - 1, name: 'summed', col })],
    };
  }
  // attention only: x + attention(x) of the layer before, both in its own tables
  const before = layers[l - 1];
  const [a, b] = [before.input[row * view.dModel + col], before.attention[row * view.dModel + col]];
  return {
    title, value: f(x),
    lines: [t('explain.layers.fromAttention', names), `${f(a)} ${signed('+', b)}`],
    links: [tableLink(view, t, { layer: l - 1, matrix: 'x', row, col }), tableLink(view, t, { layer: l - 1, matrix: 'output', row, col })],
  };
}

// Each stage of the stream, explained from the stages it adds or normalises
function stageParts(view, t, { token, col, layer, name }) {
  const { layers, arrangement } = view.result;
  const at = { token, col, layer };
  const values = { ...stageValues(view, layer), previous: layer, token: view.tokens[token] };
  const sum = (terms, key) => sumOf(view, t, { ...at, terms, intro: t(key, values) });
  const norm = (from, key) => ({
    lines: [t(key, values), ...normLines(t, { view, which: key.endsWith('norm1') ? 0 : 1, values: rowOf(layers[layer][from], view.dModel, token), col, l: layer })],
    links: [streamLink(view, t, { ...at, name: from })],
  });
  switch (name) {
    case 'input':
      if (layer > 0) return { lines: [t('explain.layers.stage.enters', values)], links: [streamLink(view, t, { ...at, layer: layer - 1, name: 'output' })] };
      // layer 1's X table holds it too, unless pre-LN shows LN₁ there
      return { lines: [t('explain.layers.stage.sentence', values)], links: arrangement === 'pre' ? [] : [tableLink(view, t, { layer: 0, matrix: 'x', row: token, col })] };
    case 'attention':
      return { lines: [t('explain.layers.stage.attentionOut', values)], links: [tableLink(view, t, { layer, matrix: 'output', row: token, col })] };
    case 'attended':
      return sum(['input', 'attention'], 'explain.layers.stage.attended');
    case 'middle':
      return norm('attended', 'explain.layers.stage.norm1');
    case 'mlpOut': {
      const hidden = layers[layer].mlpHidden.length / view.tokens.length;
      const formula = modelMlpFormula(view, layer, arrangement === 'pre' ? `${values.n2}(x + a)` : 'u');
      const key = arrangement === 'pre' ? 'explain.layers.stage.mlpPre' : 'explain.layers.stage.mlpPost';
      return {
        lines: [formula ? t('explain.layers.stage.mlpModel', { ...values, formula, hidden }) : t(key, { ...values, hidden })],
        links: [streamLink(view, t, { ...at, name: arrangement === 'pre' ? 'attended' : 'middle' })],
      };
    }
    case 'summed':
      return sum(['middle', 'mlpOut'], 'explain.layers.stage.summed');
    default:  // output
      if (arrangement === 'attention-only') return sum(['input', 'attention'], 'explain.layers.stage.attended');
      if (arrangement === 'pre') return sum(['attended', 'mlpOut'], 'explain.layers.stage.summed');
      return norm('summed', 'explain.layers.stage.norm2');
  }
}

/** A cell of the residual stream's table: { matrix: 'stream', row (its row there), col, token }. */
export function explainStream(view, { row, col, token }, t) {
  const { layers } = view.result;
  if (!layers || token === undefined || token >= view.tokens.length) return null;
  const rows = streamRows(layers, view.result.arrangement, token, view.dModel);
  const stage = rows[row];
  if (!stage || col >= view.dModel) return null;
  const layer = stage.layer - 1;
  const parts = stageParts(view, t, { token, col, layer, name: stage.name });
  return {
    title: t('explain.layers.streamTitle', { token: view.tokens[token], stage: t(stage.key, stageValues(view, layer)), col: view.columns[col] }),
    lines: parts.lines, value: f(stage.values[col]), links: parts.links,
  };
}

// A SwiGLU MLP's matrices (a real model's: Llama, Qwen2, Mistral), read only
const SWIGLU = new Set(['wGate', 'wUp', 'wDown']);

// What a parameter is: the lab's seeded or typed one, or a real model's, read from its folder (its
// tensor's name and the model's layer: review 7, finding 1), with the norm's own formula (RMSNorm's
// or LayerNorm's) and the MLP matrix's role
// The norm's own formula (RMSNorm's or LayerNorm's: values.norm names it), or the MLP matrix's role
function howOf(matrix, t, values) {
  if (!matrix.startsWith('ln')) return t(`explain.layers.parameter.role.${matrix}`, values);
  return t(values.norm.startsWith('RMS') ? 'explain.layers.parameter.rmsFormula' : 'explain.layers.parameter.lnFormula', values);
}

function parameterLines(view, { matrix, row, index }, t, values) {
  const model = modelLayerOf(view);
  const how = howOf(matrix, t, values);
  if (!model) return [t(matrix.startsWith('ln') ? 'explain.layers.parameter.norm' : 'explain.layers.parameter.mlp', values), how];
  const name = model.tensors?.[matrix];
  const tensor = name && matrix.startsWith('ln') ? `${name}.${row === 0 ? 'weight' : 'bias'}` : name ?? null;
  // a cell the reader typed over the model's number is the reader's (state.blockEdits, view.blockEdits)
  if (view.blockEdits?.[`${view.layer}:${matrix}:${index}`] !== undefined) return [t('explain.layers.parameter.typedModel', { ...values, tensor: tensor ?? '' }), how];
  const key = matrix.startsWith('ln') ? 'explain.layers.parameter.modelNorm' : 'explain.layers.parameter.modelMlp';
  return [t(tensor ? key : `${key}Unnamed`, { ...values, tensor }), how];
}

// A parameter table's shape: the MLP's own width (a real model's: BERT's folder has 2 × d_model),
// from W₁ (d_model × hidden) or W₂ (hidden × d_model); 4 × d_model is the lab's own blocks' width.
// `across`: a table whose rows are the model's columns and whose columns are hidden units.
function shapeOf(view, matrix, used) {
  const mlp = matrix === 'w1' || matrix === 'w2' || SWIGLU.has(matrix);
  const hidden = mlp ? used.length / view.dModel : view.dModel * 4;
  const across = matrix === 'w1' || matrix === 'wGate' || matrix === 'wUp';
  return { hidden, across, width: across ? hidden : view.dModel, down: matrix === 'w2' || matrix === 'wDown' };
}

/** A cell of a full block's w1, w2, W_gate, W_up, W_down, ln1 or ln2 (blocks/params.mjs): a parameter, seeded, typed or the model's. */
export function explainBlockParameter(view, { matrix, row, col }, t) {
  const used = view.layerWeights?.[view.layer]?.[matrix];
  if (!used) return null;
  const { hidden, across, width, down } = shapeOf(view, matrix, used);
  if (col >= width || (row + 1) * width > used.length) return null;
  const norm = matrix.startsWith('ln') ? normName(view, view.layer, matrix === 'ln1' ? 0 : 1) : null;
  const values = { ...stageValues(view, view.layer), layers: layerCount(view), hidden, norm, model: modelLayerOf(view)?.model ?? '' };
  const tableKey = norm?.startsWith('RMS') ? `blocks.params.${matrix}Rms` : `blocks.params.${matrix}`;
  const rowName = down ? `h${row + 1}` : across ? view.columns[row] : t(row === 0 ? 'blocks.params.gamma' : 'blocks.params.beta');
  return {
    title: t('explain.title', { table: t(tableKey, values), row: rowName, col: across ? `h${col + 1}` : view.columns[col] }),
    lines: parameterLines(view, { matrix, row, index: row * width + col }, t, values),
    value: f(used[row * width + col]),
  };
}
