// A file the reader dropped or picked → the attention layers in it, or a message saying what is
// wrong. Works on any Blob (a File in the page, a Blob in tests): the size is checked before
// anything is read, and a safetensors header is read and checked on its own before the data.
import {
  FileFormatError, safetensorsHeaderLength, parseSafetensorsHeader, readSafetensorsData,
  parseNpz, parseNpy, parseTensorJson, MAX_TENSOR_VALUES,
} from './formats.mjs';
import { findLayers } from './layouts.mjs';
import { parseJson, JsonDepthError } from '../shared/json-depth.mjs';
import { isolate } from '../shared/bidi.mjs';

// Larger files are refused unread: one BERT-base layer's attention is 9.4 MB in F32, a whole
// BERT-base checkpoint 440 MB. Export the layer you want (README: "Bring your own layer").
export const MAX_FILE_BYTES = 256 << 20;

const bytesOf = async (blob, start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer());
const megabytes = (bytes) => `${(bytes / (1 << 20)).toFixed(1)} MB`;

async function readTensors(blob, name) {
  const lower = name.toLowerCase();
  const head = await bytesOf(blob, 0, 8);
  if (lower.endsWith('.npz') || (head[0] === 0x50 && head[1] === 0x4b)) return parseNpz(await bytesOf(blob, 0, blob.size));
  if (lower.endsWith('.npy') || head[0] === 0x93) {
    const tensor = parseNpy(await bytesOf(blob, 0, blob.size), isolate(name));
    return { tensors: new Map([['x', tensor]]), metadata: {} };
  }
  if (lower.endsWith('.json') || head[0] === 0x7b || head[0] === 0x5b) return parseTensorJson(await blob.text());
  // safetensors: the header first, checked against the file's size, then the data
  const length = safetensorsHeaderLength(head, blob.size);
  const parsed = parseSafetensorsHeader(await bytesOf(blob, 8, 8 + length), blob.size);
  return readSafetensorsData(parsed, await bytesOf(blob, 0, blob.size));
}

/**
 * Reads a weights file. Returns { layers, tensors, metadata } (layers as findLayers gives them, and
 * how many tensors the file held), or { problem } naming what is wrong. Nothing is changed either way.
 */
export async function readWeightsFile(blob, fileName = blob.name ?? 'the file') {
  const name = isolate(fileName);  // the reader's file name, set into sentences
  if (blob.size > MAX_FILE_BYTES) {
    return { problem: `${name} is ${megabytes(blob.size)}; the lab reads files up to ${megabytes(MAX_FILE_BYTES)}. Save just the layer you want (see the README).` };
  }
  let read;
  try {
    read = await readTensors(blob, name);
  } catch (error) {
    if (error instanceof FileFormatError) return { problem: `${name}: ${error.message}.` };
    throw error;
  }
  const layers = findLayers(read.tensors, read.metadata);
  if (layers.length === 0) {
    const sample = [...read.tensors.keys()].slice(0, 4).map((n) => `"${isolate(n.slice(0, 60))}"`).join(', ');
    return {
      problem: `${name}: none of its ${read.tensors.size} tensor names is an attention layer the lab knows (${sample}${read.tensors.size > 4 ? ', …' : ''}). ` +
        "It looks for BERT's attention.self.query.weight, GPT-2's attn.c_attn.weight, PyTorch's in_proj_weight, or the lab's own wq, wk, wv.",
    };
  }
  return { layers, tensorCount: read.tensors.size, metadata: read.metadata, tensors: read.tensors };
}

// ---- inputs X

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i;

/**
 * Pasted or loaded inputs: one token per line, "label<TAB or , or space>v1 v2 …" (the label may be
 * left out), or JSON { tokens: [...], x: [[...], ...] }. Returns { tokens, rows } or { problem }.
 */
export function parseInputs(text, dModel) {
  const trimmed = text.trim();
  if (!trimmed) return { problem: 'the inputs are empty: paste one row of numbers per token' };
  let tokens = [];
  let rows = [];
  if (trimmed.startsWith('{')) {
    let data;
    try {
      data = parseJson(trimmed);
    } catch (error) {
      if (error instanceof JsonDepthError) return { problem: `the inputs are JSON, but ${error.message}` };
      return { problem: 'the inputs start with { but are not valid JSON' };
    }
    rows = data.x ?? data.rows;
    if (!Array.isArray(rows) || !rows.every(Array.isArray)) return { problem: 'JSON inputs need "x": a list of rows of numbers' };
    tokens = Array.isArray(data.tokens) ? data.tokens.map(String) : [];
  } else {
    for (const [i, line] of trimmed.split(/\r?\n/).entries()) {
      if (!line.trim()) continue;
      const fields = line.trim().split(/[\t,; ]+/);
      const label = NUMBER.test(fields[0]) ? null : fields.shift();
      tokens.push(label ?? '');
      const row = fields.map(Number);
      const bad = fields.findIndex((f) => !NUMBER.test(f));
      if (bad >= 0) return { problem: `line ${i + 1}: "${isolate(fields[bad].slice(0, 20))}" is not a number` };
      rows.push(row);
    }
  }
  return checkRows(tokens, rows, dModel);
}

/** A loaded (n × d) tensor as inputs, with optional labels. */
export function inputsFromTensor(tensor, dModel, labels = []) {
  if (tensor.shape.length !== 2) return { problem: `the array has shape (${tensor.shape.join(', ')}); inputs are (n tokens × d_model)` };
  const [n, d] = tensor.shape;
  const rows = Array.from({ length: n }, (_, i) => Array.from(tensor.data.subarray(i * d, (i + 1) * d)));
  return checkRows(labels, rows, dModel);
}

function checkRows(tokens, rows, dModel) {
  if (rows.length === 0) return { problem: 'the inputs have no rows' };
  if (rows.length > 64) return { problem: `the inputs have ${rows.length} rows; the lab shows at most 64 tokens` };
  for (const [i, row] of rows.entries()) {
    if (row.length !== dModel) return { problem: `row ${i + 1} has ${row.length} numbers; the layer's d_model is ${dModel}` };
    const bad = row.findIndex((v) => typeof v !== 'number' || !Number.isFinite(v));
    if (bad >= 0) return { problem: `row ${i + 1}, column ${bad + 1} is ${row[bad]}: every input must be a finite number` };
  }
  return { tokens: rows.map((_, i) => safeLabel(tokens[i], i)), rows };
}

// Labels become the lab's tokens, so each must stay one token ("##ing" → "ing", "[CLS]" → "CLS",
// GPT-2's "Ġcat" → "cat": Ġ marks a leading space there).
function safeLabel(label, i) {
  const cleaned = String(label ?? '').normalize('NFC').replace(/^Ġ/, '').replace(/[^\p{L}\p{N}'’]/gu, '').slice(0, 24);
  return /^[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*$/u.test(cleaned) ? cleaned : `t${i + 1}`;
}

export { MAX_TENSOR_VALUES };
