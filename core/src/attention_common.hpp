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

// The key/value head query head h reads (grouped-query attention).
inline int kv_head_of(const Shape& shape, int h) { return h / (shape.heads / shape.kv_heads); }

// Each row's rotation angles for RoPE: row r at position rotary.first_position + r, pair c < dims/2 turned
// by position · theta^(−2c/dims). cos and sin (rows, dims/2), in float64 as layers.cpp's rope_apply.
void rotary_tables(const Rotary& rotary, int rows, std::vector<double>* cos, std::vector<double>* sin);
// y (rows, width), in place: the first `dims` features of row r rotated in pairs (c, c + dims/2) by row
// r's angles (rotate-half), or by minus them (`inverse`: the transpose, for the backward pass).
void rotate_rows(float* y, int rows, int width, int dims, const double* cos, const double* sin, bool inverse);

// The keys each query sees when a sliding window is on: (n, m), 1 where key j is visible to query i,
// the mask mode's (causal j <= i, or the keep-mask) AND the window's (i − j < window). Empty when
// window is 0 (the mask mode alone decides).
void visible_keys(const Config& config, const Inputs& inputs, const Shape& shape, std::vector<std::uint8_t>* visible);

// attention_backward without its argument checks, for a caller that has made them already and has
// the forward's `shape` (attention_backward itself; the trainer runs its own batched layer,
// trainer_layer.cpp).
Status attention_backward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const Result& forward,
                                  View<float> d_output, View<float> d_weights, Gradients* gradients);

}  // namespace attn
