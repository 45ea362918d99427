// c (mr, nc) = a (mr, kc) · panel (kc, 8): the 4 × 8 scalar kernel (the twin of every 4 × 8 SIMD
// kernel), and the first SIMD kernel, kept for comparison: it loads four k of each row of a as one
// vector and broadcasts lanes by shuffles, so the four a vectors are live beside the 8 accumulators
// and V8 spills in its main loop (`npm run bench -- --asm`); gemm_f32_loadsplat.cpp replaced it.
#include <cassert>

#include "kernels/kernels.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn::kernels {

namespace {
constexpr int kMr = 4;
}

void gemm_f32_4x8__scalar(int mr, int nc, int kc, const float* a, int lda, const float* panel, int ldp, float* c,
                          int ldc) {
  assert(mr >= 1 && mr <= kMr);
  assert(nc >= 1 && nc <= kGemmNr);
  assert(kc >= 1);
  assert(ldp >= kGemmNr);
  float acc[kMr][kGemmNr] = {};
  for (int k = 0; k < kc; ++k) {
    const float* panel_k = panel + static_cast<long>(k) * ldp;
    for (int r = 0; r < mr; ++r) {
      const float a_rk = a[r * lda + k];
      for (int j = 0; j < kGemmNr; ++j) acc[r][j] += a_rk * panel_k[j];
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nc; ++j) c[r * ldc + j] = acc[r][j];
  }
}

#if defined(__wasm_simd128__)

namespace {

// Stores the first nc (1..8) lanes of lo:hi to c.
inline void store_partial(float* c, int nc, v128_t lo, v128_t hi) {
  if (nc == 8) {
    wasm_v128_store(c, lo);
    wasm_v128_store(c + 4, hi);
    return;
  }
  if (nc & 4) {
    wasm_v128_store(c, lo);
    lo = hi;
    c += 4;
  }
  if (nc & 2) {
    wasm_v128_store64_lane(c, lo, 0);
    lo = wasm_i64x2_shuffle(lo, lo, 1, 1);
    c += 2;
  }
  if (nc & 1) wasm_v128_store32_lane(c, lo, 0);
}

}  // namespace

void gemm_f32_4x8__wasmsimd_shuffle(int mr, int nc, int kc, const float* a, int lda, const float* panel, int ldp, float* c,
                                    int ldc) {
  assert(mr >= 1 && mr <= kMr);
  assert(nc >= 1 && nc <= kGemmNr);
  assert(kc >= 1);
  assert(ldp >= kGemmNr);
  // Rows past mr alias the last real row: they compute a duplicate that is never stored, and
  // nothing outside a is read.
  const float* a0 = a;
  const float* a1 = mr > 1 ? a0 + lda : a0;
  const float* a2 = mr > 2 ? a1 + lda : a1;
  const float* a3 = mr > 3 ? a2 + lda : a2;

  v128_t acc0_lo = wasm_f32x4_splat(0.0f), acc0_hi = acc0_lo;
  v128_t acc1_lo = acc0_lo, acc1_hi = acc0_lo;
  v128_t acc2_lo = acc0_lo, acc2_hi = acc0_lo;
  v128_t acc3_lo = acc0_lo, acc3_hi = acc0_lo;

#define ATTN_GEMM_STEP(a0_k, a1_k, a2_k, a3_k)                                    \
  do {                                                                            \
    const v128_t b_lo = wasm_v128_load(panel);                                    \
    const v128_t b_hi = wasm_v128_load(panel + 4);                                \
    panel += ldp;                                                                 \
    acc0_lo = wasm_f32x4_add(acc0_lo, wasm_f32x4_mul(a0_k, b_lo));                \
    acc0_hi = wasm_f32x4_add(acc0_hi, wasm_f32x4_mul(a0_k, b_hi));                \
    acc1_lo = wasm_f32x4_add(acc1_lo, wasm_f32x4_mul(a1_k, b_lo));                \
    acc1_hi = wasm_f32x4_add(acc1_hi, wasm_f32x4_mul(a1_k, b_hi));                \
    acc2_lo = wasm_f32x4_add(acc2_lo, wasm_f32x4_mul(a2_k, b_lo));                \
    acc2_hi = wasm_f32x4_add(acc2_hi, wasm_f32x4_mul(a2_k, b_hi));                \
    acc3_lo = wasm_f32x4_add(acc3_lo, wasm_f32x4_mul(a3_k, b_lo));                \
    acc3_hi = wasm_f32x4_add(acc3_hi, wasm_f32x4_mul(a3_k, b_hi));                \
  } while (0)

  // main loop: four k at a time, one vector load per row of a, each lane broadcast in turn
  int k = 0;
  for (; k + 4 <= kc; k += 4) {
    const v128_t va0 = wasm_v128_load(a0 + k);
    const v128_t va1 = wasm_v128_load(a1 + k);
    const v128_t va2 = wasm_v128_load(a2 + k);
    const v128_t va3 = wasm_v128_load(a3 + k);
    ATTN_GEMM_STEP(wasm_i32x4_shuffle(va0, va0, 0, 0, 0, 0), wasm_i32x4_shuffle(va1, va1, 0, 0, 0, 0),
                   wasm_i32x4_shuffle(va2, va2, 0, 0, 0, 0), wasm_i32x4_shuffle(va3, va3, 0, 0, 0, 0));
    ATTN_GEMM_STEP(wasm_i32x4_shuffle(va0, va0, 1, 1, 1, 1), wasm_i32x4_shuffle(va1, va1, 1, 1, 1, 1),
                   wasm_i32x4_shuffle(va2, va2, 1, 1, 1, 1), wasm_i32x4_shuffle(va3, va3, 1, 1, 1, 1));
    ATTN_GEMM_STEP(wasm_i32x4_shuffle(va0, va0, 2, 2, 2, 2), wasm_i32x4_shuffle(va1, va1, 2, 2, 2, 2),
                   wasm_i32x4_shuffle(va2, va2, 2, 2, 2, 2), wasm_i32x4_shuffle(va3, va3, 2, 2, 2, 2));
    ATTN_GEMM_STEP(wasm_i32x4_shuffle(va0, va0, 3, 3, 3, 3), wasm_i32x4_shuffle(va1, va1, 3, 3, 3, 3),
                   wasm_i32x4_shuffle(va2, va2, 3, 3, 3, 3), wasm_i32x4_shuffle(va3, va3, 3, 3, 3, 3));
  }
  // remainder: one k at a time
  for (; k < kc; ++k) {
    ATTN_GEMM_STEP(wasm_v128_load32_splat(a0 + k), wasm_v128_load32_splat(a1 + k), wasm_v128_load32_splat(a2 + k),
                   wasm_v128_load32_splat(a3 + k));
  }
#undef ATTN_GEMM_STEP

  store_partial(c, nc, acc0_lo, acc0_hi);
  if (mr > 1) store_partial(c + ldc, nc, acc1_lo, acc1_hi);
  if (mr > 2) store_partial(c + 2 * ldc, nc, acc2_lo, acc2_hi);
  if (mr > 3) store_partial(c + 3 * ldc, nc, acc3_lo, acc3_hi);
}

#endif  // __wasm_simd128__

}  // namespace attn::kernels
