// A lab's one store: the state lives in a signal (@preact/signals-core), an action goes in through
// dispatch() and a new state comes out of reduce(); nothing changes a state in place. What is
// derived from the state (the engine's request, the aspects a reader modified) is a computed
// signal, worked out when read and kept until the state changes.
import { signal, computed } from '@preact/signals-core';
import { reduce } from './actions.mjs';
import { buildRequest } from './request.mjs';
import { modifiedAspects } from './model.mjs';

/**
 * createStore(initial) → { state, request, aspects, dispatch(action), subscribe(listener) → unsubscribe }.
 * `listener(state, previous, action)` is called after each action that changed the state.
 */
export function createStore(initial) {
  const current = signal(initial);
  const request = computed(() => buildRequest(current.value));
  const aspects = computed(() => modifiedAspects(current.value));
  const listeners = new Set();
  return {
    get state() { return current.value; },
    get request() { return request.value; },
    get aspects() { return aspects.value; },
    dispatch(action) {
      const previous = current.value;
      const next = reduce(previous, action);
      if (next === previous) return;
      current.value = next;
      for (const listener of [...listeners]) listener(next, previous, action);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
