// The RoPE chapter's practice (shared/chapter-practice.mjs): turn one pair of the query at its shifted
// position (a number no table shows); the engine's answer is the shifted pass's rotated q. The
// typical mistakes: the wrong position (the unshifted one, one off), the wrong θ_c (a neighbour
// pair's, or θ^(−c/r)), no turn at all, and the sign of sin swapped.
import { formatNumber } from '../shared/format.mjs';

export function ropeQuestion(ctx, chapter) {
  if (!chapter.r) return null;
  const { r, head, query, step: c } = chapter;
  const dK = r.rotated.shape.dK, half = r.dims / 2;
  const h = r.shifted.heads[head];
  const x = h.qUnrotated[query * dK + c], y = h.qUnrotated[query * dK + c + half];
  const position = query + r.shift;
  const rate = (pair) => r.theta ** (-2 * pair / r.dims);
  const turn = (p, rt, sign = 1) => x * Math.cos(p * rt) - sign * y * Math.sin(p * rt);
  const mistakes = [
    { key: 'ropePosition', value: turn(query, rate(c)) }, { key: 'ropePosition', value: turn(position + 1, rate(c)) },
    { key: 'ropePosition', value: turn(position - 1, rate(c)) }, { key: 'ropeTheta', value: turn(position, rate(c + 1)) },
    { key: 'ropeTheta', value: turn(position, rate(c - 1)) }, { key: 'ropeTheta', value: turn(position, r.theta ** (-c / r.dims)) },
    { key: 'ropeNone', value: x }, { key: 'ropeSign', value: turn(position, rate(c), -1) },
  ];
  const slots = { token: chapter.tokens[query], shift: r.shift, position, pair: c + 1, x: formatNumber(x), y: formatNumber(y), rate: formatNumber(rate(c)) };
  return { id: JSON.stringify(['rope', slots]), text: ctx.t('rope.practice', slots), want: h.q[query * dK + c], mistakes };
}
