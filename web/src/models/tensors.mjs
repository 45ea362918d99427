// A model's tensors, read tensor by tensor from Blobs (a File on the page, fs.openAsBlob in Node):
// each safetensors file's header first (its own slices of the file), checked against the file's size,
// then one tensor's bytes at a time when it is asked for, so a 500 MB model is never one buffer.
// One model.safetensors, or a sharded set named by model.safetensors.index.json.
import {
  FileFormatError, FLOAT_DTYPES, decodeFloats, product, safetensorsHeaderLength, parseSafetensorsHeader, MAX_TABLE_VALUES,
} from '../shared/safetensors.mjs';
import { parseJson } from '../shared/json-depth.mjs';
import { isolate } from '../shared/bidi.mjs';

/** A problem with one of the model's files: `file` is its name, `message` says what is wrong. */
export class ModelError extends Error {
  constructor(file, message) {
    super(`${isolate(file)}: ${message}`);
    this.name = 'ModelError';
    this.file = file;
    this.problem = message;
  }
}

const bytesOf = async (blob, start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer());

/** A JSON file of the folder, parsed, or a ModelError naming it. */
export async function readJsonFile(file, name) {
  try {
    return parseJson(await file.text());
  } catch (error) {
    throw new ModelError(name, `not valid JSON (${error.message})`);
  }
}

// One safetensors file's checked header: { file, name, parsed }
async function readHeader(file, name) {
  try {
    const length = safetensorsHeaderLength(await bytesOf(file, 0, 8), file.size);
    return { file, name, parsed: parseSafetensorsHeader(await bytesOf(file, 8, 8 + length), file.size, MAX_TABLE_VALUES) };
  } catch (error) {
    if (error instanceof FileFormatError) throw new ModelError(name, error.message);
    throw error;
  }
}

// The shards model.safetensors.index.json names, each among the chosen files.
async function shardNames(folder) {
  const indexName = 'model.safetensors.index.json';
  const index = await readJsonFile(folder.get(indexName), indexName);
  const map = index?.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new ModelError(indexName, 'has no weight_map object (tensor name → shard file)');
  const weightMap = new Map(Object.entries(map));
  const shards = [...new Set(weightMap.values())];
  for (const shard of shards) {
    if (typeof shard !== 'string') throw new ModelError(indexName, `weight_map gives ${JSON.stringify(shard)?.slice(0, 40)} as a file name`);
    if (!folder.has(shard)) throw new ModelError(shard, `${indexName} names this shard, but it is not among the chosen files: choose the whole folder`);
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
    throw new ModelError('model.safetensors', 'missing: choose the folder with model.safetensors (or model.safetensors.index.json and its shards); .bin and .pt files are not read');
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
    if (!found) throw new ModelError(shard, `${indexName} puts tensor "${isolate(tensor.slice(0, 80))}" in this shard, but its header has no such tensor`);
    if (found.fileName !== shard) throw new ModelError(indexName, `puts tensor "${isolate(tensor.slice(0, 80))}" in ${isolate(shard)}, but it is in ${isolate(found.fileName)}`);
  }
}

/** One tensor's values as a Float32Array: only its own bytes are read. */
export async function readTensor(tensor) {
  const bytes = await bytesOf(tensor.file, tensor.dataStart + tensor.begin, tensor.dataStart + tensor.end);
  if (bytes.byteLength !== tensor.end - tensor.begin) {
    throw new ModelError(tensor.fileName, `tensor "${isolate(tensor.name.slice(0, 80))}" could not be read whole (${bytes.byteLength} of ${tensor.end - tensor.begin} bytes): the file changed or is truncated`);
  }
  const values = decodeFloats(tensor.dtype, bytes, product(tensor.shape));
  return values instanceof Float32Array ? values : Float32Array.from(values);
}
