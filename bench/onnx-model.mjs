// ONNX models of the multi-head attention forward, written as bytes here (there is no Python in
// this project): a minimal protobuf encoder for the few ModelProto fields a graph needs (field
// numbers from onnx.proto), and the graphs ONNX Runtime Web is timed on.
//   letters: n tokens, d = d_model, h heads, dK per head; x (n, d), wq wk wv (h, d, dK) head-major

// ---- protobuf: varints, tags, length-delimited fields

const utf8 = new TextEncoder();

function varint(value) {
  const bytes = [];
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n;  // int64 as two's complement
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    bytes.push(byte);
  } while (v);
  return bytes;
}

const concatBytes = (parts) => {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const p of parts) { out.set(p, offset); offset += p.length; }
  return out;
};

const tag = (field, wire) => varint((field << 3) | wire);
const intField = (field, value) => Uint8Array.from([...tag(field, 0), ...varint(value)]);
const bytesField = (field, bytes) => concatBytes([Uint8Array.from([...tag(field, 2), ...varint(bytes.length)]), bytes]);
const stringField = (field, text) => bytesField(field, utf8.encode(text));
const floatField = (field, value) => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setFloat32(0, value, true);
  return concatBytes([Uint8Array.from(tag(field, 5)), bytes]);
};
const message = (...fields) => concatBytes(fields.flat().filter(Boolean));

// ---- ONNX messages

export const FLOAT = 1, INT64 = 7;
const ATTRIBUTE_FLOAT = 1, ATTRIBUTE_INT = 2, ATTRIBUTE_INTS = 7;

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian). */
export function tensor(name, dims, values, type = FLOAT) {
  const raw = type === FLOAT ? new Uint8Array(Float32Array.from(values).buffer)
    : new Uint8Array(BigInt64Array.from(values, (v) => BigInt(v)).buffer);
  return message(dims.map((d) => intField(1, d)), intField(2, type), stringField(8, name), bytesField(9, raw));
}

/** AttributeProto: name 1, f 2, i 3, ints 8, type 20. */
function attribute(name, value) {
  if (Array.isArray(value)) return message(stringField(1, name), value.map((v) => intField(8, v)), intField(20, ATTRIBUTE_INTS));
  if (Number.isInteger(value)) return message(stringField(1, name), intField(3, value), intField(20, ATTRIBUTE_INT));
  return message(stringField(1, name), floatField(2, value), intField(20, ATTRIBUTE_FLOAT));
}

/** NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7. */
export function node(opType, inputs, outputs, attributes = {}, domain = '') {
  return message(inputs.map((i) => stringField(1, i)), outputs.map((o) => stringField(2, o)), stringField(3, `${opType}_${outputs[0]}`),
    stringField(4, opType), Object.entries(attributes).map(([k, v]) => bytesField(5, attribute(k, v))), domain ? stringField(7, domain) : null);
}

/** ValueInfoProto of a float tensor: name 1, type 2 → TypeProto.tensor_type 1 → elem_type 1, shape 2 → dim 1 → dim_value 1. */
export function floatValue(name, dims) {
  const shape = message(dims.map((d) => bytesField(1, intField(1, d))));
  const tensorType = message(intField(1, FLOAT), bytesField(2, shape));
  return message(stringField(1, name), bytesField(2, bytesField(1, tensorType)));
}

/** ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 (domain 1, version 2). GraphProto: node 1, name 2, initializer 5, input 11, output 12. */
export function model({ nodes, initializers, inputs, outputs, contrib = false }) {
  const graph = message(nodes.map((n) => bytesField(1, n)), stringField(2, 'attention'), initializers.map((t) => bytesField(5, t)),
    inputs.map((v) => bytesField(11, v)), outputs.map((v) => bytesField(12, v)));
  const opsets = [message(stringField(1, ''), intField(2, 17))];
  if (contrib) opsets.push(message(stringField(1, 'com.microsoft'), intField(2, 1)));
  return message(intField(1, 8), stringField(2, 'attention-lab bench'), bytesField(7, graph), opsets.map((o) => bytesField(8, o)));
}

// ---- the attention graphs

// w (h, d, dK) head-major as (d, h·dK): every head's block side by side (also the other contenders' layout)
export function sideBySide({ d, h, dK }, w) {
  const out = new Float32Array(d * h * dK);
  for (let head = 0; head < h; head++) {
    for (let r = 0; r < d; r++) {
      for (let c = 0; c < dK; c++) out[r * h * dK + head * dK + c] = w[head * d * dK + r * dK + c];
    }
  }
  return out;
}

/** Plain ONNX ops, all heads at once: three projections, 3-D MatMuls for scores and values. */
export function batchedModel(p) {
  const { n, d, h, dK } = p;
  const hd = h * dK;
  return model({
    inputs: [floatValue('x', [n, d])],
    outputs: [floatValue('output', [n, d])],
    initializers: [tensor('wq', [d, hd], sideBySide(p, p.wq)), tensor('wk', [d, hd], sideBySide(p, p.wk)), tensor('wv', [d, hd], sideBySide(p, p.wv)),
      tensor('wo', [hd, d], p.wo), tensor('heads_shape', [3], [n, h, dK], INT64), tensor('concat_shape', [2], [n, hd], INT64),
      tensor('inv_scale', [], [1 / Math.sqrt(dK)])],
    nodes: [
      node('MatMul', ['x', 'wq'], ['q2']), node('Reshape', ['q2', 'heads_shape'], ['q3']), node('Transpose', ['q3'], ['q'], { perm: [1, 0, 2] }),
      node('MatMul', ['x', 'wk'], ['k2']), node('Reshape', ['k2', 'heads_shape'], ['k3']), node('Transpose', ['k3'], ['kT'], { perm: [1, 2, 0] }),
      node('MatMul', ['x', 'wv'], ['v2']), node('Reshape', ['v2', 'heads_shape'], ['v3']), node('Transpose', ['v3'], ['v'], { perm: [1, 0, 2] }),
      node('MatMul', ['q', 'kT'], ['scores']), node('Mul', ['scores', 'inv_scale'], ['scaled']), node('Softmax', ['scaled'], ['weights'], { axis: -1 }),
      node('MatMul', ['weights', 'v'], ['z']), node('Transpose', ['z'], ['z_tokens'], { perm: [1, 0, 2] }),
      node('Reshape', ['z_tokens', 'concat_shape'], ['concat']), node('MatMul', ['concat', 'wo'], ['output']),
    ],
  });
}

/** Plain ONNX ops, one chain of 2-D MatMuls per head, concatenated. */
export function perHeadModel(p) {
  const { n, d, h, dK } = p;
  const nodes = [];
  const initializers = [tensor('wo', [h * dK, d], p.wo), tensor('inv_scale', [], [1 / Math.sqrt(dK)])];
  for (let head = 0; head < h; head++) {
    const block = (w) => w.subarray(head * d * dK, (head + 1) * d * dK);
    initializers.push(tensor(`wq${head}`, [d, dK], block(p.wq)), tensor(`wk${head}`, [d, dK], block(p.wk)), tensor(`wv${head}`, [d, dK], block(p.wv)));
    nodes.push(node('MatMul', ['x', `wq${head}`], [`q${head}`]), node('MatMul', ['x', `wk${head}`], [`k${head}`]), node('MatMul', ['x', `wv${head}`], [`v${head}`]),
      node('Transpose', [`k${head}`], [`kT${head}`], { perm: [1, 0] }), node('MatMul', [`q${head}`, `kT${head}`], [`scores${head}`]),
      node('Mul', [`scores${head}`, 'inv_scale'], [`scaled${head}`]), node('Softmax', [`scaled${head}`], [`weights${head}`], { axis: -1 }),
      node('MatMul', [`weights${head}`, `v${head}`], [`z${head}`]));
  }
  nodes.push(node('Concat', Array.from({ length: h }, (_, head) => `z${head}`), ['concat'], { axis: 1 }), node('MatMul', ['concat', 'wo'], ['output']));
  return model({ inputs: [floatValue('x', [n, d])], outputs: [floatValue('output', [n, d])], initializers, nodes });
}

/** The com.microsoft MultiHeadAttention contrib op on projected q, k, v (batch 1), then W_O. */
export function multiHeadAttentionModel(p) {
  const { n, d, h, dK } = p;
  const hd = h * dK;
  return model({
    contrib: true,
    inputs: [floatValue('x', [1, n, d])],
    outputs: [floatValue('output', [1, n, d])],
    initializers: [tensor('wq', [d, hd], sideBySide(p, p.wq)), tensor('wk', [d, hd], sideBySide(p, p.wk)), tensor('wv', [d, hd], sideBySide(p, p.wv)), tensor('wo', [hd, d], p.wo)],
    nodes: [
      node('MatMul', ['x', 'wq'], ['q']), node('MatMul', ['x', 'wk'], ['k']), node('MatMul', ['x', 'wv'], ['v']),
      node('MultiHeadAttention', ['q', 'k', 'v'], ['concat'], { num_heads: h }, 'com.microsoft'),
      node('MatMul', ['concat', 'wo'], ['output']),
    ],
  });
}

/** The com.microsoft Attention contrib op (one packed q|k|v projection with a zero bias), then W_O. */
export function attentionOpModel(p) {
  const { n, d, h, dK } = p;
  const hd = h * dK;
  const wq = sideBySide(p, p.wq), wk = sideBySide(p, p.wk), wv = sideBySide(p, p.wv);
  const packed = new Float32Array(d * 3 * hd);
  for (let r = 0; r < d; r++) {
    packed.set(wq.subarray(r * hd, (r + 1) * hd), r * 3 * hd);
    packed.set(wk.subarray(r * hd, (r + 1) * hd), r * 3 * hd + hd);
    packed.set(wv.subarray(r * hd, (r + 1) * hd), r * 3 * hd + 2 * hd);
  }
  return model({
    contrib: true,
    inputs: [floatValue('x', [1, n, d])],
    outputs: [floatValue('output', [1, n, d])],
    initializers: [tensor('w_qkv', [d, 3 * hd], packed), tensor('b_qkv', [3 * hd], new Float32Array(3 * hd)), tensor('wo', [hd, d], p.wo)],
    nodes: [node('Attention', ['x', 'w_qkv', 'b_qkv'], ['concat'], { num_heads: h }, 'com.microsoft'), node('MatMul', ['concat', 'wo'], ['output'])],
  });
}

export const ORT_MODELS = [
  { name: 'ORT-web batched', build: batchedModel, batch: false },
  { name: 'ORT-web per head', build: perHeadModel, batch: false },
  { name: 'ORT-web MultiHeadAttention', build: multiHeadAttentionModel, batch: true },
  { name: 'ORT-web Attention op', build: attentionOpModel, batch: true },
];
