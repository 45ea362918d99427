// The relaxed-SIMD build (fused multiply-adds in the matrix products, issue 22) through the
// JavaScript API in Node. Node 20's V8 has relaxed SIMD behind a flag only: this file sets it before
// compiling anything, and a second Node without it checks the fallback and the error. The relaxed
// build must give the SIMD build's results to 1e-5 relative (a fused multiply-add rounds once where
// mul + add rounds twice) and the float64 reference's to the engine tests' tolerances.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';

import { loadAttention } from '../../../dist/lib/attention.node.mjs';
import { referenceAttention, randomSource, assertClose } from '../reference.mjs';

setFlagsFromString('--experimental-wasm-relaxed-simd');

// |got - want| / |want| over the whole matrix (Euclidean norms)
function relativeDifference(got, want) {
  let diff = 0, norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += (got[i] - want[i]) ** 2;
    norm += want[i] ** 2;
  }
  return Math.sqrt(diff / norm);
}

const differentBits = (a, b) => a.some((value, i) => !Object.is(value, b[i]));

function problem(seed, n, dModel, heads) {
  const random = randomSource(seed), width = dModel;
  return { x: random.matrix(n * dModel), n, dModel, heads, wq: random.matrix(dModel * width, 0.3),
    wk: random.matrix(dModel * width, 0.3), wv: random.matrix(dModel * width, 0.3), wo: random.matrix(width * dModel, 0.2) };
}

describe('the relaxed build where the runtime has relaxed SIMD (Node with --experimental-wasm-relaxed-simd)', () => {
  let auto, relaxed, simd;
  before(async () => {
    [auto, relaxed, simd] = await Promise.all([loadAttention(), loadAttention({ simd: 'relaxed' }), loadAttention({ simd: true })]);
  });

  it("is what simd: 'auto' loads, and info says so", () => {
    assert.deepEqual([auto.info.build, auto.info.simd], ['relaxed', true]);
    assert.deepEqual([relaxed.info.build, relaxed.info.simd], ['relaxed', true]);
    assert.deepEqual([simd.info.build, simd.info.simd], ['simd', true]);
  });

  it('gives the SIMD build\'s attention to 1e-5 relative, and the float64 reference\'s to 1e-4', () => {
    for (const [seed, n, dModel, heads] of [[3, 33, 24, 3], [4, 64, 64, 4], [5, 130, 96, 6]]) {
      const request = { ...problem(seed, n, dModel, heads), mask: 'causal' };
      const got = relaxed.attention(request), want = simd.attention(request);
      const rel = relativeDifference(got.output, want.output);
      assert.ok(rel <= 1e-5, `n=${n} dModel=${dModel}: relaxed vs SIMD ${rel.toExponential(2)}`);
      assertClose(`n=${n} output vs float64`, got.output, referenceAttention(request).output, { atol: 1e-4, rtol: 1e-4 });
      for (let h = 0; h < heads; h++) assertClose(`weights ${h}`, got.heads[h].weights, want.heads[h].weights, { atol: 1e-6, rtol: 0 });
    }
  });

  it('runs the prepared path (the 4 × 8 strip kernel) with fused multiply-adds: other bits, within 1e-5', () => {
    const { x, n, dModel, heads, wq, wk, wv, wo } = problem(9, 128, 128, 4);
    const outputs = [relaxed, simd].map((engine) => {
      const model = engine.prepare({ dModel, heads, wq, wk, wv, wo, mask: 'causal' });
      const { output } = model.run({ x, n });
      model.dispose();
      return output;
    });
    assert.ok(relativeDifference(outputs[0], outputs[1]) <= 1e-5);
    // one rounding per multiply-add instead of two: on this CPU (FMA3) some products round differently
    assert.ok(differentBits(outputs[0], outputs[1]), 'the relaxed build gave the SIMD build\'s exact bits: no fused multiply-add ran');
  });

  it('learning engine: a transformer stack equals the SIMD one\'s to 1e-5 relative', async () => {
    const [learnRelaxed, learnSimd] = await Promise.all([loadAttention({ learning: true }), loadAttention({ simd: true, learning: true })]);
    assert.deepEqual([learnRelaxed.info.build, learnRelaxed.info.learning, learnSimd.info.build], ['relaxed', true, 'simd']);
    const random = randomSource(21), d = 64, vocab = 50;
    const norm = () => ({ kind: 'layernorm', weight: random.matrix(d, 0.1).map((v) => 1 + v), bias: random.matrix(d, 0.1) });
    const layer = () => ({ arrangement: 'pre', norm1: norm(), norm2: norm(),
      attention: { heads: 4, mask: 'causal', wq: random.matrix(d * d, 0.2), wk: random.matrix(d * d, 0.2), wv: random.matrix(d * d, 0.2), wo: random.matrix(d * d, 0.2) },
      mlp: { kind: 'plain', activation: 'gelu', hidden: 4 * d, w1: random.matrix(d * 4 * d, 0.1), w2: random.matrix(4 * d * d, 0.1) } });
    const request = { ids: Array.from({ length: 40 }, (_, i) => (i * 7) % vocab), vocab, dModel: d, tokens: random.matrix(vocab * d, 0.5),
      positions: 'rotary', rotary: { dims: 16 }, layers: [layer(), layer()], finalNorm: norm(), unembedding: 'tied' };
    const got = learnRelaxed.transformer(request), want = learnSimd.transformer(request);
    const rel = relativeDifference(got.logits, want.logits);
    assert.ok(rel <= 1e-5, `logits: relaxed vs SIMD ${rel.toExponential(2)}`);
  });
});

// Node without the flag: no relaxed SIMD. Run in a child process, since the flag cannot be unset.
it("without relaxed SIMD, 'auto' falls back to the SIMD build and simd: 'relaxed' is refused by name", () => {
  const script = `
    import { loadAttention } from ${JSON.stringify(new URL('../../../dist/lib/attention.node.mjs', import.meta.url).href)};
    const auto = await loadAttention();
    let refused = null;
    try { await loadAttention({ simd: 'relaxed' }); } catch (e) { refused = { name: e.constructor.name, field: e.field, message: e.message }; }
    const usable = auto.attention({ x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], n: 3, dModel: 4 }).output[0];
    console.log(JSON.stringify({ build: auto.info.build, refused, usable }));`;
  const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.equal(result.build, 'simd');
  assert.equal(result.refused.name, 'RangeError');
  assert.equal(result.refused.field, 'simd');
  assert.match(result.refused.message, /simd: 'relaxed' needs relaxed SIMD .* which this WebAssembly runtime does not support/);
  assert.ok(Math.abs(result.usable - 0.8446) < 5e-5, 'the notes\' 002 output[0] from the fallback engine');
});

// scripts/relax-wasm.mjs on a module written here byte by byte: f32x4.extract_lane 0 of
// fma(a, b, c) with a = 2, b = 3, c = 100 in every lane but a's lane 1, whose bytes are fd af 01 00
// (the prototype opcode's bytes inside a constant, which must stay as they are).
describe('scripts/relax-wasm.mjs', () => {
  const f32x4 = (...lanes) => [0xfd, 0x0c, ...new Uint8Array(Float32Array.from(lanes).buffer)];
  const module = (op) => {
    const a = f32x4(2, 0, 2, 2);
    a.splice(2 + 4, 4, 0xfd, 0xaf, 0x01, 0x00);  // lane 1
    const body = [0x00, ...a, ...f32x4(3, 3, 3, 3), ...f32x4(100, 100, 100, 100), 0xfd, ...op, 0xfd, 0x1f, 0x00, 0x0b];
    return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7d,
      0x03, 0x02, 0x01, 0x00, 0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, 0x0a, body.length + 2, 0x01, body.length, ...body]);
  };

  it('rewrites the instruction, not the same bytes in a constant, and V8 then computes a · b + c', async () => {
    const { relax, countMadd } = await import('../../../scripts/relax-wasm.mjs');
    const input = module([0xaf, 0x01]);
    assert.equal(WebAssembly.validate(input), false, 'the prototype opcode is refused by V8');
    const { bytes, count } = relax(input);
    assert.equal(count, 1);
    assert.equal(countMadd(bytes), 1);
    // only the two opcode bytes changed, to the standard relaxed_madd (0x105 = LEB128 85 02)
    const changed = [...bytes].flatMap((b, i) => (b === input[i] ? [] : [[i, b]]));
    assert.deepEqual(changed.map(([, b]) => b), [0x85, 0x02]);
    assert.deepEqual([...bytes], [...module([0x85, 0x02])]);
    const { instance } = await WebAssembly.instantiate(bytes);
    assert.equal(instance.exports.f(), 2 * 3 + 100, 'relaxed_madd(a, b, c) = a · b + c (the prototype was a + b · c = 302)');
  });

  it('stops at a prototype opcode it does not rewrite, and at an unknown one', async () => {
    const { relax } = await import('../../../scripts/relax-wasm.mjs');
    assert.throws(() => relax(module([0xb0, 0x01])), /prototype relaxed opcode 0xb0/);  // the prototype's f32x4.fms
    assert.throws(() => relax(module([0xff, 0x03])), /unknown SIMD opcode 0x1ff/);
  });
});
