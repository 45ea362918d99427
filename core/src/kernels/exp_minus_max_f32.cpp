// row_j = exp(row_j − row_max) for the portable softmax (ops::portable): the same bits on every
// build, so the scalar and SIMD versions make the same operations in the same order, one rounding
// per operation, with no library exp and no fused multiply-add.
// exp(x) for x <= 0: the range reduction and polynomial of Cephes' expf. Below -87.3, and at -inf, 0.
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/kernels.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn::kernels {
namespace {

float exp_nonpositive(float x) {
  if (!(x >= -87.33654f)) return 0.0f;
  const float n = std::nearbyint(x * 1.44269504088896341f);
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + (r + 1.0f);
  // 2^n from its exponent bits (n >= -126 here, so 2^n is normal); the product rounds once, as a
  // correctly rounded ldexp would, without ldexp's library call
  const std::uint32_t bits = static_cast<std::uint32_t>(static_cast<int>(n) + 127) << 23;
  float two_to_n;
  std::memcpy(&two_to_n, &bits, sizeof two_to_n);
  return p * two_to_n;
}

#if defined(__wasm_simd128__)
// exp_nonpositive on four lanes: the same operations in the same order, so the same bits per lane.
v128_t exp_nonpositive_x4(v128_t x) {
  const v128_t lowest = wasm_f32x4_splat(-87.33654f);
  const v128_t underflow = wasm_f32x4_lt(x, lowest);  // also true for -inf
  x = wasm_f32x4_max(x, lowest);
  const v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.3981999507e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(8.3334519073e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(4.1665795894e-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.6666665459e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(5.0000001201e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, wasm_f32x4_mul(r, r)), wasm_f32x4_add(r, wasm_f32x4_splat(1.0f)));
  const v128_t two_to_n = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
  return wasm_v128_andnot(wasm_f32x4_mul(p, two_to_n), underflow);
}
#endif

}  // namespace

void exp_minus_max_f32__scalar(int cols, float* row, float row_max) {
  assert(cols >= 0);
  for (int j = 0; j < cols; ++j) row[j] = exp_nonpositive(row[j] - row_max);
}

#if defined(__wasm_simd128__)
// Full vectors of four, then the tail through the scalar exp (the same bits).
void exp_minus_max_f32__wasmsimd(int cols, float* row, float row_max) {
  assert(cols >= 0);
  int j = 0;
  const v128_t max_splat = wasm_f32x4_splat(row_max);
  for (; j + 4 <= cols; j += 4) {
    wasm_v128_store(row + j, exp_nonpositive_x4(wasm_f32x4_sub(wasm_v128_load(row + j), max_splat)));
  }
  for (; j < cols; ++j) row[j] = exp_nonpositive(row[j] - row_max);
}
#endif

}  // namespace attn::kernels
