// ops.hpp, dispatched once for the build: dense products on the WebAssembly SIMD gemm kernel when
// the build has SIMD, on Eigen otherwise (natively vectorised, unvectorised in the scalar WebAssembly
// build); softmax on the best kernels of kernels::kSoftmaxKernels and kScaledSoftmaxKernels.
#include "ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

#include "kernels/kernels.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#include <Eigen/Core>
#endif

namespace attn::ops {
namespace {

constexpr const kernels::GemmEntry& kGemm = std::end(kernels::kGemmKernels)[-1];
#if defined(__wasm_simd128__)
constexpr const kernels::PpmmEntry& kPpmm = std::end(kernels::kPpmmKernels)[-1];
// From this many rows of a on, the SIMD products pack a into strips (ppmm): below it the copy costs
// about what the shorter kernel loop saves.
constexpr int kStripsFromRows = 33;
#endif

// Packed panels of b, kept between calls: it only grows, so repeated calls reach a steady heap.
float* panel_scratch(int inner, int cols) {
  static std::vector<float> panels;
  const std::size_t needed = kernels::packed_size(inner, cols);
  if (panels.size() < needed) panels.resize(needed);
  return panels.data();
}

#if defined(__wasm_simd128__)
// a's strips, kept between calls as the panels are
float* strip_scratch(int rows, int inner) {
  static std::vector<float> strips;
  const std::size_t needed = kernels::strips_size(rows, inner, kPpmm.mr);
  if (strips.size() < needed) strips.resize(needed);
  return strips.data();
}
#endif

// aᵀ (rows, inner) copied out of a (inner, rows), for the gemm driver, which reads a row-major.
float* transposed_scratch(const float* a, int lda, int rows, int inner) {
  static std::vector<float> transposed;
  const std::size_t needed = static_cast<std::size_t>(rows) * inner;
  if (transposed.size() < needed) transposed.resize(needed);
  for (int k = 0; k < inner; ++k) {
    const float* a_k = a + static_cast<std::size_t>(k) * lda;
    for (int r = 0; r < rows; ++r) transposed[static_cast<std::size_t>(r) * inner + k] = a_k[r];
  }
  return transposed.data();
}

#if !defined(__wasm_simd128__)
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstStrided = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Strided = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
#endif

constexpr kernels::SoftmaxKernel kSoftmax = std::end(kernels::kSoftmaxKernels)[-1].fn;
constexpr kernels::ScaledSoftmaxKernel kScaledSoftmax = std::end(kernels::kScaledSoftmaxKernels)[-1].fn;

}  // namespace

void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols) {
#if defined(__wasm_simd128__)
  if (rows >= kStripsFromRows) {
    kernels::gemm_f32_strips(kPpmm, rows, inner, cols, a, lda, b, ldb, false, c, ldc, strip_scratch(rows, inner),
                             panel_scratch(inner, cols));
    return;
  }
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, false, c, ldc, panel_scratch(inner, cols));
#else
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, rows, inner, Eigen::OuterStride<>(lda)) * ConstStrided(b, inner, cols, Eigen::OuterStride<>(ldb));
#endif
}

void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner,
                   int cols) {
#if defined(__wasm_simd128__)
  if (rows >= kStripsFromRows) {
    kernels::gemm_f32_strips(kPpmm, rows, inner, cols, a, lda, b, ldb, true, c, ldc, strip_scratch(rows, inner),
                             panel_scratch(inner, cols));
    return;
  }
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, true, c, ldc, panel_scratch(inner, cols));
#else
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, rows, inner, Eigen::OuterStride<>(lda)) *
      ConstStrided(b, cols, inner, Eigen::OuterStride<>(ldb)).transpose();
#endif
}

void matmul_transa(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner,
                   int cols) {
#if defined(__wasm_simd128__)
  kernels::gemm_f32(kGemm, rows, inner, cols, transposed_scratch(a, lda, rows, inner), inner, b, ldb, false, c, ldc,
                    panel_scratch(inner, cols));
#else
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, inner, rows, Eigen::OuterStride<>(lda)).transpose() *
      ConstStrided(b, inner, cols, Eigen::OuterStride<>(ldb));
#endif
}

std::vector<float> pack_panels(const float* b, int ldb, int inner, int cols) {
#if defined(__wasm_simd128__)
  std::vector<float> panels(kernels::packed_size(inner, cols));
  kernels::pack_panels(inner, cols, b, ldb, panels.data());
  return panels;
#else
  (void)b, (void)ldb, (void)inner, (void)cols;
  return {};
#endif
}

void matmul_packed(const float* a, int lda, const float* panels, float* c, int ldc, int rows, int inner, int cols) {
#if defined(__wasm_simd128__)
  if (rows >= kStripsFromRows) {
    float* strips = strip_scratch(rows, inner);
    kernels::pack_strips(rows, inner, a, lda, kPpmm.mr, strips);
    kernels::ppmm_f32(kPpmm, rows, inner, cols, strips, panels, c, ldc);
    return;
  }
  kernels::gemm_f32_prepacked(kGemm, rows, inner, cols, a, lda, panels, c, ldc);
#else
  (void)a, (void)lda, (void)panels, (void)c, (void)ldc, (void)rows, (void)inner, (void)cols;
#endif
}

void pack_strips(const float* a, int lda, int rows, int inner, std::vector<float>* strips) {
#if defined(__wasm_simd128__)
  strips->resize(kernels::strips_size(rows, inner, kPpmm.mr));
  kernels::pack_strips(rows, inner, a, lda, kPpmm.mr, strips->data());
#else
  (void)a, (void)lda, (void)rows, (void)inner;
  strips->clear();
#endif
}

bool packs_panels() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

void pack_panels_into(const float* b, int ldb, int inner, int cols, bool b_transposed, std::vector<float>* panels) {
#if defined(__wasm_simd128__)
  panels->resize(kernels::packed_size(inner, cols));
  if (b_transposed) {
    kernels::pack_panels_transposed(inner, cols, b, ldb, panels->data());
  } else {
    kernels::pack_panels(inner, cols, b, ldb, panels->data());
  }
#else
  (void)b, (void)ldb, (void)inner, (void)cols, (void)b_transposed;
  panels->clear();
#endif
}

void matmul_strips(const float* strips, const float* panels, float* c, int ldc, int rows, int inner, int cols) {
#if defined(__wasm_simd128__)
  kernels::ppmm_f32(kPpmm, rows, inner, cols, strips, panels, c, ldc);
#else
  (void)strips, (void)panels, (void)c, (void)ldc, (void)rows, (void)inner, (void)cols;
#endif
}

bool all_finite(const float* values, std::size_t count) {
  constexpr std::uint32_t kExponent = 0x7f800000u;  // all ones in ±inf and NaN only
  std::size_t i = 0;
#if defined(__wasm_simd128__)
  const v128_t exponent = wasm_i32x4_splat(static_cast<int>(kExponent));
  v128_t special = wasm_i32x4_splat(0);
  for (; i + 4 <= count; i += 4) {
    special = wasm_v128_or(special, wasm_i32x4_eq(wasm_v128_and(wasm_v128_load(values + i), exponent), exponent));
  }
  if (wasm_v128_any_true(special)) return false;
#endif
  for (; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    if ((bits & kExponent) == kExponent) return false;
  }
  return true;
}

// On the bits: |x| is x's bits without the sign, and for those the integer order is the order of the
// magnitudes, with +inf (0x7f800000) above every finite value and NaN above +inf. So one integer max
// (a single instruction on four lanes) finds the largest magnitude and any NaN or inf at once.
float largest_magnitude(const float* values, std::size_t count) {
  constexpr std::uint32_t kMagnitude = 0x7fffffffu;
  std::uint32_t largest = 0;
  std::size_t i = 0;
#if defined(__wasm_simd128__)
  const v128_t magnitude = wasm_i32x4_splat(static_cast<int>(kMagnitude));
  v128_t largest_0 = wasm_i32x4_splat(0), largest_1 = largest_0;  // two independent chains
  for (; i + 8 <= count; i += 8) {
    largest_0 = wasm_i32x4_max(largest_0, wasm_v128_and(wasm_v128_load(values + i), magnitude));
    largest_1 = wasm_i32x4_max(largest_1, wasm_v128_and(wasm_v128_load(values + i + 4), magnitude));
  }
  std::uint32_t lanes[8];
  wasm_v128_store(lanes, largest_0);
  wasm_v128_store(lanes + 4, largest_1);
  for (const std::uint32_t lane : lanes) largest = std::max(largest, lane);
#endif
  for (; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    largest = std::max(largest, bits & kMagnitude);
  }
  float result;
  std::memcpy(&result, &largest, sizeof result);
  return result;  // NaN when some value is NaN: the NaN's own bits
}

float row_maxima(const float* values, int rows, int cols, float* row_max) {
  constexpr std::uint32_t kMagnitude = 0x7fffffffu;
  std::uint32_t largest = 0;
  for (int i = 0; i < rows; ++i) {
    const float* row = values + static_cast<std::size_t>(i) * cols;
    float top = -std::numeric_limits<float>::infinity();
    int j = 0;
#if defined(__wasm_simd128__)
    // two chains each of the max (pmax: one instruction) and of the magnitudes' bits
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
#endif
    for (; j < cols; ++j) {
      std::uint32_t bits;
      std::memcpy(&bits, row + j, sizeof bits);
      largest = std::max(largest, bits & kMagnitude);
      top = row[j] > top ? row[j] : top;
    }
    row_max[i] = top;
  }
  float result;
  std::memcpy(&result, &largest, sizeof result);
  return result;  // NaN when some value is NaN, as largest_magnitude
}

void softmax_exp_rows(float* x, int rows, int cols, float scale, const float* row_max, float* inv_sum) {
#if defined(__wasm_simd128__)
  for (int i = 0; i < rows; ++i) {
    inv_sum[i] = kernels::softmax_exp_scaled_f32__wasmsimd(cols, x + static_cast<std::size_t>(i) * cols, scale, row_max[i]);
  }
#else
  (void)x, (void)rows, (void)cols, (void)scale, (void)row_max, (void)inv_sum;
#endif
}

void matmul_packed_row_scaled(float* a, int lda, const float* row_scale, const float* panels, float* c, int ldc, int rows,
                              int inner, int cols) {
#if defined(__wasm_simd128__)
  if (rows >= kStripsFromRows) {
    float* strips = strip_scratch(rows, inner);
    kernels::pack_strips(rows, inner, a, lda, kPpmm.mr, strips, row_scale);
    kernels::ppmm_f32(kPpmm, rows, inner, cols, strips, panels, c, ldc);
    return;
  }
  for (int i = 0; i < rows; ++i) {
    float* row = a + static_cast<std::size_t>(i) * lda;
    for (int k = 0; k < inner; ++k) row[k] *= row_scale[i];
  }
  kernels::gemm_f32_prepacked(kGemm, rows, inner, cols, a, lda, panels, c, ldc);
#else
  (void)a, (void)lda, (void)row_scale, (void)panels, (void)c, (void)ldc, (void)rows, (void)inner, (void)cols;
#endif
}

void softmax_rows(float* x, int ld, int rows, int cols) {
  for (int i = 0; i < rows; ++i) kSoftmax(cols, x + static_cast<std::size_t>(i) * ld);
}

void softmax_scaled_rows(float* x, int rows, int cols, float scale, bool causal, const std::uint8_t* keep) {
  for (int i = 0; i < rows; ++i) {
    const int visible = causal ? std::min(i + 1, cols) : cols;
    const std::size_t offset = static_cast<std::size_t>(i) * cols;
    kScaledSoftmax(cols, visible, keep ? keep + offset : nullptr, scale, x + offset);
  }
}

namespace portable {
namespace {

// exp(x) for x <= 0: the same range reduction and polynomial as the SIMD softmax kernel's (Cephes'
// expf), in scalar float arithmetic with one rounding per operation. Below -87.3, and at -inf, 0.
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

// row[j] = exp_nonpositive(row[j] - row_max) for every j.
void exp_shifted(float* row, int cols, float row_max) {
  int j = 0;
#if defined(__wasm_simd128__)
  const v128_t max_splat = wasm_f32x4_splat(row_max);
  for (; j + 4 <= cols; j += 4) {
    wasm_v128_store(row + j, exp_nonpositive_x4(wasm_f32x4_sub(wasm_v128_load(row + j), max_splat)));
  }
#endif
  for (; j < cols; ++j) row[j] = exp_nonpositive(row[j] - row_max);
}

}  // namespace

void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols) {
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, false, c, ldc, panel_scratch(inner, cols));
}

void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner,
                   int cols) {
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, true, c, ldc, panel_scratch(inner, cols));
}

void matmul_transa(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner,
                   int cols) {
  kernels::gemm_f32(kGemm, rows, inner, cols, transposed_scratch(a, lda, rows, inner), inner, b, ldb, false, c, ldc,
                    panel_scratch(inner, cols));
}

// Three passes as in softmax_f32: max; exp (four lanes at a time with SIMD, the same bits) and a
// left-to-right sum; multiply by 1 / sum.
void softmax_rows(float* x, int ld, int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    float* row = x + static_cast<std::size_t>(i) * ld;
    float row_max = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < cols; ++j) row_max = row[j] > row_max ? row[j] : row_max;
    if (row_max == -std::numeric_limits<float>::infinity()) {
      for (int j = 0; j < cols; ++j) row[j] = 0.0f;  // every key masked
      continue;
    }
    exp_shifted(row, cols, row_max);
    float sum = 0.0f;  // left to right, on every build
    for (int j = 0; j < cols; ++j) sum += row[j];
    const float inv_sum = 1.0f / sum;
    for (int j = 0; j < cols; ++j) row[j] *= inv_sum;
  }
}

// As ops::softmax_scaled_rows: scores · (1 / scale), -inf where masked, then softmax_rows above.
void softmax_scaled_rows(float* x, int rows, int cols, float scale, bool causal, const std::uint8_t* keep) {
  const float inv_scale = 1.0f / scale;
  for (int i = 0; i < rows; ++i) {
    float* row = x + static_cast<std::size_t>(i) * cols;
    const std::uint8_t* keep_i = keep ? keep + static_cast<std::size_t>(i) * cols : nullptr;
    for (int j = 0; j < cols; ++j) {
      const bool visible = (!causal || j <= i) && (keep_i == nullptr || keep_i[j] != 0);
      row[j] = visible ? row[j] * inv_scale : -std::numeric_limits<float>::infinity();
    }
  }
  softmax_rows(x, cols, rows, cols);
}

}  // namespace portable

}  // namespace attn::ops
