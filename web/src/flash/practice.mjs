// The flash chapter's practice (shared/chapter-practice.mjs): one whole online-softmax update, the tile
// after the step-through's (not shown yet): from m, ℓ and o before it and its scores (and values), the
// new m, the new ℓ and the new o's first value; the engine's answers are the core's running maximum,
// sum and output. The typical mistakes: keeping the old maximum or taking the tile's alone; ℓ or o not
// rescaled, rescaled the wrong way; the tile's terms taken against the old maximum.
import { formatNumber, formatNumbers } from '../shared/format.mjs';

// The tile after the step's: its scores and values in one column c, m, ℓ and o[c] before it, and the core's after it.
function nextTile(chapter) {
  const { r, head, row, step } = chapter;
  if (!r || step + 1 >= r.tiles) return null;
  const t = step + 1, at = row * r.tiles, dV = r.shape.dV, m = r.shape.m;
  const h = r.heads[head], exact = r.exact.heads[head];
  const first = t * r.tile, last = Math.min(m, first + r.tile);
  const scores = Array.from(exact.scaled.slice(row * m + first, row * m + last));
  // the output's column whose values in the tile are largest (a column of zeros asks nothing)
  const column = (c) => scores.map((_, k) => exact.v[(first + k) * dV + c]);
  const size = (c) => column(c).reduce((total, value) => total + Math.abs(value), 0);
  let c = 0;
  for (let d = 1; d < dV; d++) if (size(d) > size(c)) c = d;
  return {
    tile: t + 1, scores, values: column(c), column: c,
    mOld: h.runningMax[at + step], lOld: h.runningSum[at + step], oOld: h.runningOutput[(at + step) * dV + c],
    m: h.runningMax[at + t], l: h.runningSum[at + t], o: h.runningOutput[(at + t) * dV + c],
  };
}

// Σ_j e^(s_j − m) (· v_j when given): the tile's terms against a maximum m.
const terms = (next, m, values = null) => next.scores.reduce((total, s, k) => total + Math.exp(s - m) * (values ? values[k] : 1), 0);

function asked(ctx, chapter, key, make) {
  if (!chapter.r) return null;
  const next = nextTile(chapter);
  if (!next) return { text: ctx.t('flash.practiceLast') };
  const question = make(next);
  return { ...question, id: JSON.stringify([key, chapter.head, chapter.row, next.tile, next.scores]) };  // the same in either language
}

/** The new running maximum. */
export function maxQuestion(ctx, chapter) {
  return asked(ctx, chapter, 'flash-m', (next) => ({
    text: ctx.t('flash.practiceMax', { tile: next.tile, scores: formatNumbers(next.scores), m: formatNumber(next.mOld) }), want: next.m,
    mistakes: [{ key: 'flashKeepMax', value: next.mOld }, { key: 'flashTileMax', value: Math.max(...next.scores) }],
  }));
}

/** The new running sum ℓ. */
export function flashQuestion(ctx, chapter) {
  return asked(ctx, chapter, 'flash-l', (next) => {
    const mNew = Math.max(next.mOld, ...next.scores);
    return {
      text: ctx.t('flash.practice', { tile: next.tile, scores: formatNumbers(next.scores), m: formatNumber(next.mOld), l: formatNumber(next.lOld) }), want: next.l,
      mistakes: [{ key: 'flashRescale', value: next.lOld + terms(next, mNew) }, { key: 'flashWrongWay', value: next.lOld * Math.exp(mNew - next.mOld) + terms(next, mNew) },
        { key: 'flashOldMax', value: next.lOld + terms(next, next.mOld) }],
    };
  });
}

/** The new running output's value in one column (before the division by ℓ). */
export function outputQuestion(ctx, chapter) {
  return asked(ctx, chapter, 'flash-o', (next) => {
    const mNew = Math.max(next.mOld, ...next.scores);
    const added = terms(next, mNew, next.values);
    return {
      text: ctx.t('flash.practiceOut', { tile: next.tile, column: next.column + 1, values: formatNumbers(next.values), m: formatNumber(next.mOld), o: formatNumber(next.oOld) }), want: next.o,
      mistakes: [{ key: 'flashRescaleOut', value: next.oOld + added }, { key: 'flashWrongWayOut', value: next.oOld * Math.exp(mNew - next.mOld) + added },
        { key: 'flashOldMax', value: next.oOld + terms(next, next.mOld, next.values) }],
    };
  });
}
