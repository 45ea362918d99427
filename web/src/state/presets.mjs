// The worked examples of the lecture notes (shared/seeds/), reproduced exactly, with what the notes
// get wrong said plainly. A preset is a partial state: whatever it leaves out takes the default.
import { FEATURES } from './vocabulary.mjs';
import { mulberry32 } from '../shared/stats.mjs';
import { formatNumber } from '../shared/format.mjs';

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
// side (e1 … e3, e4 … e6, e7 … e9: model dimensions are named e1 … e_d, issue 26 point 5), and
// W_q, W_k, W_v pick them out. A word has one row wherever it appears, whatever its case
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

// 003's "Apple … apple" sentence. 'Apple' and 'apple' share one row (wordKey), the notes' static
// Word2Vec vector [0.8, 0.2] (fruit, tech). The notes give no other vector: 'phone' (tech) and
// 'eating' (fruit) are ours, one-hot; every other word is 0.
const APPLE_SENTENCE = 'Apple launched a new phone while I was eating an apple.';
const APPLE_ROWS = {
  Apple: [0.8, 0.2], launched: [0, 0], a: [0, 0], new: [0, 0], phone: [0, 1], while: [0, 0],
  I: [0, 0], was: [0, 0], eating: [1, 0], an: [0, 0], '.': [0, 0],
};

// "Action gets results" (004) at d_k = 64: entries of ±1 (mean 0, variance 1) from a seeded
// generator, so that q·k has variance about d_k = 64 before scaling, as the notes assume.
function unitVarianceRows(count, width, seed) {
  const next = mulberry32(seed);
  return Array.from({ length: count }, () => Array.from({ length: width }, () => (next() & 1 ? 1 : -1)));
}

const F = FEATURES.length;
const ACTION_X_SEED = 8;
const ACTION_W_SEED = 4;

// The titles and notes are in the message catalogues ('preset.<id>.title', 'preset.<id>.<note>').
// A note is a key, which holds for the example exactly as given (it is dimmed once the reader
// changes the example), or { key, always: true }, which stays true whatever is changed; `values(view)`
// fills a note's numbers from the engine's result.
// plot: the embedding plot's first columns (across, up); selectedToken: the step table's query.
export const PRESETS = [
  {
    id: 'cat-sat',
    source: '002_042da22eb111699f.txt',
    state: {
      sentence: 'The cat sat',
      dModel: 4, heads: 1, dK: 4, dV: 4,
      x: { columns: ['e1', 'e2', 'e3', 'e4'], tokens: ['The', 'cat', 'sat'], rows: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]] },
      weightsMode: 'identity', useWo: false, scaleMode: 'sqrt_dk', selectedToken: 0,
    },
    notes: [
      'note1',
      'note2',
      'note3',
      { key: 'note4', always: true },
      { key: 'note5', always: true },
    ],
    // the notes' own slips (note3): the weights they write for a query, one per key in the sentence's
    // order; practice names a row typed as these "the notes' slip" (issue 26, point 8)
    slips: [{ query: 2, weights: [0.21, 0.21, 0.53] }],
  },
  {
    // 003's Word2Vec example: one static vector for 'Apple' wherever it appears (the notes' [0.8, 0.2],
    // fruit and tech), against what self-attention makes of each occurrence in the notes' sentence
    id: 'apple',
    source: '003_de08049c1f6dff4f.txt',
    state: {
      sentence: APPLE_SENTENCE,
      dModel: 2, heads: 1, dK: 2, dV: 2,
      x: { columns: ['fruit', 'tech'], tokens: Object.keys(APPLE_ROWS), rows: Object.values(APPLE_ROWS) },
      weightsMode: 'identity', useWo: false, scaleMode: 'none', selectedToken: 0,
    },
    // the experiment note 3 proposes: the causal mask, after which the two rows differ
    experiments: [{ key: 'causal', aspects: ['mask'], state: { maskMode: 'causal' }, values: appleRows }],
    notes: [
      'note1',
      { key: 'note2', values: appleRows },
      { key: 'note3', always: true },
    ],
  },
  {
    id: 'animal-it',
    source: '003_de08049c1f6dff4f.txt',
    state: {
      sentence: IT_SENTENCE,
      dModel: 9, heads: 1, dK: 3, dV: 3,
      x: {
        columns: Array.from({ length: 9 }, (_, c) => `e${c + 1}`),
        tokens: Object.keys(IT_ROWS),
        rows: Object.values(IT_ROWS).map(([q, k, v]) => [...q, ...k, ...v]),
      },
      weightsMode: 'custom',
      custom: { wq: pick(0), wk: pick(3), wv: pick(6), wo: null },
      useWo: false, scaleMode: 'none', selectedToken: 7,
    },
    notes: [
      'note1',
      { key: 'note2', always: true },
      'note3',
      'note4',
      { key: 'note5', always: true },
    ],
  },
  {
    id: 'animal-it-works',
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
      'note1',
      { key: 'note2', always: true },
    ],
  },
  {
    id: 'money-bank',
    source: '001_486bc0bd05d5ffa2.txt',
    state: { sentence: 'money bank grows', dModel: F, heads: 1, dK: F, dV: F, weightsMode: 'identity', useWo: false, scaleMode: 'none', selectedToken: 1 },
    plot: ['finance', 'nature'],
    notes: [
      { key: 'note1', always: true },
      'note2',
      { key: 'note3', always: true },
    ],
  },
  {
    id: 'river-bank',
    source: '001_486bc0bd05d5ffa2.txt',
    state: { sentence: 'river bank flows', dModel: F, heads: 1, dK: F, dV: F, weightsMode: 'identity', useWo: false, scaleMode: 'none', selectedToken: 1 },
    plot: ['finance', 'nature'],
    notes: [
      'note1',
      { key: 'note2', always: true },
    ],
  },
  {
    id: 'money-bank-scaling',
    source: '000_5974fc8f6535fe8e.txt',
    state: {
      sentence: 'money bank',
      dModel: 2, heads: 1, dK: 2, dV: 2,
      x: { columns: ['e1', 'e2'], tokens: ['money', 'bank'], rows: [[1, 1.5], [4, 4]] },
      weightsMode: 'identity', useWo: false, scaleMode: 'sqrt_dk', selectedToken: 1,
    },
    notes: [
      'note1',
      'note2',
      { key: 'note3', values: scalingGap },
    ],
  },
  {
    id: 'action',
    source: '004_bf14da0a2b0d4b61.txt',
    state: {
      sentence: 'Action gets results',
      dModel: 64, heads: 1, dK: 64, dV: 64,
      x: { columns: Array.from({ length: 64 }, (_, c) => `e${c + 1}`), tokens: ['Action', 'gets', 'results'], rows: unitVarianceRows(3, 64, ACTION_X_SEED) },
      weightsMode: 'random', seed: ACTION_W_SEED, useWo: false, scaleMode: 'sqrt_dk', selectedToken: 0,
    },
    // note 3's experiment: done, it is part of the example (no note dimmed), and a line says what to see
    experiments: [{ key: 'noScale', aspects: ['scaling'], state: { scaleMode: 'none' } }],
    notes: [
      'note1',
      'note2',
      'note3',
    ],
  },
  {
    id: 'kids-lions',
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
      'note1',
      { key: 'note2', always: true },
    ],
  },
  {
    id: 'telescope',
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
      'note1',
      'note2',
      { key: 'note3', always: true },
    ],
  },
];

// 000's third note in the engine's numbers: the two scaled scores of 'bank' (its second row), their
// gap, and the small weight e^−gap / (1 + e^−gap) softmax gives the first, at the lab's precision.
function scalingGap(view) {
  const { m, tokens, result } = view;
  const h = result.heads[0];
  const r = Math.min(1, tokens.length - 1);
  const [low, high] = [h.scaled[r * m], h.scaled[r * m + Math.min(1, m - 1)]];
  return { low: formatNumber(low), high: formatNumber(high), gap: formatNumber(high - low), small: formatNumber(h.weights[r * m]) };
}

// 003's two occurrences of 'Apple' after attention: their rows of the output, at the lab's precision.
function appleRows(view) {
  const { tokens, result } = view;
  const width = result.shape.dOut;
  const row = (word) => {
    const i = tokens.lastIndexOf(word);
    return `[${Array.from(result.output.subarray(i * width, (i + 1) * width), (v) => formatNumber(v)).join(', ')}]`;
  };
  return { first: row('Apple'), last: row('apple') };
}

// The telescope with head 1 alone: its weights and its rows of W_O.
function oneHeadOnly(state) {
  const { dModel, dK, dV, custom } = state;
  return {
    ...state, heads: 1, selectedHead: 0,
    custom: { wq: custom.wq.slice(0, dModel * dK), wk: custom.wk.slice(0, dModel * dK), wv: custom.wv.slice(0, dModel * dV), wo: custom.wo?.slice(0, dV * dModel) ?? null },
  };
}

export const DEFAULT_PRESET = 'cat-sat';

/** The experiment a note of `preset` proposes that the state is in (only that changed), or null. */
export function experimentOf(preset, state, aspects) {
  return (preset?.experiments ?? []).find((experiment) => aspects.length > 0
    && aspects.every((a) => experiment.aspects.includes(a))
    && Object.entries(experiment.state).every(([field, value]) => state[field] === value)) ?? null;
}

export function presetById(id) {
  return PRESETS.find((preset) => preset.id === id) ?? null;
}
