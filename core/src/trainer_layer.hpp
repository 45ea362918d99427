// The trainer's attention layer over many sentences at once. Their rows are stacked, so that the
// projections (q, k and v of every head), the output projection and every weight gradient are one
// product each over all rows; only the scores, the softmax and weights·v run per sentence and head.
// Private to the core; the trainer (trainer_losses.cpp) fills x, reads the output and weights, and
// writes d_output and d_weights in between.
//
//   R = Σ n_i rows; sentence i owns rows first[i] … first[i] + n_i − 1 of every row-major buffer
//   x (R, d_model)  qkv (R, W) with W = h·d_k + h·d_k + h·d_v: the heads' q, then k, then v side by side
//   weights: per sentence (h, n_i, n_i), one after another from weights_at[i]
//   concat (R, h·d_v)  output (R, d_out): concat·wo + bo, or concat itself without wo
#pragma once

#include <cstddef>
#include <vector>

#include "attention/attention.hpp"
#include "attention/trainer.hpp"

namespace attn {

// The layer's parameters: wq, wk, wv always; wo, bq, bk, bv, bo null when the model has none.
struct LayerParameters {
  const float *wq = nullptr, *wk = nullptr, *wv = nullptr, *wo = nullptr;
  const float *bq = nullptr, *bk = nullptr, *bv = nullptr, *bo = nullptr;
};

// Where the backward pass adds (+=) each gradient; null: not wanted, and the work only it needs is
// skipped. dx (R, d_model) is written (=), not added: the rows' own gradient.
struct LayerGradients {
  float *wq = nullptr, *wk = nullptr, *wv = nullptr, *wo = nullptr;
  float *bq = nullptr, *bk = nullptr, *bv = nullptr, *bo = nullptr;
  float* dx = nullptr;
};

class BatchedLayer {
 public:
  // shape: d_model, heads, d_k, d_v, d_out and scale (n and m vary by sentence).
  void configure(const Shape& shape, const TrainerModel& model);

  // Sizes every buffer for sentences of these lengths; then fill x() with their rows.
  void begin(const std::vector<int>& lengths, bool want_d_weights);
  float* x() { return x_.data(); }
  int rows() const { return first_.back(); }
  int first_row(int sentence) const { return first_[sentence]; }

  // Forward passes 0 to 6 over every sentence. False when an intermediate is not finite (weights
  // grown past float32): the loss is then ∞.
  bool forward(const LayerParameters& p);
  const float* output() const { return (has_wo_ ? output_ : concat_).data(); }
  const float* weights_of(int sentence) const { return weights_.data() + weights_at_[sentence]; }

  // The loss's gradients, zeroed by begin(): on the output (R, d_out), and on each sentence's
  // attention weights (h, n_i, n_i) when begin() was asked for them.
  float* d_output() { return d_output_.data(); }
  float* d_weights_of(int sentence) { return d_weights_.data() + weights_at_[sentence]; }

  // Backward passes 6 to 0, from the forward's buffers and d_output, d_weights.
  void backward(const LayerParameters& p, const LayerGradients& g);

 private:
  Shape shape_{};
  bool causal_ = false, positions_ = false, has_wo_ = false;
  int q_width_ = 0, v_width_ = 0, width_ = 0;  // h·d_k, h·d_v, W
  std::vector<int> lengths_, first_;
  std::vector<std::size_t> weights_at_;
  std::vector<float> positions_table_;  // (rows, d_model), grown to the longest sentence seen
  std::vector<float> x_, w_qkv_, b_qkv_, qkv_, weights_, concat_, output_, d_output_, d_weights_;
  std::vector<float> d_concat_, d_qkv_, d_attention_, dw_qkv_, dwo_;
  ProductScratch products_;  // the portable products' scratch
};

}  // namespace attn
