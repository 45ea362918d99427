// ops.hpp, dispatched once for the build: dense products on the WebAssembly SIMD gemm kernel when
// the build has SIMD, on Eigen otherwise (natively vectorised, unvectorised in the scalar WebAssembly
// build); softmax on the best kernels of kernels::kSoftmaxKernels and kScaledSoftmaxKernels.
#include "ops.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "kernels/kernels.hpp"

#if !defined(__wasm_simd128__)
#include <Eigen/Core>
#endif

namespace attn::ops {
namespace {

#if defined(__wasm_simd128__)
constexpr const kernels::GemmEntry& kGemm = std::end(kernels::kGemmKernels)[-1];

// Packed panels of b, kept between calls: it only grows, so repeated calls reach a steady heap.
float* panel_scratch(int inner, int cols) {
  static std::vector<float> panels;
  const std::size_t needed = kernels::packed_size(inner, cols);
  if (panels.size() < needed) panels.resize(needed);
  return panels.data();
}
#else
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstStrided = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Strided = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
#endif

constexpr kernels::SoftmaxKernel kSoftmax = std::end(kernels::kSoftmaxKernels)[-1].fn;
constexpr kernels::ScaledSoftmaxKernel kScaledSoftmax = std::end(kernels::kScaledSoftmaxKernels)[-1].fn;

}  // namespace

void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols) {
#if defined(__wasm_simd128__)
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, false, c, ldc, panel_scratch(inner, cols));
#else
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, rows, inner, Eigen::OuterStride<>(lda)) * ConstStrided(b, inner, cols, Eigen::OuterStride<>(ldb));
#endif
}

void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner,
                   int cols) {
#if defined(__wasm_simd128__)
  kernels::gemm_f32(kGemm, rows, inner, cols, a, lda, b, ldb, true, c, ldc, panel_scratch(inner, cols));
#else
  Strided(c, rows, cols, Eigen::OuterStride<>(ldc)).noalias() =
      ConstStrided(a, rows, inner, Eigen::OuterStride<>(lda)) *
      ConstStrided(b, cols, inner, Eigen::OuterStride<>(ldb)).transpose();
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
  kernels::gemm_f32_prepacked(kGemm, rows, inner, cols, a, lda, panels, c, ldc);
#else
  (void)a, (void)lda, (void)panels, (void)c, (void)ldc, (void)rows, (void)inner, (void)cols;
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

}  // namespace attn::ops
