// The training tasks: templated data sets generated from the page's vocabulary, each split into
// training and held-out sentences that share no template instance (held-out sentences use words
// that never appear in training). Pure: the same task, the same sentences, everywhere.
import { tokenize } from '../state/tokenize.mjs';
import { embed, FEATURES } from '../state/vocabulary.mjs';
import vocabulary from '../../data/vocabulary.json' with { type: 'json' };

const feature = (word, name) => vocabulary.words[word]?.[FEATURES.indexOf(name)] ?? 0;
const words = (test) => Object.keys(vocabulary.words).filter((w) => /^[a-z]+$/.test(w) && test(w)).sort();
const singular = (w) => feature(w, 'plural') === 0;
// every third word is held out: the split is fixed, and both halves cover the same kinds of word
const split = (list) => ({ train: list.filter((_, i) => i % 3 !== 1), heldOut: list.filter((_, i) => i % 3 === 1) });

const ANIMATE = words((w) => singular(w) && feature(w, 'pronoun') === 0 && (feature(w, 'animal') >= 0.7 || feature(w, 'person') >= 0.7));
const ANIMALS = words((w) => singular(w) && feature(w, 'animal') >= 0.7 && w !== 'animal');
const PLACES = ['road', 'river', 'bridge', 'street', 'valley', 'forest', 'field', 'park', 'hill', 'lake', 'beach', 'garden'].filter((w) => vocabulary.words[w]);
const FEELINGS = ['tired', 'hungry', 'scared'];
const MONEY = words((w) => feature(w, 'finance') >= 0.9 && feature(w, 'nature') === 0 && singular(w) && feature(w, 'action') === 0);
const RIVER = words((w) => feature(w, 'nature') >= 0.9 && feature(w, 'finance') === 0 && feature(w, 'animal') === 0 && singular(w));
// Small words whose ten features are all zero: what they mean cannot help, only where they stand.
// (With content words the features share X's first columns with the fastest position waves, and a
// 16-column layer mixes the two up: held-out accuracy then stops near 75 %.)
const SMALL = Object.keys(vocabulary.words).filter((w) => /^[a-z]+('[a-z]+)?$/.test(w) && vocabulary.words[w].every((v) => v === 0)).sort();
const SUBJECTS = ['i', 'we', 'she', 'he', 'they'].filter((w) => vocabulary.words[w]);
const VERBS = words((w) => feature(w, 'action') >= 0.9 && /ed$|^saw$/.test(w) && FEATURES.every((f) => f === 'action' || feature(w, f) === 0));
const PEOPLE = words((w) => singular(w) && feature(w, 'person') >= 0.9 && feature(w, 'pronoun') === 0);
const TOOLS = words((w) => singular(w) && feature(w, 'object') >= 0.9 && feature(w, 'nature') === 0);

/** One example: the sentence's tokens and X, the query row, its target, and (optionally) its head. */
function example(sentence, dModel, query, target, extra = {}) {
  const { tokens } = tokenize(sentence);
  const x = new Float32Array(tokens.length * dModel);
  tokens.forEach((token, i) => x.set(embed(token, dModel), i * dModel));
  const at = (spec) => (typeof spec === 'number' ? spec : tokens.findIndex((t, i) => t.toLowerCase() === spec.word && i >= (spec.from ?? 0)));
  return { sentence, tokens, x, query: at(query), target: at(target), ...extra };
}

// "the dog … because it …": the first 'it' after 'because'
const IT = { word: 'it' };

function whoIsIt(dModel, half) {
  const nouns = split(ANIMATE)[half];
  const places = split(PLACES)[half];
  const out = [];
  nouns.forEach((noun, i) => places.forEach((place, j) => {
    if ((i + j) % 2) return;  // half the pairs: enough to learn from, and quick steps
    const feeling = FEELINGS[(i + j) % FEELINGS.length];
    out.push(example(`The ${noun} didn't cross the ${place} because it was too ${feeling}`, dModel, IT, { word: noun }));
    out.push(example(`By the ${place} the ${noun} sat because it was too ${feeling}`, dModel, IT, { word: noun }));
  }));
  return out;
}

function tiredOrWide(dModel, half) {
  const nouns = split(ANIMALS)[half];
  const places = split(PLACES)[half];
  return nouns.flatMap((noun) => places.flatMap((place) => [
    example(`The ${noun} didn't cross the ${place} because it was too tired`, dModel, IT, { word: noun }),
    example(`The ${noun} didn't cross the ${place} because it was too wide`, dModel, IT, { word: place }),
  ]));
}

// classes: 0 money, 1 river
function whichBank(dModel, half) {
  const money = split(MONEY)[half];
  const river = split(RIVER)[half];
  const bank = { word: 'bank' };
  return [
    ...money.flatMap((w) => [
      example(`I took the ${w} to the bank`, dModel, bank, 0),
      example(`The bank kept my ${w} safe`, dModel, bank, 0),
    ]),
    ...river.flatMap((w) => [
      example(`We sat on the bank by the ${w}`, dModel, bank, 1),
      example(`The bank of the ${w} was green`, dModel, bank, 1),
    ]),
  ].map((e) => ({ ...e, target: e.target }));
}

// Every token but the first should look at the one before it. Sentences of distinct content words.
function oneBack(dModel, half) {
  const list = split(SMALL)[half];
  const out = [];
  for (let s = 0; s < (half === 'train' ? 60 : 20); s++) {
    const n = 5 + (s % 4);
    // a stride of 7 through the list (its length is not a multiple of 7): distinct words, varied neighbours
    const sentenceWords = Array.from({ length: n }, (_, i) => list[(s * 13 + i * 7) % list.length]);
    const sentence = sentenceWords.join(' ');
    for (let q = 1; q < n; q++) out.push(example(sentence, dModel, q, q - 1));
  }
  return out;
}

// "I saw the astronomer with a telescope": head 1 (the instrument reading) links the tool to the
// verb, head 2 (the astronomer has it) to the person seen.
function twoReadings(dModel, half) {
  const verbs = split(VERBS)[half];
  const people = split(PEOPLE)[half];
  const tools = split(TOOLS)[half];
  const out = [];
  people.forEach((person, i) => tools.forEach((tool, j) => {
    if ((i + j) % 2) return;
    const subject = SUBJECTS[(i + j) % SUBJECTS.length];
    const verb = verbs[(i + 2 * j) % verbs.length];
    const sentence = `${subject} ${verb} the ${person} with a ${tool}`;
    out.push(example(sentence, dModel, { word: tool }, { word: verb }, { head: 0 }));
    out.push(example(sentence, dModel, { word: tool }, { word: person }, { head: 1 }));
  }));
  return out;
}

// Induction heads (Olsson et al. 2022): k = 6 … 8 distinct tokens of 16 (shown as letters A … P), then
// the same again from a random offset r = 0 … 3; scored from position k on, where each next token is
// the one after the earlier copy of the current token. A 64-bit LCG seeded per half, as
// tests/core/test_stack_trainer.cpp's repeated_halves (seeds 1 and 2, 512 and 128 sequences).
const LETTERS = 'ABCDEFGHIJKLMNOP';
function repeatedSequences(half) {
  const count = half === 'train' ? 512 : 128;
  let state = half === 'train' ? 1n : 2n;
  const next = (below) => {
    state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number((state >> 33n) % BigInt(below));
  };
  return Array.from({ length: count }, () => {
    const k = 6 + next(3);
    const r = next(4);
    const pool = [...LETTERS].map((_, i) => i);
    const ids = [];
    for (let i = 0; i < k; i++) {
      const j = i + next(16 - i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
      ids.push(pool[i]);
    }
    for (let i = r; i < k; i++) ids.push(ids[i]);
    const tokens = ids.map((id) => LETTERS[id]);
    return { sentence: tokens.join(' '), tokens, ids, first: k, k, r, query: k, target: -1 };
  });
}

// every attention matrix of every layer
const attentionOf = (layers) => Array.from({ length: layers }, (_, l) => ['wq', 'wk', 'wv', 'wo'].map((w) => `layers.${l}.${w}`)).flat();

/**
 * The tasks. Each: { id, model (trainer model options), loss, train (parameters that learn by
 * default), optimizer, steps (a budget for the tests), build(dModel) → { train, heldOut } }.
 * Sentences are templated; i18n/en.mjs has each task's title and explanation under its id.
 */
export const TASKS = [
  {
    id: 'who-is-it', model: { dModel: 10, heads: 2, wo: false }, loss: { kind: 'attend', head: 'mean' },
    train: ['wq', 'wk'], optimizer: { kind: 'adam', learningRate: 0.05, batchSize: 32 }, seed: 3,
    build: (d) => ({ train: whoIsIt(d, 'train'), heldOut: whoIsIt(d, 'heldOut') }),
  },
  {
    // every sentence each step (batchSize 0): the bound ln 2 holds over whole pairs, which a batch
    // drawn at random would split, so the training loss too stays at or above it
    id: 'tired-or-wide', model: { dModel: 10, heads: 1, wo: false }, loss: { kind: 'attend', head: 'mean' },
    train: ['wq', 'wk'], optimizer: { kind: 'adam', learningRate: 0.05, batchSize: 0 }, seed: 3,
    build: (d) => ({ train: tiredOrWide(d, 'train'), heldOut: tiredOrWide(d, 'heldOut') }),
  },
  {
    // a stack (engine.createStackTrainer): two layers learn it; with one, the bound above holds.
    // The words' vectors stay fixed (`tokens`); every sentence each step, as above.
    id: 'tired-or-wide-layers', stack: true, fixedTokens: true, layerChoices: [1, 2],
    model: { dModel: 12, layers: 2, heads: 2, mask: 'none' }, loss: { kind: 'attend', head: 'mean' },
    trainFor: attentionOf, optimizer: { kind: 'adam', learningRate: 0.05, batchSize: 0 }, seed: 21, speed: 20,
    build: (d) => ({ train: tiredOrWide(d, 'train'), heldOut: tiredOrWide(d, 'heldOut') }),
  },
  {
    // next-token prediction on repeated random letters: two attention-only layers with rotary positions
    // `ablate`: its heads can be switched off (the Train section's "Switch off" box), the only task with named heads
    id: 'induction', stack: true, ablate: true, layerChoices: [1, 2], headChoices: [1, 2],
    model: { vocab: 16, dModel: 32, layers: 2, heads: 2, positions: 'rotary' }, loss: { kind: 'next-token' },
    trainFor: () => [], optimizer: { kind: 'adam', learningRate: 0.01, batchSize: 16 }, seed: 3, speed: 200,
    build: () => ({ train: repeatedSequences('train'), heldOut: repeatedSequences('heldOut') }),
  },
  {
    id: 'which-bank', model: { dModel: 10, heads: 1, wo: false }, loss: { kind: 'classify', classes: 2 },
    train: ['wq', 'wk', 'wv', 'readout', 'readoutBias'], optimizer: { kind: 'adam', learningRate: 0.05, batchSize: 32 }, seed: 1,
    classes: ['money', 'river'],
    build: (d) => ({ train: whichBank(d, 'train'), heldOut: whichBank(d, 'heldOut') }),
  },
  {
    id: 'one-back', model: { dModel: 16, heads: 1, wo: false, positions: 'sinusoidal' }, loss: { kind: 'attend', head: 'mean' },
    train: ['wq', 'wk'], optimizer: { kind: 'adam', learningRate: 0.05, batchSize: 32 }, seed: 2, positionsMatter: true,
    build: (d) => ({ train: oneBack(d, 'train'), heldOut: oneBack(d, 'heldOut') }),
  },
  {
    id: 'two-readings', model: { dModel: 10, heads: 2, wo: false }, loss: { kind: 'attend', head: 0 },
    train: ['wq', 'wk'], optimizer: { kind: 'adam', learningRate: 0.05, batchSize: 32 }, seed: 4, perHead: true,
    build: (d) => ({ train: twoReadings(d, 'train'), heldOut: twoReadings(d, 'heldOut') }),
  },
];

export const taskById = (id) => TASKS.find((t) => t.id === id) ?? null;

/** The words of a data set, for a trainable embedding table: { words, ids(example) }. */
export function vocabularyOf(examples) {
  const words = [...new Set(examples.flatMap((e) => e.tokens.map((t) => t.toLowerCase())))].sort();
  const index = new Map(words.map((w, i) => [w, i]));
  return { words, ids: (e) => e.tokens.map((t) => index.get(t.toLowerCase())) };
}
