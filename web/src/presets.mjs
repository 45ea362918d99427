// The worked examples of the lecture notes (shared/seeds/), reproduced exactly, with what the notes
// get wrong said plainly. A preset is a partial state: whatever it leaves out takes the default.
import { FEATURES } from './vocabulary.mjs';
import { mulberry32 } from './stats.mjs';

const feature = (name) => {
  const index = FEATURES.indexOf(name);
  if (index < 0) throw new Error(`unknown feature ${name}`);
  return index;
};

// (rows, cols) with the given entries set: [[row, col, value], ...]; the rest 0.
function sparse(rows, cols, entries) {
  const w = new Array(rows * cols).fill(0);
  for (const [r, c, value] of entries) w[r * cols + c] = value;
  return w;
}

const identity = (size) => sparse(size, size, Array.from({ length: size }, (_, i) => [i, i, 1]));

// The "it" example (003), with the notes' full sentence. Each word's x is its q, k and v side by
// side, and W_q, W_k, W_v pick them out. A word has one row wherever it appears, whatever its case
// (wordKey in vocabulary.mjs), so 'the' takes the row of 'The'. The notes give no q or k for
// 'because', 'too' and '.': theirs are 0 here (a score of 0, so they still take a share of softmax).
const IT_SENTENCE = "The animal didn't cross the street because it was too tired.";
const IT_ROWS = {
  //          q                k                v
  The:      [[0.1, 0.2, 0.3], [0.2, 0.1, 0.0], [0.1, 0.2, 0.3]],
  animal:   [[0.5, 0.4, 0.3], [0.6, 0.5, 0.4], [0.7, 0.6, 0.5]],
  "didn't": [[0.2, 0.1, 0.1], [0.1, 0.2, 0.1], [0.1, 0.1, 0.2]],
  cross:    [[0.0, 0.1, 0.2], [0.2, 0.1, 0.3], [0.0, 0.1, 0.1]],
  street:   [[0.4, 0.3, 0.2], [0.5, 0.4, 0.3], [0.5, 0.4, 0.3]],
  because:  [[0, 0, 0], [0, 0, 0], [0.1, 0.2, 0.1]],
  it:       [[0.6, 0.5, 0.4], [0.7, 0.6, 0.5], [0.6, 0.5, 0.4]],
  was:      [[0.1, 0.1, 0.0], [0.1, 0.0, 0.2], [0.1, 0.1, 0.0]],
  too:      [[0, 0, 0], [0, 0, 0], [0.0, 0.0, 0.1]],
  tired:    [[0.7, 0.6, 0.5], [0.9, 0.8, 0.7], [0.8, 0.7, 0.6]],
  '.':      [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
};
const pick = (offset) => sparse(9, 3, [[offset, 0, 1], [offset + 1, 1, 1], [offset + 2, 2, 1]]);

// "Action gets results" (004) at d_k = 64: entries of ±1 (mean 0, variance 1) from a seeded
// generator, so that q·k has variance about d_k = 64 before scaling, as the notes assume.
function unitVarianceRows(count, width, seed) {
  const next = mulberry32(seed);
  return Array.from({ length: count }, () => Array.from({ length: width }, () => (next() & 1 ? 1 : -1)));
}

const F = FEATURES.length;
const ACTION_X_SEED = 8;
const ACTION_W_SEED = 4;

// A note is a string, which holds for the example exactly as given (it is dimmed once the reader
// changes the example), or { text, always: true }, which stays true whatever is changed.
// plot: the embedding plot's first columns (across, up); selectedToken: the step table's query.
export const PRESETS = [
  {
    id: 'cat-sat',
    title: 'The cat sat (002)',
    source: '002_042da22eb111699f.txt',
    state: {
      sentence: 'The cat sat',
      dModel: 4, heads: 1, dK: 4, dV: 4,
      x: { columns: ['e1', 'e2', 'e3', 'e4'], tokens: ['The', 'cat', 'sat'], rows: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]] },
      weightsMode: 'identity', useWo: false, scaleMode: 'sqrt_dk', selectedToken: 0,
    },
    notes: [
      'E_The = [1, 0, 1, 0], E_cat = [0, 1, 0, 1], E_sat = [1, 1, 1, 1] and W_q = W_k = W_v = I, so q = k = v = x. Scores are divided by √d_k = √4 = 2.',
      "The notes round the weights of 'The' to 0.42, 0.15, 0.42; the true values are 0.4223, 0.1554, 0.4223, giving [0.8446, 0.5777, 0.8446, 0.5777].",
      "Where the notes differ: for 'sat' they write the weights as 0.21, 0.21, 0.53, which do not sum to 1. The true third weight is 0.5761 (0.2119 + 0.2119 + 0.5761 = 1), and 'sat' becomes 0.7881 in every column.",
      { text: 'Also in 002: softmax([6, 4]) is written as ≈ [0.38, 0.18]; it is [0.8808, 0.1192] (e⁶ / (e⁶ + e⁴) = 1 / (1 + e⁻²)). softmax([3, 2]) ≈ [0.73, 0.27] is right. See the scaling lab for both.', always: true },
    ],
  },
  {
    id: 'animal-it',
    title: "The animal … because it was too tired (003)",
    source: '003_de08049c1f6dff4f.txt',
    state: {
      sentence: IT_SENTENCE,
      dModel: 9, heads: 1, dK: 3, dV: 3,
      x: {
        columns: ['q1', 'q2', 'q3', 'k1', 'k2', 'k3', 'v1', 'v2', 'v3'],
        tokens: Object.keys(IT_ROWS),
        rows: Object.values(IT_ROWS).map(([q, k, v]) => [...q, ...k, ...v]),
      },
      weightsMode: 'custom',
      custom: { wq: pick(0), wk: pick(3), wv: pick(6), wo: null },
      useWo: false, scaleMode: 'none', selectedToken: 7,
    },
    notes: [
      "The notes' own q, k and v: each word's x holds its q, k and v side by side, and W_q, W_k, W_v pick them out. As in the notes, the raw scores go into softmax unscaled.",
      { text: "A word has one row wherever it appears, whatever its case: 'the' takes the row of 'The'. The notes give 'the' its own v, [0.2, 0.3, 0.2], but no q or k; 'because', 'too' and '.' have no q or k in the notes either, so theirs are 0 here (score 0: they still take a share of softmax).", always: true },
      "The scores of 'it' are exactly the notes': 0.17 (The), 0.77 (animal), 0.20, 0.29, 0.62 (street), 0.92 (it), 0.14, 1.22 (tired).",
      "True softmax favours 'tired', not 'animal': 'tired' has the largest key, so with these vectors it wins (0.18), then 'it' itself (0.13), then 'animal' (0.11). The notes' weights (animal 0.60, later 0.70; street 0.20) are illustrative, not computed. For weights under which 'it' does attend most to 'animal', open the next example.",
      { text: "The notes' own arithmetic slips: their eleven weights in the weighted sum (0.05, 0.70, 0.02, 0.01, 0.01, 0.20, 0.01, 0.00, 0.01, 0.00, 0.00) sum to 1.01, not 1, and their products add to [0.601, 0.519, 0.433], not [0.598, 0.518, 0.432].", always: true },
    ],
  },
  {
    id: 'animal-it-works',
    title: "… it was too tired: weights that find 'animal' (003)",
    source: '003_de08049c1f6dff4f.txt',
    state: {
      sentence: IT_SENTENCE,
      dModel: F, heads: 1, dK: 2, dV: F,
      weightsMode: 'custom',
      custom: {
        // the query of a pronoun asks "an animal or a person?"; keys answer with those features
        wq: sparse(F, 2, [[feature('pronoun'), 0, 2], [feature('pronoun'), 1, 2]]),
        wk: sparse(F, 2, [[feature('animal'), 0, 2], [feature('person'), 1, 2]]),
        wv: identity(F),
        wo: null,
      },
      useWo: false, scaleMode: 'sqrt_dk', selectedToken: 7,
    },
    notes: [
      "The vocabulary's features instead of the notes' vectors, and weights set by hand: W_q turns the pronoun feature of 'it' into the question \"an animal or a person?\", W_k turns the animal and person features into the answer. 'it' now attends most to 'animal' (about 0.6, close to the notes' illustrative 0.60), and its output takes on the animal feature.",
      { text: "What this one layer cannot do: change 'tired' to 'wide' and 'it' should mean the street, but here 'animal' still wins. In one layer the query of 'it' is made from 'it' alone and each key from its own word only, so the adjective changes neither the question of 'it' nor the answers of 'animal' and 'street': it cannot change which noun wins. That needs other weights and a second layer, whose inputs already mix 'wide' into 'it'.", always: true },
    ],
  },
  {
    id: 'money-bank',
    title: 'money bank grows (001)',
    source: '001_486bc0bd05d5ffa2.txt',
    state: { sentence: 'money bank grows', dModel: F, heads: 1, dK: F, dV: F, weightsMode: 'identity', useWo: false, scaleMode: 'none', selectedToken: 1 },
    plot: ['finance', 'nature'],
    notes: [
      { text: "No parameters at all and, as in the notes, no scaling: W = I, so y_i = Σ_j softmax_j(x_i · x_j) x_j, the notes' general contextual embedding (001).", always: true },
      "'bank' starts with finance 0.8 and nature 0.8. Next to 'money' its weights row favours 'money' over 'grows', and its output leans to finance: see the plot (finance across, nature up), hollow before, filled after.",
      { text: "The notes' coefficients (bank = 0.25 money + 0.7 bank + 0.05 grows) are hypothetical; the weights here are computed from the vocabulary's features.", always: true },
    ],
  },
  {
    id: 'river-bank',
    title: 'river bank flows (001)',
    source: '001_486bc0bd05d5ffa2.txt',
    state: { sentence: 'river bank flows', dModel: F, heads: 1, dK: F, dV: F, weightsMode: 'identity', useWo: false, scaleMode: 'none', selectedToken: 1 },
    plot: ['finance', 'nature'],
    notes: [
      "The same 'bank' (finance 0.8, nature 0.8) next to 'river' favours 'river' in its weights row and leans to nature after attention: the context decides the sense. Compare the plot with money bank grows.",
      { text: "The notes' coefficients (bank = 0.2 river + 0.78 bank + 0.02 flows) are hypothetical; the weights here are computed from the vocabulary's features.", always: true },
    ],
  },
  {
    id: 'money-bank-scaling',
    title: 'money bank: the scaling example (000)',
    source: '000_5974fc8f6535fe8e.txt',
    state: {
      sentence: 'money bank',
      dModel: 2, heads: 1, dK: 2, dV: 2,
      x: { columns: ['e1', 'e2'], tokens: ['money', 'bank'], rows: [[1, 1.5], [4, 4]] },
      weightsMode: 'identity', useWo: false, scaleMode: 'sqrt_dk', selectedToken: 1,
    },
    notes: [
      "The notes' scores for 'bank' (row 2): S₂₁ = 10 with 'money' and S₂₂ = 32 with itself. Here x_money = [1, 1.5] and x_bank = [4, 4] with W = I give exactly those: 4×1 + 4×1.5 = 10, 4×4 + 4×4 = 32.",
      "Scaled by √d_k = √2: 10/√2 = 7.071 (the notes write 7.09) and 32/√2 = 22.627 (the notes write 22.69).",
      "The notes' weights 0.2 and 0.8 are not the softmax of these scores: softmax([7.071, 22.627]) = [1.8e-7, ≈ 1.0], since the two differ by 15.6 and e^−15.6 ≈ 1.8 × 10⁻⁷. Weights of 0.2 and 0.8 would need scaled scores that differ by ln 4 ≈ 1.39.",
    ],
  },
  {
    id: 'action',
    title: 'Action gets results, d_k = 64 (004)',
    source: '004_bf14da0a2b0d4b61.txt',
    state: {
      sentence: 'Action gets results',
      dModel: 64, heads: 1, dK: 64, dV: 64,
      x: { columns: Array.from({ length: 64 }, (_, c) => `x${c + 1}`), tokens: ['Action', 'gets', 'results'], rows: unitVarianceRows(3, 64, ACTION_X_SEED) },
      weightsMode: 'random', seed: ACTION_W_SEED, useWo: false, scaleMode: 'sqrt_dk', selectedToken: 0,
    },
    notes: [
      "The notes' step table: for 'Action', q₁·k₁, q₁·k₂, q₁·k₃, each divided by 8 = √64, softmax, softmax × v, and the sum z₁.",
      'The notes leave the numbers symbolic. Here every entry of X is +1 or −1 (mean 0, variance 1) and W_q, W_k, W_v are Xavier-uniform (variance 1/64), so the entries of q and k have variance about 1 and q·k has variance about 64: the situation the notes describe.',
      "Turn off \"÷ √d_k\" in the step table: without it the scores are several units apart and softmax is nearly one-hot (one weight above 0.99); divided by 8 they come back to a few units and every token keeps a share. That is the point of scaling.",
    ],
  },
  {
    id: 'kids-lions',
    title: 'The kids … the lions, so they left (004)',
    source: '004_bf14da0a2b0d4b61.txt',
    state: {
      sentence: 'The kids were scared of the lions, so they left right away.',
      dModel: F, heads: 1, dK: 2, dV: F,
      weightsMode: 'custom',
      custom: {
        // queries ask "pronoun, plural?"; keys answer "person, plural"
        wq: sparse(F, 2, [[feature('pronoun'), 0, 2], [feature('plural'), 1, 2]]),
        wk: sparse(F, 2, [[feature('person'), 0, 2], [feature('plural'), 1, 2]]),
        wv: identity(F),
        wo: null,
      },
      useWo: false, scaleMode: 'sqrt_dk', selectedToken: 9,
    },
    notes: [
      "What does 'they' refer to? This head's queries ask for plural persons (W_q reads the pronoun and plural features, W_k the person and plural features), so 'they' weighs 'kids' highest, above 'lions' (plural, not persons) and itself.",
      { text: 'The weights are set by hand to show the idea; a trained model learns such heads from data.', always: true },
    ],
  },
  {
    id: 'telescope',
    title: 'The man saw the astronomer with a telescope (000)',
    source: '000_5974fc8f6535fe8e.txt',
    state: {
      sentence: 'The man saw the astronomer with a telescope',
      dModel: F, heads: 2, dK: 2, dV: F,
      weightsMode: 'custom',
      custom: {
        // head 1: objects look for actions (saw with the telescope); head 2: science looks for science-minded persons
        wq: [...sparse(F, 2, [[feature('object'), 0, 3]]), ...sparse(F, 2, [[feature('science'), 0, 3]])],
        wk: [...sparse(F, 2, [[feature('action'), 0, 3]]),
          ...sparse(F, 2, [[feature('person'), 0, 1.5], [feature('science'), 0, 1.5]])],
        wv: [...identity(F), ...identity(F)],
        // W_O keeps the readings apart: head 1's output in every column but person and science,
        // head 2's in person and science only, each at full strength (no averaging)
        wo: [...sparse(F, F, Array.from({ length: F }, (_, i) => i).filter((i) => i !== feature('person') && i !== feature('science')).map((i) => [i, i, 1])),
          ...sparse(F, F, [[feature('person'), feature('person'), 1], [feature('science'), feature('science'), 1]])],
      },
      useWo: true, scaleMode: 'sqrt_dk', selectedToken: 7, selectedHead: 0,
    },
    actions: [{ key: 'oneHead', apply: oneHeadOnly }],
    notes: [
      "Two readings: he used the telescope to see (telescope–saw), or the astronomer had the telescope (telescope–astronomer). Head 1 links 'telescope' to 'saw'; head 2 links it to 'astronomer'.",
      "W_O keeps the two readings apart instead of averaging them: head 1 writes the action column (and the others but two), head 2 writes person and science. In Z_f, 'telescope' carries both: action from 'saw' and person from 'astronomer'.",
      { text: "\"One head only\" keeps head 1 and its part of W_O: a single head's softmax row can peak on one word, so Z_f of 'telescope' holds the 'saw' reading and nothing of the astronomer: the notes' case for multi-head attention.", always: true },
    ],
  },
];

// The telescope with head 1 alone: its weights and its rows of W_O.
function oneHeadOnly(state) {
  const { dModel, dK, dV, custom } = state;
  return {
    ...state, heads: 1, selectedHead: 0,
    custom: { wq: custom.wq.slice(0, dModel * dK), wk: custom.wk.slice(0, dModel * dK), wv: custom.wv.slice(0, dModel * dV), wo: custom.wo?.slice(0, dV * dModel) ?? null },
  };
}

export const DEFAULT_PRESET = 'cat-sat';

export function presetById(id) {
  return PRESETS.find((preset) => preset.id === id) ?? null;
}
