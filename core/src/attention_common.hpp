// What the forward and backward passes share: the ops table for the chosen arithmetic, the bias
// add, and the inputs with positions added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/attention.hpp"

namespace attn {

// One set of dense operations; see Arithmetic.
struct Ops {
  using Product = void (*)(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner,
                           int cols, ProductScratch* scratch);
  Product matmul, matmul_transb, matmul_transa;
  void (*softmax_rows)(float*, int, int, int);
  void (*softmax_scaled_rows)(float*, int, int, float, bool, const std::uint8_t*);
};
const Ops& ops_for(Arithmetic arithmetic);

// y (rows, width) += row (width) on every row.
inline void add_row_to_each(const float* row, int rows, int width, float* y) {
  for (int r = 0; r < rows; ++r) {
    float* y_r = y + static_cast<std::size_t>(r) * width;
    for (int c = 0; c < width; ++c) y_r[c] += row[c];
  }
}

// x and the context as the projections see them: the caller's buffers, or, with positions, copies
// with the encoding added. For self-attention context == x.
struct PositionedInputs {
  std::vector<float> x_storage, context_storage;
  const float* x = nullptr;
  const float* context = nullptr;
};
PositionedInputs with_positions(const Config& config, const Inputs& inputs, const Shape& shape);

// attention_backward without its argument checks, for a caller that has made them already and has
// the forward's `shape` (attention_backward itself; the trainer runs its own batched layer,
// trainer_layer.cpp).
Status attention_backward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const Result& forward,
                                  View<float> d_output, View<float> d_weights, Gradients* gradients);

}  // namespace attn
