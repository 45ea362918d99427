// A stream table's row name (rowName), and a token named in running text (the walk, the next-token heading, the stream's picker and caption):
// quoted as the tokens show it (‘·the’), and a byte-piece token (result.pieces, a token whose own
// decoding is U+FFFD) with the character it is part of (result.runs, pieceRuns in tokenizer.mjs):
// piece 2 of 3 of ‘ब’ (‘¤’). The token and the character are the model's text: isolated.
import { isolate } from '../shared/bidi.mjs';

// A token as the page writes it: a byte-level BPE's (GPT-2, Llama 3: Ġ) or SentencePiece's (▁) space
// as the page's ·, a new line as ↵ (the sentence box and the tables; the rows stay the model's)
export const readableToken = (token) => String(token).replace(/[Ġ▁]/gu, '·').replace(/Ċ/gu, '↵').replace(/ĉ/gu, '⇥');

// A character with no glyph of its own (a directional control such as U+202E, a zero-width or other
// format or control character, a line or paragraph separator; a space alone) written as its code
// point: a label or a name never holds a control that would reorder or hide what is around it
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const codePoint = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
export const seenText = (text) => (/^\p{Zs}+$/u.test(text) ? [...text].map(codePoint).join(' ') : String(text).replace(UNSEEN, codePoint));

/** The run (pieceRuns) that token i is a piece of, with its place in it: { index, count, text }, or null. */
export function partOf(result, i) {
  const run = result.runs?.find((r) => r.position === i);
  return run ? { index: i - run.from + 1, count: run.count, text: seenText(run.text) } : null;
}

/**
 * Token i as a heatmap's or a table's label: as the tokens show it, and a byte piece as its character
 * and its place among the pieces, ‘ब 2/3’ (the bytes alone, à¤¬, name no letter: review 8, finding 2).
 */
export function tokenLabel(result, i, { joined = false } = {}) {
  const part = partOf(result, i);
  // joined: one word (a narrow no-break space), where the labels are written one after another with
  // spaces between them (the lab's sentence box)
  return part ? `${part.text}${joined ? '\u202F' : ' '}${part.index}/${part.count}` : readableToken(result.tokens[i]);
}

/** Token i quoted, and a byte piece with its character first: piece 2 of 3 of ‘ब’ (‘¤’). */
export function tokenName(result, i, t) {
  const token = isolate(readableToken(result.tokens[i]));
  const part = partOf(result, i);
  return part ? t('models.tokenPart', { token, index: part.index, count: part.count, text: isolate(part.text) }) : `‘${token}’`;  // the quotes both languages use
}

/**
 * A row's name: its text in a span that a phone's table cuts to two lines (models.css: the numbers
 * start on screen), whole in its title (review 7, finding 4) and, on a tap, in the row (review 8).
 */
export function rowName(text) {
  const th = document.createElement('th');
  const span = document.createElement('span');
  span.className = 'model-row-name';
  span.textContent = th.title = text;
  // a tap shows it whole, another cuts it again (a phone cannot hover for the title)
  span.addEventListener('click', () => span.toggleAttribute('data-whole'));
  th.append(span);
  return th;
}
