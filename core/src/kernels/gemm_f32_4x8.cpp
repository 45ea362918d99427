// c (mr, nc) = a (mr, kc) · panel (kc, 8): the 4 × 8 scalar kernel, the twin of
// gemm_f32_4x8__wasmsimd_loadsplat (gemm_f32_loadsplat.cpp).
#include <cassert>

#include "kernels/kernels.hpp"

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

}  // namespace attn::kernels
