// The flash chapter's practice (shared/chapter-practice.mjs): one online-softmax update, the tile after
// the step-through's (not shown yet): from m and ℓ before it and its scores, the new ℓ; the engine's
// answer is the core's running sum. The typical mistakes: ℓ not rescaled, rescaled the wrong way, and
// the tile's terms taken against the old maximum.
import { formatNumber, formatNumbers } from '../shared/format.mjs';

export function flashQuestion(ctx, chapter) {
  const { r, head, row, step } = chapter;
  if (!r) return null;
  if (step + 1 >= r.tiles) return { text: ctx.t('flash.practiceLast') };
  const t = step + 1, at = row * r.tiles;
  const h = r.heads[head];
  const scaled = r.exact.heads[head].scaled;
  const first = t * r.tile, last = Math.min(r.shape.m, first + r.tile);
  const scores = Array.from(scaled.slice(row * r.shape.m + first, row * r.shape.m + last));
  const mOld = h.runningMax[at + step], lOld = h.runningSum[at + step];
  const mNew = Math.max(mOld, ...scores);
  const sum = (m) => scores.reduce((total, s) => total + Math.exp(s - m), 0);
  const slots = { tile: t + 1, scores: formatNumbers(scores), m: formatNumber(mOld), l: formatNumber(lOld) };
  return {
    id: JSON.stringify(['flash', slots]), text: ctx.t('flash.practice', slots), want: h.runningSum[at + t],
    mistakes: [{ key: 'flashRescale', value: lOld + sum(mNew) }, { key: 'flashWrongWay', value: lOld * Math.exp(mNew - mOld) + sum(mNew) },
      { key: 'flashOldMax', value: lOld + sum(mOld) }],
  };
}
