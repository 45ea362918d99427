// User text (an answer, a file or tensor name, a token, an attribute's value) set into a sentence
// of the lab's is wrapped in Unicode's isolates, FIRST STRONG ISOLATE (U+2068) … POP DIRECTIONAL
// ISOLATE (U+2069), when it could change the direction of what is around it: a right-to-left letter
// or a directional control (U+202E would otherwise mirror the rest of the message). Within the
// isolate an unterminated embedding or override ends at U+2069. Left-to-right text is left as it is.

const DIRECTIONAL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]|[\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** `text` isolated from the sentence around it when it holds right-to-left letters or directional controls. */
export function isolate(text) {
  const value = String(text);
  return DIRECTIONAL.test(value) ? `\u2068${value}\u2069` : value;
}

// The directional controls (Unicode Cf) that reorder text: LRM, RLM, ALM, the embeddings and overrides
// U+202A–U+202E and the isolates U+2066–U+2069
const CONTROLS = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/gu;

/** `text` without directional controls, as the lab's token chips show it (exports, a remark quoting what was typed). */
export function stripControls(text) {
  return String(text).replace(CONTROLS, '');
}
