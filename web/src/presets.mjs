// The worked examples of the lecture notes (shared/seeds/), reproduced exactly, with what the notes
// get wrong said plainly. A preset is a partial state: whatever it leaves out takes the default.
import { FEATURES } from './vocabulary.mjs';

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

// The "it" example (003): each token's x is its q, k and v side by side; W_q, W_k, W_v pick them out.
const IT_TOKENS = ['The', 'animal', "didn't", 'cross', 'street', 'it', 'was', 'tired'];
const IT_Q = [[0.1, 0.2, 0.3], [0.5, 0.4, 0.3], [0.2, 0.1, 0.1], [0.0, 0.1, 0.2], [0.4, 0.3, 0.2], [0.6, 0.5, 0.4], [0.1, 0.1, 0.0], [0.7, 0.6, 0.5]];
const IT_K = [[0.2, 0.1, 0.0], [0.6, 0.5, 0.4], [0.1, 0.2, 0.1], [0.2, 0.1, 0.3], [0.5, 0.4, 0.3], [0.7, 0.6, 0.5], [0.1, 0.0, 0.2], [0.9, 0.8, 0.7]];
const IT_V = [[0.1, 0.2, 0.3], [0.7, 0.6, 0.5], [0.1, 0.1, 0.2], [0.0, 0.1, 0.1], [0.5, 0.4, 0.3], [0.6, 0.5, 0.4], [0.1, 0.1, 0.0], [0.8, 0.7, 0.6]];
const pick = (offset) => sparse(9, 3, [[offset, 0, 1], [offset + 1, 1, 1], [offset + 2, 2, 1]]);

const F = FEATURES.length;

export const PRESETS = [
  {
    id: 'cat-sat',
    title: 'The cat sat (002)',
    source: '002_042da22eb111699f.txt',
    state: {
      sentence: 'The cat sat',
      dModel: 4, heads: 1, dK: 4, dV: 4,
      x: { columns: ['e1', 'e2', 'e3', 'e4'], rows: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]] },
      weightsMode: 'identity', useWo: false, scaleMode: 'sqrt_dk', selectedToken: 0,
    },
    notes: [
      'E_The = [1, 0, 1, 0], E_cat = [0, 1, 0, 1], E_sat = [1, 1, 1, 1] and W_q = W_k = W_v = I, so q = k = v = x. Scores are divided by √d_k = √4 = 2.',
      "The notes round the weights of 'The' to 0.42, 0.15, 0.42; the true values are 0.4223, 0.1554, 0.4223, giving [0.8446, 0.5777, 0.8446, 0.5777].",
      "Where the notes differ: for 'sat' they write the weights as 0.21, 0.21, 0.53, which do not sum to 1. The true third weight is 0.5761 (0.2119 + 0.2119 + 0.5761 = 1), and 'sat' becomes 0.7881 in every column.",
      'Also in 002: softmax([6, 4]) is written as ≈ [0.38, 0.18]; it is [0.8808, 0.1192] (e⁶ / (e⁶ + e⁴) = 1 / (1 + e⁻²)). softmax([3, 2]) ≈ [0.73, 0.27] is right. See the scaling lab for both.',
    ],
  },
  {
    id: 'animal-it',
    title: "The animal … it was too tired (003)",
    source: '003_de08049c1f6dff4f.txt',
    state: {
      sentence: IT_TOKENS.join(' '),
      dModel: 9, heads: 1, dK: 3, dV: 3,
      x: {
        columns: ['q1', 'q2', 'q3', 'k1', 'k2', 'k3', 'v1', 'v2', 'v3'],
        rows: IT_TOKENS.map((_, i) => [...IT_Q[i], ...IT_K[i], ...IT_V[i]]),
      },
      weightsMode: 'custom',
      custom: { wq: pick(0), wk: pick(3), wv: pick(6), wo: null },
      useWo: false, scaleMode: 'none', selectedToken: 5,
    },
    notes: [
      "The notes give q, k and v for the words of their table (not for 'the', 'because', 'too'). Here each word's x holds its q, k and v side by side, and W_q, W_k, W_v pick them out, so Q, K and V are exactly the notes' vectors. As in the notes, the raw scores go into softmax unscaled.",
      "The scores of 'it' are exactly the notes': 0.17, 0.77, 0.20, 0.29, 0.62, 0.92, 0.14, 1.22.",
      "Where the notes differ: their weights (animal 0.60, later 0.70; street 0.20) are illustrative, not computed. The true softmax of these scores puts the most weight on 'tired' (0.229), then 'it' itself (0.169), then 'animal' (0.146); the weighted sum is [0.474, 0.424, 0.365], not [0.598, 0.518, 0.432]. With these q and k vectors, 'tired' has the largest key, so it wins.",
    ],
  },
  {
    id: 'money-bank',
    title: 'money bank grows (001)',
    source: '001_486bc0bd05d5ffa2.txt',
    state: { sentence: 'money bank grows', dModel: F, heads: 1, dK: F, dV: F, weightsMode: 'identity', useWo: false, scaleMode: 'sqrt_dk', selectedToken: 1 },
    notes: [
      "No parameters at all: W = I, so y_i = Σ_j softmax_j(x_i · x_j / √d) x_j, the notes' general contextual embedding.",
      "'bank' starts with finance 0.8 and nature 0.8. Next to 'money' its output leans to finance: compare its row in X and in the output (the step table's sum z).",
      "The notes' coefficients (bank = 0.25 money + 0.7 bank + 0.05 grows) are hypothetical; the weights here are computed from the vocabulary's features.",
    ],
  },
  {
    id: 'river-bank',
    title: 'river bank flows (001)',
    source: '001_486bc0bd05d5ffa2.txt',
    state: { sentence: 'river bank flows', dModel: F, heads: 1, dK: F, dV: F, weightsMode: 'identity', useWo: false, scaleMode: 'sqrt_dk', selectedToken: 1 },
    notes: [
      "The same 'bank' (finance 0.8, nature 0.8) next to 'river' leans to nature instead: the context decides the sense.",
      "The notes' coefficients (bank = 0.2 river + 0.78 bank + 0.02 flows) are hypothetical; the weights here are computed from the vocabulary's features.",
    ],
  },
  {
    id: 'action',
    title: 'Action gets results, d_k = 64 (004)',
    source: '004_bf14da0a2b0d4b61.txt',
    state: { sentence: 'Action gets results', dModel: 64, heads: 1, dK: 64, dV: 64, weightsMode: 'random', seed: 4, useWo: false, scaleMode: 'sqrt_dk', selectedToken: 0 },
    notes: [
      "The notes' step table: for 'Action', q₁·k₁, q₁·k₂, q₁·k₃, each divided by 8 = √64, softmax, softmax × v, and the sum z₁.",
      'The notes leave the numbers symbolic; here W_q, W_k, W_v are Xavier-uniform from seed 4 (change the seed to draw others), and the 64 columns are the vocabulary features followed by hashed ones.',
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
      'The weights are set by hand to show the idea; a trained model learns such heads from data.',
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
        wo: [...sparse(F, F, Array.from({ length: F }, (_, i) => [i, i, 0.5])),
          ...sparse(F, F, Array.from({ length: F }, (_, i) => [i, i, 0.5]))],
      },
      useWo: true, scaleMode: 'sqrt_dk', selectedToken: 7, selectedHead: 0,
    },
    notes: [
      "Two readings: he used the telescope to see (telescope–saw), or the astronomer had the telescope (telescope–astronomer). Head 1 links 'telescope' to 'saw'; head 2 links it to 'astronomer'. One head would have to blend the readings into one average; two heads keep both, the notes' case for multi-head attention.",
      'W_O averages the two heads (each head is the identity on values), so Z_f shows both pulls at once.',
    ],
  },
];

export const DEFAULT_PRESET = 'cat-sat';

export function presetById(id) {
  return PRESETS.find((preset) => preset.id === id) ?? null;
}
