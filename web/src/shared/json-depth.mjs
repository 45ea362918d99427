// JSON from outside (a file, a link), parsed only when it is nested no deeper than the lab reads.
// JSON.parse itself copes with 100,000 levels, but everything that walks the value afterwards
// (checks, flattening, copying) recurses and would fail with "Maximum call stack size exceeded".

/** How deep the lab reads JSON: arrays and objects inside each other, counting the outermost as 1. */
export const MAX_JSON_DEPTH = 64;

export class JsonDepthError extends Error {
  constructor(limit) {
    super(`it is nested too deeply: the lab reads JSON up to ${limit} levels of arrays and objects inside each other, and stops there`);
    this.name = 'JsonDepthError';
    this.limit = limit;
  }
}

/** The deepest nesting of `text`'s arrays and objects (strings skipped), stopping once past `limit`. */
export function jsonDepth(text, limit = MAX_JSON_DEPTH) {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;  // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

/** JSON.parse, after refusing (JsonDepthError) a text nested deeper than `limit`. */
export function parseJson(text, limit = MAX_JSON_DEPTH) {
  if (jsonDepth(text, limit) > limit) throw new JsonDepthError(limit);
  return JSON.parse(text);
}
