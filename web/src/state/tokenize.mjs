// Sentence → tokens: words (letters and digits, with inner apostrophes as in "didn't"), [PAD], and
// every other visible character as a token of its own (punctuation, symbols, an emoji).
//
// The text is read as a person sees it: NFC first (a decomposed "é" is the same word as a composed
// one), then user-perceived characters (grapheme clusters), so a combining mark stays with its
// letter and an emoji ZWJ sequence or a flag is one token. Invisible characters (zero-width spaces
// and joiners, bidi controls, soft hyphens, the BOM) never make a token and never split a word.
export const MAX_TOKENS = 64;
// Reading text costs about a microsecond a character: past this many, the rest is not read.
export const MAX_CHARS = 20_000;

// Format characters (\p{Cf}: ZWSP, ZWNJ, ZWJ, LRM/RLM, bidi embeddings and isolates, soft hyphen,
// word joiner, BOM, …) and controls other than white space. ZWJ and the tag characters are kept
// for now: inside an emoji sequence they belong to it (👩‍👩‍👧, 🏴󠁧󠁢󠁳󠁣󠁴󠁿); stray ones are dropped below.
const INVISIBLE = /(?![\u200d\u{e0020}-\u{e007f}])[\p{Cf}]|(?![\t\n\v\f\r])\p{Cc}/gu;
const JOINERS = /[\u200d\u{e0020}-\u{e007f}]/gu;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const WORD_START = /^[\p{L}\p{N}]/u;
const SPACE = /^\s+$/u;
const APOSTROPHE = /^['’]$/u;

const segmenter = typeof Intl === 'object' && typeof Intl.Segmenter === 'function'
  ? new Intl.Segmenter('und', { granularity: 'grapheme' })
  : null;

// Grapheme clusters, lazily; without Intl.Segmenter, a character with the combining marks after it.
function* graphemes(text) {
  if (segmenter) {
    for (const { segment } of segmenter.segment(text)) yield segment;
  } else {
    for (const [cluster] of text.matchAll(/\P{M}\p{M}*|\p{M}+/gsu)) yield cluster;
  }
}

// Intl.Segmenter slows down with the length of the text it is given: it is fed windows of about
// this many characters, cut at white space where there is some.
const WINDOW = 1024;

function* windows(text) {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + WINDOW, text.length);
    if (end < text.length) {
      const space = text.slice(start, end).search(/\s\S*$/u);
      if (space > 0) end = start + space + 1;
      else if (/[\ud800-\udbff]/.test(text[end - 1])) end -= 1;  // never between the halves of a surrogate pair
    }
    yield text.slice(start, end);
    start = end;
  }
}

/**
 * Returns { tokens, overflow, tooLong }: at most MAX_TOKENS tokens, whether the text had more, and
 * whether it ran past MAX_CHARS characters before that. Scanning stops at the first token past the
 * limit, so pasting a book costs no more than a sentence.
 */
export function tokenize(text) {
  const source = String(text);
  const tokens = [];
  let overflow = false;
  let word = '';
  let pendingApostrophe = '';   // an apostrophe right after a word: inside it if a letter follows
  const push = (token) => {
    if (tokens.length === MAX_TOKENS) overflow = true;
    else tokens.push(token);
    return !overflow;
  };
  const endWord = () => {
    const apostrophe = pendingApostrophe;
    const ok = (word === '' || push(word)) && (apostrophe === '' || push(apostrophe));
    word = '';
    pendingApostrophe = '';
    return ok;
  };
  // one cluster of visible text; false once the limit is passed
  const take = (raw) => {
    const emoji = EMOJI.test(raw);
    const cluster = emoji ? raw : raw.replace(JOINERS, '');
    if (cluster === '') return true;
    if (SPACE.test(cluster)) return endWord();
    if (!emoji && WORD_START.test(cluster)) {
      if (pendingApostrophe) word += pendingApostrophe;
      pendingApostrophe = '';
      word += cluster;
      return true;
    }
    if (APOSTROPHE.test(cluster) && word && !pendingApostrophe) {
      pendingApostrophe = cluster;
      return true;
    }
    return endWord() && push(cluster);
  };
  scan: for (const [i, part] of source.slice(0, MAX_CHARS).split('[PAD]').entries()) {
    if (i > 0 && !(endWord() && push('[PAD]'))) break;
    for (const window of windows(part)) {
      for (const cluster of graphemes(window.normalize('NFC').replace(INVISIBLE, ''))) {
        if (!take(cluster)) break scan;
      }
    }
  }
  if (!overflow) endWord();
  return { tokens, overflow, tooLong: !overflow && source.length > MAX_CHARS };
}
