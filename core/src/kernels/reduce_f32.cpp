// The forward's checks of what each pass wrote, as reductions over float bits:
//   all_finite: no value is ±inf or NaN;
//   max_magnitude: the largest |value|, NaN when some value is NaN;
//   row_maxima: max_magnitude of (rows, cols) values and each row's max.
// On the bits: |x| is x's bits without the sign, and for those the integer order is the order of the
// magnitudes, with +inf (0x7f800000) above every finite value and NaN above +inf. So one integer max
// (a single instruction on four lanes) finds the largest magnitude and any NaN or inf at once.
// The scalar and SIMD versions give the same answers (integer arithmetic and exact maxima).
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/kernels.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn::kernels {
namespace {

constexpr std::uint32_t kExponent = 0x7f800000u;  // all ones in ±inf and NaN only
constexpr std::uint32_t kMagnitude = 0x7fffffffu;

std::uint32_t bits_of(const float* value) {
  std::uint32_t bits;
  std::memcpy(&bits, value, sizeof bits);
  return bits;
}

float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

// Four values per step without a branch per value, which keeps the check of megabytes of weights a
// small fraction of a call.
bool all_finite_f32__scalar(std::size_t count, const float* values) {
  std::uint32_t any_special = 0;
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    std::uint32_t bits[4];
    std::memcpy(bits, values + i, sizeof bits);
    any_special |= ((bits[0] & kExponent) == kExponent) | ((bits[1] & kExponent) == kExponent) |
                   ((bits[2] & kExponent) == kExponent) | ((bits[3] & kExponent) == kExponent);
  }
  for (; i < count; ++i) any_special |= (bits_of(values + i) & kExponent) == kExponent;
  return any_special == 0;
}

float max_magnitude_f32__scalar(std::size_t count, const float* values) {
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < count; ++i) largest = std::max(largest, bits_of(values + i) & kMagnitude);
  return float_of(largest);  // NaN when some value is NaN: the NaN's own bits
}

float row_maxima_f32__scalar(int rows, int cols, const float* values, float* row_max) {
  assert(rows >= 1 && cols >= 1);
  std::uint32_t largest = 0;
  for (int i = 0; i < rows; ++i) {
    const float* row = values + static_cast<std::size_t>(i) * cols;
    float top = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < cols; ++j) {
      largest = std::max(largest, bits_of(row + j) & kMagnitude);
      top = row[j] > top ? row[j] : top;
    }
    row_max[i] = top;
  }
  return float_of(largest);
}

#if defined(__wasm_simd128__)

// Full vectors of four, then the scalar tail.
bool all_finite_f32__wasmsimd(std::size_t count, const float* values) {
  std::size_t i = 0;
  const v128_t exponent = wasm_i32x4_splat(static_cast<int>(kExponent));
  v128_t special = wasm_i32x4_splat(0);
  for (; i + 4 <= count; i += 4) {
    special = wasm_v128_or(special, wasm_i32x4_eq(wasm_v128_and(wasm_v128_load(values + i), exponent), exponent));
  }
  if (wasm_v128_any_true(special)) return false;
  for (; i < count; ++i) {
    if ((bits_of(values + i) & kExponent) == kExponent) return false;
  }
  return true;
}

// Eight values per step in two independent chains, then the scalar tail.
float max_magnitude_f32__wasmsimd(std::size_t count, const float* values) {
  std::uint32_t largest = 0;
  std::size_t i = 0;
  const v128_t magnitude = wasm_i32x4_splat(static_cast<int>(kMagnitude));
  v128_t largest_0 = wasm_i32x4_splat(0), largest_1 = largest_0;
  for (; i + 8 <= count; i += 8) {
    largest_0 = wasm_i32x4_max(largest_0, wasm_v128_and(wasm_v128_load(values + i), magnitude));
    largest_1 = wasm_i32x4_max(largest_1, wasm_v128_and(wasm_v128_load(values + i + 4), magnitude));
  }
  std::uint32_t lanes[8];
  wasm_v128_store(lanes, largest_0);
  wasm_v128_store(lanes + 4, largest_1);
  for (const std::uint32_t lane : lanes) largest = std::max(largest, lane);
  for (; i < count; ++i) largest = std::max(largest, bits_of(values + i) & kMagnitude);
  return float_of(largest);
}

// Per row: eight values per step in two chains each of the max (pmax: one instruction) and of the
// magnitudes' bits, then the scalar tail.
float row_maxima_f32__wasmsimd(int rows, int cols, const float* values, float* row_max) {
  assert(rows >= 1 && cols >= 1);
  std::uint32_t largest = 0;
  for (int i = 0; i < rows; ++i) {
    const float* row = values + static_cast<std::size_t>(i) * cols;
    float top = -std::numeric_limits<float>::infinity();
    int j = 0;
    const v128_t magnitude = wasm_i32x4_splat(static_cast<int>(kMagnitude));
    v128_t top_0 = wasm_f32x4_splat(top), top_1 = top_0;
    v128_t largest_0 = wasm_i32x4_splat(0), largest_1 = largest_0;
    for (; j + 8 <= cols; j += 8) {
      const v128_t lo = wasm_v128_load(row + j), hi = wasm_v128_load(row + j + 4);
      top_0 = wasm_f32x4_pmax(top_0, lo);
      top_1 = wasm_f32x4_pmax(top_1, hi);
      largest_0 = wasm_i32x4_max(largest_0, wasm_v128_and(lo, magnitude));
      largest_1 = wasm_i32x4_max(largest_1, wasm_v128_and(hi, magnitude));
    }
    alignas(16) float tops[8];
    alignas(16) std::uint32_t lanes[8];
    wasm_v128_store(tops, top_0);
    wasm_v128_store(tops + 4, top_1);
    wasm_v128_store(lanes, largest_0);
    wasm_v128_store(lanes + 4, largest_1);
    for (int lane = 0; lane < 8; ++lane) {
      top = tops[lane] > top ? tops[lane] : top;
      largest = std::max(largest, lanes[lane]);
    }
    for (; j < cols; ++j) {
      largest = std::max(largest, bits_of(row + j) & kMagnitude);
      top = row[j] > top ? row[j] : top;
    }
    row_max[i] = top;
  }
  return float_of(largest);
}

#endif  // __wasm_simd128__

}  // namespace attn::kernels
