// The engine in a Web Worker, so the page never waits on it. Turns a request's weight recipe
// (identity, seeded random, custom) into matrices, runs the traced forward pass, and answers with
// the result and the matrices used. Errors come back as data: { error: { name, field, message } }.
import * as Comlink from 'comlink';
import { loadAttention } from './lib/attention.mjs';

let engine = null;

function identity(size) {
  const w = new Float32Array(size * size);
  for (let i = 0; i < size; i++) w[i * size + i] = 1;
  return w;
}

function weightsFor({ weights, dModel, heads, dK, dV, useWo }) {
  if (weights.mode === 'identity') {
    return { wq: null, wk: null, wv: null, wo: useWo ? identity(dModel) : null };
  }
  if (weights.mode === 'random') {
    const drawn = engine.initWeights({ dModel, heads, dK, dV, seed: weights.seed });
    return { ...drawn, wo: useWo ? drawn.wo : null };
  }
  const f32 = (values) => (values ? Float32Array.from(values) : null);
  return { wq: f32(weights.wq), wk: f32(weights.wk), wv: f32(weights.wv), wo: useWo ? f32(weights.wo) : null };
}

const api = {
  async load(simd = 'auto') {
    engine ??= await loadAttention({ simd });
    return engine.info;
  },

  run(request) {
    try {
      const { weights: recipe, useWo, ...options } = request;
      const weights = weightsFor(request);
      const result = engine.attention({ ...options, wq: weights.wq, wk: weights.wk, wv: weights.wv, wo: weights.wo, trace: true });
      // for the tables, identity projections are shown as the identity matrix they stand for
      if (recipe.mode === 'identity') Object.assign(weights, { wq: identity(options.dModel), wk: identity(options.dModel), wv: identity(options.dModel) });
      return { result, weights };
    } catch (error) {
      return { error: { name: error.name, field: error.field ?? null, message: error.message } };
    }
  },
};

Comlink.expose(api);
