// "Try another": new inputs drawn from a seed, as a new lab state. Decimal inputs have one decimal
// in [−1, 1]; whole-number inputs are −1, 0, 1 or 2 (and seeded random weights become whole numbers
// −1, 0, 1 too), so that every step up to the softmax can be done by hand.
import { mulberry32 } from '../shared/stats.mjs';
import { withCellEdit } from '../state/index.mjs';

// Seeds are whole numbers from 0 to 2⁵³ − 1, what a link carries exactly (practice/spec.mjs).
const SEED_RANGE = 2 ** 53;

/** The seed after `seed` for "Try another": one more, and 0 after 2⁵³ − 1, so it stays a seed a link can carry. */
export function nextSeed(seed) {
  return Number.isSafeInteger(seed) && seed >= 0 ? (seed + 1) % SEED_RANGE : 0;
}

/**
 * state: the lab's state; view: what it shows (tokens, keyTokens, dModel, heads, dK, dV);
 * seed: a whole number. Returns the new state, with `practice.seed` set and the query token drawn (a teacher's
 * chosen cells stay: the sentence and sizes do not change).
 */
export function withNewInputs(state, view, seed, { integer = false } = {}) {
  // every bit of the seed counts (a generator of 32 bits would give 2³² and 0 the same inputs)
  const next = mulberry32((seed % 2 ** 32) ^ Math.floor(seed / 2 ** 32));
  const draw = integer ? () => (next() % 4) - 1 : () => Math.round(((next() / 4294967296) * 2 - 1) * 10) / 10;
  let out = { ...state, xEdits: {}, contextEdits: {} };
  view.tokens.forEach((token, row) => {
    for (let col = 0; col < view.dModel; col++) out = withCellEdit(out, 'x', row, token, col, draw());
  });
  if (!view.self) {
    view.keyTokens.forEach((token, row) => {
      for (let col = 0; col < view.dModel; col++) out = withCellEdit(out, 'context', row, token, col, draw());
    });
  }
  if (integer && state.weightsMode === 'random') {
    const whole = (count) => Array.from({ length: count }, () => (next() % 3) - 1);
    const { dModel, heads, dK, dV } = view;
    out = {
      ...out,
      weightsMode: 'custom',
      custom: { wq: whole(heads * dModel * dK), wk: whole(heads * dModel * dK), wv: whole(heads * dModel * dV), wo: state.useWo ? whole(heads * dV * dModel) : null },
    };
  } else if (!integer && state.weightsMode === 'random') {
    out = { ...out, seed: (state.seed + 1) % 1000 };
  }
  const real = view.tokens.map((token, i) => (token === '[PAD]' ? -1 : i)).filter((i) => i >= 0);
  out.selectedToken = real[next() % real.length] ?? 0;
  out.practice = { ...(state.practice ?? {}), seed, integer };
  return out;
}
