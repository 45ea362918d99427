// Bring your own layer: safetensors files written here by the test's own writer, in the layouts of
// Hugging Face BERT and GPT-2, load into the right heads, and the lab's output equals a float64
// reference computed here from the same tensors (as PyTorch computes it), biases included. The lab's
// own export reads back bit for bit. Every bad file gets a message and changes nothing; a good load
// follows each.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../../../dist/lib/attention.node.mjs';
import { createEngineApi } from '../../../../web/src/engine/api.mjs';
import { defaultState, buildRequest } from '../../../../web/src/state/index.mjs';
import { readWeightsFile, parseInputs, MAX_FILE_BYTES } from '../../../../web/src/layers/load.mjs';
import { convertLayer } from '../../../../web/src/layers/layouts.mjs';
import { stateWithLayer, saveSafetensors, saveJson } from '../../../../web/src/layers/apply.mjs';
import { parseSafetensors, parseTensorJson, parseNpz, decodeFloats, writeSafetensors } from '../../../../web/src/layers/formats.mjs';

// ---- the test's own safetensors writer (independent of formats.mjs), and a seeded generator

function safetensors(tensors, { dtype = 'F32', metadata = null, pad = true, lie = null } = {}) {
  const size = { F32: 4, F64: 8, F16: 2, BF16: 2 }[dtype];
  const header = metadata ? { __metadata__: metadata } : {};
  let offset = 0;
  const chunks = [];
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    const buffer = Buffer.alloc(data.length * size);
    data.forEach((v, i) => {
      if (dtype === 'F32') buffer.writeFloatLE(v, 4 * i);
      else if (dtype === 'F64') buffer.writeDoubleLE(v, 8 * i);
      else if (dtype === 'BF16') { const f = Buffer.alloc(4); f.writeFloatLE(v); buffer.writeUInt16LE(f.readUInt16LE(2), 2 * i); }
      else buffer.writeUInt16LE(toHalf(v), 2 * i);
    });
    header[name] = { dtype, shape, data_offsets: [offset, offset + buffer.length] };
    offset += buffer.length;
    chunks.push(buffer);
  }
  lie?.(header);
  let json = Buffer.from(JSON.stringify(header));
  if (pad) json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return new Uint8Array(Buffer.concat([length, json, ...chunks]));
}

// float → IEEE half, round to nearest even (for values well inside half's range)
function toHalf(v) {
  const f = Buffer.alloc(4); f.writeFloatLE(v); const bits = f.readUInt32LE();
  const sign = (bits >>> 16) & 0x8000, exp = ((bits >>> 23) & 0xff) - 127 + 15, mant = bits & 0x7fffff;
  if (exp <= 0) return sign;
  let half = sign | (exp << 10) | (mant >> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half++;
  return half;
}

function random(seed) {
  let s = seed >>> 0;
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1; };
}
const draw = (next, n, scale = 0.5) => Array.from({ length: n }, () => Math.fround(next() * scale));

// ---- the float64 reference: PyTorch's conventions, straight from the stored tensors

// Linear: y = x·Wᵀ + b with W (out, in); Conv1D: y = x·W + b with W (in, out)
function linear(x, n, W, out, inp, b, conv1d) {
  const y = new Float64Array(n * out);
  for (let i = 0; i < n; i++)
    for (let o = 0; o < out; o++) {
      let s = b ? b[o] : 0;
      for (let k = 0; k < inp; k++) s += x[i * inp + k] * (conv1d ? W[k * out + o] : W[o * inp + k]);
      y[i * out + o] = s;
    }
  return y;
}

function referenceAttention(q, k, v, n, width, heads, causal) {
  const d = width / heads;
  const z = new Float64Array(n * width);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < n; i++) {
      const scores = [];
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let c = 0; c < d; c++) s += q[i * width + h * d + c] * k[j * width + h * d + c];
        scores.push(causal && j > i ? -Infinity : s / Math.sqrt(d));
      }
      const top = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - top));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let j = 0; j < n; j++) for (let c = 0; c < d; c++) z[i * width + h * d + c] += (e[j] / sum) * v[j * width + h * d + c];
    }
  return z;
}

function bertReference(t, x, n, dModel, heads, prefix) {
  const get = (name) => t[prefix + name].data;
  const q = linear(x, n, get('attention.self.query.weight'), dModel, dModel, get('attention.self.query.bias'));
  const k = linear(x, n, get('attention.self.key.weight'), dModel, dModel, get('attention.self.key.bias'));
  const v = linear(x, n, get('attention.self.value.weight'), dModel, dModel, get('attention.self.value.bias'));
  const z = referenceAttention(q, k, v, n, dModel, heads, false);
  return linear(z, n, get('attention.output.dense.weight'), dModel, dModel, get('attention.output.dense.bias'));
}

function gpt2Reference(t, x, n, dModel, heads, prefix) {
  const qkv = linear(x, n, t[prefix + 'attn.c_attn.weight'].data, 3 * dModel, dModel, t[prefix + 'attn.c_attn.bias'].data, true);
  const part = (p) => Float64Array.from({ length: n * dModel }, (_, idx) => qkv[Math.floor(idx / dModel) * 3 * dModel + p * dModel + (idx % dModel)]);
  const z = referenceAttention(part(0), part(1), part(2), n, dModel, heads, true);
  return linear(z, n, t[prefix + 'attn.c_proj.weight'].data, dModel, dModel, t[prefix + 'attn.c_proj.bias'].data, true);
}

function bertLayer(next, dModel, prefix) {
  const t = {};
  for (const part of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']) {
    t[`${prefix}${part}.weight`] = { shape: [dModel, dModel], data: draw(next, dModel * dModel) };
    t[`${prefix}${part}.bias`] = { shape: [dModel], data: draw(next, dModel, 0.3) };
  }
  t[`${prefix}attention.output.LayerNorm.weight`] = { shape: [dModel], data: draw(next, dModel) };
  return t;
}

function gpt2Layer(next, dModel, prefix) {
  return {
    [`${prefix}attn.c_attn.weight`]: { shape: [dModel, 3 * dModel], data: draw(next, 3 * dModel * dModel) },
    [`${prefix}attn.c_attn.bias`]: { shape: [3 * dModel], data: draw(next, 3 * dModel, 0.3) },
    [`${prefix}attn.c_proj.weight`]: { shape: [dModel, dModel], data: draw(next, dModel * dModel) },
    [`${prefix}attn.c_proj.bias`]: { shape: [dModel], data: draw(next, dModel, 0.3) },
    [`${prefix}mlp.c_fc.weight`]: { shape: [dModel, 4 * dModel], data: draw(next, 4 * dModel * dModel) },
  };
}

const blob = (bytes) => new Blob([bytes]);

let api;
before(async () => {
  api = createEngineApi(loadAttention);
  await api.load();
});

async function labOutput(file, name, { layerLabel, heads, inputs }) {
  const read = await readWeightsFile(blob(file), name);
  assert.equal(read.problem, undefined, read.problem);
  const layer = read.layers.find((l) => l.label === layerLabel);
  assert.ok(layer, `layer ${layerLabel} among ${read.layers.map((l) => l.label)}`);
  const { params, problem } = convertLayer(layer, heads);
  assert.equal(problem, undefined);
  const state = stateWithLayer(defaultState(), params, inputs);
  const built = buildRequest(state);
  assert.equal(built.problems, undefined, JSON.stringify(built.problems));
  const reply = api.run(built.request);
  assert.equal(reply.error, undefined, JSON.stringify(reply.error));
  return { read, layer, state, reply };
}

function assertClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const tolerance = Math.max(1e-4, 1e-4 * Math.abs(expected[i]));
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `${what}[${i}] = ${actual[i]}, float64 reference ${expected[i]}`);
  }
}

describe('bring your own layer: safetensors in the layouts of BERT and GPT-2', () => {
  layoutAndFormatTests();
  ownExportTests();
});

// BERT and GPT-2 files against the float64 reference; the writer and F16 against known bytes
function layoutAndFormatTests() {
  it('a BERT file with two layers: the chosen layer, 2 heads, biases and W_O, equals the float64 reference', async () => {
    const next = random(5);
    const dModel = 8, heads = 2, n = 5;
    const tensors = { ...bertLayer(next, dModel, 'bert.encoder.layer.0.'), ...bertLayer(next, dModel, 'bert.encoder.layer.1.') };
    const file = safetensors(tensors, { metadata: { format: 'pt' } });
    const rows = Array.from({ length: n }, () => draw(next, dModel, 1));
    const inputs = parseInputs(rows.map((r, i) => `tok${i} ${r.join(' ')}`).join('\n'), dModel);
    const { read, layer, state, reply } = await labOutput(file, 'bert.safetensors', { layerLabel: 'bert.encoder.layer.1', heads, inputs });
    assert.equal(read.layers.length, 2);
    assert.equal(layer.kind, 'bert');
    assert.equal(layer.headsInferred, false, 'the file does not say how many heads: the page asks');
    assert.deepEqual(layer.names.length, 8);
    assert.equal(state.maskMode, 'none');
    const expected = bertReference(tensors, rows.flat(), n, dModel, heads, 'bert.encoder.layer.1.');
    assertClose(reply.result.output, expected, 'output');
    // the heads hold the right slices: head 1's q is columns 4..7 of x·Wqᵀ + bq
    const q = linear(rows.flat(), n, tensors['bert.encoder.layer.1.attention.self.query.weight'].data, dModel, dModel, tensors['bert.encoder.layer.1.attention.self.query.bias'].data);
    assertClose(reply.result.heads[1].q, Array.from({ length: n * 4 }, (_, i) => q[Math.floor(i / 4) * dModel + 4 + (i % 4)]), 'head 2 q');
  });

  it('a GPT-2 file (fused q|k|v, Conv1D layout, causal): equals the float64 reference; F16 and BF16 read too', async () => {
    const next = random(9);
    const dModel = 6, heads = 3, n = 4;
    const tensors = gpt2Layer(next, dModel, 'h.0.');
    const rows = Array.from({ length: n }, () => draw(next, dModel, 1));
    const inputs = parseInputs(JSON.stringify({ tokens: ['The', 'Ġcat', 'sat', '.'], x: rows }), dModel);
    assert.deepEqual(inputs.tokens, ['The', 'cat', 'sat', 't4']);
    const { layer, state, reply } = await labOutput(safetensors(tensors), 'gpt2.safetensors', { layerLabel: 'h.0', heads, inputs });
    assert.equal(layer.kind, 'gpt2');
    assert.equal(state.maskMode, 'causal');
    assertClose(reply.result.output, gpt2Reference(tensors, rows.flat(), n, dModel, heads, 'h.0.'), 'output');
    for (const dtype of ['F16', 'BF16', 'F64']) {
      // the reference from the values as stored in that dtype
      const stored = Object.fromEntries(Object.entries(tensors).map(([name, t]) => {
        const one = safetensors({ t }, { dtype });
        return [name, { shape: t.shape, data: Array.from(parseSafetensors(one).tensors.get('t').data) }];
      }));
      const again = await labOutput(safetensors(tensors, { dtype }), `gpt2-${dtype}.safetensors`, { layerLabel: 'h.0', heads, inputs });
      assertClose(again.reply.result.output, gpt2Reference(stored, rows.flat(), n, dModel, heads, 'h.0.'), `${dtype} output`);
      const drift = Math.max(...stored['h.0.attn.c_attn.weight'].data.map((v, i) => Math.abs(v - tensors['h.0.attn.c_attn.weight'].data[i])));
      assert.ok(dtype === 'F64' ? drift === 0 : drift > 0 && drift < 1e-2, `${dtype} rounding ${drift}`);
    }
  });

  it("the writer's bytes equal the safetensors reference implementation's own test vectors (huggingface/safetensors, tensor.rs)", () => {
    // test_serialization: "attn.0", F32, shape [1, 2, 3], values 0…5, no metadata
    assert.deepEqual(Array.from(writeSafetensors({ 'attn.0': { shape: [1, 2, 3], data: Float32Array.of(0, 1, 2, 3, 4, 5) } })), [
      64, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 46, 48, 34, 58, 123, 34, 100,
      116, 121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34,
      58, 91, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102, 115,
      101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 0, 0, 0, 0, 0, 0, 128, 63,
      0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64]);
    // test_serialization_forced_alignement: "attn0", shape [1, 1, 2, 3]: the header padded with spaces
    assert.deepEqual(Array.from(writeSafetensors({ attn0: { shape: [1, 1, 2, 3], data: Float32Array.of(0, 1, 2, 3, 4, 5) } })), [
      72, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 48, 34, 58, 123, 34, 100, 116,
      121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58,
      91, 49, 44, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102,
      115, 101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 32, 32, 32, 32, 32,
      32, 32, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0,
      160, 64]);
    // test_empty, with metadata { framework: "pt" }
    assert.deepEqual(Array.from(writeSafetensors({}, { framework: 'pt' })), [
      40, 0, 0, 0, 0, 0, 0, 0, 123, 34, 95, 95, 109, 101, 116, 97, 100, 97, 116, 97, 95,
      95, 34, 58, 123, 34, 102, 114, 97, 109, 101, 119, 111, 114, 107, 34, 58, 34, 112,
      116, 34, 125, 125, 32, 32, 32, 32, 32]);
  });

  it("F16 decoding against known bit patterns", () => {
    const bits = new Uint8Array(new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0x3555]).buffer);
    assert.deepEqual(Array.from(decodeFloats('F16', bits, 6)), [1, -2, 65504, 2 ** -24, Infinity, Math.fround(0.333251953125)]);
  });
}

// the lab's own export read back, and .npz files
function ownExportTests() {
  it("the lab's own export reads back bit for bit, as safetensors and as JSON, and PyTorch's rules hold", async () => {
    const next = random(3);
    const dModel = 6, heads = 2, d = 3;
    const params = {
      dModel, heads, dK: d, dV: d,
      wq: Float32Array.from(draw(next, heads * dModel * d)), wk: Float32Array.from(draw(next, heads * dModel * d)), wv: Float32Array.from(draw(next, heads * dModel * d)),
      wo: Float32Array.from(draw(next, heads * d * dModel)), bq: Float32Array.from(draw(next, heads * d)), bk: Float32Array.from(draw(next, heads * d)),
      bv: Float32Array.from(draw(next, heads * d)), bo: Float32Array.from(draw(next, dModel)),
    };
    const state = stateWithLayer(defaultState(), params);
    const reply = api.run(buildRequest(state).request);
    const view = { dModel, heads, dK: d, dV: d, weights: reply.weights };
    const bytes = saveSafetensors(view, state);
    // the format's rules as PyTorch's loader checks them
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    assert.equal(headerLength % 8, 0);
    const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + headerLength)).toString());
    assert.ok(Object.values(header.__metadata__).every((v) => typeof v === 'string'));
    let end = 0;
    for (const [name, e] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      assert.equal(e.data_offsets[0], end, `${name} starts where the last ended`);
      end = e.data_offsets[1];
    }
    assert.equal(8 + headerLength + end, bytes.length);
    for (const [which, text] of [['safetensors', null], ['json', saveJson(view, state)]]) {
      const read = which === 'json' ? await readWeightsFile(blob(new TextEncoder().encode(text)), 'lab.json') : await readWeightsFile(blob(bytes), 'lab.safetensors');
      assert.equal(read.layers[0].kind, 'lab');
      assert.equal(read.layers[0].headsInferred, true);
      const back = convertLayer(read.layers[0], read.layers[0].heads).params;
      for (const name of ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) {
        assert.deepEqual(new Uint32Array(back[name].buffer), new Uint32Array(params[name].buffer), `${which}: ${name} bit for bit`);
      }
    }
  });

  it('an .npz of the lab names (stored and deflated entries) loads', async () => {
    const { deflateRawSync } = await import('node:zlib');
    const npy = (shape, values) => {
      let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
      header = header.padEnd(Math.ceil((header.length + 11) / 64) * 64 - 11, ' ') + '\n';
      const head = Buffer.alloc(10);
      Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(head);
      head.writeUInt16LE(header.length, 8);
      return Buffer.concat([head, Buffer.from(header), Buffer.from(Float32Array.from(values).buffer)]);
    };
    const entries = [['wq.npy', npy([1, 2, 2], [1, 0, 0, 1]), 0], ['wk.npy', npy([1, 2, 2], [2, 0, 0, 2]), 8], ['wv.npy', npy([1, 2, 2], [1, 2, 3, 4]), 8]];
    const local = [];
    const central = [];
    let offset = 0;
    for (const [name, data, method] of entries) {
      const body = method ? deflateRawSync(data) : data;
      const nameBytes = Buffer.from(name);
      const l = Buffer.alloc(30); l.writeUInt32LE(0x04034b50, 0); l.writeUInt16LE(method, 8); l.writeUInt32LE(body.length, 18); l.writeUInt32LE(data.length, 22); l.writeUInt16LE(nameBytes.length, 26);
      const c = Buffer.alloc(46); c.writeUInt32LE(0x02014b50, 0); c.writeUInt16LE(method, 10); c.writeUInt32LE(body.length, 20); c.writeUInt32LE(data.length, 24); c.writeUInt16LE(nameBytes.length, 28); c.writeUInt32LE(offset, 42);
      local.push(l, nameBytes, body);
      central.push(c, nameBytes);
      offset += 30 + nameBytes.length + body.length;
    }
    const dir = Buffer.concat(central);
    const end = Buffer.alloc(22); end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10); end.writeUInt32LE(dir.length, 12); end.writeUInt32LE(offset, 16);
    const zip = new Uint8Array(Buffer.concat([...local, dir, end]));
    const read = await readWeightsFile(blob(zip), 'layer.npz');
    assert.equal(read.problem, undefined, read.problem);
    const { params } = convertLayer(read.layers[0], 1);
    assert.deepEqual(Array.from(params.wv), [1, 2, 3, 4]);
    assert.deepEqual(Array.from(params.wk), [2, 0, 0, 2]);
    // a truncated zip is refused
    const cut = await readWeightsFile(blob(zip.subarray(0, zip.length - 30)), 'cut.npz');
    assert.match(cut.problem, /cut\.npz: .*(zip|truncated|damaged)/);
  });
}

describe('bad files: a message saying what is wrong, then a good load works', () => {
  const next = random(11);
  const good = bertLayer(next, 4, 'encoder.layer.0.');
  const goodFile = safetensors(good);
  const cases = [
    ['truncated', goodFile.subarray(0, goodFile.length - 10), /truncated|file holds/],
    ['truncated inside the header', goodFile.subarray(0, 40), /truncated/],
    ['shorter than 8 bytes', goodFile.subarray(0, 5), /8 bytes/],
    ['a header that is not JSON', (() => { const f = goodFile.slice(); f[9] = 0x21; return f; })(), /not valid JSON/],
    ['offsets that lie (overlap)', safetensors(good, { lie: (h) => { h['encoder.layer.0.attention.self.key.weight'].data_offsets = [0, 64]; } }), /overlap|gap|span/],
    ['offsets past the end', safetensors(good, { lie: (h) => { const e = h['encoder.layer.0.attention.output.dense.bias']; e.data_offsets = [e.data_offsets[0], e.data_offsets[1] + 400]; } }), /truncated|header lies|span/],
    ['a shape that lies', safetensors(good, { lie: (h) => { h['encoder.layer.0.attention.self.query.weight'].shape = [4, 5]; } }), /data_offsets span/],
    ['a 2 GB claim in the header length', (() => { const f = goodFile.slice(); new DataView(f.buffer).setBigUint64(0, 2n ** 31n, true); return f; })(), /header claims 2,147,483,648 bytes/],
    ['a 2 GB tensor claim', safetensors(good, { lie: (h) => { h['encoder.layer.0.attention.self.query.weight'].shape = [65536, 8192]; } }), /claims 536,870,912 values/],
    ['an integer dtype', safetensors(good, { lie: (h) => { for (const e of Object.values(h)) e.dtype = 'I32'; } }), /dtype I32; the lab reads F64, F32, F16, BF16/],
    ['an unknown dtype', safetensors(good, { lie: (h) => { h['encoder.layer.0.attention.self.query.weight'].dtype = 'F128'; } }), /dtype "F128"/],
    ['names that match nothing', safetensors({ 'embeddings.word_embeddings.weight': { shape: [2, 2], data: [1, 2, 3, 4] } }), /none of its 1 tensor names .*word_embeddings/],
    ['a layer missing its key', safetensors({ 'l.attention.self.query.weight': { shape: [2, 2], data: [1, 2, 3, 4] }, 'l.attention.self.value.weight': { shape: [2, 2], data: [1, 2, 3, 4] } }), /no key weight/],
    ['NaN values', safetensors({ ...good, 'encoder.layer.0.attention.self.value.weight': { shape: [4, 4], data: [1, 2, NaN, ...new Array(13).fill(0)] } }), /wv .* holds NaN/],
  ];
  for (const [what, bytes, expected] of cases) {
    it(what, async () => {
      const read = await readWeightsFile(blob(bytes), 'layer.safetensors');
      let problem = read.problem;
      if (!problem) {
        const layer = read.layers[0];
        problem = layer.problem ?? convertLayer(layer, 2).problem;
      }
      assert.match(problem ?? 'no problem reported', expected);
      assert.match(problem, /^(layer\.safetensors: |the layer|wv )/);
      // and the next, good file loads
      const ok = await readWeightsFile(blob(goodFile), 'good.safetensors');
      assert.equal(ok.layers[0].problem, null);
      assert.ok(convertLayer(ok.layers[0], 2).params);
    });
  }

  it('a file above the cap is refused before it is read', async () => {
    let read = false;
    const huge = { size: MAX_FILE_BYTES + 1, name: 'big.safetensors', slice() { read = true; throw new Error('read'); } };
    const result = await readWeightsFile(huge);
    assert.match(result.problem, /big\.safetensors is 256\.0 MB; the lab reads files up to 256\.0 MB/);
    assert.equal(read, false);
  });

  it('a safetensors header is checked before the data is read', async () => {
    const slices = [];
    const file = blob(safetensors(good, { lie: (h) => { h['encoder.layer.0.attention.self.query.weight'].dtype = 'F128'; } }));
    const watched = { size: file.size, name: 'x.safetensors', slice: (a, b) => { slices.push([a, b]); return file.slice(a, b); } };
    await readWeightsFile(watched);
    assert.ok(slices.every(([a, b]) => b - a < file.size), `only slices were read: ${JSON.stringify(slices)}`);
  });

  it('heads that do not divide the width, bad JSON, bad pasted inputs', async () => {
    const ok = await readWeightsFile(blob(goodFile), 'good.safetensors');
    assert.match(convertLayer(ok.layers[0], 3).problem, /divides the layer's width 4, got 3/);
    assert.match((await readWeightsFile(blob(new TextEncoder().encode('{"wq": [1, 2')), 'w.json')).problem, /w\.json: the file is not valid JSON/);
    assert.match((await readWeightsFile(blob(new TextEncoder().encode('{"wq": [[1, 2], [3]]}')), 'w.json')).problem, /ragged/);
    assert.match(parseInputs('a 1 2\nb 1 x', 2).problem, /line 2: "x" is not a number/);
    assert.match(parseInputs('a 1 2\nb 1', 2).problem, /row 2 has 1 numbers; the layer's d_model is 2/);
    assert.match(parseInputs('a 1 nan', 2).problem, /finite/);
    assert.deepEqual(parseInputs('[CLS] 1 2\n##ing 3 4', 2), { tokens: ['CLS', 'ing'], rows: [[1, 2], [3, 4]] });
  });

  it('a JSON of nested arrays in the lab names loads; a parsed npz of nothing is refused', async () => {
    const json = JSON.stringify({ wq: [[[1, 0], [0, 1]]], wk: [[[1, 0], [0, 1]]], wv: [[[1, 2], [3, 4]]] });
    const read = await readWeightsFile(blob(new TextEncoder().encode(json)), 'mine.json');
    assert.equal(read.layers[0].kind, 'lab');
    assert.deepEqual(Array.from(convertLayer(read.layers[0], 1).params.wv), [1, 2, 3, 4]);
    assert.ok(parseTensorJson(json).tensors.has('wq'));
    await assert.rejects(parseNpz(new Uint8Array(30)), /not a zip/);
  });
});
