// A Hugging Face model folder → a model the engine runs: openModel() reads config.json, the
// safetensors headers, the tokenizer, then the weights tensor by tensor; runModel() runs a sentence (or
// typed ids) and gives the lab's public result (docs/api.md#real-models). Given an engine, openModel()
// hands each tensor into its WebAssembly memory as it is read (engine.stageTransformer()) and prepares
// the model once: runModel() then runs its traced prepared pass, and JavaScript keeps no weight.
// Without one, the request keeps the arrays and runModel() runs engine.transformer().
// Pure: Blobs in, numbers out; used by the page's "Real models" view and by the Node tests.
import { ModelError, catalogue, readBuffer, readJsonFile, readTensorInto } from './tensors.mjs';
import { MAX_TABLE_VALUES, product } from '../shared/safetensors.mjs';
import { recognise } from './config.mjs';
import { tensorTaker, buildRequest, buildLayer, keptBytes } from './request.mjs';
import { loadTokenizer, pieceRuns, topTokens } from './tokenizer.mjs';
import { readMaskedHead, maskedPositions, maskedTokens } from './masked.mjs';
import { freeBuffers } from './free.mjs';
import { remoteReads } from './remote-reads.mjs';
import { seenText } from './names.mjs';
import { isolate } from '../shared/bidi.mjs';

// The engine's WebAssembly memory, at most (MAXIMUM_MEMORY in CMakeLists.txt).
export const WASM_MEMORY_BYTES = 2 ** 31;
// The weights kept, as F32, plus the token table once more, at most this: the rest of the 2 GB is
// left for the runs and the lab's other work. The SIMD build packs a tied table in place (held once);
// the scalar build (no SIMD in the browser) keeps the tied unembedding as a copy of its own, so the
// check counts the table twice for every build.
export const MAX_MODEL_BYTES = 1600 * 2 ** 20;
// One weight table the engine takes: the token table's cap (kMaxTableValues in
// core/include/attention/transformer.hpp), 2²⁷ values; GPT-2 small's 50,257 × 768 = 38.6 M fits.
export { MAX_TABLE_VALUES } from '../shared/safetensors.mjs';
export const TOP_NEXT = 10;

const baseName = (name) => String(name).split(/[\\/]/).pop();

/** The chosen files (a folder's, or some picked or dropped) by base name. */
export function folderOf(files) {
  const folder = new Map();
  for (const file of files) folder.set(baseName(file.name), file);
  return folder;
}

// Refused before any weight is read: too large for the engine's memory, or a table above its cap.
function checkSize(recognised) {
  const s = recognised.settings;
  const bytes = keptBytes(recognised);
  const table = 4 * s.vocab * s.dModel;
  if (bytes + table > MAX_MODEL_BYTES) {
    const mb = (value) => (value / 2 ** 20).toFixed(0);
    throw new ModelError('config.json', `this model's weights take ${mb(bytes)} MB as float32, and its token table ${mb(table)} MB more while it is prepared: ${mb(bytes + table)} MB, above the ${mb(MAX_MODEL_BYTES)} MB the lab allows, because the engine's WebAssembly memory is at most ${mb(WASM_MEMORY_BYTES)} MB (a browser limit) and must keep room to run`,
      { key: 'models.error.tooLarge', values: { total: mb(bytes + table), most: mb(MAX_MODEL_BYTES), memory: mb(WASM_MEMORY_BYTES) } });
  }
  if (s.vocab * s.dModel > MAX_TABLE_VALUES) {
    throw new ModelError('config.json', `vocab_size × hidden size = ${s.vocab} × ${s.dModel} = ${s.vocab * s.dModel} values in the token table; the engine takes at most ${MAX_TABLE_VALUES} values in one weight table`,
      { key: 'models.error.tableTooLarge', values: { vocab: s.vocab, dModel: s.dModel, values: s.vocab * s.dModel, most: MAX_TABLE_VALUES } });
  }
  return bytes;
}

function report(recognised, tables, taker, tokenizer, bytes, masked = null) {
  const s = recognised.settings;
  return {
    family: recognised.family, modelType: recognised.modelType, architectures: recognised.architectures, prefix: recognised.prefix,
    layers: s.layers, dModel: s.dModel, heads: s.heads, kvHeads: s.kvHeads ?? s.heads, dK: s.dK ?? s.dModel / s.heads, vocab: s.vocab,
    causal: s.causal, ropeLayout: s.ropeLayout ?? null, windows: s.windows ?? null, files: tables.files,
    // learned positions (BERT, GPT-2: settings.positions, a table row each), so at most this many tokens; rotary: none
    maxTokens: s.positions ? s.positions - (s.positionOffset ?? 0) : null,
    dtypes: [...new Set([...tables.tensors.values()].map((t) => t.dtype))], keptBytes: bytes,
    skipped: tables.skipped, unused: [...tables.tensors.keys()].filter((name) => !taker.used.has(name)),
    unread: recognised.unread, tokenizer: tokenizer !== null,
    // the MLP's activation ('gelu', 'gelu-tanh', 'relu', 'silu'; Llama's SwiGLU gate is SiLU)
    activation: s.activation ?? null,
    // a masked language model's head (BERT's cls.predictions): result.masked for its [MASK] tokens
    maskedHead: masked !== null,
  };
}

// Room made in WebAssembly memory before the weights are read: the model's weights (keptBytes) and this
// much more (the token table's panel padding, norms, biases), so that no tensor staged grows the memory
// while the reader has pieces in flight; it reads ahead only while this much of the room is left.
const ROOM_SLACK = 64 * 2 ** 20;

// The opening's reader and staging: the memory grown at once (reserve) and the reader reading ahead of
// the staging only while the room made holds what comes next; without the room, no read ahead. With
// `readWorker` (a URL), the pieces are read in a worker of their own (remote-reads.mjs), else here.
function stagingOf(engine, recognised, readWorker) {
  const staging = engine.stageTransformer();
  const room = keptBytes(recognised) + ROOM_SLACK;
  const reserved = staging.reserve(room / 4);
  const roomy = (values) => reserved && 4 * (staging.values + values) + ROOM_SLACK / 2 <= room;
  const remote = remoteReads(readWorker);
  const reading = readBuffer({ ahead: reserved ? 2 : 0, mayReadAhead: () => roomy(0), read: remote?.read });
  return { staging, reading, roomy, remote };
}

// The reader's buffers freed now (nothing in the engine's worker runs the collector again until it
// allocates): given back to the reading worker, which is stopped, or let go here.
async function endReading(reading, remote) {
  await reading.settled();
  if (remote) remote.close(reading.buffers());
  else freeBuffers(reading.buffers());
}

// The request's tensors handed into the engine one by one as they are read (those used as the file
// has them read straight into its memory, piece by piece), then prepared once. `timings` (ms): read
// (waiting for the files), stage (allocations in and copies into WebAssembly memory), convert (the
// rest of building the request), prepare.
async function prepareModel(engine, tables, recognised, onProgress, timings, readWorker) {
  const { staging, reading, roomy, remote } = stagingOf(engine, recognised, readWorker);
  const stage = async (tensor, { rows }) => {
    const length = product(tensor.shape);
    // its first pieces read while it is allocated (zeroed: its pages' first touch), unless that may
    // grow the memory: then no read in flight
    if (roomy(length)) reading.expect(tensor.file, tensor.dataStart + tensor.begin);
    else await reading.settled();
    const t = performance.now();
    const { tensor: staged, fill } = staging.tensorOf(length, { rows });
    timings.stage = (timings.stage ?? 0) + performance.now() - t;  // the allocation (zeroed, first touched)
    await readTensorInto(tensor, fill, timings, reading);
    return staged;
  };
  const keep = (values) => {
    const t = performance.now();
    const staged = staging.tensor(values);
    timings.stage = (timings.stage ?? 0) + performance.now() - t;
    return staged;
  };
  try {
    const taker = tensorTaker(tables, recognised.prefix, onProgress, { stage, timings, reading });
    const t = performance.now();
    const request = await buildRequest(taker, recognised, keep);
    await reading.settled();  // the pieces read ahead past the last tensor: none in flight from here
    timings.convert = performance.now() - t - (timings.read ?? 0) - (timings.stage ?? 0);
    const p = performance.now();
    const prepared = staging.prepare(request);
    timings.prepare = performance.now() - p;
    taker.release();
    return { request, prepared, taker, reads: remote?.where ?? (() => 'here') };
  } finally {
    staging.dispose();
    await endReading(reading, remote);
  }
}

/**
 * Opens a model folder: `files` are Blobs with names (File objects, or fs.openAsBlob in Node).
 * Returns { request (engine.transformer()'s, without ids), tokenizer (or null), report }, or throws a
 * ModelError naming the file and the problem. `onProgress({ stage, done, total })` while reading.
 * With `engine` (a learning engine), the weights go into its memory as they are read: `prepared` is
 * the model prepared once (dispose() it when done), `request` names staged tensors in place of
 * arrays, and `readLayer(l)` reads block l's weights again from the files (`readLayer(l, { attention:
 * false })`: its norms and MLP only). `readWorker`: the URL of web/read-worker.mjs's build, where the
 * weights are then read (remote-reads.mjs); report.reads says where they were.
 */
export async function openModel(files, { onProgress, engine = null, timings = {}, readWorker = null } = {}) {
  const start = performance.now();
  const folder = folderOf(files);
  if (!folder.has('config.json')) throw new ModelError('config.json', 'missing: choose the model\'s folder, or its config.json with the weights', { key: 'models.error.noConfig' });
  const config = await readJsonFile(folder.get('config.json'), 'config.json');
  const tables = await catalogue(folder);
  const recognised = recognise(config, new Set(tables.tensors.keys()));
  const bytes = checkSize(recognised);
  onProgress?.({ stage: 'tokenizer', done: 0, total: tables.bytes });
  const tokenizer = await loadTokenizer(folder, recognised.settings.vocab);
  timings.headers = performance.now() - start;  // config.json, the safetensors headers, the tokenizer
  const progress = (p) => onProgress?.({ stage: 'weights', ...p });
  if (!engine) {
    const taker = tensorTaker(tables, recognised.prefix, progress);
    const request = await buildRequest(taker, recognised);
    const masked = await readMaskedHead(tables, recognised, taker.used);
    return { request, tokenizer, masked, report: report(recognised, tables, taker, tokenizer, bytes, masked) };
  }
  const { request, prepared, taker, reads } = await prepareModel(engine, tables, recognised, progress, timings, readWorker);
  const masked = await readMaskedHead(tables, recognised, taker.used);
  // where the opening's time went (ms): headers, read, stage, convert, prepare, and all of it; where
  // its files were read ('worker': a reading worker of their own, 'here')
  const about = { ...report(recognised, tables, taker, tokenizer, bytes, masked), timings: { ...timings, total: performance.now() - start }, reads: reads() };
  const again = tensorTaker(tables, recognised.prefix);
  return { request, prepared, tokenizer, masked, report: about, readLayer: (l, options) => buildLayer(again, recognised, l, options) };
}

// Typed ids, checked: whole numbers from 0 to vocab − 1.
function checkIds(ids, vocab) {
  if (!Array.isArray(ids) || ids.length === 0) throw new ModelError('ids', 'type at least one token id', { key: 'models.error.noIds' });
  ids.forEach((id, i) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocab) throw new ModelError('ids', `ids[${i}] is ${String(id).slice(0, 20)}; a token id is a whole number from 0 to ${vocab - 1}`,
      { key: 'models.error.id', values: { position: i + 1, id: String(id).slice(0, 20), last: vocab - 1 } });
  });
  return ids;
}

// Refused before the engine sees it: more tokens than a model with learned positions has positions for
// (the engine's own message names its positionTable; a reader needs the limit and what to do).
// When some of the tokens are byte pieces (piecesOf), the message says that is why a short text in
// such a script makes many tokens (review 8, finding 1).
function checkLength(ids, about, tokenizer) {
  const most = about?.maxTokens;
  const count = ids.length;
  if (!most || count <= most) return;
  const positions = piecesOf(ids, tokenizer);
  const pieces = positions.length;
  const chars = pieces ? pieceCharacters(ids, tokenizer, positions) : '';
  const why = pieces ? `; ${pieces} of them are pieces of characters the model has no token for (${chars}; one token a byte: 3 for a Hindi letter)` : '';
  throw new ModelError('text', `this ${about.modelType} model learned positions for ${most} tokens at most (config.json), and your text makes ${count} tokens${why}: shorten it to ${most} tokens or fewer`,
    { key: pieces ? 'models.error.tooLongPieces' : 'models.error.tooLong', values: { type: about.modelType, most, count, pieces, chars } });
}

// The characters the first pieces are parts of (pieceRuns), each once in the text's order, at most
// three named (as names.mjs writes them: a control as its code point, isolated): review 10 saw
// U+202E's pieces explained as Hindi letters
function pieceCharacters(ids, tokenizer, positions) {
  const runs = pieceRuns(ids, (run) => tokenizer.decode(run), positions.slice(0, 48));
  const chars = [...new Set(runs.map((run) => seenText(run.text)))];
  return chars.slice(0, 3).map((c) => `‘${isolate(c)}’`).join(', ') + (chars.length > 3 ? ', …' : '');
}

// The top `count` next tokens after the last one: softmax of the last row of logits (topTokens).
function nextTokens(logits, n, vocab, tokenizer, count = TOP_NEXT) {
  return topTokens(logits.subarray((n - 1) * vocab, n * vocab), tokenizer, count);
}

/**
 * Runs `input` ({ text } with a tokenizer, or { ids }) through the model. The result: tokens, ids,
 * layers[l] { input (what attention received), heads[h] { weights, q, k, v, … }, output (attention's,
 * before the residual), hidden (the stream after the block) }, hidden (n × d_model per state:
 * embeddings, then after each block; the last after the final norm), next (causal models: top 10),
 * pieces (the positions of tokens that are only bytes of a longer character), runs (pieceRuns: the
 * character each of those is part of).
 * `reuse` (a prepared model only): ArrayBuffers no one holds, written into rather than new ones made.
 */
export function runModel(engine, model, input, { blocks, reuse } = {}) {
  const { request, tokenizer, report: about } = model;
  let ids;
  let tokens;
  if (typeof input.text === 'string' && tokenizer) ({ ids, tokens } = tokenizer.encode(input.text));
  else ids = checkIds(input.ids, request.vocab);
  checkIds(ids, request.vocab);
  checkLength(ids, about, tokenizer);
  tokens ??= ids.map((id) => tokenizer?.tokenOf(id) ?? String(id));
  const pieces = piecesOf(ids, tokenizer);
  // which character each of them is part of (the tokenizer decoding its neighbours with it)
  const runs = pieces.length ? pieceRuns(ids, (run) => tokenizer.decode(run), pieces) : [];
  if (model.prepared) return { ...runPrepared(model, ids, tokens, blocks, reuse), pieces, runs };
  const trace = engine.transformer({ ...request, ids });
  const layers = trace.layers.map((block, l) => ({
    input: request.layers[l].arrangement === 'pre' ? block.norm1.output : block.input,
    heads: block.attention.heads,
    output: block.attention.output,
    hidden: block.output,
  }));
  const hidden = [trace.embeddings, ...trace.layers.slice(0, -1).map((block) => block.output), trace.output];
  const next = about.causal ? nextTokens(trace.logits, trace.n, request.vocab, tokenizer) : null;
  return { tokens, ids, n: trace.n, layers, hidden, next, logits: trace.logits, pieces, runs };
}

// The positions of the tokens that are only part of a character: a byte-level vocabulary with no
// piece for a letter (GPT-2's for Devanagari) splits it into its UTF-8 bytes, and the tokenizer's
// own decoder writes such a byte alone as U+FFFD. [] without a tokenizer.
function piecesOf(ids, tokenizer) {
  if (!tokenizer) return [];
  return ids.flatMap((id, i) => (tokenizer.decode([id]).includes('\uFFFD') ? [i] : []));
}

// runModel() on a prepared model: its traced run, which keeps each head's weights, what attention read
// and gave, the stream, and the last position's logits (no other intermediate, no n × vocab logits).
// With `blocks`, only the first blocks are run: hidden and next are null. With `reuse` (ArrayBuffers
// of earlier results no one holds), the arrays are written into those that fit (prepared.trace()).
function runPrepared(model, ids, tokens, blocks, reuse) {
  const { request, tokenizer, report: about } = model;
  const trace = model.prepared.trace({ ids, lastLogits: about.causal, ...(blocks === undefined ? {} : { blocks }), ...(reuse ? { reuse } : {}) });
  const layers = trace.layers.map((layer) => ({
    input: layer.input, heads: layer.weights.map((weights) => ({ weights })), output: layer.output, hidden: layer.hidden,
  }));
  if (trace.output === null) return { tokens, ids, n: trace.n, layers, hidden: null, next: null };
  const hidden = [trace.embeddings, ...trace.layers.slice(0, -1).map((layer) => layer.hidden), trace.output];
  const next = about.causal ? nextTokens(trace.lastLogits, 1, request.vocab, tokenizer) : null;
  return { tokens, ids, n: trace.n, layers, hidden, next };
}

/**
 * A masked language model's guesses for `result` (runModel()'s): for each [MASK] token, its top 10
 * ([{ position, top: [{ id, token, text, probability, logit }] }]); null for a model without the head,
 * [] for a sentence without a mask. From the last hidden state (BERT has no final norm after it).
 */
export async function maskedOf(model, result) {
  if (!model.masked || !result.hidden) return null;
  return maskedTokens(model.masked, result.hidden[result.hidden.length - 1], maskedPositions(result.tokens), model.tokenizer);
}
