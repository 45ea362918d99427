// Token → embedding vector. Known words take their hand-made features (web/data/vocabulary.json) in
// the first columns; columns past the named features, and every column of an unknown word, come from
// a hash of the word itself, so the same word has the same vector everywhere.
import vocabulary from '../../data/vocabulary.json' with { type: 'json' };
import { mulberry32 } from '../shared/stats.mjs';

export const FEATURES = vocabulary.features;
export const VOCABULARY_NOTE = vocabulary.about;

export function isKnown(word) {
  return Object.hasOwn(vocabulary.words, wordKey(word));
}

/** The key a word is looked up by: lower case, curly apostrophes straightened ('The' and 'the' are one word). */
export function wordKey(word) {
  return word === '[PAD]' ? word : word.toLowerCase().replace(/’/g, "'");
}

// FNV-1a over the UTF-16 code units, then mulberry32 steps: small, fast, the same in every engine.
function hashedColumns(word) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  const next = mulberry32(hash);
  // [-0.5, 0.5] in steps of 0.01: readable in a table
  return () => Math.round((next() / 4294967296 - 0.5) * 100) / 100;
}

/** The embedding of one token: dModel numbers. */
export function embed(word, dModel) {
  const key = wordKey(word);
  const known = Object.hasOwn(vocabulary.words, key) ? vocabulary.words[key] : null;
  const next = hashedColumns(key);
  const vector = new Float32Array(dModel);
  for (let c = 0; c < dModel; c++) {
    const hashed = next();  // drawn for every column, so column c is the same whatever dModel is
    vector[c] = known && c < known.length ? known[c] : hashed;
  }
  return vector;
}

/** n × dModel, row-major. */
export function embedAll(tokens, dModel) {
  const x = new Float32Array(tokens.length * dModel);
  tokens.forEach((token, i) => x.set(embed(token, dModel), i * dModel));
  return x;
}

/** Column labels: the named features, then e11, e12, … (model dimensions, numbered from 1) */
export function columnNames(dModel) {
  return Array.from({ length: dModel }, (_, c) => (c < FEATURES.length ? FEATURES[c] : `e${c + 1}`));
}
