// The practice settings a lab's state (and so a link) carries as `practice`:
//   null                      explore mode
//   { }                       practice mode, the default sequence for the query token
//   { cells, relative, absolute, hints, integer, seed }  (every key optional)
//     cells:    [{ matrix, head, row, col }] the blanks, in order (at most 50); see exercises.mjs
//     relative: the relative tolerance, 0 to 1 (0.01 = 1 %); absolute: 0 to 1000
//     hints:    false hides the hints; integer: whole-number inputs for "try another"
//     seed:     the seed "try another" last used
// A link is not trusted: unknown keys are refused, each value's type and range checked, and only
// own properties are looked at.
import { registerLinkField } from '../state/link.mjs';
import { keepAcrossPresets } from '../state/actions.mjs';
import { KINDS } from './exercises.mjs';
import { DEFAULT_TOLERANCE } from './check.mjs';
import { message } from '../i18n/index.mjs';

const MAX_CELLS = 50;
const index = (v, limit = 1 << 16) => Number.isInteger(v) && v >= 0 && v < limit;
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

const CELL_FIELDS = {
  matrix: (v) => typeof v === 'string' && KINDS.includes(v),
  head: (v) => index(v, 1024),
  row: index,
  col: index,
};

const FIELDS = {
  cells: (v) => Array.isArray(v) && v.length >= 1 && v.length <= MAX_CELLS && v.every((cell) => isPlainObject(cell) &&
    Object.keys(cell).length === Object.keys(CELL_FIELDS).length &&
    Object.entries(cell).every(([key, value]) => Object.hasOwn(CELL_FIELDS, key) && CELL_FIELDS[key](value))),
  relative: (v) => Number.isFinite(v) && v >= 0 && v <= 1,
  absolute: (v) => Number.isFinite(v) && v >= 0 && v <= 1000,
  hints: (v) => typeof v === 'boolean',
  integer: (v) => typeof v === 'boolean',
  seed: (v) => Number.isSafeInteger(v) && v >= 0,
};

/** true when `value` is valid practice settings, else a sentence saying what is wrong. */
export function checkPractice(value) {
  if (value === null) return true;
  if (!isPlainObject(value)) return message('practice.link.notObject');
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(FIELDS, key)) return message('practice.link.unknown', { key: key.slice(0, 40) });
    if (!FIELDS[key](value[key])) return message('practice.link.invalid', { key });
  }
  return true;
}

/** The settings with every default filled in. */
export function practiceSettings(practice) {
  const given = practice ?? {};
  const own = (key, fallback) => (Object.hasOwn(given, key) ? given[key] : fallback);
  return {
    cells: own('cells', null),
    tolerance: { relative: own('relative', DEFAULT_TOLERANCE.relative), absolute: own('absolute', DEFAULT_TOLERANCE.absolute) },
    hints: own('hints', true),
    integer: own('integer', false),
    seed: own('seed', 0),
  };
}

/** What survives a change of example: the mode and the teacher's choices, not cells of the old sentence. */
export function practiceAfterPresetChange(practice) {
  if (!practice) return null;
  const { cells, seed, ...kept } = practice;
  return kept;
}

// practice mode's settings travel in links, and carry over (less their cells) to another example
registerLinkField('practice', checkPractice);
keepAcrossPresets('practice', practiceAfterPresetChange);
