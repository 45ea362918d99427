// Which attention layers a set of named tensors holds, and how each becomes the lab's parameters.
//   Hugging Face BERT:  <prefix>attention.self.{query,key,value}.{weight,bias}, <prefix>attention.output.dense.*
//                       PyTorch Linear stores weight as (out, in) and computes x·Wᵀ + b: transposed here.
//   GPT-2:              <prefix>attn.c_attn.{weight,bias} q|k|v fused as (in, 3·out) (Conv1D: x·W + b),
//                       <prefix>attn.c_proj.{weight,bias}; causal.
//   PyTorch nn.MultiheadAttention (and TransformerEncoderLayer's self_attn): <prefix>in_proj_weight,
//                       q|k|v stacked as rows (3·out, in), x·Wᵀ + b; <prefix>in_proj_bias (3·out);
//                       <prefix>out_proj.{weight,bias} (a Linear). Not causal: the mask is a call's argument.
//   The lab's export:   wq, wk (heads, dModel, dK), wv (heads, dModel, dV), wo (heads·dV, dModel),
//                       bq, bk (heads, dK), bv (heads, dV), bo (dModel); heads in the shapes.
// The lab's layout (attention.mjs): wq is heads × dModel × dK, head-major, each block row-major.
import { own } from '../shared/own.mjs';

const at = (data, i) => data[i];

/** From a (out = heads·d, in = dModel) Linear weight: heads × dModel × d, transposed per head. */
function fromLinear(weight, heads, d, dModel) {
  const out = new Float32Array(heads * dModel * d);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < dModel; i++)
      for (let j = 0; j < d; j++) out[(h * dModel + i) * d + j] = at(weight, (h * d + j) * dModel + i);
  return out;
}

/** From a fused (in = dModel, 3·width) Conv1D weight, part 0 (q), 1 (k) or 2 (v): heads × dModel × d. */
function fromFused(weight, part, heads, d, dModel) {
  const width = 3 * heads * d;
  const out = new Float32Array(heads * dModel * d);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < dModel; i++)
      for (let j = 0; j < d; j++) out[(h * dModel + i) * d + j] = at(weight, i * width + part * heads * d + h * d + j);
  return out;
}

function transpose(weight, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = weight[r * cols + c];
  return out;
}

const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
const f32 = (data) => (data instanceof Float32Array ? data : Float32Array.from(data));

// Each layout: find(tensors) → candidate layers { key, label, kind, names (found), dModel, width, convert(heads) }.
const LAYOUTS = [
  {
    kind: 'bert',
    title: 'Hugging Face BERT',
    find(tensors) {
      const layers = [];
      for (const name of tensors.keys()) {
        const match = /^(.*)attention\.self\.query\.weight$/.exec(name);
        if (!match) continue;
        const prefix = match[1];
        const get = (suffix) => tensors.get(prefix + suffix) ?? null;
        const parts = { wq: get('attention.self.query.weight'), wk: get('attention.self.key.weight'), wv: get('attention.self.value.weight'),
          bq: get('attention.self.query.bias'), bk: get('attention.self.key.bias'), bv: get('attention.self.value.bias'),
          wo: get('attention.output.dense.weight'), bo: get('attention.output.dense.bias') };
        const missing = ['wk', 'wv'].filter((k) => !parts[k]);
        const names = Object.entries({ wq: 'attention.self.query.weight', wk: 'attention.self.key.weight', wv: 'attention.self.value.weight',
          bq: 'attention.self.query.bias', bk: 'attention.self.key.bias', bv: 'attention.self.value.bias',
          wo: 'attention.output.dense.weight', bo: 'attention.output.dense.bias' }).filter(([k]) => parts[k]).map(([, s]) => prefix + s);
        layers.push({
          kind: 'bert', label: prefix.replace(/\.$/, '') || '(top level)', names, missing: missing.map((k) => ({ wk: 'key', wv: 'value' }[k])),
          check() {
            if (missing.length) return `the layer "${this.label}" has a query weight but no ${this.missing.join(' or ')} weight`;
            const [out, dModel] = parts.wq.shape;
            if (parts.wq.shape.length !== 2) return `${prefix}attention.self.query.weight has shape ${JSON.stringify(parts.wq.shape)}; a Linear weight is (out, in)`;
            for (const k of ['wk', 'wv']) if (!same(parts[k].shape, [out, dModel])) return `${names.find((n) => n.includes(k === 'wk' ? '.key.' : '.value.'))} has shape ${JSON.stringify(parts[k].shape)}; the query's is ${JSON.stringify([out, dModel])}`;
            for (const k of ['bq', 'bk', 'bv']) if (parts[k] && !same(parts[k].shape, [out])) return `the ${k === 'bq' ? 'query' : k === 'bk' ? 'key' : 'value'} bias has shape ${JSON.stringify(parts[k].shape)}; expected [${out}]`;
            if (parts.wo && !same(parts.wo.shape, [dModel, out])) return `${prefix}attention.output.dense.weight has shape ${JSON.stringify(parts.wo.shape)}; expected [${dModel}, ${out}]`;
            if (parts.bo && !parts.wo) return 'the output bias has no output weight';
            if (parts.bo && !same(parts.bo.shape, [dModel])) return `the output bias has shape ${JSON.stringify(parts.bo.shape)}; expected [${dModel}]`;
            return null;
          },
          get dModel() { return parts.wq.shape[1]; },
          get width() { return parts.wq.shape[0]; },
          convert(heads) {
            const dModel = this.dModel, d = this.width / heads;
            return {
              dModel, heads, dK: d, dV: d, causal: false,
              wq: fromLinear(parts.wq.data, heads, d, dModel), wk: fromLinear(parts.wk.data, heads, d, dModel), wv: fromLinear(parts.wv.data, heads, d, dModel),
              bq: parts.bq && f32(parts.bq.data), bk: parts.bk && f32(parts.bk.data), bv: parts.bv && f32(parts.bv.data),
              wo: parts.wo && transpose(parts.wo.data, dModel, this.width), bo: parts.bo && f32(parts.bo.data),
            };
          },
        });
      }
      return layers;
    },
  },
  {
    kind: 'gpt2',
    title: 'GPT-2',
    find(tensors) {
      const layers = [];
      for (const name of tensors.keys()) {
        const match = /^(.*)attn\.c_attn\.weight$/.exec(name);
        if (!match) continue;
        const prefix = match[1];
        const get = (suffix) => tensors.get(prefix + suffix) ?? null;
        const parts = { w: get('attn.c_attn.weight'), b: get('attn.c_attn.bias'), wo: get('attn.c_proj.weight'), bo: get('attn.c_proj.bias') };
        const names = [['w', 'attn.c_attn.weight'], ['b', 'attn.c_attn.bias'], ['wo', 'attn.c_proj.weight'], ['bo', 'attn.c_proj.bias']]
          .filter(([k]) => parts[k]).map(([, s]) => prefix + s);
        layers.push({
          kind: 'gpt2', label: prefix.replace(/\.$/, '') || '(top level)', names,
          check() {
            const shape = parts.w.shape;
            if (shape.length !== 2 || shape[1] % 3 !== 0) return `${prefix}attn.c_attn.weight has shape ${JSON.stringify(shape)}; GPT-2's is (d_model, 3·d_model), q|k|v side by side`;
            if (parts.b && !same(parts.b.shape, [shape[1]])) return `${prefix}attn.c_attn.bias has shape ${JSON.stringify(parts.b.shape)}; expected [${shape[1]}]`;
            if (parts.wo && !same(parts.wo.shape, [shape[1] / 3, shape[0]])) return `${prefix}attn.c_proj.weight has shape ${JSON.stringify(parts.wo.shape)}; expected [${shape[1] / 3}, ${shape[0]}]`;
            if (parts.bo && !parts.wo) return 'the output bias has no output weight';
            if (parts.bo && !same(parts.bo.shape, [shape[0]])) return `${prefix}attn.c_proj.bias has shape ${JSON.stringify(parts.bo.shape)}; expected [${shape[0]}]`;
            return null;
          },
          get dModel() { return parts.w.shape[0]; },
          get width() { return parts.w.shape[1] / 3; },
          convert(heads) {
            const dModel = this.dModel, width = this.width, d = width / heads;
            const bias = (part) => (parts.b ? f32(parts.b.data.slice(part * width, (part + 1) * width)) : null);
            return {
              dModel, heads, dK: d, dV: d, causal: true,
              wq: fromFused(parts.w.data, 0, heads, d, dModel), wk: fromFused(parts.w.data, 1, heads, d, dModel), wv: fromFused(parts.w.data, 2, heads, d, dModel),
              bq: bias(0), bk: bias(1), bv: bias(2),
              wo: parts.wo && f32(parts.wo.data), bo: parts.bo && f32(parts.bo.data),
            };
          },
        });
      }
      return layers;
    },
  },
  {
    kind: 'pytorch',
    title: 'PyTorch nn.MultiheadAttention',
    find(tensors) {
      const layers = [];
      for (const name of tensors.keys()) {
        const match = /^(.*)in_proj_weight$/.exec(name);
        if (!match) continue;
        const prefix = match[1];
        const get = (suffix) => tensors.get(prefix + suffix) ?? null;
        const parts = { w: get('in_proj_weight'), b: get('in_proj_bias'), wo: get('out_proj.weight'), bo: get('out_proj.bias') };
        const names = [['w', 'in_proj_weight'], ['b', 'in_proj_bias'], ['wo', 'out_proj.weight'], ['bo', 'out_proj.bias']]
          .filter(([k]) => parts[k]).map(([, s]) => prefix + s);
        layers.push({
          kind: 'pytorch', label: prefix.replace(/\.$/, '') || '(top level)', names,
          check() {
            const shape = parts.w.shape;
            if (shape.length !== 2 || shape[0] % 3 !== 0) return `${prefix}in_proj_weight has shape ${JSON.stringify(shape)}; nn.MultiheadAttention's is (3·embed_dim, embed_dim), q|k|v stacked`;
            if (parts.b && !same(parts.b.shape, [shape[0]])) return `${prefix}in_proj_bias has shape ${JSON.stringify(parts.b.shape)}; expected [${shape[0]}]`;
            if (parts.wo && !same(parts.wo.shape, [shape[1], shape[0] / 3])) return `${prefix}out_proj.weight has shape ${JSON.stringify(parts.wo.shape)}; expected [${shape[1]}, ${shape[0] / 3}]`;
            if (parts.bo && !parts.wo) return 'the output bias has no output weight';
            if (parts.bo && !same(parts.bo.shape, [shape[1]])) return `${prefix}out_proj.bias has shape ${JSON.stringify(parts.bo.shape)}; expected [${shape[1]}]`;
            return null;
          },
          get dModel() { return parts.w.shape[1]; },
          get width() { return parts.w.shape[0] / 3; },
          convert(heads) {
            const dModel = this.dModel, width = this.width, d = width / heads;
            const rows = (part) => parts.w.data.subarray(part * width * dModel, (part + 1) * width * dModel);
            const bias = (part) => (parts.b ? f32(parts.b.data.slice(part * width, (part + 1) * width)) : null);
            return {
              dModel, heads, dK: d, dV: d, causal: false,
              wq: fromLinear(rows(0), heads, d, dModel), wk: fromLinear(rows(1), heads, d, dModel), wv: fromLinear(rows(2), heads, d, dModel),
              bq: bias(0), bk: bias(1), bv: bias(2),
              wo: parts.wo && transpose(parts.wo.data, dModel, width), bo: parts.bo && f32(parts.bo.data),
            };
          },
        });
      }
      return layers;
    },
  },
  {
    kind: 'lab',
    title: "this lab's export",
    find(tensors) {
      const wq = tensors.get('wq');
      if (!wq || !tensors.get('wk') || !tensors.get('wv')) return [];
      const parts = Object.fromEntries(['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'].map((k) => [k, tensors.get(k) ?? null]));
      return [{
        kind: 'lab', label: '(the layer)', names: Object.keys(parts).filter((k) => parts[k]), headsKnown: true,
        check() {
          if (wq.shape.length !== 3) return `wq has shape ${JSON.stringify(wq.shape)}; the lab's is (heads, dModel, dK)`;
          const [heads, dModel, dK] = wq.shape;
          const dV = parts.wv.shape[2];
          // W_k and W_v may hold fewer key/value heads (grouped-query attention), dividing heads
          const kv = parts.wk.shape[0];
          if (!(kv >= 1 && heads % kv === 0)) return `wk has shape ${JSON.stringify(parts.wk.shape)}; its ${kv} key/value heads must divide wq's ${heads} heads`;
          const expect = { wk: [kv, dModel, dK], wv: [kv, dModel, dV], wo: [heads * dV, dModel], bq: [heads, dK], bk: [kv, dK], bv: [kv, dV], bo: [dModel] };
          for (const [k, shape] of Object.entries(expect)) if (parts[k] && !same(parts[k].shape, shape)) return `${k} has shape ${JSON.stringify(parts[k].shape)}; expected ${JSON.stringify(shape)}`;
          if (parts.bo && !parts.wo) return 'bo needs wo';
          return null;
        },
        get dModel() { return wq.shape[1]; },
        get width() { return wq.shape[0] * wq.shape[2]; },
        heads: wq.shape[0],
        convert() {
          const [heads, dModel, dK] = wq.shape;
          const own = Object.fromEntries(Object.entries(parts).map(([k, t]) => [k, t && f32(t.data)]));
          return { dModel, heads, kvHeads: parts.wk.shape[0], dK, dV: parts.wv.shape[2], causal: false, ...own };
        },
      }];
    },
  },
];


// Known models' head counts by width (the files themselves do not say).
const KNOWN_HEADS = { 768: 12, 1024: 16, 1280: 20, 1600: 25 };
const HEAD_KEYS = ['heads', 'num_attention_heads', 'n_head', 'num_heads'];

/**
 * The layers found among the tensors: [{ kind, label, names, dModel, width, heads, headsInferred, problem }].
 * heads comes from the layer itself (the lab's export), the file's metadata, or a guess to confirm
 * (headsInferred false): 12 for width 768 (BERT-base, GPT-2), width / 64 when it divides, else 1.
 */
export function findLayers(tensors, metadata = {}) {
  const fromMetadata = HEAD_KEYS.map((k) => Number(own(metadata, k))).find((v) => Number.isInteger(v) && v > 0);
  return LAYOUTS.flatMap((layout) => layout.find(tensors)).map((layer) => {
    const problem = layer.check();
    if (problem) return { ...layer, problem };
    let heads = layer.heads;
    let headsInferred = Boolean(heads);
    if (!heads && fromMetadata && layer.width % fromMetadata === 0) {
      heads = fromMetadata;
      headsInferred = true;
    }
    if (!heads) heads = own(KNOWN_HEADS, layer.width) ?? (layer.width % 64 === 0 ? layer.width / 64 : 1);
    return { ...layer, problem: null, heads, headsInferred };
  });
}

/** The layer's parameters in the lab's layout for `heads` heads, or { problem }. NaN and ∞ are refused. */
export function convertLayer(layer, heads) {
  if (!Number.isInteger(heads) || heads < 1 || layer.width % heads !== 0) {
    return { problem: `heads must be a whole number that divides the layer's width ${layer.width}, got ${heads}` };
  }
  const params = layer.convert(heads);
  for (const [name, values] of Object.entries(params)) {
    if (!(values instanceof Float32Array)) continue;
    const bad = values.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) return { problem: `${name} (from ${layer.label}) holds ${values[bad]} at index ${bad}: every weight must be a finite number` };
  }
  return { params };
}

/** The lab's parameters as named tensors in its own layout (for writeSafetensors / writeTensorJson). */
export function labTensors({ dModel, heads, kvHeads = heads, dK, dV, wq, wk, wv, wo, bq, bk, bv, bo }) {
  // W_k, W_v, b_k, b_v hold the key/value heads (grouped-query attention: fewer than heads)
  const out = { wq: { shape: [heads, dModel, dK], data: wq }, wk: { shape: [kvHeads, dModel, dK], data: wk }, wv: { shape: [kvHeads, dModel, dV], data: wv } };
  if (wo) out.wo = { shape: [heads * dV, dModel], data: wo };
  if (bq) out.bq = { shape: [heads, dK], data: bq };
  if (bk) out.bk = { shape: [kvHeads, dK], data: bk };
  if (bv) out.bv = { shape: [kvHeads, dV], data: bv };
  if (bo && wo) out.bo = { shape: [dModel], data: bo };
  return out;
}
