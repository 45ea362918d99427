// ops.hpp, dispatched once for the build: dense products on the WebAssembly SIMD gemm kernel when
// the build has SIMD, on Eigen otherwise (natively vectorised, unvectorised in the scalar WebAssembly
// build); the packed products, softmax and checks on the best kernels of kernels.hpp's lists (the
// scalar ones where the build has no SIMD).
#include "ops.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

#include "kernels/kernels.hpp"

#if !defined(__wasm_simd128__)
#include <Eigen/Core>
#endif

namespace attn::ops {
namespace {

// Best last: the last entry the build has. The entries are copied, not referred to: a reference to
// a list's entry keeps the whole list, and every kernel it names, in the engine (the page's relaxed and
// SIMD engines carried the scalar kernels, and the relaxed one the SIMD kernels too).
template <typename List>
constexpr const auto& best(const List& list) {
  return std::end(list)[-1];
}
constexpr kernels::GemmEntry kGemm = best(kernels::kGemmKernels);
constexpr kernels::PpmmEntry kPpmm = best(kernels::kPpmmKernels);
// ops::portable's products (the trainers, Arithmetic::Portable): mul + add in every build, so the
// same bits everywhere; the relaxed build's fused kernel (the list's last) serves the rest only.
#if defined(ATTN_RELAXED_SIMD)
constexpr kernels::GemmEntry kPortableGemm = std::end(kernels::kGemmKernels)[-2];
#else
constexpr kernels::GemmEntry kPortableGemm = kGemm;
#endif
constexpr kernels::SoftmaxKernel kSoftmax = best(kernels::kSoftmaxKernels).fn;
constexpr kernels::ScaledSoftmaxKernel kScaledSoftmax = best(kernels::kScaledSoftmaxKernels).fn;
constexpr kernels::SoftmaxExpScaledKernel kSoftmaxExpScaled = best(kernels::kSoftmaxExpScaledKernels).fn;
constexpr kernels::ExpMinusMaxKernel kExpMinusMax = best(kernels::kExpMinusMaxKernels).fn;
constexpr kernels::AllFiniteKernel kAllFinite = best(kernels::kAllFiniteKernels).fn;
constexpr kernels::MaxMagnitudeKernel kMaxMagnitude = best(kernels::kMaxMagnitudeKernels).fn;
constexpr kernels::RowMaximaKernel kRowMaxima = best(kernels::kRowMaximaKernels).fn;

// From this many rows of a on, the packed products pack a into strips (ppmm): below it the copy
// costs about what the shorter kernel loop saves.
constexpr int kStripsFromRows = 33;
// ... and from this many on when the shared dimension is long, for matmul_packed on prepared weights:
// there the strips' kernel reads the next panel as it computes (gemm_driver.cpp's ppmm_tile). GPT-2
// small's W_O at n = 16 took 0.55 ms of CPU time against 0.62 with the gemm kernel reading a in place
// (relaxed build, bench/peak.cpp's block_products, 2026-11-27); the same bits either way.
constexpr int kLongStripsFromRows = 8;
constexpr int kLongInner = 256;

// The caller's scratch, grown to fit and never shrunk: a caller that keeps it reaches a steady heap.
float* grown(std::vector<float>* buffer, std::size_t needed) {
  if (buffer->size() < needed) buffer->resize(needed);
  return buffer->data();
}

float* panel_scratch(ProductScratch* scratch, int inner, int cols) {
  return grown(&scratch->panels, kernels::packed_size(inner, cols));
}

float* strip_scratch(ProductScratch* scratch, int rows, int inner) {
  return grown(&scratch->strips, kernels::strips_size(rows, inner, kPpmm.mr));
}

// aᵀ (rows, inner) copied out of a (inner, rows), for the gemm driver, which reads a row-major.
float* transposed_scratch(ProductScratch* scratch, const float* a, int lda, int rows, int inner) {
  float* transposed = grown(&scratch->transposed, static_cast<std::size_t>(rows) * inner);
  for (int k = 0; k < inner; ++k) {
    const float* a_k = a + static_cast<std::size_t>(k) * lda;
    for (int r = 0; r < rows; ++r) transposed[static_cast<std::size_t>(r) * inner + k] = a_k[r];
  }
  return transposed;
}

#if !defined(__wasm_simd128__)
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstStrided = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Strided = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
#endif

}  // namespace

void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
            ProductScratch* scratch) {
#if defined(__wasm_simd128__)
  if (rows >= kStripsFromRows) {
    kernels::gemm_f32_strips(kPpmm, rows, inner, cols, a, lda, b, ldb, false, c, ldc,
                             strip_scratch(scratch, rows, inner), panel_scratch(scratch, inner, cols));
    return;
  }
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, false, c, ldc, panel_scratch(scratch, inner, cols));
#else
  (void)scratch;  // Eigen's products keep their own
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, rows, inner, Eigen::OuterStride<>(lda)) * ConstStrided(b, inner, cols, Eigen::OuterStride<>(ldb));
#endif
}

void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch) {
#if defined(__wasm_simd128__)
  if (rows >= kStripsFromRows) {
    kernels::gemm_f32_strips(kPpmm, rows, inner, cols, a, lda, b, ldb, true, c, ldc,
                             strip_scratch(scratch, rows, inner), panel_scratch(scratch, inner, cols));
    return;
  }
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, true, c, ldc, panel_scratch(scratch, inner, cols));
#else
  (void)scratch;  // Eigen's products keep their own
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, rows, inner, Eigen::OuterStride<>(lda)) *
      ConstStrided(b, cols, inner, Eigen::OuterStride<>(ldb)).transpose();
#endif
}

void matmul_transa(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch) {
#if defined(__wasm_simd128__)
  kernels::gemm_f32(kGemm, rows, inner, cols, transposed_scratch(scratch, a, lda, rows, inner), inner, b, ldb, false, c,
                    ldc, panel_scratch(scratch, inner, cols));
#else
  (void)scratch;  // Eigen's products keep their own
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, inner, rows, Eigen::OuterStride<>(lda)).transpose() *
      ConstStrided(b, inner, cols, Eigen::OuterStride<>(ldb));
#endif
}

std::vector<float> pack_panels(const float* b, int ldb, int inner, int cols) {
  std::vector<float> panels(kernels::packed_size(inner, cols));
  kernels::pack_panels(inner, cols, b, ldb, panels.data());
  return panels;
}

// The shared dimension is not cut into chunks, however long (the MLP's 3072): with a 4-row strip of
// 48 KB and a panel of 96 KB the kernel reads both from L2 at its pace, and chunks of 256 or 512 (each
// packing a's strips anew and adding every tile into c once more) made GPT-2 small's prepared block
// 6 % slower at n = 16 in the relaxed build and 13 % in the SIMD one (bench/block.mjs --before,
// 2026-11-29, docs/performance.md).
void matmul_packed(const float* a, int lda, const float* panels, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch) {
  if (rows >= kStripsFromRows || (rows >= kLongStripsFromRows && inner >= kLongInner)) {
    float* strips = strip_scratch(scratch, rows, inner);
    kernels::pack_strips(rows, inner, a, lda, kPpmm.mr, strips);
    kernels::ppmm_f32(kPpmm, rows, inner, cols, strips, panels, c, ldc);
    return;
  }
  kernels::gemm_f32_prepacked(kGemm, rows, inner, cols, a, lda, panels, c, ldc);
}

void pack_strips(const float* a, int lda, int rows, int inner, std::vector<float>* strips) {
  strips->resize(kernels::strips_size(rows, inner, kPpmm.mr));
  kernels::pack_strips(rows, inner, a, lda, kPpmm.mr, strips->data());
}

bool packed_is_fastest() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

void pack_panels_into(const float* b, int ldb, int inner, int cols, bool b_transposed, std::vector<float>* panels) {
  panels->resize(kernels::packed_size(inner, cols));
  if (b_transposed) {
    kernels::pack_panels_transposed(inner, cols, b, ldb, panels->data());
  } else {
    kernels::pack_panels(inner, cols, b, ldb, panels->data());
  }
}

void matmul_strips(const float* strips, const float* panels, float* c, int ldc, int rows, int inner, int cols) {
  kernels::ppmm_f32(kPpmm, rows, inner, cols, strips, panels, c, ldc);
}

bool all_finite(const float* values, std::size_t count) { return kAllFinite(count, values); }

float largest_magnitude(const float* values, std::size_t count) { return kMaxMagnitude(count, values); }

float row_maxima(const float* values, int rows, int cols, float* row_max) {
  return kRowMaxima(rows, cols, values, row_max);
}

void softmax_exp_rows(float* x, int rows, int cols, float scale, const float* row_max, float* inv_sum) {
  for (int i = 0; i < rows; ++i) {
    inv_sum[i] = kSoftmaxExpScaled(cols, x + static_cast<std::size_t>(i) * cols, scale, row_max[i]);
  }
}

void matmul_packed_row_scaled(float* a, int lda, const float* row_scale, const float* panels, float* c, int ldc,
                              int rows, int inner, int cols, ProductScratch* scratch) {
  if (rows >= kStripsFromRows) {
    float* strips = strip_scratch(scratch, rows, inner);
    kernels::pack_strips(rows, inner, a, lda, kPpmm.mr, strips, row_scale);
    kernels::ppmm_f32(kPpmm, rows, inner, cols, strips, panels, c, ldc);
    return;
  }
  for (int i = 0; i < rows; ++i) {
    float* row = a + static_cast<std::size_t>(i) * lda;
    for (int k = 0; k < inner; ++k) row[k] *= row_scale[i];
  }
  kernels::gemm_f32_prepacked(kGemm, rows, inner, cols, a, lda, panels, c, ldc);
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

void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
            ProductScratch* scratch) {
  kernels::gemm_f32(kPortableGemm, rows, inner, cols, a, lda, b, ldb, false, c, ldc,
                    panel_scratch(scratch, inner, cols));
}

void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch) {
  kernels::gemm_f32(kPortableGemm, rows, inner, cols, a, lda, b, ldb, true, c, ldc,
                    panel_scratch(scratch, inner, cols));
}

void matmul_transa(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch) {
  kernels::gemm_f32(kPortableGemm, rows, inner, cols, transposed_scratch(scratch, a, lda, rows, inner), inner, b, ldb,
                    false, c, ldc, panel_scratch(scratch, inner, cols));
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
    kExpMinusMax(cols, row, row_max);
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
