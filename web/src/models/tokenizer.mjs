// The model's own tokenizer through Tokenizers.js (@huggingface/tokenizers, the official port of
// Hugging Face's tokenizers), imported only when a folder with tokenizer.json is opened: the bundle
// keeps it in a chunk of its own. Without tokenizer.json the reader types token ids.
import { ModelError, readJsonFile } from './tensors.mjs';

/**
 * { encode(text) → { ids, tokens }, tokenOf(id), decode(ids), largestId } for the folder's tokenizer.json (and
 * tokenizer_config.json when present), or null when there is none. Its ids must fit the model's
 * token table: `vocab` rows.
 */
export async function loadTokenizer(folder, vocab) {
  if (!folder.has('tokenizer.json')) return null;
  const json = await readJsonFile(folder.get('tokenizer.json'), 'tokenizer.json');
  const config = folder.has('tokenizer_config.json') ? await readJsonFile(folder.get('tokenizer_config.json'), 'tokenizer_config.json') : {};
  const { Tokenizer } = await import('@huggingface/tokenizers');
  let tokenizer;
  try {
    tokenizer = new Tokenizer(json, config ?? {});
  } catch (error) {
    throw new ModelError('tokenizer.json', `Tokenizers.js cannot read it (${String(error?.message ?? error).slice(0, 200)})`, { key: 'models.error.tokenizer', values: { detail: String(error?.message ?? error).slice(0, 200) } });
  }
  let largestId = -1;
  for (const id of tokenizer.get_vocab(true).values()) largestId = Math.max(largestId, id);
  if (largestId >= vocab) {
    throw new ModelError('tokenizer.json', `its vocabulary uses ids up to ${largestId}, but the model's token table has ${vocab} rows (config.json vocab_size): this tokenizer belongs to another model`,
      { key: 'models.error.tokenizerVocab', values: { largest: largestId, vocab } });
  }
  return {
    largestId,
    encode(text) {
      const { ids, tokens } = tokenizer.encode(text);
      return { ids: [...ids].map(Number), tokens: [...tokens] };
    },
    tokenOf: (id) => tokenizer.id_to_token(id) ?? null,
    // the text of ids as the tokenizer's decoder writes it (byte-level tokens back to UTF-8, ## joined)
    decode: (ids) => tokenizer.decode(ids, { skip_special_tokens: false }),
  };
}

/**
 * Which character (or word) each byte-piece token is part of: for each position in `pieces` (tokens
 * whose own decoding is U+FFFD), the smallest run of consecutive tokens around it whose joint decoding
 * (`decode(ids)`, the tokenizer's) has no U+FFFD, the leftmost of equal runs: [{ position, from, count,
 * text }], text that decoding (trimmed of spaces the run's neighbours bring); none beyond `most` tokens.
 */
export function pieceRuns(ids, decode, pieces, most = 8) {
  return pieces.flatMap((i) => {
    for (let count = 2; count <= Math.min(most, ids.length); count++) {
      for (let from = Math.max(0, i - count + 1); from <= i && from + count <= ids.length; from++) {
        const text = decode(ids.slice(from, from + count));
        if (!text.includes('\uFFFD')) return [{ position: i, from, count, text: text.trim() || text }];
      }
    }
    return [];
  });
}

/**
 * The `count` most likely tokens of one row of logits (softmax in float64; ties by the smaller id):
 * [{ id, token, text, probability, logit }], text as the tokenizer's own decoder writes it (byte-level
 * tokens back to UTF-8; a lone byte of a longer character decodes to U+FFFD), or null without one.
 * A causal model's next tokens and a masked LM's guesses are both this.
 */
export function topTokens(row, tokenizer, count) {
  let max = -Infinity;
  for (const v of row) max = Math.max(max, v);
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  const order = [...row.keys()].sort((a, b) => row[b] - row[a] || a - b).slice(0, count);
  return order.map((id) => ({
    id, token: tokenizer?.tokenOf(id) ?? String(id), text: tokenizer ? tokenizer.decode([id]) : null,
    probability: Math.exp(row[id] - max) / sum, logit: row[id],
  }));
}
