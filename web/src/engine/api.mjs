// What the page asks of the engine, wherever the engine runs: in a Web Worker (worker.mjs) or, where
// a worker cannot start (a page opened from disk, a script from another origin), on the page itself.
// Turns a request's weight recipe (identity, seeded random, custom) into matrices and runs the
// traced forward pass. Errors come back as data: { error: { name, field, message } }.
import { variance, normalDraws } from '../shared/stats.mjs';
import { trainingCalls, learning } from './training-calls.mjs';
import { modelCalls } from './models-calls.mjs';
import { runStack, stackOptions, randomWeights } from './stack.mjs';
import { ropeLab, gqaLab } from './modern-calls.mjs';

function identity(size) {
  const w = new Float32Array(size * size);
  for (let i = 0; i < size; i++) w[i * size + i] = 1;
  return w;
}

// A stack's first runs on a newly loaded engine are its slowest: V8 runs WebAssembly and JavaScript
// on baseline tiers until they have run for a while. In Chromium the two-layer edit's stack (12 × 16
// × 2, full blocks) took a median 0.9 ms a call over its first 20 calls and 0.3 ms after 60 (load 12;
// 3.7 and 0.5 ms at load 16: `node bench/stack-warmup.mjs`, docs/performance.md, 2026-11-27 session 2),
// so a reader's first edits paid for it. Once per learning engine, after its first stack, the same
// request runs again while the thread is idle, a few calls at a time, up to WARM_CALLS calls or WARM_MS
// of work in all (a large stack stops early), its answers dropped.
const WARM_CALLS = 60;
const WARM_MS = 150;
function warmUp(api, learner, request) {
  if (api.warmed === learner) return;
  api.warmed = learner;
  // Workers have no requestIdleCallback: there a slice is 4 ms of real time every 20 ms (a constant
  // timeRemaining() would never end a slice, and the whole warm-up would run at once).
  const idle = globalThis.requestIdleCallback ?? ((run) => setTimeout(() => {
    const end = performance.now() + 4;
    run({ timeRemaining: () => Math.max(0, end - performance.now()) });
  }, 20));
  let calls = 0;
  let spent = 0;
  const step = (deadline) => {
    while (calls < WARM_CALLS && spent < WARM_MS && deadline.timeRemaining() > 2) {
      const started = performance.now();
      try {
        runStack(learner, request);
      } catch {
        return;  // as the request's own answer said
      }
      spent += performance.now() - started;
      calls++;
    }
    if (calls < WARM_CALLS && spent < WARM_MS) idle(step);
  };
  idle(step);
}

// `models`: the "Real models" reader ({ openModel, runModel }, web/src/models/open.mjs), or an async
// function giving it, from the worker or the host that composes the page (the engine imports no
// feature); absent, its calls say so. `transfer(value, buffers)`: how an answer's buffers are moved to
// the page rather than cloned (Comlink.transfer in the worker; on the page nothing crosses).
export function createEngineApi(loadAttention, { models = null, transfer } = {}) {
  // engine: the forward engine, once loaded; the rest belongs to the training calls (training-calls.mjs)
  const api = { loadAttention, engine: null, learner: null, learnerReady: null, sessions: new Map() };
  return {
    // the Train section's runs (engine/training-session.mjs), one per lab
    training: trainingCalls(api),
    // the "Real models" view's model, one per lab (engine/models-calls.mjs)
    models: modelCalls(api, models, { transfer }),

    async load(simd = 'auto') {
      api.engine ??= await loadAttention({ simd });
      return api.engine.info;
    },

    run: (request) => run(api.engine, request),

    /** A request with a `stack` (state/stack.mjs), on the learning engine, loaded the first time. */
    async stack(request) {
      let learner;
      try {
        learner = await learning(api);
      } catch (error) {
        return { error: { name: error.name, field: 'layers', message: `the learning engine did not load: ${error.message}` } };
      }
      try {
        const reply = runStack(learner, request);
        warmUp(api, learner, request);
        return reply;
      } catch (error) {
        return { error: { name: error.name, field: error.field ?? null, message: error.message } };
      }
    },

    /**
     * The scaling lab: for each d_k, `samples` random queries and keys with unit-variance entries,
     * their q·k and q·k / √d_k computed by the engine (identity projections, one head), and the
     * variance of each over all samples × samples pairs.
     */
    varianceLab: (options) => varianceLab(api.engine, options),

    /**
     * softmax(factor × scores) by the engine: one query [factor] against keys that are the scores.
     * −∞ entries (masked keys) stay masked.
     */
    softmaxRow: (scores, factor) => softmaxRow(api.engine, scores, factor),

    // issue 25's chapters: flash, kv-cache, rope, gqa, window and sinks
    ...chapterCalls(api),
  };
}

// The calls of issue 25's chapters (web/src/flash, kv-cache, rope, gqa, window, sinks).
function chapterCalls(api) {
  return {
    /**
     * The flash chapter: the request's attention computed tile by tile (engine.flashAttention()), on
     * the learning engine, loaded the first time (as the training's). Errors come back as data.
     */
    flash: (request, tile) => flash(api, request, tile),

    /**
     * The KV-cache chapter: the request's x as causal self-attention, prefilled with its first
     * `prefill` tokens and decoded one token at a time (engine.kvCache()), beside the full causal pass
     * on every token; `rotary` ({ dims } or null) rotates q and k. On the learning engine, as flash.
     */
    kvDecode: (request, prefill, rotary) => kvDecode(api, request, prefill, rotary),

    /** The RoPE chapter: the request without and with rotary positions, shifted, reversed (modern-calls.mjs). */
    rope: (request, options) => ropeLab(api.engine, request, weightsFor(api.engine, request), options),

    /** The GQA chapter: a seeded layer as MHA, with kvHeads = heads, and averaged to kvHeads (modern-calls.mjs). */
    gqa: (options) => gqaLab(api.engine, options),
    /**
     * The window chapter: the request's x as causal self-attention with a sliding window of `window`
     * keys (engine.attention()), and a stack of `layers` attention-only blocks with that window
     * (engine.transformer()) run once as is and once per token with that token's vector perturbed:
     * reach[l][i] lists the tokens j whose change moved token i's output after layer l + 1.
     */
    windowReach: (request, window, layers) => windowReach(api, request, window, layers),

    /**
     * The sinks chapter: attention on the given options (x, sizes, weights) computed with a sink logit
     * per head (engine.flashAttention() in one tile; `sinks` null for none), beside the plain softmax.
     */
    sinkAttention: (options, sinks) => learningCall(api, (learner) => learner.flashAttention({ ...options, tile: options.n, ...(sinks ? { sinks } : {}) })),

    /**
     * The sinks chapter's StreamingLLM cache: the request's x as causal self-attention, the first token
     * prefilled and the rest decoded by a cache that keeps `sinks` first tokens and `budget` in all
     * (engine.kvCache({ evict })), beside the full causal pass (nothing evicted).
     */
    evictDecode: (request, sinks, budget) => evictDecode(api, request, sinks, budget),
  };
}

function weightsFor(engine, { weights, dModel, heads, dK, dV, useWo, kvHeads }) {
  if (weights.mode === 'identity') return { wq: null, wk: null, wv: null, wo: useWo ? identity(dModel) : null };
  if (weights.mode === 'random') {
    const drawn = randomWeights(engine, { dModel, heads, dK, dV, kvHeads }, weights.seed);
    return { ...drawn, wo: useWo ? drawn.wo : null };
  }
  const f32 = (values) => (values ? Float32Array.from(values) : null);
  const own = { wq: f32(weights.wq), wk: f32(weights.wk), wv: f32(weights.wv), wo: useWo ? f32(weights.wo) : null };
  // biases, when the weights have them (a loaded or trained layer); b_o only with W_O
  for (const name of ['bq', 'bk', 'bv']) if (weights[name]) own[name] = f32(weights[name]);
  if (useWo && weights.bo) own.bo = f32(weights.bo);
  return own;
}

function run(engine, request) {
  try {
    const { weights: recipe, useWo, ...options } = request;
    const weights = weightsFor(engine, request);
    // the page's padding mask holds keep flags (state/request.mjs): named so to the engine
    const mask = options.mask instanceof Uint8Array ? { keep: options.mask } : options.mask;
    const result = engine.attention({ ...options, mask, ...weights, trace: true });
    // for the tables, identity projections are shown as the identity matrix they stand for
    if (recipe.mode === 'identity') Object.assign(weights, { wq: identity(options.dModel), wk: identity(options.dModel), wv: identity(options.dModel) });
    return { result, weights };
  } catch (error) {
    return { error: { name: error.name, field: error.field ?? null, message: error.message } };
  }
}

async function flash(api, request, tile) {
  try {
    const learner = await learning(api);
    const { weights: _recipe, useWo: _useWo, trace: _trace, ...options } = request;
    const mask = options.mask instanceof Uint8Array ? { keep: options.mask } : options.mask;
    return { result: learner.flashAttention({ ...options, mask, ...weightsFor(learner, request), tile }) };
  } catch (error) {
    return { error: { name: error.name, field: error.field ?? null, message: error.message } };
  }
}

async function kvDecode(api, request, prefill, rotary) {
  let cache = null;
  try {
    const learner = await learning(api);
    const { x, n, dModel, heads, dK, dV, scale } = request;
    const options = { dModel, heads, dK, dV, scale, ...weightsFor(learner, request), ...(rotary ? { rotary } : {}) };
    const full = learner.attention({ ...options, x, n, mask: 'causal', trace: true });
    cache = learner.kvCache({ ...options, capacity: n });
    const first = cache.prefill(x.slice(0, prefill * dModel));
    const steps = [];
    for (let i = prefill; i < n; i++) steps.push(cache.step(x.slice(i * dModel, (i + 1) * dModel)));
    return { full, prefill: first, steps };
  } catch (error) {
    return { error: { name: error.name, field: error.field ?? null, message: error.message } };
  } finally {
    cache?.dispose();
  }
}

async function learningCall(api, call) {
  try {
    return { result: call(await learning(api)) };
  } catch (error) {
    return { error: { name: error.name, field: error.field ?? null, message: error.message } };
  }
}

async function evictDecode(api, request, sinks, budget) {
  let cache = null;
  try {
    const learner = await learning(api);
    const { x, n, dModel, heads, dK, dV, scale } = request;
    const options = { dModel, heads, dK, dV, scale, ...weightsFor(learner, request) };
    const full = learner.attention({ ...options, x, n, mask: 'causal', trace: true });
    cache = learner.kvCache({ ...options, capacity: n, evict: { sinks, budget } });
    cache.prefill(x.slice(0, dModel));
    const steps = [];
    for (let i = 1; i < n; i++) steps.push(cache.step(x.slice(i * dModel, (i + 1) * dModel)));
    return { full, steps };
  } catch (error) {
    return { error: { name: error.name, field: error.field ?? null, message: error.message } };
  } finally {
    cache?.dispose();
  }
}

async function windowReach(api, request, window, layers) {
  try {
    const learner = await learning(api);
    const { x, n, dModel, heads, dK, dV, scale } = request;
    const attention = learner.attention({ dModel, heads, dK, dV, scale, ...weightsFor(learner, request), x, n, mask: 'causal', window, trace: true });
    // every layer the lab's first layer, causal, with the window (state/stack.mjs's request, built here)
    const stacked = { ...request, mask: 'causal', stack: { recipes: Array(layers).fill(request.weights), arrangement: 'attention-only' } };
    const { options } = stackOptions(learner, stacked);
    for (const layer of options.layers) layer.attention.window = window;
    const outputs = (tokens) => learner.transformer({ ...options, tokens }).layers.map((layer) => layer.output);
    const base = outputs(x);
    const reach = base.map(() => Array.from({ length: n }, () => []));
    for (let j = 0; j < n; j++) {
      const moved = Float32Array.from(x);
      for (let c = 0; c < dModel; c++) moved[j * dModel + c] += 1;  // token j's vector, every feature + 1
      outputs(moved).forEach((output, l) => {
        for (let i = 0; i < n; i++) {
          const changed = output.subarray(i * dModel, (i + 1) * dModel).some((value, c) => value !== base[l][i * dModel + c]);
          if (changed) reach[l][i].push(j);
        }
      });
    }
    return { attention, reach };
  } catch (error) {
    return { error: { name: error.name, field: error.field ?? null, message: error.message } };
  }
}

function varianceLab(engine, { dks, samples = 64, seed = 7 }) {
  return dks.map((dk, i) => {
    const q = normalDraws(samples * dk, seed + 2 * i);
    const k = normalDraws(samples * dk, seed + 2 * i + 1);
    const result = engine.attention({ x: q, n: samples, dModel: dk, context: k, m: samples, scale: 'sqrt_dk' });
    return { dk, unscaled: variance(result.heads[0].scores), scaled: variance(result.heads[0].scaled) };
  });
}

function softmaxRow(engine, scores, factor) {
  const keep = Uint8Array.from(scores, (s) => (s === -Infinity ? 0 : 1));
  const context = Float32Array.from(scores, (s) => (s === -Infinity ? 0 : s));
  const result = engine.attention({ x: [factor], n: 1, dModel: 1, context, m: scores.length, scale: 'none', mask: { keep } });
  return result.heads[0].weights;
}
