// Sentence → tokens: words (letters and digits, with inner apostrophes as in "didn't"), [PAD], and
// every other non-space character as a token of its own (punctuation).
export const MAX_TOKENS = 64;

const TOKEN = /\[PAD\]|[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu;

/**
 * Returns { tokens, overflow }: at most MAX_TOKENS tokens, and whether the text had more.
 * Scanning stops at the first token past the limit, so pasting a book costs no more than a sentence.
 */
export function tokenize(text) {
  const tokens = [];
  for (const match of String(text).matchAll(TOKEN)) {
    if (tokens.length === MAX_TOKENS) return { tokens, overflow: true };
    tokens.push(match[0]);
  }
  return { tokens, overflow: false };
}
