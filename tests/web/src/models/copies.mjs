// Copies of the Hugging Face folders of ../shared/models written by the tests into a temp dir:
// sharded, F16, BF16, without the prefix, with the other config layout, and broken ones. The
// safetensors writer and the float16 / bfloat16 rounding here are the test's own, not the page's.
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, mkdirSync, openAsBlob } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const MODELS = new URL('../../../../../shared/models/', import.meta.url);
export const tempRoot = () => mkdtempSync(join(tmpdir(), 'attention-lab-models-'));

/** The tensors of a safetensors file: [{ name, dtype, shape, bytes }] in the header's order. */
export function readSafetensorsFile(path) {
  const file = readFileSync(path);
  const length = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + length).toString('utf8'));
  const start = 8 + length;
  return Object.entries(header).filter(([name]) => name !== '__metadata__').map(([name, { dtype, shape, data_offsets: [b, e] }]) => ({
    name, dtype, shape, bytes: new Uint8Array(file.subarray(start + b, start + e)),
  }));
}

/** safetensors bytes from [{ name, dtype, shape, bytes }]; `lie(header)` may edit the header first. */
export function safetensorsBytes(tensors, lie = () => {}) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of tensors) {
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.bytes.length] };
    offset += t.bytes.length;
  }
  lie(header);
  const json = Buffer.from(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  const out = Buffer.alloc(8 + padded + offset, 0x20);
  out.writeBigUInt64LE(BigInt(padded), 0);
  json.copy(out, 8);
  let at = 8 + padded;
  for (const t of tensors) {
    out.set(t.bytes, at);
    at += t.bytes.length;
  }
  return out;
}

const floatsOf = (t) => new Float32Array(t.bytes.buffer.slice(t.bytes.byteOffset, t.bytes.byteOffset + t.bytes.byteLength));

/** float32 → IEEE half, round to nearest even (arithmetic in float64, exact at these sizes). */
export function halfBits(value) {
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  if (a === 0) return sign;
  const roundEven = (x) => {
    const f = Math.floor(x);
    const r = x - f;
    return r > 0.5 || (r === 0.5 && f % 2 === 1) ? f + 1 : f;
  };
  if (a < 2 ** -14) return sign | roundEven(a / 2 ** -24);  // subnormal (2^-14 rounds up into the normals: fine, same bits)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  let m = roundEven(a / 2 ** (e - 10));
  if (m === 2048) {
    m = 1024;
    e += 1;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | (m - 1024);
}

/** IEEE half bits → value. */
export function halfValue(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 31;
  const m = bits & 1023;
  if (e === 0) return sign * m * 2 ** -24;
  return sign * (1024 + m) * 2 ** (e - 25);
}

/** float32 → bfloat16 bits, round to nearest even (as torch's .to(torch.bfloat16)). */
export function bfloatBits(value) {
  const u = new Uint32Array(new Float32Array([value]).buffer)[0];
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}
export const bfloatValue = (bits) => new Float32Array(new Uint32Array([bits << 16]).buffer)[0];

/** A tensor re-encoded as F16 or BF16 (float tensors only). */
export function toHalf(t, dtype) {
  if (t.dtype !== 'F32') return t;
  const values = floatsOf(t);
  const bits = new Uint16Array(values.length);
  values.forEach((v, i) => { bits[i] = dtype === 'F16' ? halfBits(v) : bfloatBits(v); });
  return { ...t, dtype, bytes: new Uint8Array(bits.buffer) };
}

/** The value a float32 becomes after a trip through F16 or BF16 (for the expected results). */
export const roundTrip = (dtype) => (dtype === 'F16' ? (v) => halfValue(halfBits(v)) : (v) => bfloatValue(bfloatBits(v)));

/** Writes a folder: files { name: string | Buffer | object (JSON) }. */
export function writeFolder(root, name, files) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    writeFileSync(join(dir, file), typeof content === 'string' || content instanceof Uint8Array ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

/** The text files of a model folder (config, tokenizer), as they are. */
export function textFiles(model) {
  const out = {};
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    try {
      out[file] = readFileSync(new URL(`${model}/${file}`, MODELS), 'utf8');
    } catch {
      // a folder without it
    }
  }
  return out;
}

/** A folder's files as named Blobs (read lazily, slice by slice), as the page's file input gives them. */
export async function blobsOf(dir) {
  const names = readdirSync(dir);
  return Promise.all(names.map(async (name) => {
    const blob = await openAsBlob(join(dir, name));
    return { name, size: blob.size, slice: (a, b) => blob.slice(a, b), text: () => blob.text(), arrayBuffer: () => blob.arrayBuffer() };
  }));
}

/** Shards: tensors dealt in turn into `count` files, with model.safetensors.index.json. */
export function shardedFiles(tensors, count = 2) {
  const files = {};
  const weightMap = {};
  for (let s = 0; s < count; s++) {
    const name = `model-0000${s + 1}-of-0000${count}.safetensors`;
    const part = tensors.filter((_, i) => i % count === s);
    for (const t of part) weightMap[t.name] = name;
    files[name] = safetensorsBytes(part);
  }
  files['model.safetensors.index.json'] = { metadata: { total_size: tensors.reduce((n, t) => n + t.bytes.length, 0) }, weight_map: weightMap };
  return files;
}
