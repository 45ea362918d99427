// Tensor files read and written in plain JavaScript: safetensors (an 8-byte little-endian header
// length, a JSON header naming each tensor's dtype, shape and data_offsets, then raw little-endian
// data), NumPy's .npy and .npz (a zip of .npy files), and JSON. Every reader checks what the file
// claims against what it holds and throws a FileFormatError saying what is wrong; nothing is
// trusted, nothing is read past the end.
//
// A tensor, here: { dtype, shape: number[], data: Float32Array | Float64Array }.

import { own } from '../shared/own.mjs';
import { isolate } from '../shared/bidi.mjs';
import { parseJson, JsonDepthError } from '../shared/json-depth.mjs';
import {
  FileFormatError, MAX_TENSOR_VALUES, DTYPE_BYTES, FLOAT_DTYPES, decodeFloats, product, isShape, safetensorsHeaderLength, parseSafetensorsHeader,
} from '../shared/safetensors.mjs';

export { FileFormatError, MAX_TENSOR_VALUES, MAX_HEADER_BYTES, decodeFloats, safetensorsHeaderLength, parseSafetensorsHeader } from '../shared/safetensors.mjs';

const fail = (message) => { throw new FileFormatError(message); };

/** Reads the tensors out of the whole file's bytes (after the header was checked). Non-float dtypes are refused. */
export function readSafetensorsData(parsed, bytes) {
  const tensors = new Map();
  for (const e of parsed.entries) {
    if (!FLOAT_DTYPES.includes(e.dtype)) fail(`tensor "${isolate(e.name.slice(0, 80))}" has dtype ${e.dtype}; the lab reads ${FLOAT_DTYPES.join(', ')}`);
    const slice = bytes.subarray(parsed.dataStart + e.begin, parsed.dataStart + e.end);
    tensors.set(e.name, { dtype: e.dtype, shape: e.shape, data: decodeFloats(e.dtype, slice, product(e.shape)) });
  }
  return { tensors, metadata: parsed.metadata };
}

/** A whole safetensors file in memory → { tensors: Map, metadata }. */
export function parseSafetensors(bytes) {
  const length = safetensorsHeaderLength(bytes.subarray(0, 8), bytes.byteLength);
  return readSafetensorsData(parseSafetensorsHeader(bytes.subarray(8, 8 + length), bytes.byteLength), bytes);
}

/**
 * Writes tensors { name: { shape, data } } as safetensors, F32 (or F64 for Float64Array data).
 * As PyTorch's loader requires: the header padded with spaces to a multiple of 8 bytes,
 * __metadata__ strings only, data_offsets contiguous in the header's order.
 */
export function writeSafetensors(tensors, metadata = {}) {
  const header = {};
  if (Object.keys(metadata).length) header.__metadata__ = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)]));
  let offset = 0;
  const parts = [];
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    const f64 = data instanceof Float64Array;
    const bytes = new Uint8Array(data.length * (f64 ? 8 : 4));
    const view = new DataView(bytes.buffer);
    data.forEach((value, i) => (f64 ? view.setFloat64(8 * i, value, true) : view.setFloat32(4 * i, value, true)));
    header[name] = { dtype: f64 ? 'F64' : 'F32', shape, data_offsets: [offset, offset + bytes.length] };
    offset += bytes.length;
    parts.push(bytes);
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  const headerBytes = new Uint8Array(padded).fill(0x20);
  headerBytes.set(json);
  const out = new Uint8Array(8 + padded + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.set(headerBytes, 8);
  let at = 8 + padded;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// ---- NumPy

const NPY_DTYPES = { '<f4': 'F32', '<f8': 'F64', '<f2': 'F16', '|f4': 'F32' };

/** One .npy file → tensor. C order and little-endian floats only; everything else is named and refused. */
export function parseNpy(bytes, name = 'the array') {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.byteLength < 10 || !magic.every((b, i) => bytes[i] === b)) fail(`${name} is not a .npy file (it does not start with \\x93NUMPY)`);
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLength > bytes.byteLength) fail(`${name}: the header claims ${headerLength} bytes, more than the file holds: it is truncated`);
  const text = new TextDecoder().decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']*)'/.exec(text)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(text)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) fail(`${name}: the header does not give descr, fortran_order and shape`);
  const dtype = own(NPY_DTYPES, descr);
  if (dtype === undefined) fail(`${name} has dtype ${JSON.stringify(descr.slice(0, 40))}; the lab reads little-endian floats (<f2, <f4, <f8)`);
  if (fortran === 'True') fail(`${name} is stored in Fortran order; save it with np.ascontiguousarray first`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (!isShape(shape)) fail(`${name} has shape (${shapeText.slice(0, 80)}), not whole numbers from 0 to ${MAX_TENSOR_VALUES.toLocaleString('en')}`);
  const count = product(shape);
  if (count > MAX_TENSOR_VALUES) fail(`${name} has ${count.toLocaleString('en')} values; the lab takes at most ${MAX_TENSOR_VALUES.toLocaleString('en')}`);
  const need = count * DTYPE_BYTES[dtype];
  const data = bytes.subarray(start + headerLength);
  if (data.byteLength !== need) fail(`${name} has shape (${shape.join(', ')}) of ${descr}: ${need} bytes of data expected, ${data.byteLength} found`);
  return { dtype, shape, data: decodeFloats(dtype, data, count) };
}

// What an .npz may inflate to, all entries together: the size of the largest file the lab reads
// (a zip bomb of 1 MB that inflates to 1 GiB is refused, unread, or stopped at this point).
export const MAX_INFLATED_BYTES = 256 << 20;

/**
 * A raw deflate stream inflated by the browser's own DecompressionStream, read chunk by chunk (each
 * read a turn of its own, so the page keeps its timers and input), counting what comes out: it stops
 * the moment the output passes `declared` bytes (the entry's size in the zip directory, already
 * checked against the limit), so no more than that is ever held. Returns the bytes.
 */
async function inflateBounded(raw, declared, name) {
  const out = new Uint8Array(declared);
  let total = 0;
  const reader = new Blob([raw]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch {
      fail(`the zip entry "${name}" could not be decompressed: the file is damaged`);
    }
    if (chunk.done) break;
    if (total + chunk.value.length > declared) {
      reader.cancel().catch(() => {});
      fail(`the zip entry "${name}" inflates to more than the ${declared.toLocaleString('en')} bytes its directory declares: the file is damaged, or a zip bomb`);
    }
    out.set(chunk.value, total);
    total += chunk.value.length;
  }
  return total === declared ? out : out.subarray(0, total);
}

// The zip's directory: each entry's name, method, sizes and where its data lies, checked before any
// is read: within the file, stored or deflated, no two sharing bytes, declared sizes within the limit.
function zipDirectory(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.byteLength - 22; i >= Math.max(0, bytes.byteLength - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) { end = i; break; }
  }
  if (end < 0) fail('the .npz is not a zip archive (no end-of-directory record): it is truncated or another kind of file');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries = [];
  let declaredTotal = 0;
  for (let k = 0; k < count; k++) {
    if (at + 46 > bytes.byteLength || view.getUint32(at, true) !== 0x02014b50) fail('the zip directory is damaged');
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const label = isolate(name.slice(0, 80));
    if (compressed === 0xffffffff || size === 0xffffffff) fail(`"${label}" is a zip64 entry (over 4 GB); the lab does not read those`);
    if (size > MAX_TENSOR_VALUES * 8 + 4096) fail(`"${label}" claims ${size.toLocaleString('en')} bytes uncompressed; the lab takes at most ${MAX_TENSOR_VALUES.toLocaleString('en')} values per array`);
    declaredTotal += size;
    if (declaredTotal > MAX_INFLATED_BYTES) {
      fail(`its entries declare ${declaredTotal.toLocaleString('en')} bytes uncompressed up to "${label}"; the lab inflates at most ${MAX_INFLATED_BYTES.toLocaleString('en')} bytes from one .npz`);
    }
    if (method !== 0 && method !== 8) fail(`the zip entry "${label}" uses compression method ${method}; the lab reads stored and deflated entries`);
    if (local + 30 > bytes.byteLength || view.getUint32(local, true) !== 0x04034b50) fail(`the zip entry "${label}" points outside the file`);
    const dataStart = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (dataStart + compressed > bytes.byteLength) fail(`the zip entry "${label}" runs past the end of the file: it is truncated`);
    entries.push({ name, label, method, size, begin: local, end: dataStart + compressed, dataStart, compressed });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  const ordered = [...entries].sort((a, b) => a.begin - b.begin);
  ordered.forEach((e, i) => {
    if (i > 0 && e.begin < ordered[i - 1].end) fail(`the zip entries "${ordered[i - 1].label}" and "${e.label}" share their data: the file is damaged, or a zip bomb`);
  });
  return entries;
}

/** The entries of a zip (stored or deflated), read from its central directory: Map name → bytes. */
export async function readZip(bytes) {
  const files = new Map();
  for (const { name, label, method, size, dataStart, compressed } of zipDirectory(bytes)) {
    const raw = bytes.subarray(dataStart, dataStart + compressed);
    const data = method === 0 ? raw : await inflateBounded(raw, size, label);
    if (data.byteLength !== size) fail(`the zip entry "${label}" holds ${data.byteLength} bytes where its directory says ${size}`);
    files.set(name, data);
  }
  return files;
}

/** An .npz → Map name → tensor (names without ".npy"). */
export async function parseNpz(bytes) {
  const tensors = new Map();
  for (const [file, data] of await readZip(bytes)) {
    const name = file.replace(/\.npy$/, '');
    tensors.set(name, parseNpy(data, `"${isolate(name.slice(0, 80))}"`));
  }
  return { tensors, metadata: {} };
}

// ---- JSON

function nestedShape(value, at) {
  if (typeof value === 'number' || value === null) return [];
  if (!Array.isArray(value)) fail(`${at} holds ${typeof value}; expected numbers or arrays of numbers`);
  const inner = value.length ? nestedShape(value[0], at) : [];
  return [value.length, ...inner];
}

function toTensor(value, at) {
  let shape;
  let flat;
  if (value && typeof value === 'object' && !Array.isArray(value) && 'data' in value) {
    shape = value.shape ?? [value.data.length];
    flat = Array.isArray(value.data) ? value.data.flat(Infinity) : fail(`${at}.data is not an array`);
  } else {
    shape = nestedShape(value, at);
    flat = [value].flat(Infinity);
  }
  if (!isShape(shape)) fail(`${at} has shape ${JSON.stringify(shape)?.slice(0, 80)}; a shape is a list of whole numbers from 0 to ${MAX_TENSOR_VALUES.toLocaleString('en')}`);
  if (product(shape) > MAX_TENSOR_VALUES) fail(`${at} has more than ${MAX_TENSOR_VALUES.toLocaleString('en')} values`);
  if (flat.length !== product(shape)) fail(`${at} has ${flat.length} values; its shape ${JSON.stringify(shape)} needs ${product(shape)} (ragged arrays are not tensors)`);
  const data = new Float64Array(flat.length);
  flat.forEach((v, i) => { data[i] = typeof v === 'number' ? v : v === null ? NaN : fail(`${at}[${i}] is ${JSON.stringify(v)}, not a number`); });
  return { dtype: 'F64', shape, data };
}

/**
 * JSON: { name: nested arrays } or { name: { shape, data } }, optionally under "tensors", with
 * "__metadata__" strings. (null stands for NaN, which JSON cannot spell, so it is caught as NaN.)
 */
export function parseTensorJson(text) {
  let value;
  try {
    value = parseJson(text);
  } catch (e) {
    if (e instanceof JsonDepthError) fail(`the file is JSON, but ${e.message}`);
    fail(`the file is not valid JSON (${String(e.message).slice(0, 80)})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('the JSON is not an object of named tensors');
  const source = value.tensors && typeof value.tensors === 'object' ? value.tensors : value;
  const metadata = value.__metadata__ && typeof value.__metadata__ === 'object' ? value.__metadata__ : {};
  const tensors = new Map();
  for (const [name, tensor] of Object.entries(source)) {
    if (name === '__metadata__' || name === 'format') continue;
    tensors.set(name, toTensor(tensor, `"${isolate(name.slice(0, 80))}"`));
  }
  return { tensors, metadata };
}

/** Tensors { name: { shape, data } } as the lab's JSON (readable by parseTensorJson). */
export function writeTensorJson(tensors, metadata = {}) {
  const out = { format: 'attention-lab-weights', __metadata__: metadata, tensors: {} };
  for (const [name, { shape, data }] of Object.entries(tensors)) out.tensors[name] = { shape, data: Array.from(data) };
  return JSON.stringify(out);
}
