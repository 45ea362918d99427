// The machine's WebAssembly SIMD ceiling: independent chains of f32x4 multiply-then-add held in
// registers, no memory traffic. Each chain step is 8 flops (4 lanes × mul + add). The benchmark
// tries 8 to 16 chains and reports the best: too few leave the pipelines idle, too many spill.
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

namespace {

template <int kChains>
float run_chains(int iterations) {
  v128_t acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = wasm_f32x4_splat(0.001f * (i + 1));
  const v128_t scale = wasm_f32x4_splat(0.9999999f);
  const v128_t shift = wasm_f32x4_splat(1e-7f);
  for (int it = 0; it < iterations; ++it) {
#pragma clang loop unroll(full)
    for (int i = 0; i < kChains; ++i) acc[i] = wasm_f32x4_add(wasm_f32x4_mul(acc[i], scale), shift);
  }
  v128_t total = acc[0];
  for (int i = 1; i < kChains; ++i) total = wasm_f32x4_add(total, acc[i]);
  return wasm_f32x4_extract_lane(total, 0);  // returned, so the loop cannot be dropped
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE float peak_chains(int chains, int iterations) {
  switch (chains) {
    case 8: return run_chains<8>(iterations);
    case 10: return run_chains<10>(iterations);
    case 12: return run_chains<12>(iterations);
    case 14: return run_chains<14>(iterations);
    case 16: return run_chains<16>(iterations);
    default: return -1.0f;
  }
}

// ---- the gemm kernels of core/src/kernels, timed in the same module as the ceiling

#include <vector>

#include "kernels/kernels.hpp"

namespace {
constexpr int kKernelCount = static_cast<int>(sizeof(attn::kernels::kGemmKernels) / sizeof(attn::kernels::kGemmKernels[0]));
}

extern "C" EMSCRIPTEN_KEEPALIVE int gemm_kernel_count() { return kKernelCount; }
extern "C" EMSCRIPTEN_KEEPALIVE const char* gemm_kernel_name(int kernel) { return attn::kernels::kGemmKernels[kernel].name; }

// c (rows, cols) = a (rows, inner) · b (inner, cols), `repeats` times, through the engine's driver
// with the given micro-kernel. Returns c[0] so that nothing is dropped.
extern "C" EMSCRIPTEN_KEEPALIVE float gemm_repeat(int kernel, int rows, int inner, int cols, int transposed, int repeats) {
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
extern "C" EMSCRIPTEN_KEEPALIVE const char* ppmm_kernel_name(int kernel) { return attn::kernels::kPpmmKernels[kernel].name; }
extern "C" EMSCRIPTEN_KEEPALIVE float ppmm_repeat(int kernel, int rows, int inner, int cols, int transposed, int repeats) {
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

// The fused scale-mask-softmax row pass over rows × cols scores (causal when asked), `repeats`
// times: its share of a forward pass is this time × heads over the pass's time.
extern "C" EMSCRIPTEN_KEEPALIVE int softmax_kernel_count() {
  return static_cast<int>(sizeof(attn::kernels::kScaledSoftmaxKernels) / sizeof(attn::kernels::kScaledSoftmaxKernels[0]));
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
      fn(cols, causal ? (i + 1 < cols ? i + 1 : cols) : cols, nullptr, 8.0f, work.data() + static_cast<std::size_t>(i) * cols);
    }
  }
  return work[0];
}
