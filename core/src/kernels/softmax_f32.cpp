// row = softmax(row) in place, scalar and SIMD. Three passes over the row:
//   1. the row max (subtracting it means exp() cannot overflow);
//   2. exp(x - max) and the sum;
//   3. multiply by 1 / sum (sum >= 1, since the max contributes exp(0)).
// A row that is all -inf (every key masked) becomes all zero instead of 0/0 = NaN.
#include <cassert>
#include <cmath>
#include <cstdint>
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
  // the fused pass with every key visible and a scale of 1 (x · 1 is x exactly): the same bits
  softmax_scaled_f32__scalar(cols, cols, nullptr, 1.0f, row);
}

// The fused row pass for attention: scale, mask and max in one sweep, then exp and sum, then
// normalise, over the visible keys only; hidden keys are written as 0 in the first sweep.
void softmax_scaled_f32__scalar(int cols, int visible, const std::uint8_t* keep, float scale, float* row) {
  assert(cols >= 1 && visible >= 0 && visible <= cols);
  const float inv_scale = 1.0f / scale;
  // pass 1: scale, mask, max
  float row_max = kMinusInf;
  for (int j = 0; j < visible; ++j) {
    const float scaled_j = keep && !keep[j] ? kMinusInf : row[j] * inv_scale;
    row[j] = scaled_j;
    row_max = scaled_j > row_max ? scaled_j : row_max;
  }
  for (int j = visible; j < cols; ++j) row[j] = 0.0f;
  if (row_max == kMinusInf) {
    for (int j = 0; j < visible; ++j) row[j] = 0.0f;
    return;
  }
  // pass 2: exp(x - max) and the sum; pass 3: normalise
  float sum = 0.0f;
  for (int j = 0; j < visible; ++j) {
    row[j] = std::exp(row[j] - row_max);
    sum += row[j];
  }
  const float inv_sum = 1.0f / sum;
  for (int j = 0; j < visible; ++j) row[j] *= inv_sum;
}

// softmax_scaled_f32__scalar's passes 2 and 3 with every key visible, the row's max known: the same
// products and the same left-to-right sum, so row_j · (the result) is that kernel's row_j.
float softmax_exp_scaled_f32__scalar(int cols, float* row, float scale, float raw_max) {
  assert(cols >= 1);
  const float inv_scale = 1.0f / scale;
  // x ↦ x · inv_scale rounds monotonically (inv_scale > 0): the max of the scaled row is the scaled max
  const float row_max = raw_max * inv_scale;
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j) {
    row[j] = std::exp(row[j] * inv_scale - row_max);
    sum += row[j];
  }
  return 1.0f / sum;
}

#if defined(__wasm_simd128__)

namespace {

// exp(x) for x <= 0, four lanes: range reduction x = n·ln2 + r with |r| <= ln2/2 (Cephes' split of
// ln2), a degree-5 polynomial in r, then 2^n built in the exponent bits. Relative error about 2e-7.
// n is rounded by adding and subtracting 1.5·2^23 (the float's spacing there is 1, so the addition
// rounds to nearest), and 2^n's bits come from that sum's low bits: no nearest() and no float to
// int conversion, which V8 lowers to long saturating sequences on x64.
// x is first raised to -127·ln2 (pmax: one instruction, unlike max), where n = -127 and 2^n's bits
// are all zero: there, and so for every x below it and for -inf, the result is exactly 0 with no
// compare and select (which took five instructions and two of V8's few SIMD registers). Between
// -87.68 and -87.34 the result is 2^-126·e^r, about 1e-38, where a float has no normal value below.
inline v128_t exp_nonpositive(v128_t x) {
  x = wasm_f32x4_pmax(wasm_f32x4_splat(-88.02969193f), x);  // pmax(a, b) = a < b ? b : a
  const v128_t magic = wasm_f32x4_splat(12582912.0f);       // 1.5·2^23
  const v128_t shifted = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)), magic);
  const v128_t n = wasm_f32x4_sub(shifted, magic);
  // r = x - n·ln2, with ln2 split in two so that n·ln2_hi is exact
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  // exp(r) = 1 + r·p(r), p of degree 4 (XNNPACK's rr2-p5 minimax coefficients)
  v128_t p = wasm_f32x4_splat(0x1.0F9F9Cp-7f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(0x1.573A1Ap-5f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(0x1.555A80p-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(0x1.FFFDC6p-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(0x1.FFFFF6p-1f));
  // shifted's bits are bits(1.5·2^23) + n; bits(1.5·2^23) << 23 vanishes, leaving (n + 127) << 23
  const v128_t two_to_n = wasm_i32x4_shl(wasm_i32x4_add(shifted, wasm_i32x4_splat(127)), 23);
  // 2^n·exp(r) = 2^n + (2^n·r)·p(r)
  const v128_t scaled_r = wasm_f32x4_mul(r, two_to_n);
  return wasm_f32x4_add(wasm_f32x4_mul(scaled_r, p), two_to_n);
}

inline float horizontal_max(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

inline float horizontal_sum(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// Pass 2 of a softmax over row[0..cols-1] whose max is row_max (finite): row_j = exp(x_j - max) and
// the sum, returned as 1 / sum on every lane, where x_j is row_j · inv_scale: the raw score scaled
// here (the same product pass 1 would have stored, so the same bits), or with inv_scale 1 the value
// as it is (x · 1 is x exactly). One function for both, not inlined into either caller, so the exp is
// in the engine twice, not four times (one call per row).
[[gnu::noinline]] v128_t softmax_exp(int cols, float* row, float row_max, float inv_scale) {
  const int full = cols & ~3;
  const int tail = cols - full;
  const v128_t max_splat = wasm_f32x4_splat(row_max);
  const v128_t inv_scale_splat = wasm_f32x4_splat(inv_scale);
  v128_t sum_vec = wasm_f32x4_splat(0.0f);
  const auto exp_at = [&](float* at) {
    const v128_t e = exp_nonpositive(wasm_f32x4_sub(wasm_f32x4_mul(wasm_v128_load(at), inv_scale_splat), max_splat));
    wasm_v128_store(at, e);
    sum_vec = wasm_f32x4_add(sum_vec, e);
  };
  for (int j = 0; j < full; j += 4) exp_at(row + j);
  // the tail through a padded copy (padding -inf, whose exp is 0): every element uses the same exp
  // and nothing past the row is read or written
  if (tail) {
    alignas(16) float tail_buffer[4] = {kMinusInf, kMinusInf, kMinusInf, kMinusInf};
    for (int t = 0; t < tail; ++t) tail_buffer[t] = row[full + t];
    exp_at(tail_buffer);
    for (int t = 0; t < tail; ++t) row[full + t] = tail_buffer[t];
  }
  return wasm_f32x4_splat(1.0f / horizontal_sum(sum_vec));
}

// Passes 2 and 3 of a softmax over row[0..cols-1] whose max is row_max (finite): exp(x - max) and
// the sum, then multiply by 1 / sum.
void softmax_exp_normalise(int cols, float* row, float row_max) {
  const v128_t inv_sum = softmax_exp(cols, row, row_max, 1.0f);
  const int full = cols & ~3;
  for (int j = 0; j < full; j += 4) wasm_v128_store(row + j, wasm_f32x4_mul(wasm_v128_load(row + j), inv_sum));
  for (int j = full; j < cols; ++j) row[j] *= wasm_f32x4_extract_lane(inv_sum, 0);
}

}  // namespace

void softmax_f32__wasmsimd(int cols, float* row) {
  assert(cols >= 1);
  const int full = cols & ~3;

  // pass 1: max over full vectors, then the tail
  v128_t max_vec = wasm_f32x4_splat(kMinusInf);
  for (int j = 0; j < full; j += 4) max_vec = wasm_f32x4_pmax(max_vec, wasm_v128_load(row + j));
  float row_max = horizontal_max(max_vec);
  for (int j = full; j < cols; ++j) row_max = row[j] > row_max ? row[j] : row_max;
  if (row_max == kMinusInf) {
    for (int j = 0; j < cols; ++j) row[j] = 0.0f;
    return;
  }

  softmax_exp_normalise(cols, row, row_max);
}

void softmax_scaled_f32__wasmsimd(int cols, int visible, const std::uint8_t* keep, float scale, float* row) {
  assert(cols >= 1 && visible >= 0 && visible <= cols);
  const int full = visible & ~7;
  const float inv_scale = 1.0f / scale;
  const v128_t inv_scale_splat = wasm_f32x4_splat(inv_scale);
  const v128_t minus_inf = wasm_f32x4_splat(kMinusInf);

  // pass 1: scale, mask and max, eight keys per step in two independent max chains (pmax is one
  // instruction; a chain of max is eight, serial)
  v128_t max_a = minus_inf, max_b = minus_inf;
  for (int j = 0; j < full; j += 8) {
    v128_t lo = wasm_f32x4_mul(wasm_v128_load(row + j), inv_scale_splat);
    v128_t hi = wasm_f32x4_mul(wasm_v128_load(row + j + 4), inv_scale_splat);
    if (keep) {  // 8 keep bytes widened to two masks of four lanes: all ones where kept
      const v128_t bytes = wasm_v128_load64_zero(keep + j);
      const v128_t halves = wasm_u16x8_extend_low_u8x16(bytes);
      lo = wasm_v128_bitselect(lo, minus_inf, wasm_i32x4_ne(wasm_u32x4_extend_low_u16x8(halves), wasm_i32x4_splat(0)));
      hi = wasm_v128_bitselect(hi, minus_inf, wasm_i32x4_ne(wasm_u32x4_extend_high_u16x8(halves), wasm_i32x4_splat(0)));
    }
    wasm_v128_store(row + j, lo);
    wasm_v128_store(row + j + 4, hi);
    max_a = wasm_f32x4_pmax(max_a, lo);
    max_b = wasm_f32x4_pmax(max_b, hi);
  }
  float row_max = horizontal_max(wasm_f32x4_pmax(max_a, max_b));
  for (int j = full; j < visible; ++j) {
    const float scaled_j = keep && !keep[j] ? kMinusInf : row[j] * inv_scale;
    row[j] = scaled_j;
    row_max = scaled_j > row_max ? scaled_j : row_max;
  }
  for (int j = visible; j < cols; ++j) row[j] = 0.0f;
  if (row_max == kMinusInf) {
    for (int j = 0; j < visible; ++j) row[j] = 0.0f;
    return;
  }
  // passes 2 and 3 over the visible keys, as in the plain softmax
  softmax_exp_normalise(visible, row, row_max);
}

float softmax_exp_scaled_f32__wasmsimd(int cols, float* row, float scale, float raw_max) {
  assert(cols >= 1);
  const float inv_scale = 1.0f / scale;
  // x ↦ x · inv_scale rounds monotonically (inv_scale > 0): the max of the scaled row is the scaled max
  return wasm_f32x4_extract_lane(softmax_exp(cols, row, raw_max * inv_scale, inv_scale), 0);
}

#endif  // __wasm_simd128__

}  // namespace attn::kernels
