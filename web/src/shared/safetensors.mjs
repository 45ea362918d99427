// safetensors headers read and checked, and its float dtypes decoded, in plain JavaScript: an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype, shape and data_offsets, then
// raw little-endian data. Shared by "Bring your own layer" (web/src/layers/formats.mjs, whole files)
// and "Real models" (web/src/models/, tensor by tensor through Blob.slice). Nothing is trusted: every
// claim is checked against the file's size and a FileFormatError says what is wrong.

import { own } from './own.mjs';
import { isolate } from './bidi.mjs';
import { parseJson, JsonDepthError } from './json-depth.mjs';

/** A file that is not the safetensors it claims: `message` in English; `said`, when set, the reader's { key, values } (i18n). */
export class FileFormatError extends Error {
  constructor(message, said = null) {
    super(message);
    this.name = 'FileFormatError';
    this.said = said;
  }
}
const fail = (message, said = null) => { throw new FileFormatError(message, said); };

// A tensor larger than this is refused, whatever the file's size: 2²⁴ values, the engine's own cap.
export const MAX_TENSOR_VALUES = 1 << 24;
// A whole model's tensors (the Real models loader) may be larger, up to the engine's token-table cap:
// 2²⁷ values (kMaxTableValues in core/include/attention/transformer.hpp; GPT-2 small's 50,257 × 768 fits).
export const MAX_TABLE_VALUES = 2 ** 27;
// A safetensors header above this is refused before it is read (real ones are a few hundred KB).
export const MAX_HEADER_BYTES = 16 << 20;

export const DTYPE_BYTES = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1, U16: 2, U32: 4, U64: 8, F8_E4M3: 1, F8_E5M2: 1 };
export const FLOAT_DTYPES = ['F64', 'F32', 'F16', 'BF16'];

function float16(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** Little-endian values of a float dtype as Float32Array (F64 as Float64Array: nothing is lost). */
export function decodeFloats(dtype, bytes, count) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dtype === 'F64') return Float64Array.from({ length: count }, (_, i) => view.getFloat64(8 * i, true));
  const out = new Float32Array(count);
  if (dtype === 'F32') for (let i = 0; i < count; i++) out[i] = view.getFloat32(4 * i, true);
  else if (dtype === 'F16') for (let i = 0; i < count; i++) out[i] = float16(view.getUint16(2 * i, true));
  else if (dtype === 'BF16') {
    const word = new DataView(new ArrayBuffer(4));
    for (let i = 0; i < count; i++) {
      word.setUint32(0, view.getUint16(2 * i, true) << 16);  // bfloat16 is the top half of a float32
      out[i] = word.getFloat32(0);
    }
  }
  return out;
}

export const product = (shape) => shape.reduce((a, b) => a * b, 1);
// A shape: whole numbers, none above what one tensor may hold (so [2⁵³−1, 0], 0 values, is refused too:
// its width would become the lab's d_model).
export const isShape = (shape) => Array.isArray(shape) && shape.every((s) => Number.isSafeInteger(s) && s >= 0 && s <= MAX_TENSOR_VALUES);

// ---- safetensors

/** The header's length from the file's first 8 bytes; checked against the file's size. */
export function safetensorsHeaderLength(first8, fileSize) {
  if (fileSize < 8 || first8.byteLength < 8) fail(`the file has ${fileSize} bytes; a safetensors file starts with 8 bytes giving its header's length`);
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const length = Number(view.getBigUint64(0, true));
  if (length < 2) fail(`the header length is ${length} bytes; a safetensors header is a JSON object`);
  if (length > MAX_HEADER_BYTES) fail(`the header claims ${length.toLocaleString('en')} bytes; the lab reads headers up to ${MAX_HEADER_BYTES.toLocaleString('en')} bytes (is this a safetensors file?)`);
  if (8 + length > fileSize) fail(`the header claims ${length} bytes but the file has only ${fileSize - 8} after the first 8: the file is truncated`, { key: 'models.error.headerCut', values: { claimed: length, left: fileSize - 8 } });
  return length;
}

/**
 * The header's entries, each checked: a known dtype, a shape of whole numbers, data_offsets within
 * the data and matching shape × dtype size, tensors contiguous and covering all the data (as the
 * format requires). Returns { entries: [{ name, dtype, shape, begin, end }], metadata, dataStart }.
 */
// The header's JSON, refused when it is not an object (or nests too deeply).
function headerJson(headerBytes) {
  let header;
  try {
    header = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (error) {
    if (error instanceof JsonDepthError) fail(`the header is JSON, but ${error.message}`);
    fail('the header is not valid JSON: this is not a safetensors file, or it is damaged', { key: 'models.error.headerJson', values: {} });
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) fail('the header is not a JSON object');
  const metadata = header.__metadata__ ?? {};
  if (typeof metadata !== 'object' || Array.isArray(metadata) || Object.values(metadata).some((v) => typeof v !== 'string')) {
    fail('__metadata__ must map strings to strings');
  }
  return { header, metadata };
}

// One tensor's entry, every field checked against what safetensors defines and the data the file holds.
function tensorEntry(name, info, dataBytes, maxValues) {
  const at = `tensor "${isolate(name.slice(0, 80))}"`;
  if (info === null || typeof info !== 'object') fail(`${at} has no dtype, shape and data_offsets`);
  const { dtype, shape, data_offsets: offsets } = info;
  const bytesPerValue = own(DTYPE_BYTES, dtype);
  if (typeof dtype !== 'string' || bytesPerValue === undefined) fail(`${at} has dtype ${JSON.stringify(dtype)?.slice(0, 40)}, which safetensors does not define`);
  if (!isShape(shape)) fail(`${at} has shape ${JSON.stringify(shape)?.slice(0, 80)}; a shape is a list of whole numbers from 0 to ${MAX_TENSOR_VALUES.toLocaleString('en')}`);
  const count = product(shape);
  if (count > maxValues) fail(`${at} claims ${count.toLocaleString('en')} values (shape ${JSON.stringify(shape)}); the lab takes at most ${maxValues.toLocaleString('en')} per tensor`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) || offsets[1] < offsets[0]) {
    fail(`${at} has data_offsets ${JSON.stringify(offsets)}; expected [begin, end] with begin ≤ end`);
  }
  const [begin, end] = offsets;
  if (end > dataBytes) {
    fail(`${at} ends at byte ${end} of the data, but the file holds only ${dataBytes} bytes of data: the file is truncated, or its header lies`,
      { key: 'models.error.headerPast', values: { tensor: name.slice(0, 80), end, data: dataBytes } });
  }
  if (end - begin !== count * bytesPerValue) {
    fail(`${at} has shape ${JSON.stringify(shape)} of ${dtype} (${count * bytesPerValue} bytes) but data_offsets span ${end - begin} bytes`,
      { key: 'models.error.headerSpan', values: { tensor: name.slice(0, 80), shape: `[${shape.join(', ')}]`, bytes: count * bytesPerValue, span: end - begin } });
  }
  return { name, dtype, shape, begin, end };
}

// The tensors tile the data exactly: no overlap, no gap, nothing left over.
function checkTiling(entries, dataBytes) {
  const ordered = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let next = 0;
  for (const e of ordered) {
    if (e.begin !== next) fail(`tensor "${isolate(e.name.slice(0, 80))}" starts at byte ${e.begin} of the data where ${next} was expected: tensors overlap or leave a gap, so the offsets cannot be trusted`);
    next = e.end;
  }
  if (next !== dataBytes) fail(`the tensors cover ${next} bytes of data but the file holds ${dataBytes}: the offsets and the file do not agree`);
}

// `maxValues`: the most one tensor may hold (MAX_TENSOR_VALUES; the Real models loader: MAX_TABLE_VALUES).
export function parseSafetensorsHeader(headerBytes, fileSize, maxValues = MAX_TENSOR_VALUES) {
  const { header, metadata } = headerJson(headerBytes);
  const dataStart = 8 + headerBytes.byteLength;
  const dataBytes = fileSize - dataStart;
  const entries = Object.entries(header).filter(([name]) => name !== '__metadata__').map(([name, info]) => tensorEntry(name, info, dataBytes, maxValues));
  checkTiling(entries, dataBytes);
  return { entries, metadata, dataStart };
}

