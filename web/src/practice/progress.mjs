// How the exercises went, one record per exercise: open, correct or revealed; hints taken (0–3);
// answers that were not right. Pure bookkeeping, no DOM.

export const MAX_HINT = 3;

export function createProgress() {
  let records = new Map();   // exercise id → { status, hints, attempts }, in the exercises' order

  return {
    /** Starts afresh for these exercise ids. */
    reset(ids) {
      records = new Map(ids.map((id) => [id, { status: 'open', hints: 0, attempts: 0 }]));
    },
    status: (id) => records.get(id).status,
    /** A record as a saved session left it (a SCORM relaunch); false for an id not among these exercises. */
    restore(id, { status, hints, attempts }) {
      if (!records.has(id) || !['open', 'correct', 'revealed'].includes(status)) return false;
      const whole = (n, max) => (Number.isInteger(n) && n >= 0 ? Math.min(n, max) : 0);
      records.set(id, { status, hints: whole(hints, MAX_HINT), attempts: whole(attempts, 1e6) });
      return true;
    },
    /** Every record in order: [{ id, status, hints, attempts }]. */
    records: () => [...records].map(([id, record]) => ({ id, ...record })),
    /** Whether any work was done: an answer checked, a hint taken, an answer shown. */
    started: () => [...records.values()].some((r) => r.status !== 'open' || r.hints > 0 || r.attempts > 0),
    hints: (id) => records.get(id).hints,
    /** A right answer; true the first time (an answer shown first stays "revealed"). */
    correct(id) {
      const record = records.get(id);
      const first = record.status === 'open';
      if (first) record.status = 'correct';
      return first;
    },
    wrong(id) {
      records.get(id).attempts++;
    },
    /** The next hint's level, or null after the last. */
    hint(id) {
      const record = records.get(id);
      if (record.hints >= MAX_HINT) return null;
      return ++record.hints;
    },
    reveal(id) {
      const record = records.get(id);
      if (record.status === 'open') record.status = 'revealed';
    },
    /** { correct, total, hints, done, attempts } over every exercise. */
    totals() {
      const out = { correct: 0, total: records.size, hints: 0, done: 0, attempts: 0 };
      for (const { status, hints, attempts } of records.values()) {
        if (status === 'correct') out.correct++;
        if (status !== 'open') out.done++;
        out.hints += hints;
        out.attempts += attempts;
      }
      return out;
    },
    /** The ids in order, each with whether it is open to work on: up to and including the first unanswered. */
    unlocked() {
      let open = true;
      return [...records].map(([id, { status }]) => {
        const unlocked = open;
        if (status === 'open') open = false;
        return [id, unlocked];
      });
    },
  };
}
