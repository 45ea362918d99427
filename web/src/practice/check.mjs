// Is a typed value right? Within a tolerance of max(relative × |true value|, absolute) of the
// true value it is correct; otherwise it is compared, with the same tolerance, with the values the
// typical mistakes give, and the ones it matches are named.

export const DEFAULT_TOLERANCE = Object.freeze({ relative: 0.01, absolute: 0.005 });

/** How far from `target` an answer may be: max(relative·|target|, absolute). */
export function allowance(target, { relative, absolute } = DEFAULT_TOLERANCE) {
  return Math.max(relative * Math.abs(target), absolute);
}

// a hair over the allowance, so that the decimal a reader types for an edge is not refused by rounding
const within = (value, target, tolerance) => Math.abs(value - target) <= allowance(target, tolerance) * (1 + 1e-9);

/** Whether every value is within the tolerance of its target (a row of blanks against a row of values). */
export function near(values, targets, tolerance = DEFAULT_TOLERANCE) {
  return values.length === targets.length && values.every((value, k) => within(value, targets[k], tolerance));
}

/**
 * The mistakes worth naming: finite, and far enough from the true value that typing one exactly
 * is not already correct.
 */
export function distinctMistakes(truth, mistakes, tolerance = DEFAULT_TOLERANCE) {
  return mistakes.filter((m) => Number.isFinite(m.value) && !within(m.value, truth, tolerance));
}

/**
 * The verdict on the values typed into the blanks of an exercise
 * { blanks: [{ truth }], mistakes: [{ key, params, values }] }:
 *   { correct, right: [per blank, true when within the tolerance], mistakes: [those every value matches] }
 */
export function judgeBlanks(values, { blanks, mistakes }, tolerance = DEFAULT_TOLERANCE) {
  const truths = blanks.map((blank) => blank.truth);
  const right = values.map((value, k) => within(value, truths[k], tolerance));
  if (right.every(Boolean)) return { correct: true, right, mistakes: [] };
  return { correct: false, right, mistakes: mistakes.filter((m) => near(values, m.values ?? [m.value], tolerance)) };
}

/**
 * The verdict on `value` for an exercise { truth, mistakes: [{ key, params, value }] }:
 *   { correct: true } | { correct: false, mistakes: [the matching mistakes] }
 */
export function judge(value, { truth, mistakes }, tolerance = DEFAULT_TOLERANCE) {
  if (within(value, truth, tolerance)) return { correct: true, mistakes: [] };
  return { correct: false, mistakes: distinctMistakes(truth, mistakes, tolerance).filter((m) => within(value, m.value, tolerance)) };
}
