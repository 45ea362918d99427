// ops.hpp on Eigen: the native build's dense products.
#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "ops.hpp"

namespace attn::ops {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstStrided = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Strided = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

}  // namespace

void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols) {
  const ConstStrided a_map(a, rows, inner, Eigen::OuterStride<>(lda));
  const ConstStrided b_map(b, inner, cols, Eigen::OuterStride<>(ldb));
  Strided c_map(c, rows, cols, Eigen::OuterStride<>(ldc));
  c_map.noalias() = a_map * b_map;
}

void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner,
                   int cols) {
  const ConstStrided a_map(a, rows, inner, Eigen::OuterStride<>(lda));
  const ConstStrided b_map(b, cols, inner, Eigen::OuterStride<>(ldb));
  Strided c_map(c, rows, cols, Eigen::OuterStride<>(ldc));
  c_map.noalias() = a_map * b_map.transpose();
}

void softmax_rows(float* x, int ld, int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    float* row = x + static_cast<long>(i) * ld;
    // pass 1: the row max; subtracting it means exp() cannot overflow
    float row_max = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < cols; ++j) row_max = row[j] > row_max ? row[j] : row_max;
    if (row_max == -std::numeric_limits<float>::infinity()) {  // every key masked: no weight anywhere
      for (int j = 0; j < cols; ++j) row[j] = 0.0f;
      continue;
    }
    // pass 2: exp and sum
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) {
      row[j] = std::exp(row[j] - row_max);
      sum += row[j];
    }
    // pass 3: normalise (sum >= 1: the max itself contributes exp(0))
    const float inv_sum = 1.0f / sum;
    for (int j = 0; j < cols; ++j) row[j] *= inv_sum;
  }
}

}  // namespace attn::ops
