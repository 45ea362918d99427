// The page's own copy of the folder's tokenizer (Tokenizers.js, the library the worker encodes with),
// read once a model has opened, for the text of the next tokens: a byte-level token such as "Ì" is
// one byte of a UTF-8 character, and only the tokenizer's decoder says what text it stands for.
import { folderOf } from './open.mjs';
import { loadTokenizer } from './tokenizer.mjs';

/** A promise of decode(id) → text, or of null (no tokenizer.json, or one the library cannot read). */
export function loadDecoder(files) {
  const folder = folderOf(files);
  if (!folder.has('tokenizer.json')) return Promise.resolve(null);
  return loadTokenizer(folder, Infinity).then((tokenizer) => (id) => tokenizer.decode([id]), () => null);
}
