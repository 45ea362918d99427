// A masked language model's guesses (BERT's BertForMaskedLM: the head `cls.predictions.*`): for each
// [MASK] token, the top 10 tokens with their probabilities, as a causal model's next tokens are shown.
// The head, as transformers computes it: t = LayerNorm(act(h · W_dense + b_dense)), then
// logits = t · E^T + b, E the word-embedding table (tied, or `cls.predictions.decoder.weight` when the
// folder has its own). The core's unembedding path has no such head (its last logits are the tied table
// after the final norm, for the last position only), so it is computed here, in the worker, in float64
// and for the masked positions only: the small tensors are read once when the folder opens, the table
// (vocab × d_model) is read again from its file, chunk by chunk, at each run that has a [MASK].
import { readTensor, readTensorInto } from './tensors.mjs';
import { ACTIVATIONS } from './stream-check.mjs';
import { topTokens } from './tokenizer.mjs';

export const TOP_MASKED = 10;
// The mask token as BERT's (WordPiece) and RoBERTa's (byte-level BPE) vocabularies write it
const MASK_TOKENS = new Set(['[MASK]', '<mask>']);

/**
 * The masked-LM head of a recognised BERT folder (catalogue `tables`), its small tensors read; null
 * when the folder has none (BertModel) or is not BERT. The names it reads are added to `used`.
 */
export async function readMaskedHead(tables, recognised, used) {
  const s = recognised.settings;
  const d = s.dModel;
  const p = 'cls.predictions.';
  const get = (name) => tables.tensors.get(name);
  const fits = (name, shape) => get(name)?.shape.length === shape.length && get(name).shape.every((size, i) => size === shape[i]);
  const bias = [`${p}bias`, `${p}decoder.bias`].find((name) => fits(name, [s.vocab]));
  const table = fits(`${p}decoder.weight`, [s.vocab, d]) ? `${p}decoder.weight` : `${recognised.prefix}embeddings.word_embeddings.weight`;
  const names = [`${p}transform.dense.weight`, `${p}transform.dense.bias`, `${p}transform.LayerNorm.weight`, `${p}transform.LayerNorm.bias`];
  if (recognised.family !== 'bert' || !bias || !fits(names[0], [d, d]) || !names.slice(1).every((name) => fits(name, [d])) || !fits(table, [s.vocab, d])) return null;
  const [dense, denseBias, normWeight, normBias, decoderBias] = await Promise.all([...names, bias].map((name) => readTensor(get(name))));
  for (const name of [...names, bias, table]) used?.add(name);
  return { d, vocab: s.vocab, eps: s.eps, activation: s.activation ?? 'gelu', dense, denseBias, normWeight, normBias, decoderBias, table: get(table) };
}

/** The positions of the mask token in `tokens`. */
export const maskedPositions = (tokens) => tokens.flatMap((token, i) => (MASK_TOKENS.has(token) ? [i] : []));

// The head's transform of one hidden row (float64): dense (nn.Linear (out, in)), activation, LayerNorm
function transform(head, row) {
  const { d, dense, denseBias, normWeight, normBias, eps } = head;
  const act = ACTIVATIONS[head.activation] ?? ACTIVATIONS.gelu;
  const t = new Float64Array(d);
  for (let o = 0; o < d; o++) {
    let sum = denseBias[o];
    for (let i = 0; i < d; i++) sum += dense[o * d + i] * row[i];
    t[o] = act(sum);
  }
  const mean = t.reduce((a, b) => a + b, 0) / d;
  const variance = t.reduce((a, b) => a + (b - mean) ** 2, 0) / d;
  const scale = 1 / Math.sqrt(variance + eps);
  return t.map((value, o) => (value - mean) * scale * normWeight[o] + normBias[o]);
}

/**
 * The head's guesses at `positions` of the last hidden state (`hidden`, n × d_model, BERT's last
 * block's output): [{ position, top: [{ id, token, text, probability, logit }] }], `count` each.
 */
export async function maskedTokens(head, hidden, positions, tokenizer, count = TOP_MASKED) {
  if (!head || !positions.length) return [];
  const { d } = head;
  const rows = positions.map((i) => transform(head, hidden.subarray(i * d, (i + 1) * d)));
  const logits = rows.map(() => Float64Array.from(head.decoderBias));
  // the table, chunk by chunk (a value's row is its token, its column a feature)
  await readTensorInto(head.table, (first, values) => {
    for (let k = 0; k < values.length; k++) {
      const at = first + k, token = Math.floor(at / d), feature = at - token * d;
      for (let m = 0; m < rows.length; m++) logits[m][token] += values[k] * rows[m][feature];
    }
  });
  return positions.map((position, m) => ({ position, top: topTokens(logits[m], tokenizer, count) }));
}
