// The trainer's attention layer over stacked sentences (trainer_layer.hpp): the passes of
// attention_forward and attention_backward (attention.cpp, backward.cpp) for a self-attention
// layer with W_q, W_k, W_v, on Arithmetic::Portable, so every build computes the same bits.
//   R rows in all; per sentence n rows; W = 2·h·d_k + h·d_v (q | k | v); CW = h·d_v (concat)
//   x (R, d_model)  w_qkv (d_model, W)  qkv, d_qkv (R, W)  weights_h, d_attention (n, n)  concat (R, CW)
#include "trainer_layer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "attention_common.hpp"
#include "ops.hpp"

namespace attn {
namespace {

namespace portable = ops::portable;

// dst (count) += src
void add_into(float* dst, const float* src, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) dst[i] += src[i];
}

// sums (width) += the column sums of y (rows, width, row stride ld), row by row
void add_column_sums(const float* y, int ld, int rows, int width, float* sums) {
  for (int r = 0; r < rows; ++r) add_into(sums, y + static_cast<std::size_t>(r) * ld, width);
}

// all_finite (validate.cpp) on this file's -O3, where it runs on four lanes at a time: validate.cpp is
// built for size, and these checks see every intermediate of every step.
bool finite(const std::vector<float>& values) {
  constexpr std::uint32_t kExponent = 0x7f800000u;
  std::uint32_t any_special = 0;
  for (float value : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    any_special |= (bits & kExponent) == kExponent;
  }
  return any_special == 0;
}

// One weight tensor's heads, (h, d_model, width) head-major, and their columns side by side in a
// row-major (d_model, ld) matrix from column `offset`: head h's column c is column offset + h·width + c.
void heads_to_columns(const float* heads_major, int heads, int d_model, int width, float* matrix, int ld, int offset) {
  for (int h = 0; h < heads; ++h)
    for (int r = 0; r < d_model; ++r)
      std::copy_n(heads_major + (static_cast<std::size_t>(h) * d_model + r) * width, width,
                  matrix + static_cast<std::size_t>(r) * ld + offset + h * width);
}

// The inverse of heads_to_columns, adding: heads_major += the columns.
void add_columns_to_heads(const float* matrix, int ld, int offset, int heads, int d_model, int width,
                          float* heads_major) {
  for (int h = 0; h < heads; ++h)
    for (int r = 0; r < d_model; ++r)
      add_into(heads_major + (static_cast<std::size_t>(h) * d_model + r) * width,
               matrix + static_cast<std::size_t>(r) * ld + offset + h * width, width);
}

}  // namespace

void BatchedLayer::configure(const Shape& shape, const TrainerModel& model) {
  shape_ = shape;
  causal_ = model.mask_mode == MaskMode::Causal;
  positions_ = model.positions == PositionMode::Sinusoidal;
  has_wo_ = model.output_projection;
  q_width_ = shape.heads * shape.d_k;
  v_width_ = shape.heads * shape.d_v;
  width_ = 2 * q_width_ + v_width_;
}

void BatchedLayer::begin(const std::vector<int>& lengths, bool want_d_weights) {
  lengths_ = lengths;
  const std::size_t count = lengths.size();
  first_.assign(count + 1, 0);
  weights_at_.assign(count + 1, 0);
  int longest = 0;
  for (std::size_t i = 0; i < count; ++i) {
    first_[i + 1] = first_[i] + lengths[i];
    weights_at_[i + 1] = weights_at_[i] + static_cast<std::size_t>(shape_.heads) * lengths[i] * lengths[i];
    longest = std::max(longest, lengths[i]);
  }
  const std::size_t rows = static_cast<std::size_t>(first_.back());
  x_.resize(rows * shape_.d_model);
  qkv_.resize(rows * width_);
  weights_.resize(weights_at_.back());
  concat_.resize(rows * v_width_);
  if (has_wo_) output_.resize(rows * shape_.d_model);
  d_output_.assign(rows * shape_.d_out, 0.0f);
  if (want_d_weights)
    d_weights_.assign(weights_at_.back(), 0.0f);
  else
    d_weights_.clear();
  if (positions_ && positions_table_.size() < static_cast<std::size_t>(longest) * shape_.d_model) {
    positions_table_ = sinusoidal_positions(longest, shape_.d_model);
  }
}

bool BatchedLayer::forward(const LayerParameters& p) {
  const int d = shape_.d_model, heads = shape_.heads, d_k = shape_.d_k, d_v = shape_.d_v;
  const int rows = this->rows();
  const float scale = static_cast<float>(shape_.scale);

  // pass 0: positions, each sentence's own from 0 (x + pe, as attention_forward adds them)
  if (positions_) {
    for (std::size_t i = 0; i < lengths_.size(); ++i) {
      add_into(x_.data() + static_cast<std::size_t>(first_[i]) * d, positions_table_.data(),
               static_cast<std::size_t>(lengths_[i]) * d);
    }
  }

  // pass 1: the projections of every head and every row in one product, qkv = x·[wq | wk | wv] + [bq | bk | bv].
  // Each value is the same sum, in the same order, as attention_forward's per-head products.
  w_qkv_.resize(static_cast<std::size_t>(d) * width_);
  heads_to_columns(p.wq, heads, d, d_k, w_qkv_.data(), width_, 0);
  heads_to_columns(p.wk, heads, d, d_k, w_qkv_.data(), width_, q_width_);
  heads_to_columns(p.wv, heads, d, d_v, w_qkv_.data(), width_, 2 * q_width_);
  portable::matmul(x_.data(), d, w_qkv_.data(), width_, qkv_.data(), width_, rows, d, width_, &products_);
  if (p.bq != nullptr) {
    b_qkv_.resize(width_);
    std::copy_n(p.bq, q_width_, b_qkv_.begin());
    std::copy_n(p.bk, q_width_, b_qkv_.begin() + q_width_);
    std::copy_n(p.bv, v_width_, b_qkv_.begin() + 2 * q_width_);
    add_row_to_each(b_qkv_.data(), rows, width_, qkv_.data());
  }
  if (!finite(qkv_)) return false;

  // passes 2 to 5, per sentence and head: scores q·kᵀ; scale, mask and softmax in one row pass;
  // z = weights·v, written into the head's columns of concat
  for (std::size_t i = 0; i < lengths_.size(); ++i) {
    const int n = lengths_[i];
    const float* qkv_i = qkv_.data() + static_cast<std::size_t>(first_[i]) * width_;
    for (int h = 0; h < heads; ++h) {
      const float* q_h = qkv_i + h * d_k;
      const float* k_h = qkv_i + q_width_ + h * d_k;
      const float* v_h = qkv_i + 2 * q_width_ + h * d_v;
      float* weights_h = weights_.data() + weights_at_[i] + static_cast<std::size_t>(h) * n * n;
      portable::matmul_transb(q_h, width_, k_h, width_, weights_h, n, n, d_k, n, &products_);
      portable::softmax_scaled_rows(weights_h, n, n, scale, causal_, nullptr);
      float* z_in_concat = concat_.data() + static_cast<std::size_t>(first_[i]) * v_width_ + h * d_v;
      portable::matmul(weights_h, n, v_h, width_, z_in_concat, v_width_, n, n, d_v, &products_);
    }
  }
  // scores beyond float32 (or divided past it) leave NaN in the weights, and so in concat
  if (!finite(weights_) || !finite(concat_)) return false;

  // pass 6: output = concat·wo + bo
  if (!has_wo_) return true;
  portable::matmul(concat_.data(), v_width_, p.wo, d, output_.data(), d, rows, v_width_, d, &products_);
  if (p.bo != nullptr) add_row_to_each(p.bo, rows, d, output_.data());
  return finite(output_);
}

void BatchedLayer::backward(const LayerParameters& p, const LayerGradients& g) {
  const int d = shape_.d_model, heads = shape_.heads, d_k = shape_.d_k, d_v = shape_.d_v;
  const int rows = this->rows();
  const bool want_q = g.wq != nullptr || g.bq != nullptr || g.dx != nullptr;
  const bool want_k = g.wk != nullptr || g.bk != nullptr || g.dx != nullptr;
  const bool want_v = g.wv != nullptr || g.bv != nullptr || g.dx != nullptr;

  // backward pass 6: output = concat·wo + bo
  const float* d_concat = d_output_.data();
  if (has_wo_) {
    d_concat_.resize(static_cast<std::size_t>(rows) * v_width_);
    portable::matmul_transb(d_output_.data(), d, p.wo, d, d_concat_.data(), v_width_, rows, d, v_width_, &products_);
    d_concat = d_concat_.data();
    if (g.wo != nullptr) {
      dwo_.resize(static_cast<std::size_t>(v_width_) * d);
      portable::matmul_transa(concat_.data(), v_width_, d_output_.data(), d, dwo_.data(), d, v_width_, rows, d,
                              &products_);
      add_into(g.wo, dwo_.data(), dwo_.size());
    }
    if (g.bo != nullptr) add_column_sums(d_output_.data(), d, rows, d, g.bo);
  }

  // backward passes 5 to 2, per sentence and head, into each head's columns of d_qkv (the columns
  // of what is not wanted stay zero)
  d_qkv_.assign(static_cast<std::size_t>(rows) * width_, 0.0f);
  const float inverse_scale = static_cast<float>(1.0 / shape_.scale);
  for (std::size_t i = 0; i < lengths_.size(); ++i) {
    const int n = lengths_[i];
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    const float* qkv_i = qkv_.data() + static_cast<std::size_t>(first_[i]) * width_;
    float* d_qkv_i = d_qkv_.data() + static_cast<std::size_t>(first_[i]) * width_;
    d_attention_.resize(nn);
    for (int h = 0; h < heads; ++h) {
      const float* weights_h = weights_.data() + weights_at_[i] + h * nn;
      const float* dz = d_concat + static_cast<std::size_t>(first_[i]) * v_width_ + h * d_v;
      // backward pass 5: z = weights·v
      if (want_v)
        portable::matmul_transa(weights_h, n, dz, v_width_, d_qkv_i + 2 * q_width_ + h * d_v, width_, n, n, d_v,
                                &products_);
      if (!want_q && !want_k) continue;
      portable::matmul_transb(dz, v_width_, qkv_i + 2 * q_width_ + h * d_v, width_, d_attention_.data(), n, n, d_v, n,
                              &products_);
      if (!d_weights_.empty()) add_into(d_attention_.data(), d_weights_.data() + weights_at_[i] + h * nn, nn);

      // backward pass 4: softmax, dS = A ⊙ (dA − rowsum(dA ⊙ A)); masked keys (A = 0) get none.
      // backward pass 3: scaled = scores / scale.
      for (int r = 0; r < n; ++r) {
        const float* weights_r = weights_h + static_cast<std::size_t>(r) * n;
        float* d_r = d_attention_.data() + static_cast<std::size_t>(r) * n;
        float row_dot = 0.0f;
        for (int j = 0; j < n; ++j) row_dot += d_r[j] * weights_r[j];
        for (int j = 0; j < n; ++j) d_r[j] = weights_r[j] * (d_r[j] - row_dot) * inverse_scale;
      }

      // backward pass 2: scores = q·kᵀ
      if (want_q)
        portable::matmul(d_attention_.data(), n, qkv_i + q_width_ + h * d_k, width_, d_qkv_i + h * d_k, width_, n, n,
                         d_k, &products_);
      if (want_k)
        portable::matmul_transa(d_attention_.data(), n, qkv_i + h * d_k, width_, d_qkv_i + q_width_ + h * d_k, width_,
                                n, n, d_k, &products_);
    }
  }

  // backward pass 1: the projections of every head and row, dW = xᵀ·d_qkv in one product; the
  // biases' column sums; dx = d_qkv·w_qkvᵀ
  if (g.wq != nullptr || g.wk != nullptr || g.wv != nullptr) {
    dw_qkv_.resize(static_cast<std::size_t>(d) * width_);
    portable::matmul_transa(x_.data(), d, d_qkv_.data(), width_, dw_qkv_.data(), width_, d, rows, width_, &products_);
    if (g.wq != nullptr) add_columns_to_heads(dw_qkv_.data(), width_, 0, heads, d, d_k, g.wq);
    if (g.wk != nullptr) add_columns_to_heads(dw_qkv_.data(), width_, q_width_, heads, d, d_k, g.wk);
    if (g.wv != nullptr) add_columns_to_heads(dw_qkv_.data(), width_, 2 * q_width_, heads, d, d_v, g.wv);
  }
  if (g.bq != nullptr) add_column_sums(d_qkv_.data(), width_, rows, q_width_, g.bq);
  if (g.bk != nullptr) add_column_sums(d_qkv_.data() + q_width_, width_, rows, q_width_, g.bk);
  if (g.bv != nullptr) add_column_sums(d_qkv_.data() + 2 * q_width_, width_, rows, v_width_, g.bv);
  // pass 0 adds a constant: the positions pass the gradient on unchanged
  if (g.dx != nullptr)
    portable::matmul_transb(d_qkv_.data(), width_, w_qkv_.data(), width_, g.dx, d, rows, width_, d, &products_);
}

}  // namespace attn
