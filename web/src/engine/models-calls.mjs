// The engine API's "Real models" calls: a Hugging Face folder opened where the engine runs (the
// worker reads the File objects slice by slice itself), its weights handed into the learning engine's
// memory as they are read and prepared once (engine.stageTransformer()), kept there by the lab's key
// (disposed when another model replaces it), and every sentence run on it (its traced run). The reader ({ openModel, runModel }, or an async function
// giving it: imported when the first model is opened) is given by whoever composes the API, as the
// engine imports no feature. Errors come back as data, naming the file.
import { learning } from './training-calls.mjs';

// Buffers handed back that fitted no array: detached now (their bytes freed), not left to a collection
const letGo = (buffers) => buffers.forEach((buffer) => buffer.detached || buffer.transfer?.(0));

// `key` and `values`: the reader's message (i18n catalogue, 'models.error.…'), which the page says in its language
const failure = (error) => {
  const message = String(error?.message ?? error);
  const said = typeof error?.key === 'string' ? { key: error.key, values: { ...error.values } } : { key: 'models.error.engine', values: { problem: message } };
  return { error: { name: error?.name ?? 'Error', file: error?.file ?? null, field: error?.field ?? error?.file ?? null, problem: error?.problem ?? null, message, ...said } };
};

// What crosses back to the page: the weights per head (not every intermediate), no logits (n × vocab).
// `transfer(value, buffers)` (Comlink.transfer in the worker) moves the arrays' buffers to the page
// instead of cloning them: 28 MB a run at GPT-2 small's 128 tokens, which a clone held three times
// (the worker's arrays, the message, the page's copy) until collected. Only a buffer the array
// owns whole is moved (never a view of WebAssembly memory); the worker keeps no result.
// `reused`: the bytes of them written into buffers the page handed back; `memory` says how many of
// the answer's bytes were (reused) and how many are new buffers (made).
function answer(result, transfer, extra = {}, reused = 0) {
  const value = {
    tokens: result.tokens, ids: result.ids, pieces: result.pieces ?? [], runs: result.runs ?? [], n: result.n, next: result.next, masked: result.masked ?? null, hidden: result.hidden,
    layers: result.layers.map(({ input, output, hidden, heads }) => ({ input, output, hidden, heads: heads.map(({ weights }) => ({ weights })) })),
    ...extra,
  };
  const buffers = new Set();
  const own = (array) => {
    if (ArrayBuffer.isView(array) && array.byteOffset === 0 && array.buffer.byteLength === array.byteLength) buffers.add(array.buffer);
  };
  for (const array of value.hidden ?? []) own(array);
  for (const layer of value.layers) [layer.input, layer.output, layer.hidden, ...layer.heads.map((head) => head.weights)].forEach(own);
  value.memory = { reused, made: bytesOf([...buffers]) - reused };
  return transfer(value, [...buffers]);
}

// The bytes of the buffers still attached
const bytesOf = (buffers) => buffers.reduce((sum, buffer) => sum + (buffer.detached ? 0 : buffer.byteLength), 0);

// Layer `l`'s attention as the engine runs it (head-major W_q, W_k, W_v, W_O (in, out), biases, mask,
// scale), and its whole block (`block`): what "Open this layer in the lab" makes the lab's own. A prepared model keeps no
// weight in JavaScript: the layer is read again from its files.
async function layerAttention(model, l) {
  if (!Number.isInteger(l) || !model.request.layers[l]) return failure({ name: 'Error', message: `the model has no layer ${Number(l) + 1}` });
  const layer = model.readLayer ? await model.readLayer(l) : model.request.layers[l];
  const { heads, kvHeads = heads, dK = model.request.dModel / heads, mask = 'none', scale = 'sqrt_dk', window = 0, wq, wk, wv, wo, bq, bk, bv, bo } = layer.attention;
  return { family: model.report.family, arrangement: layer.arrangement, dModel: model.request.dModel, heads, kvHeads, dK, mask, scale, window,
    // the model's rotary positions ({ dims, theta }), or null
    rotary: model.request.positions === 'rotary' ? { ...model.request.rotary } : null, wq, wk, wv, wo, bq: bq ?? null, bk: bk ?? null, bv: bv ?? null, bo: bo ?? null,
    // the rest of the block as the engine runs it: its norms (LayerNorm or RMSNorm, eps) and MLP
    // (GELU or SwiGLU, weights (in, out)), for the lab's full block
    block: { arrangement: layer.arrangement, norm1: layer.norm1, norm2: layer.norm2, mlp: layer.mlp } };
}

// Layer `l`'s block without its attention ({ arrangement, norm1, norm2, mlp }): what the page's
// residual-stream check needs to recompute a token's MLP. Read again from the files, only those
// tensors (not the 9.4 MB of attention weights layer() reads and converts for GPT-2 small), and moved
// to the page, not cloned: a GPT-2 small block is 19 MB of MLP weights, which a clone held three
// times (the worker's arrays, the message, the page's copy). A model opened without an engine keeps
// its arrays: those are cloned, never moved.
async function layerBlock(model, l, transfer) {
  if (!Number.isInteger(l) || !model.request.layers[l]) return failure({ name: 'Error', message: `the model has no layer ${Number(l) + 1}` });
  const read = Boolean(model.readLayer);
  const { arrangement, norm1, norm2, mlp } = read ? await model.readLayer(l, { attention: false }) : model.request.layers[l];
  const block = { arrangement, norm1, norm2, mlp };
  if (!read) return block;
  const buffers = new Set();
  for (const part of [norm1, norm2, mlp]) {
    for (const array of Object.values(part ?? {})) {
      if (ArrayBuffer.isView(array) && array.byteOffset === 0 && array.buffer.byteLength === array.byteLength) buffers.add(array.buffer);
    }
  }
  return transfer(block, [...buffers]);
}

// The request for the first block only (its attention drawn before the whole model is run).
const firstLayerOnly = (request) => ({ ...request, layers: request.layers.slice(0, 1), finalNorm: undefined, unembedding: 'none', unembeddingWeight: undefined });

// `work`'s answer, or its error as data
const guarded = async (work) => {
  try {
    return await work();
  } catch (error) {
    return failure(error);
  }
};
const noModel = () => failure({ name: 'Error', message: 'no model is open: choose a model folder first' });

// The ArrayBuffers of a list from the page (none when it is not a list)
const buffersIn = (list) => (Array.isArray(list) ? list.filter((b) => b instanceof ArrayBuffer && !b.detached) : []);

// Block 1 run alone (the page draws it before the whole model is run), its arrays written into
// `spare` where they fit (a prepared model), as the answer that crosses to the page
function firstLayer(reader, api, model, input, spare, transfer) {
  const offered = bytesOf(spare);
  const first = model.prepared ? reader.runModel(api.learnerReady, model, input, { blocks: 1, reuse: spare })
    : reader.runModel(api.learnerReady, { ...model, request: firstLayerOnly(model.request), report: { ...model.report, causal: false } }, input);
  return answer(first, transfer, { next: null, hidden: null, partial: { layers: 1, of: model.request.layers.length } }, offered - bytesOf(spare));
}

/**
 * warm() → { ready } | { error }: the reader and the learning engine loaded ahead of a model (once);
 * open(key, files, onProgress) → { report } | { error }; run(key, input, onFirstLayer, spare) → the result |
 * { error } (onFirstLayer(partial) first, with layer 1 only, when given and the model has more
 * layers: block 1 is run alone first, then the whole model, whose arrays are written into the
 * ArrayBuffers onFirstLayer returns, where they fit: earlier answers' that the page no longer holds); layer(key, l) → layer l's
 * attention | { error }; block(key, l) → layer l's norms and MLP ({ arrangement, norm1, norm2, mlp }) |
 * { error }; close(key) frees the prepared model.
 */
export function modelCalls(api, given, { transfer = (value) => value } = {}) {
  const models = new Map();  // lab key → the open model
  const close = (key) => {
    models.get(key)?.prepared?.dispose();
    models.delete(key);
  };
  let reader = typeof given === 'function' ? null : given;
  let importing = null;  // the reader's import, once (a failed one is tried again)
  const imported = () => {
    if (!importing) {
      importing = Promise.resolve(typeof given === 'function' ? given() : given);
      importing.catch(() => { importing = null; });
    }
    return importing;
  };
  // the reader's import and the learning engine's load at once: the engine, with `reader` set
  const ready = async () => {
    const [module, engine] = await Promise.all([imported(), learning(api)]);
    reader = module;
    return engine;
  };
  const missing = () => failure({ name: 'Error', message: 'this page was built without the "Real models" reader' });
  return {
    // both loaded ahead of a model, when the page sees the reader about to give one (the pointer or
    // a drag over the drop zone): the opening then starts reading at once
    warm: () => guarded(async () => {
      await ready();
      return { ready: Boolean(reader) };
    }),
    async open(key, files, onProgress) {
      close(key);  // the last model is let go before the next is read
      try {
        const start = performance.now();
        const engine = await ready();
        if (!reader) return missing();
        api.learnerReady = engine;
        const timings = { engine: performance.now() - start };  // ms until both were ready
        const model = await reader.openModel([...files], { onProgress: onProgress ? (p) => onProgress(p) : undefined, engine, timings });
        models.set(key, model);
        return { report: model.report };
      } catch (error) {
        return failure(error);
      }
    },
    async run(key, input, onFirstLayer, spare) {
      if (!reader) return missing();
      const model = models.get(key);
      if (!model) return noModel();
      // buffers the page holds no longer, given with the request: layer 1 alone is written into
      // them, then the whole run into those left and those the page gives back once layer 1 is drawn
      let reuse = buffersIn(spare);
      try {
        if (onFirstLayer && model.request.layers.length > 1) {
          const given = await onFirstLayer(firstLayer(reader, api, model, input, reuse, transfer));
          reuse = [...reuse, ...buffersIn(given)];
        }
        const offered = bytesOf(reuse);
        const result = reader.runModel(api.learnerReady, model, input, { reuse });
        // trace() took each buffer it wrote into out of `reuse`: what is left fitted nothing
        const reused = offered - bytesOf(reuse);
        // a masked language model's guesses for its [MASK] tokens (BERT), read in the worker
        return answer({ ...result, masked: await reader.maskedOf?.(model, result) }, transfer, {}, reused);
      } catch (error) {
        return failure(error);
      } finally {
        letGo(reuse);  // those that fitted nothing (another length of sentence)
      }
    },
    block: (key, l) => (models.has(key) ? guarded(() => layerBlock(models.get(key), l, transfer)) : noModel()),
    layer: (key, l) => (models.has(key) ? guarded(() => layerAttention(models.get(key), l)) : noModel()),
    close,
  };
}
