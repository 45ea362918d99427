// The formulas the step table's caption and the walk's headlines give for q, k and v, as the lab
// computes them (review 8, findings 1 and 5): "+ b_q" when the layer has a bias, "RoPE(…)" when
// rotary positions turn q and k; and the rotation's own arithmetic for one pair of q's features.
import { formatNumber } from './format.mjs';

const f = (value) => formatNumber(value);
// a negative operand after an operator in parentheses: "− (-3.569)", not "− -3.569"
const p = (value) => (value < 0 ? `(${f(value)})` : f(value));

/** Whether q and k of this view were turned by rotary positions (the trace keeps them unturned). */
export function rotated(view, head = 0) {
  return Boolean(view.rotary && view.rotary.dims > 0 && view.result.heads[head]?.qUnrotated);
}

/**
 * "LN₁(x) · W_q + b_q", "RoPE(X · W_k)" …: `source` · W_matrix, its bias when the weights carry one,
 * inside RoPE(…) for q and k when rotary positions are on.
 */
export function projectionFormula(view, matrix, source, head = 0) {
  const product = `${source} · W_${matrix}${view.weights?.[`b${matrix}`] ? ` + b_${matrix}` : ''}`;
  return matrix !== 'v' && rotated(view, head) ? `RoPE(${product})` : product;
}

/** The feature of q's row whose rotation the walk shows: the largest of the rotated ones. */
function shownPair(h, dK, half, query) {
  let best = 0;
  for (let c = 1; c < 2 * half; c++) if (Math.abs(h.q[query * dK + c]) > Math.abs(h.q[query * dK + best])) best = c;
  return best % half;
}

/**
 * The rotation of q's row `query` (head `head`) as arithmetic lines, rotate-half as Llama does:
 * feature i (0-based c) is paired with i + d/2, both turned by the angle p·θ_c, θ_c = θ^(−2c/d),
 * p the 0-based position. Returns { lines, pair: [names], position, half, dims, col }.
 */
export function rotationArithmetic(view, query, head) {
  const { dK, rotary } = view;
  const h = view.result.heads[head];
  const dims = rotary.dims;
  const half = dims / 2;
  const c = shownPair(h, dK, half, query);
  const [a, b] = [h.qUnrotated[query * dK + c], h.qUnrotated[query * dK + c + half]];
  const frequency = rotary.theta ** (-2 * c / dims);
  const angle = query * frequency;
  // the features as the tables number them, from 1
  const [i, j] = [c + 1, c + half + 1];
  const [cos, sin] = [p(Math.cos(angle)), p(Math.sin(angle))];
  return {
    position: query, half, dims, pair: [i, j], col: c,
    lines: [
      `θ_${i} = ${f(rotary.theta)}^(−2·${c}/${dims}) = ${f(frequency)};  ${query}·θ_${i} = ${f(angle)}`,
      `q_${i} = ${f(a)}·cos(${f(angle)}) − ${p(b)}·sin(${f(angle)}) = ${f(a)}×${cos} − ${p(b)}×${sin}`,
      `= ${f(h.q[query * dK + c])}`,
      `q_${j} = ${f(b)}·cos(${f(angle)}) + ${p(a)}·sin(${f(angle)}) = ${f(b)}×${cos} + ${p(a)}×${sin}`,
      `= ${f(h.q[query * dK + c + half])}`,
    ],
  };
}
