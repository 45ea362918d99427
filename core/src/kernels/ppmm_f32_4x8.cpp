// c (mr, nc) = strip (kc, 4) · panel (kc, 8): the 4 × 8 kernels on a pre-packed a ("ppmm", as
// XNNPACK names it), scalar and WebAssembly SIMD side by side. The strip holds 4 rows of a k-major,
// so the four broadcasts of one k are four constant offsets from one pointer: V8's code for the
// main loop then needs no address arithmetic per row (28 instructions per k against the 33 of
// gemm_f32_4x8__wasmsimd_loadsplat, which reads a in place), and the loop runs 10–20 % faster.
// Same order of operations as the gemm kernels (k ascending, one rounding per multiply and per
// add; in the relaxed build one fused multiply-add per k in both, madd_f32x4.hpp), so the same bits.
#include <cassert>

#include "kernels/kernels.hpp"
#include "kernels/madd_f32x4.hpp"
#include "kernels/store_partial.hpp"

namespace attn::kernels {

namespace {
constexpr int kMr = 4;

}  // namespace

void ppmm_f32_4x8__scalar(int mr, int nc, int kc, const float* strip, const float* panel, float* c, int ldc) {
  assert(mr >= 1 && mr <= kMr);
  assert(nc >= 1 && nc <= kGemmNr);
  assert(kc >= 1);
  float acc[kMr][kGemmNr] = {};
  for (int k = 0; k < kc; ++k) {
    const float* strip_k = strip + static_cast<long>(k) * kMr;
    const float* panel_k = panel + static_cast<long>(k) * kGemmNr;
    for (int r = 0; r < mr; ++r) {
      for (int j = 0; j < kGemmNr; ++j) acc[r][j] += strip_k[r] * panel_k[j];
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nc; ++j) c[r * ldc + j] = acc[r][j];
  }
}

#if defined(__wasm_simd128__)

namespace {

// kFused: fused multiply-adds (the relaxed build's ppmm_f32_4x8__wasmrelaxed_splat)
template <bool kFused>
void ppmm_splat(int mr, int nc, int kc, const float* strip, const float* panel, float* c, int ldc) {
  assert(mr >= 1 && mr <= kMr);
  assert(nc >= 1 && nc <= kGemmNr);
  assert(kc >= 1);
  v128_t acc_lo[kMr], acc_hi[kMr];
#pragma clang loop unroll(full)
  for (int r = 0; r < kMr; ++r) acc_lo[r] = acc_hi[r] = wasm_f32x4_splat(0.0f);

  // main loop: one k per iteration, each a_rk broadcast from the strip (there is no remainder).
  // Not unrolled: V8 would hoist the second k's loads and spill (measured 1.8× slower).
  const float* const strip_end = strip + static_cast<long>(kc) * kMr;
#pragma clang loop unroll(disable)
  for (; strip != strip_end; strip += kMr) {
    const v128_t b_lo = wasm_v128_load(panel);
    const v128_t b_hi = wasm_v128_load(panel + 4);
    panel += kGemmNr;
#pragma clang loop unroll(full)
    for (int r = 0; r < kMr; ++r) {
      const v128_t a_rk = wasm_v128_load32_splat(strip + r);
      acc_lo[r] = madd_f32x4<kFused>(a_rk, b_lo, acc_lo[r]);
      acc_hi[r] = madd_f32x4<kFused>(a_rk, b_hi, acc_hi[r]);
    }
  }

#pragma clang loop unroll(full)
  for (int r = 0; r < kMr; ++r) {
    if (r < mr) store_partial(c + r * ldc, nc, acc_lo[r], acc_hi[r]);
  }
}

}  // namespace

void ppmm_f32_4x8__wasmsimd_splat(int mr, int nc, int kc, const float* strip, const float* panel, float* c, int ldc) {
  ppmm_splat<false>(mr, nc, kc, strip, panel, c, ldc);
}

#if defined(ATTN_RELAXED_SIMD)
void ppmm_f32_4x8__wasmrelaxed_splat(int mr, int nc, int kc, const float* strip, const float* panel, float* c,
                                     int ldc) {
  ppmm_splat<true>(mr, nc, kc, strip, panel, c, ldc);
}
#endif

#endif  // __wasm_simd128__

}  // namespace attn::kernels
