// The engine's refusals that the lab's own settings can cause (a value so large that attention
// overflows float32: core/src/attention.cpp), said in the lab's language: each English template of
// the engine read back into its catalogue key and slots. The English catalogue's text is the engine's
// own, word for word (tests/web/src/lab/engine-messages.test.mjs makes the real engine say each one);
// any other message of the engine keeps its English inside the lab's 'engine.problem'.
const OVERFLOW = 'overflow float32; the inputs or weights are too large in magnitude';
const TEMPLATES = [
  [new RegExp(`^the projections q, k, v of head (\\d+) of (\\d+) ${OVERFLOW}$`), 'engine.overflow.projections', ['head', 'heads']],
  [new RegExp(`^the scores q·kᵀ of head (\\d+) of (\\d+) ${OVERFLOW}$`), 'engine.overflow.scores', ['head', 'heads']],
  [/^the scores of head (\d+) of (\d+) divided by scale \(([^()]+)\) overflow float32; use a larger divisor$/, 'engine.overflow.scaled', ['head', 'heads', 'scale']],
  [new RegExp(`^the weighted values z \\(weights·v\\) ${OVERFLOW}$`), 'engine.overflow.z', []],
  [new RegExp(`^the output concat·wo ${OVERFLOW}$`), 'engine.overflow.output', []],
];

/** The catalogue key and values that say the engine's message `text` ({ key, values }). */
export function engineMessage(text) {
  for (const [pattern, key, slots] of TEMPLATES) {
    const found = pattern.exec(text);
    if (found) return { key, values: Object.fromEntries(slots.map((slot, i) => [slot, found[i + 1]])) };
  }
  return { key: 'engine.problem', values: { message: text } };
}
