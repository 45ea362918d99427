// The engine API's training calls: one training run per lab (several labs on a page share one
// worker), by the lab's key, on the learning engine. Each takes the API's object
// ({ loadAttention, engine, learner, learnerReady, sessions }; see api.mjs).
import { createTrainingSession } from './training-session.mjs';

// The Train section's engine: the learning build (backward pass and trainer, about twice the
// forward engine's download), loaded the first time training is asked for. The forward pass
// stays on the small engine every page loads; a stack of layers on the page (api.mjs `stack`)
// loads it too.
export function learning(api) {
  if (!api.learner) {
    const { engine } = api;
    // an engine that is a learning one already (the single-file page's) trains itself
    api.learner = engine?.info.learning ? Promise.resolve(engine) : api.loadAttention({ simd: engine?.info.build === 'relaxed' ? 'relaxed' : engine?.info.simd ?? 'auto', learning: true });
    api.learner.catch(() => { api.learner = null; });  // a failed load (offline) is tried again next time
  }
  return api.learner;
}

function session(api, key) {
  if (!api.sessions.has(key)) api.sessions.set(key, createTrainingSession(() => api.learnerReady));
  return api.sessions.get(key);
}

/** The `training` calls of the engine API (engine/training-session.mjs), one run per lab key. */
export function trainingCalls(api) {
  return {
    async start(key, config) {
      try {
        api.learnerReady = await learning(api);
      } catch (error) {
        return { error: { name: error.name, field: null, message: `the learning engine did not load: ${error.message}`, losses: [] } };
      }
      return session(api, key).start(config);
    },
    step: (key, steps, quiet) => session(api, key).step(steps, quiet),
    probe: (key, index) => session(api, key).probe(index),
    ablate: (key, heads) => session(api, key).ablate(heads),
    weights: (key) => session(api, key).weights(),
    gradient: (key, request) => session(api, key).gradient(request),
    dispose(key) {
      api.sessions.get(key)?.dispose();
      api.sessions.delete(key);
    },
  };
}
