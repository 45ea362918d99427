// The machine's WebAssembly SIMD ceiling: independent chains of f32x4 multiply-then-add held in
// registers, no memory traffic (and in the relaxed build, peak_fma_chains: the same chains as fused
// multiply-adds). Each chain step is 8 flops (4 lanes × mul + add). The benchmark tries 8 to 16
// chains and reports the best: too few leave the pipelines idle, too many spill.
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

#include "kernels/madd_f32x4.hpp"

namespace {

template <int kChains, bool kFused>
float run_chains(int iterations) {
  v128_t acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = wasm_f32x4_splat(0.001f * (i + 1));
  const v128_t scale = wasm_f32x4_splat(0.9999999f);
  const v128_t shift = wasm_f32x4_splat(1e-7f);
  for (int it = 0; it < iterations; ++it) {
#pragma clang loop unroll(full)
    for (int i = 0; i < kChains; ++i) acc[i] = attn::kernels::madd_f32x4<kFused>(acc[i], scale, shift);
  }
  v128_t total = acc[0];
  for (int i = 1; i < kChains; ++i) total = wasm_f32x4_add(total, acc[i]);
  return wasm_f32x4_extract_lane(total, 0);  // returned, so the loop cannot be dropped
}

// kFused: the chains as fused multiply-adds (f32x4.relaxed_madd after scripts/relax-wasm.mjs, one
// instruction for the mul and the add; core/src/kernels/madd_f32x4.hpp): still 8 flops a step, the
// ceiling of the relaxed build (bench_peak_relaxed). Else a multiply, then an add.
template <bool kFused>
float chains_of(int chains, int iterations) {
  switch (chains) {
    case 8: return run_chains<8, kFused>(iterations);
    case 10: return run_chains<10, kFused>(iterations);
    case 12: return run_chains<12, kFused>(iterations);
    case 14: return run_chains<14, kFused>(iterations);
    case 16: return run_chains<16, kFused>(iterations);
    default: return -1.0f;
  }
}

}  // namespace

// the ceiling as fused multiply-adds: the relaxed build's (bench_peak_relaxed); -1 elsewhere
extern "C" EMSCRIPTEN_KEEPALIVE float peak_fma_chains(int chains, int iterations) {
#if defined(ATTN_RELAXED_SIMD)
  return chains_of<true>(chains, iterations);
#else
  (void)chains;
  (void)iterations;
  return -1.0f;
#endif
}

extern "C" EMSCRIPTEN_KEEPALIVE float peak_chains(int chains, int iterations) {
  return chains_of<false>(chains, iterations);
}

// ---- the gemm kernels of core/src/kernels, timed in the same module as the ceiling

#include <vector>

#include "kernels/kernels.hpp"

namespace {
constexpr int kKernelCount =
    static_cast<int>(sizeof(attn::kernels::kGemmKernels) / sizeof(attn::kernels::kGemmKernels[0]));
}

extern "C" EMSCRIPTEN_KEEPALIVE int gemm_kernel_count() { return kKernelCount; }
extern "C" EMSCRIPTEN_KEEPALIVE const char* gemm_kernel_name(int kernel) {
  return attn::kernels::kGemmKernels[kernel].name;
}

// c (rows, cols) = a (rows, inner) · b (inner, cols), `repeats` times, through the engine's driver
// with the given micro-kernel. Returns c[0] so that nothing is dropped.
extern "C" EMSCRIPTEN_KEEPALIVE float gemm_repeat(int kernel, int rows, int inner, int cols, int transposed,
                                                  int repeats) {
  static std::vector<float> a, b, c, panels;
  a.assign(static_cast<std::size_t>(rows) * inner, 0.5f);
  b.assign(static_cast<std::size_t>(inner) * cols, 0.25f);
  c.assign(static_cast<std::size_t>(rows) * cols, 0.0f);
  panels.resize(attn::kernels::packed_size(inner, cols));
  const int ldb = transposed ? inner : cols;
  for (int r = 0; r < repeats; ++r) {
    attn::kernels::gemm_f32(attn::kernels::kGemmKernels[kernel], rows, inner, cols, a.data(), inner, b.data(), ldb,
                            transposed != 0, c.data(), cols, panels.data());
  }
  return c[0];
}

// The same product through the driver on strips (a packed into strips and b into panels on every
// call, as the forward pass's products with 33 rows or more are), with the given ppmm micro-kernel.
extern "C" EMSCRIPTEN_KEEPALIVE int ppmm_kernel_count() {
  return static_cast<int>(sizeof(attn::kernels::kPpmmKernels) / sizeof(attn::kernels::kPpmmKernels[0]));
}
extern "C" EMSCRIPTEN_KEEPALIVE const char* ppmm_kernel_name(int kernel) {
  return attn::kernels::kPpmmKernels[kernel].name;
}
extern "C" EMSCRIPTEN_KEEPALIVE float ppmm_repeat(int kernel, int rows, int inner, int cols, int transposed,
                                                  int repeats) {
  static std::vector<float> a, b, c, strips, panels;
  const attn::kernels::PpmmEntry& entry = attn::kernels::kPpmmKernels[kernel];
  a.assign(static_cast<std::size_t>(rows) * inner, 0.5f);
  b.assign(static_cast<std::size_t>(inner) * cols, 0.25f);
  c.assign(static_cast<std::size_t>(rows) * cols, 0.0f);
  strips.resize(attn::kernels::strips_size(rows, inner, entry.mr));
  panels.resize(attn::kernels::packed_size(inner, cols));
  const int ldb = transposed ? inner : cols;
  for (int r = 0; r < repeats; ++r) {
    attn::kernels::gemm_f32_strips(entry, rows, inner, cols, a.data(), inner, b.data(), ldb, transposed != 0, c.data(),
                                   cols, strips.data(), panels.data());
  }
  return c[0];
}

// The ppmm micro-kernel alone, `calls` times on one strip and one panel of kc (both in L1 for kc ≤ 256):
// no packing, no driver, no cache miss: what the kernel's own loop can do (2 · mr · 8 · kc flops a call).
extern "C" EMSCRIPTEN_KEEPALIVE float ppmm_kernel_alone(int kernel, int kc, int calls) {
  static std::vector<float> strip, panel, c;
  const attn::kernels::PpmmEntry& entry = attn::kernels::kPpmmKernels[kernel];
  strip.assign(static_cast<std::size_t>(entry.mr) * kc, 0.5f);
  panel.assign(static_cast<std::size_t>(attn::kernels::kGemmNr) * kc, 0.25f);
  c.assign(static_cast<std::size_t>(entry.mr) * attn::kernels::kGemmNr, 0.0f);
  for (int i = 0; i < calls; ++i) {
    entry.fn(entry.mr, attn::kernels::kGemmNr, kc, strip.data(), panel.data(), c.data(), attn::kernels::kGemmNr);
  }
  return c[0];
}

// The memory's pace for the products of few rows: `floats` floats (past the caches: GPT-2 small's block
// is 7.1 M weights) read one float per 64-byte line, in four independent chains, `repeats` times.
// Bytes / time is what the weights' stream can reach.
extern "C" EMSCRIPTEN_KEEPALIVE float lines_read(int floats, int repeats) {
  static std::vector<float> values;
  if (values.size() != static_cast<std::size_t>(floats)) values.assign(static_cast<std::size_t>(floats), 0.5f);
  float sum[4] = {};
  for (int r = 0; r < repeats; ++r) {
    for (int i = 0; i + 64 <= floats; i += 64) {
      for (int c = 0; c < 4; ++c) sum[c] += values[static_cast<std::size_t>(i) + c * 16];
    }
  }
  return sum[0] + sum[1] + sum[2] + sum[3];
}

// The fused scale-mask-softmax row pass over rows × cols scores (causal when asked), `repeats`
// times: its share of a forward pass is this time × heads over the pass's time.
extern "C" EMSCRIPTEN_KEEPALIVE int softmax_kernel_count() {
  return static_cast<int>(sizeof(attn::kernels::kScaledSoftmaxKernels) /
                          sizeof(attn::kernels::kScaledSoftmaxKernels[0]));
}
extern "C" EMSCRIPTEN_KEEPALIVE const char* softmax_kernel_name(int kernel) {
  return attn::kernels::kScaledSoftmaxKernels[kernel].name;
}
extern "C" EMSCRIPTEN_KEEPALIVE float softmax_repeat(int kernel, int rows, int cols, int causal, int repeats) {
  static std::vector<float> scores, work;
  scores.resize(static_cast<std::size_t>(rows) * cols);
  for (std::size_t i = 0; i < scores.size(); ++i) scores[i] = static_cast<float>(i % 97) * 0.25f - 12.0f;
  work.resize(scores.size());
  const auto fn = attn::kernels::kScaledSoftmaxKernels[kernel].fn;
  for (int r = 0; r < repeats; ++r) {
    work = scores;  // raw scores each time, as the forward pass has them
    for (int i = 0; i < rows; ++i) {
      fn(cols, causal ? (i + 1 < cols ? i + 1 : cols) : cols, nullptr, 8.0f,
         work.data() + static_cast<std::size_t>(i) * cols);
    }
  }
  return work[0];
}

// ---- the products of one GPT-2-small block, replayed alone (npm run bench:block)
//
// d_model 768, 12 heads of 64, MLP 3072, causal mask, at n tokens: every matrix product of the prepared
// stack's block (core/src/prepared_stack.cpp and attention.cpp), through the same ops calls on the same
// shapes, on weights packed once as engine.prepareTransformer() packs them, and nothing else (no norm,
// bias, softmax, GELU, residual or check). Its time, against the whole block's, is the products' share.
//   part 0: all; 1: the projections q, k, v; 2: the scores q·kᵀ and weights·v (by blocks of queries, each
//   against the keys it sees); 3: W_O; 4: the MLP's two.

#include <algorithm>

#include "ops.hpp"

namespace {

struct BlockProducts {
  static constexpr int d = 768, heads = 12, d_k = 64, f = 3072;
  int n = 0;
  std::vector<float> x, wq, wk, wv, wo, w1, w2;  // panels
  std::vector<float> x_strips, q, k, v, scores, concat, out, pre, k_panels, v_panels;
  attn::ProductScratch scratch;
};

std::vector<float> filled(std::size_t count, float scale) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = scale * (static_cast<float>((i * 7919) % 1999) / 999.5f - 1.0f);
  return values;
}

std::vector<float> panels_of(int inner, int cols, int blocks) {
  const std::vector<float> w = filled(static_cast<std::size_t>(blocks) * inner * cols, 0.05f);
  std::vector<float> out;
  for (int b = 0; b < blocks; ++b) {
    const std::vector<float> p =
        attn::ops::pack_panels(w.data() + static_cast<std::size_t>(b) * inner * cols, cols, inner, cols);
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

BlockProducts& block_of(int n) {
  static BlockProducts bp;
  using B = BlockProducts;
  if (bp.wq.empty()) {
    bp.wq = panels_of(B::d, B::d_k, B::heads), bp.wk = panels_of(B::d, B::d_k, B::heads);
    bp.wv = panels_of(B::d, B::d_k, B::heads), bp.wo = panels_of(B::d, B::d, 1);
    bp.w1 = panels_of(B::d, B::f, 1), bp.w2 = panels_of(B::f, B::d, 1);
  }
  if (bp.n != n) {
    bp.n = n;
    const std::size_t nd = static_cast<std::size_t>(n) * B::d;
    bp.x = filled(nd, 1.0f), bp.concat = filled(nd, 1.0f), bp.out.resize(nd);
    bp.q.resize(static_cast<std::size_t>(n) * B::d_k), bp.k = bp.q, bp.v = bp.q;
    bp.scores = filled(static_cast<std::size_t>(n) * n, 0.01f),
    bp.pre = filled(static_cast<std::size_t>(n) * B::f, 0.5f);
  }
  return bp;
}

// attention.cpp's attend_head_causal_by_blocks without its checks and softmax: per block of queries
// the scores against the keys it sees, then weights · v over those keys into the head's concat columns
void block_causal_head(BlockProducts& bp, int h) {
  using B = BlockProducts;
  const int n = bp.n, query_block = std::min(n, std::max(64, 64 * 1024 / n / 4 * 4));
  attn::ops::pack_panels_into(bp.k.data(), B::d_k, B::d_k, n, true, &bp.k_panels);
  for (int first = 0; first < n; first += query_block) {
    const int rows = std::min(query_block, n - first), keys = std::min(n, first + rows);
    attn::ops::matmul_packed(bp.q.data() + static_cast<std::size_t>(first) * B::d_k, B::d_k, bp.k_panels.data(),
                             bp.scores.data(), keys, rows, B::d_k, keys, &bp.scratch);
    attn::ops::pack_panels_into(bp.v.data(), B::d_k, keys, B::d_k, false, &bp.v_panels);
    attn::ops::matmul_packed(bp.scores.data(), keys, bp.v_panels.data(),
                             bp.concat.data() + static_cast<std::size_t>(first) * B::d + h * B::d_k, B::d, rows, keys,
                             B::d_k, &bp.scratch);
  }
}

void block_attention(BlockProducts& bp, int part) {
  using B = BlockProducts;
  const int n = bp.n;
  const std::size_t head_panels = bp.wq.size() / B::heads;
  attn::ops::pack_strips(bp.x.data(), B::d, n, B::d, &bp.x_strips);  // pack_inputs: x once for every head
  for (int h = 0; h < B::heads; ++h) {
    if (part == 0 || part == 1) {
      attn::ops::matmul_strips(bp.x_strips.data(), bp.wq.data() + h * head_panels, bp.q.data(), B::d_k, n, B::d,
                               B::d_k);
      attn::ops::matmul_strips(bp.x_strips.data(), bp.wk.data() + h * head_panels, bp.k.data(), B::d_k, n, B::d,
                               B::d_k);
      attn::ops::matmul_strips(bp.x_strips.data(), bp.wv.data() + h * head_panels, bp.v.data(), B::d_k, n, B::d,
                               B::d_k);
    }
    if (part == 0 || part == 2) block_causal_head(bp, h);
  }
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE float block_products(int n, int part, int repeats) {
  using B = BlockProducts;
  BlockProducts& bp = block_of(n);
  for (int r = 0; r < repeats; ++r) {
    if (part <= 2) block_attention(bp, part);
    if (part == 0 || part == 3) {
      attn::ops::matmul_packed(bp.concat.data(), B::d, bp.wo.data(), bp.out.data(), B::d, n, B::d, B::d, &bp.scratch);
    }
    if (part == 0 || part == 4) {
      attn::ops::matmul_packed(bp.x.data(), B::d, bp.w1.data(), bp.pre.data(), B::f, n, B::d, B::f, &bp.scratch);
      attn::ops::matmul_packed(bp.pre.data(), B::f, bp.w2.data(), bp.out.data(), B::d, n, B::f, B::d, &bp.scratch);
    }
  }
  return bp.out[0];
}
