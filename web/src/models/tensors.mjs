// A model's tensors, read tensor by tensor from Blobs (a File on the page, fs.openAsBlob in Node):
// each safetensors file's header first (its own slices of the file), checked against the file's size,
// then one tensor's bytes at a time when it is asked for, so a 500 MB model is never one buffer.
// One model.safetensors, or a sharded set named by model.safetensors.index.json.
import {
  FileFormatError, FLOAT_DTYPES, decodeFloats, product, safetensorsHeaderLength, parseSafetensorsHeader, MAX_TABLE_VALUES,
} from '../shared/safetensors.mjs';
import { parseJson } from '../shared/json-depth.mjs';
import { isolate } from '../shared/bidi.mjs';
import { PieceReader } from './reader.mjs';

/**
 * A problem with one of the model's files (or the typed text, ids): `file` (also `field`) is its name,
 * `problem` says what is wrong for a developer, in English, and `message` is "file: problem". The
 * reader's message is `said`, { key, values }: a catalogue key (i18n, 'models.error.…') and its values
 * (numbers, file and tensor names, kept as they are and bidi-isolated when said), so the page says it in
 * its own language; without one, 'models.error.file' names the file and quotes the problem.
 */
export class ModelError extends Error {
  constructor(file, problem, said = null) {
    super(`${isolate(file)}: ${problem}`);
    this.name = 'ModelError';
    this.file = file;
    this.field = file;
    this.problem = problem;
    this.key = said?.key ?? 'models.error.file';
    this.values = { file, ...(said?.values ?? { problem }) };
  }
}

const bytesOf = async (blob, start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer());

/**
 * How a model's pieces are read while staging (reader.mjs): a PieceReader, whose pieces each go away
 * (into WebAssembly memory, or converted) before the next is asked for; free its buffers with
 * freeBuffers(reading.buffers()) once done. Options: `ahead` (pieces read ahead of their use, 2),
 * `mayReadAhead()`.
 */
export const readBuffer = (options = {}) => new PieceReader(options);

/** A JSON file of the folder, parsed, or a ModelError naming it. */
export async function readJsonFile(file, name) {
  try {
    return parseJson(await file.text());
  } catch (error) {
    throw new ModelError(name, `not valid JSON (${error.message})`, { key: 'models.error.json', values: { detail: error.message } });
  }
}

// One safetensors file's checked header: { file, name, parsed }
async function readHeader(file, name) {
  try {
    const length = safetensorsHeaderLength(await bytesOf(file, 0, 8), file.size);
    return { file, name, parsed: parseSafetensorsHeader(await bytesOf(file, 8, 8 + length), file.size, MAX_TABLE_VALUES) };
  } catch (error) {
    if (error instanceof FileFormatError) throw new ModelError(name, error.message, error.said ?? { key: 'models.error.header', values: { detail: error.message } });
    throw error;
  }
}

// The shards model.safetensors.index.json names, each among the chosen files.
async function shardNames(folder) {
  const indexName = 'model.safetensors.index.json';
  const index = await readJsonFile(folder.get(indexName), indexName);
  const map = index?.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new ModelError(indexName, 'has no weight_map object (tensor name → shard file)', { key: 'models.error.weightMap' });
  const weightMap = new Map(Object.entries(map));
  const shards = [...new Set(weightMap.values())];
  for (const shard of shards) {
    if (typeof shard !== 'string') throw new ModelError(indexName, `weight_map gives ${JSON.stringify(shard)?.slice(0, 40)} as a file name`, { key: 'models.error.weightMap' });
    if (!folder.has(shard)) throw new ModelError(shard, `${indexName} names this shard, but it is not among the chosen files: choose the whole folder`, { key: 'models.error.missingShard', values: { index: indexName } });
  }
  return { shards, weightMap, indexName };
}

/**
 * The tensors of a folder (Map base name → Blob): { tensors: Map name → { file, name (its file's),
 * dtype, shape, begin, end }, skipped: [{ name, dtype }] (integer and boolean tensors), files: [names],
 * bytes (all float data) }. Nothing but headers is read.
 */
export async function catalogue(folder) {
  let names;
  let weightMap = null;
  if (folder.has('model.safetensors.index.json')) {
    const sharded = await shardNames(folder);
    names = sharded.shards;
    weightMap = sharded;
  } else if (folder.has('model.safetensors')) {
    names = ['model.safetensors'];
  } else {
    throw new ModelError('model.safetensors', 'missing: choose the folder with model.safetensors (or model.safetensors.index.json and its shards); .bin and .pt files are not read', { key: 'models.error.noWeights', values: { weights: 'model.safetensors', index: 'model.safetensors.index.json', others: '.bin, .pt' } });
  }
  const tensors = new Map();
  const skipped = [];
  for (const name of names) {
    const { file, parsed } = await readHeader(folder.get(name), name);
    for (const entry of parsed.entries) {
      if (!FLOAT_DTYPES.includes(entry.dtype)) {
        skipped.push({ name: entry.name, dtype: entry.dtype });
        continue;
      }
      tensors.set(entry.name, { ...entry, file, fileName: name, dataStart: parsed.dataStart });
    }
  }
  if (weightMap) checkWeightMap(weightMap, tensors, skipped);
  const bytes = [...tensors.values()].reduce((sum, t) => sum + (t.end - t.begin), 0);
  return { tensors, skipped, files: names, bytes };
}

// Every tensor the index names is in the shard it names.
function checkWeightMap({ weightMap, indexName }, tensors, skipped) {
  const skippedNames = new Set(skipped.map((s) => s.name));
  for (const [tensor, shard] of weightMap) {
    if (skippedNames.has(tensor)) continue;
    const found = tensors.get(tensor);
    if (!found) throw new ModelError(shard, `${indexName} puts tensor "${isolate(tensor.slice(0, 80))}" in this shard, but its header has no such tensor`, { key: 'models.error.shardLacks', values: { index: indexName, tensor: tensor.slice(0, 80) } });
    if (found.fileName !== shard) throw new ModelError(indexName, `puts tensor "${isolate(tensor.slice(0, 80))}" in ${isolate(shard)}, but it is in ${isolate(found.fileName)}`, { key: 'models.error.shardWrong', values: { tensor: tensor.slice(0, 80), shard, found: found.fileName } });
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
// At most this many values are read at once by readTensorInto (8 MiB as F32).
export const CHUNK_VALUES = 2 ** 21;

// `bytes` (a fresh buffer of our own) as float32: F32 on a little-endian machine is viewed where it
// lies, not copied value by value; other dtypes are decoded.
function floatsOf(dtype, bytes, count) {
  if (dtype === 'F32' && LITTLE_ENDIAN && bytes.byteOffset % 4 === 0 && bytes.byteLength === 4 * count) {
    return new Float32Array(bytes.buffer, bytes.byteOffset, count);
  }
  const values = decodeFloats(dtype, bytes, count);
  return values instanceof Float32Array ? values : Float32Array.from(values);
}

// Bytes [start, end) of the tensor's data, all of them or a ModelError; the time taken added to
// timings.read (ms) when given.
// With `reading` (readBuffer()), the bytes are read into its buffer: a view valid until its next read.
async function tensorBytes(tensor, start, end, timings, reading = null) {
  const t = performance.now();
  const [from, to] = [tensor.dataStart + tensor.begin + start, tensor.dataStart + tensor.begin + end];
  const bytes = reading ? await reading.bytes(tensor.file, from, to, { whole: true }) : await bytesOf(tensor.file, from, to);
  if (timings) timings.read = (timings.read ?? 0) + performance.now() - t;
  if (bytes.byteLength !== end - start) {
    throw new ModelError(tensor.fileName, `tensor "${isolate(tensor.name.slice(0, 80))}" could not be read whole (${bytes.byteLength} of ${tensor.end - tensor.begin} bytes): the file changed or is truncated`,
      { key: 'models.error.truncated', values: { tensor: tensor.name.slice(0, 80), got: bytes.byteLength, want: tensor.end - tensor.begin } });
  }
  return bytes;
}

/**
 * One tensor's values as a Float32Array: only its own bytes are read. With `reading` (readBuffer()),
 * F32 values are a view of its buffer, valid until its next read (for a caller that copies them).
 */
export async function readTensor(tensor, timings = null, reading = null) {
  const bytes = await tensorBytes(tensor, 0, tensor.end - tensor.begin, timings, reading);
  return floatsOf(tensor.dtype, bytes, product(tensor.shape));
}

// Values [first, first + most) of the tensor's, or as many of them as `reading`'s piece holds (at
// least one): { bytes, n }.
async function someValues(tensor, first, most, size, timings, reading) {
  if (reading) {
    const t = performance.now();
    const from = tensor.dataStart + tensor.begin + first * size;
    const bytes = await reading.bytes(tensor.file, from, from + most * size);
    if (timings) timings.read = (timings.read ?? 0) + performance.now() - t;
    const n = Math.floor(bytes.byteLength / size);
    if (n > 0) return { bytes: bytes.subarray(0, n * size), n };
    // a piece that ends within a value, or the file's end: read as one (or refused)
  }
  return { bytes: await tensorBytes(tensor, first * size, (first + most) * size, timings, reading), n: most };
}

/**
 * One tensor's values handed to `fill(offset, values)` at most CHUNK_VALUES at a time (Float32Arrays,
 * in order): a large table goes where `fill` puts it without ever being one array here. With
 * `reading` (readBuffer()), the pieces are its pieces (`fill` copies each away).
 */
export async function readTensorInto(tensor, fill, timings = null, reading = null) {
  const count = product(tensor.shape);
  const size = (tensor.end - tensor.begin) / Math.max(1, count);  // bytes per value
  for (let first = 0; first < count;) {
    const { bytes, n } = await someValues(tensor, first, Math.min(CHUNK_VALUES, count - first), size, timings, reading);
    const t = performance.now();
    fill(first, floatsOf(tensor.dtype, bytes, n));
    if (timings) timings.stage = (timings.stage ?? 0) + performance.now() - t;
    first += n;
  }
}
