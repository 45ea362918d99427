// row = softmax(row) in place, scalar and SIMD. Three passes over the row:
//   1. the row max (subtracting it means exp() cannot overflow);
//   2. exp(x - max) and the sum;
//   3. multiply by 1 / sum (sum >= 1, since the max contributes exp(0)).
// A row that is all -inf (every key masked) becomes all zero instead of 0/0 = NaN.
#include <cassert>
#include <cmath>
#include <limits>

#include "kernels/kernels.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn::kernels {

namespace {
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
}

void softmax_f32__scalar(int cols, float* row) {
  assert(cols >= 1);
  float row_max = kMinusInf;
  for (int j = 0; j < cols; ++j) row_max = row[j] > row_max ? row[j] : row_max;
  if (row_max == kMinusInf) {
    for (int j = 0; j < cols; ++j) row[j] = 0.0f;
    return;
  }
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j) {
    row[j] = std::exp(row[j] - row_max);
    sum += row[j];
  }
  const float inv_sum = 1.0f / sum;
  for (int j = 0; j < cols; ++j) row[j] *= inv_sum;
}

#if defined(__wasm_simd128__)

namespace {

// exp(x) for x <= 0, four lanes: Cephes' expf (range reduction x = n·ln2 + r with |r| <= ln2/2,
// a degree-7 polynomial in r, then 2^n built in the exponent bits). Relative error about 1e-7.
// Below -87.3 (where 2^n would leave the normal range), including -inf, the result is exactly 0.
inline v128_t exp_nonpositive(v128_t x) {
  const v128_t lowest = wasm_f32x4_splat(-87.33654f);
  const v128_t underflow = wasm_f32x4_lt(x, lowest);
  x = wasm_f32x4_max(x, lowest);
  const v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
  // r = x - n·ln2, with ln2 split in two so that n·ln2_hi is exact
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.3981999507e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(8.3334519073e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(4.1665795894e-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.6666665459e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(5.0000001201e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, wasm_f32x4_mul(r, r)), wasm_f32x4_add(r, wasm_f32x4_splat(1.0f)));
  const v128_t two_to_n =
      wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
  return wasm_v128_andnot(wasm_f32x4_mul(p, two_to_n), underflow);
}

inline float horizontal_max(v128_t v) {
  v = wasm_f32x4_max(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_max(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

inline float horizontal_sum(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

}  // namespace

void softmax_f32__wasmsimd(int cols, float* row) {
  assert(cols >= 1);
  const int full = cols & ~3;
  const int tail = cols - full;

  // pass 1: max over full vectors, then the tail
  v128_t max_vec = wasm_f32x4_splat(kMinusInf);
  for (int j = 0; j < full; j += 4) max_vec = wasm_f32x4_max(max_vec, wasm_v128_load(row + j));
  float row_max = horizontal_max(max_vec);
  for (int j = full; j < cols; ++j) row_max = row[j] > row_max ? row[j] : row_max;
  if (row_max == kMinusInf) {
    for (int j = 0; j < cols; ++j) row[j] = 0.0f;
    return;
  }

  // pass 2: exp and sum. The tail goes through a padded copy so that every element uses the same
  // exp and nothing past the row is read or written.
  const v128_t max_splat = wasm_f32x4_splat(row_max);
  v128_t sum_vec = wasm_f32x4_splat(0.0f);
  for (int j = 0; j < full; j += 4) {
    const v128_t e = exp_nonpositive(wasm_f32x4_sub(wasm_v128_load(row + j), max_splat));
    wasm_v128_store(row + j, e);
    sum_vec = wasm_f32x4_add(sum_vec, e);
  }
  alignas(16) float tail_buffer[4] = {kMinusInf, kMinusInf, kMinusInf, kMinusInf};
  if (tail) {
    for (int t = 0; t < tail; ++t) tail_buffer[t] = row[full + t];
    const v128_t e = exp_nonpositive(wasm_f32x4_sub(wasm_v128_load(tail_buffer), max_splat));
    wasm_v128_store(tail_buffer, e);  // padding lanes are exp(-inf) = 0 and add nothing
    sum_vec = wasm_f32x4_add(sum_vec, e);
  }
  const v128_t inv_sum = wasm_f32x4_splat(1.0f / horizontal_sum(sum_vec));

  // pass 3: normalise
  for (int j = 0; j < full; j += 4) wasm_v128_store(row + j, wasm_f32x4_mul(wasm_v128_load(row + j), inv_sum));
  for (int t = 0; t < tail; ++t) row[full + t] = tail_buffer[t] * wasm_f32x4_extract_lane(inv_sum, 0);
}

#endif  // __wasm_simd128__

}  // namespace attn::kernels
