// c (mr, nc) = a (mr, kc) · panel (kc, 8): the register-blocked micro-kernels that broadcast each a_rk
// straight from memory (load32_splat), one k per iteration. At 4 × 8: 8 f32x4 accumulators, 2 panel
// vectors, the 4 broadcasts (V8 loads them all at the top of the iteration) and 1 product: 15
// values, which V8's WebAssembly register allocator keeps in registers with no spill (`npm run bench
// -- --asm` prints the loop's instruction mix). Measured here against the same driver: 3 × 8 reached
// 76–87 % of the mul+add ceiling, 4 × 8 93–102 %; 5 × 8 and 6 × 8 42–51 %, since V8 hoists every
// broadcast to the top of the iteration and 17 or 19 live values spill. No clang unrolling for the
// same reason (an unrolled 3 × 8 measured 1.45× slower). The relaxed build fuses each multiply and
// add (madd_f32x4.hpp): the same instruction count less one per accumulator.
#include <cassert>

#include "kernels/kernels.hpp"
#include "kernels/madd_f32x4.hpp"
#include "kernels/store_partial.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn::kernels {

#if defined(__wasm_simd128__)

namespace {

// The SIMD kernel of height kMr (kFused: fused multiply-adds, the relaxed build). Rows past mr alias
// the last real row: they compute a duplicate that is never stored, and nothing outside a is read.
template <int kMr, bool kFused>
void gemm_loadsplat(int mr, int nc, int kc, const float* a, int lda, const float* panel, int ldp, float* c, int ldc) {
  assert(mr >= 1 && mr <= kMr);
  assert(nc >= 1 && nc <= kGemmNr);
  assert(kc >= 1);
  assert(ldp >= kGemmNr);
  const float* a_row[kMr];
  v128_t acc_lo[kMr], acc_hi[kMr];
#pragma clang loop unroll(full)
  for (int r = 0; r < kMr; ++r) {
    a_row[r] = r == 0 ? a : r < mr ? a_row[r - 1] + lda : a_row[r - 1];
    acc_lo[r] = acc_hi[r] = wasm_f32x4_splat(0.0f);
  }

  // main loop: one k per iteration, each a_rk broadcast from memory (there is no remainder)
#pragma clang loop unroll(disable)
  for (int k = 0; k < kc; ++k) {
    const v128_t b_lo = wasm_v128_load(panel);
    const v128_t b_hi = wasm_v128_load(panel + 4);
    panel += ldp;
#pragma clang loop unroll(full)
    for (int r = 0; r < kMr; ++r) {
      const v128_t a_rk = wasm_v128_load32_splat(a_row[r] + k);
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

void gemm_f32_4x8__wasmsimd_loadsplat(int mr, int nc, int kc, const float* a, int lda, const float* panel, int ldp,
                                      float* c, int ldc) {
  gemm_loadsplat<4, false>(mr, nc, kc, a, lda, panel, ldp, c, ldc);
}

#if defined(ATTN_RELAXED_SIMD)
void gemm_f32_4x8__wasmrelaxed_loadsplat(int mr, int nc, int kc, const float* a, int lda, const float* panel, int ldp,
                                         float* c, int ldc) {
  gemm_loadsplat<4, true>(mr, nc, kc, a, lda, panel, ldp, c, ldc);
}
#endif

#endif  // __wasm_simd128__

}  // namespace attn::kernels
