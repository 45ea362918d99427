// Practice across layers (issue 23), pure: one sequence that crosses a residual addition and a norm
// in the shown layer of a stack, for the query token. Given x and attention(x): their sum (the row),
// its mean, its variance, and the norm's output in one column (LN₂ of the sum pre-LN, LN₁ post-LN);
// under a real model's RMSNorm (Llama, Qwen2: no mean taken, no β), the mean of the sum's squares
// and RMSNorm₂'s output, with the model's own ε (review 10, finding B).
// The true values are the engine's own trace (result.layers: `attended`, `norm2` or `middle`), the
// mean and variance taken in float64 from the engine's summed row; each typical mistake is computed
// from the same rows. Texts are message references { key, params } ('practice.' + key).
import { near } from './check.mjs';
import { formatNumber } from '../shared/format.mjs';

import { normName } from '../shared/layer-name.mjs';

const EPS = 1e-5;  // the lab's LayerNorm: weight γ = 1, bias β = 0, eps 1e-5 (engine/stack.mjs); a model's its own
const msg = (key, params = {}) => ({ key, params });
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const squares = (values, centre) => values.reduce((a, b) => a + (b - centre) ** 2, 0);

// the column to normalise: the one that moves most from the mean (a 0 teaches nothing)
function columnOf(sum, centre) {
  let best = 0;
  sum.forEach((v, c) => { if (Math.abs(v - centre) > Math.abs(sum[best] - centre)) best = c; });
  return best;
}

// The norm's exercises: mean, variance, one output; mistakes by n − 1, the root, the mean, ε and γ
function normExercises({ sum, attention, normed, norm, columns, table, eps }) {
  const n = sum.length;
  const centre = mean(sum);
  const variance = squares(sum, centre) / n;
  const sample = squares(sum, centre) / (n - 1);
  const col = columnOf(sum, centre);
  const s = sum[col];
  // the norm's weight γ and bias β of that column (1 and 0 unless typed, blocks/params.mjs)
  const [gamma, beta] = table ? [table[col], table[n + col]] : [1, 0];
  const affine = (v) => v * gamma + beta;
  return [
    { id: 'mean', label: msg('layers.label.mean', { count: n }), blanks: [centre], mistakes: [
      { key: 'layers.mistake.noResidual', values: [mean(attention)] },
    ] },
    { id: 'variance', label: msg('layers.label.variance', { count: n }), blanks: [variance], mistakes: [
      { key: 'layers.mistake.nMinus1', values: [sample], params: { count: n } },
      { key: 'layers.mistake.std', values: [Math.sqrt(variance)] },
    ] },
    { id: 'norm', label: msg('layers.label.norm', { norm, col: columns[col], gamma: formatNumber(gamma), beta: formatNumber(beta), eps: formatNumber(eps) }), blanks: [normed[col]], col, mistakes: [
      { key: 'layers.mistake.nMinus1', values: [affine((s - centre) / Math.sqrt(sample + eps))], params: { count: n } },
      { key: 'layers.mistake.noMean', values: [affine(s / Math.sqrt(variance + eps))] },
      { key: 'layers.mistake.noRoot', values: [affine((s - centre) / (variance + eps))] },
      // with ε = 10⁻⁵ beside a variance near 1, and with γ = 1, β = 0 (untyped), these give the true value: said so
      { key: 'layers.mistake.noEps', values: [affine((s - centre) / Math.sqrt(variance))] },
      { key: 'layers.mistake.noGamma', values: [(s - centre) / Math.sqrt(variance + eps)] },
    ] },
  ];
}

// RMSNorm's exercises: the mean of the squares, one output s / √(mean of squares + ε) · γ; mistakes:
// the root mean square, LayerNorm's variance or its centring (a mean taken), no root, ε, γ
function rmsExercises({ sum, normed, norm, columns, table, eps }) {
  const n = sum.length;
  const meanSquare = sum.reduce((a, v) => a + v * v, 0) / n;
  const centre = mean(sum);
  const variance = squares(sum, centre) / n;
  const col = columnOf(sum, 0);
  const s = sum[col];
  const gamma = table ? table[col] : 1;
  return [
    { id: 'meanSquare', label: msg('layers.label.meanSquare', { count: n }), blanks: [meanSquare], mistakes: [
      { key: 'layers.mistake.rootMeanSquare', values: [Math.sqrt(meanSquare)] },
      { key: 'layers.mistake.centredSquares', values: [variance] },
    ] },
    { id: 'normRms', label: msg('layers.label.normRms', { norm, col: columns[col], gamma: formatNumber(gamma), eps: formatNumber(eps) }), blanks: [normed[col]], col, mistakes: [
      { key: 'layers.mistake.centred', values: [gamma * (s - centre) / Math.sqrt(variance + eps)] },
      { key: 'layers.mistake.noRootRms', values: [gamma * s / (meanSquare + eps)] },
      { key: 'layers.mistake.noEpsRms', values: [gamma * s / Math.sqrt(meanSquare)] },
      { key: 'layers.mistake.noGammaRms', values: [s / Math.sqrt(meanSquare + eps)] },
    ] },
  ];
}

// The norm after the residual: LN₂ (or RMSNorm₂) pre-LN, LN₁ post-LN, with the layer's own ε, γ, β
function normPart(view, layer, { sum, attention, row }) {
  const l = view.layer;
  const which = view.result.arrangement === 'pre' ? 1 : 0;
  const normed = row(which ? layer.norm2 : layer.middle);
  const used = view.layerWeights?.[l];
  const table = used?.[which ? 'ln2' : 'ln1'];
  const eps = used?.norms?.eps?.[which] ?? EPS;
  const rms = used?.norms?.kind?.[which] === 'rmsnorm';
  const inputs = { sum, attention, normed, norm: normName(view, l, which), columns: view.columns, table, eps };
  return { rms, exercises: (rms ? rmsExercises : normExercises)(inputs) };
}

/**
 * The sequence for token `token` in the shown layer of `view` (lab/run.mjs), or null outside a
 * stack: { layer, token, x, attention, arrangement, exercises: [{ id, label, blanks: [truth], col?,
 * mistakes: [{ key, values, params? }], blind: [mistake keys that give the true value here] }] }.
 * An attention-only block has no norm: its sequence is the sum alone.
 */
export function layerSequence(view, token, tolerance) {
  const stack = view.result.layers;
  if (!stack || token < 0 || token >= view.tokens.length) return null;
  const l = view.layer;
  const layer = stack[l];
  const d = view.dModel;
  const row = (values) => Array.from(values.subarray(token * d, (token + 1) * d));
  const [x, attention, sum] = [row(layer.input), row(layer.attention), row(layer.attended)];
  const { arrangement } = view.result;
  const exercises = [{ id: 'sum', label: msg('layers.label.sum', { count: d }), blanks: sum, mistakes: [
    { key: 'layers.mistake.noResidual', values: attention },
    { key: 'layers.mistake.noAttention', values: x },
  ] }];
  const norm = arrangement === 'attention-only' ? null : normPart(view, layer, { sum, attention, row });
  if (norm) exercises.push(...norm.exercises);
  for (const exercise of exercises) {
    exercise.blind = exercise.mistakes.filter((m) => near(m.values, exercise.blanks, tolerance)).map((m) => m.key);
    exercise.mistakes = exercise.mistakes.filter((m) => !exercise.blind.includes(m.key));
  }
  return { layer: l, token, x, attention, arrangement, rms: Boolean(norm?.rms), exercises };
}

// ε and γ, β cannot show while the norm's ε is tiny beside the variance and γ = 1, β = 0: not counted
const EXPECTED_BLIND = new Set(['layers.mistake.noEps', 'layers.mistake.noGamma', 'layers.mistake.noEpsRms', 'layers.mistake.noGammaRms']);

/**
 * The sequence for the query token, or for another token where it cannot tell its mistakes apart
 * (a row whose columns are all equal has variance 0, and its norm teaches nothing): the token
 * `first` first, then the others, the first with no blind mistake (ε, γ and β aside), else the one
 * with the fewest. Null outside a stack.
 */
export function chooseLayerSequence(view, first, tolerance) {
  const tokens = [first, ...view.tokens.keys()].filter((token, i, all) => all.indexOf(token) === i);
  let best = null;
  for (const token of tokens.slice(0, 16)) {
    const sequence = layerSequence(view, token, tolerance);
    if (!sequence) return best;
    const blind = sequence.exercises.flatMap((e) => e.blind).filter((key) => !EXPECTED_BLIND.has(key)).length;
    if (!best || blind < best.blind) best = { sequence, blind };
    if (blind === 0) break;
  }
  return best?.sequence ?? null;
}
