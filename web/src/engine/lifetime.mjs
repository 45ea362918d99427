// A lab's view of the engine connection (compute.mjs), bound to the lab's lifetime.

/**
 * The same connection for one lab, whose answers let go of the lab once `signal` aborts (the lab was
 * removed). An answer still on its way holds whatever awaits it; with several labs sharing one worker
 * (components on a course page), a removed lab's awaiting code, and so the whole lab, stayed alive
 * until its last answer came, which on a busy machine took more than a minute. Here each call's
 * answer reaches the lab through a table the lab owns and empties on abort: the call's own promise
 * then holds only the empty table, and the lab's await never settles, so nothing of it runs or stays.
 * Calls made after the abort are still sent (a training session's dispose must reach the worker);
 * their answers are dropped.
 */
export function bindLifetime(compute, signal) {
  const waiting = new Map();  // call number → [resolve, reject]
  let calls = 0;
  signal.addEventListener('abort', () => waiting.clear(), { once: true });
  const hold = (promise) => {
    if (signal.aborted) {
      promise.catch(() => {});
      return new Promise(() => {});
    }
    const call = ++calls;
    const answer = new Promise((resolve, reject) => waiting.set(call, [resolve, reject]));
    const settle = (which) => (value) => {
      const entry = waiting.get(call);
      waiting.delete(call);
      entry?.[which](value);
    };
    promise.then(settle(0), settle(1));
    return answer;
  };
  const bound = (fn) => (...args) => hold(fn(...args));
  return {
    get ready() { return hold(compute.ready); },
    run: bound(compute.run),
    varianceLab: bound(compute.varianceLab),
    softmaxRow: bound(compute.softmaxRow),
    flash: bound(compute.flash),
    kvDecode: bound(compute.kvDecode),
    rope: bound(compute.rope),
    gqa: bound(compute.gqa),
    windowReach: bound(compute.windowReach),
    sinkAttention: bound(compute.sinkAttention),
    evictDecode: bound(compute.evictDecode),
    training: Object.fromEntries(Object.entries(compute.training ?? {}).map(([name, fn]) => [name, bound(fn)])),
    models: Object.fromEntries(Object.entries(compute.models ?? {}).map(([name, fn]) => [name, bound(fn)])),
  };
}
