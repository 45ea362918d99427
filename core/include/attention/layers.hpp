// The layer kinds a transformer block is made of, each a `_forward` / `_backward` pair, in the way of
// llm.c's train_gpt2.c: the caller owns every buffer (outputs, the activations the backward needs,
// gradients), and nothing is kept between calls.
//
// Letters: n rows (tokens), d features per row (d_model), f hidden features of the MLP, h heads,
// d_head features per head, r rotated features per head (RoPE).
// Every matrix is row-major. Weights are stored (in, out), so that a layer computes x · W:
//   x: (n, d)   w1, w_gate, w_up: (d, f)   w2, w_down: (f, d)   b1: (f)   b2: (d)
// (Hugging Face's nn.Linear keeps its weight (out, in): transpose it once when loading.)
//
// Every function checks its arguments before any work: sizes (a View's or Span's size against the
// shape), eps > 0, every input value finite; a refusal is a Status naming the field, and nothing is
// written. Backward functions add into their gradients with += (the caller zeroes them); a
// gradient Span left empty (data null, size 0) is a gradient not wanted.
#pragma once

#include <cstddef>

#include "attention/attention.hpp"

namespace attn {

// A writable view of a caller's buffer: where a layer writes its outputs or adds its gradients.
struct Span {
  float* data = nullptr;
  std::size_t size = 0;

  Span() = default;
  Span(float* data_, std::size_t size_) : data(data_), size(size_) {}
  Span(std::vector<float>& values) : Span(values.data(), values.size()) {}  // NOLINT: implicit on purpose
};

// LayerNorm (Ba et al. 2016): out = (x − mean) · rstd · weight + bias, per row, with
// rstd = 1 / sqrt(var + eps) and the variance biased (divided by d), as PyTorch's.
//   out, x: (n, d)   weight, bias: (d)   mean, rstd: (n), saved for the backward
Status layernorm_forward(Span out, Span mean, Span rstd, View<float> x, View<float> weight, View<float> bias, int n,
                         int d, float eps);
//   dx: (n, d)   dweight, dbias: (d)   dout: (n, d)
Status layernorm_backward(Span dx, Span dweight, Span dbias, View<float> dout, View<float> x, View<float> weight,
                          View<float> mean, View<float> rstd, int n, int d);

// RMSNorm (Zhang & Sennrich 2019; Llama): out = x · rstd · weight, rstd = 1 / sqrt(mean(x²) + eps).
//   out, x: (n, d)   weight: (d)   rstd: (n)
Status rmsnorm_forward(Span out, Span rstd, View<float> x, View<float> weight, int n, int d, float eps);
Status rmsnorm_backward(Span dx, Span dweight, View<float> dout, View<float> x, View<float> weight, View<float> rstd,
                        int n, int d);

// Elementwise activations:
//   GeluErf   x · Φ(x) = x/2 · (1 + erf(x/√2))                     (BERT, PyTorch's gelu)
//   GeluTanh  x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))         (GPT-2's gelu_new)
//   Relu      max(x, 0), with derivative 0 at x = 0
//   Silu      x · σ(x)                                             (Llama's act in SwiGLU)
enum class Activation { GeluErf, GeluTanh, Relu, Silu };
//   out, x: (count)
Status activation_forward(Span out, View<float> x, Activation activation);
//   dx += f'(x) · dout
Status activation_backward(Span dx, View<float> dout, View<float> x, Activation activation);

// The MLP of BERT and GPT-2: out = act(x · w1 + b1) · w2 + b2, biases optional (an absent View).
//   out, x: (n, d)   hidden_pre, hidden: (n, f), saved for the backward (before and after act)
Status mlp_forward(Span out, Span hidden_pre, Span hidden, View<float> x, View<float> w1, View<float> b1,
                   View<float> w2, View<float> b2, int n, int d, int f, Activation activation);
// Each gradient sized like its input, or empty when not wanted. The biases' gradients do not depend on
// the biases' values, so b1 and b2 may be asked for even when the forward ran without them.
struct MlpGradients {
  Span x, w1, b1, w2, b2;
};
Status mlp_backward(const MlpGradients& grads, View<float> dout, View<float> x, View<float> w1, View<float> w2,
                    View<float> hidden_pre, View<float> hidden, int n, int d, int f, Activation activation);

// The gated MLP of Llama and Qwen2 (SwiGLU, Shazeer 2020): out = (silu(x · w_gate) ⊙ (x · w_up)) · w_down.
//   out, x: (n, d)   gate_pre, up, hidden: (n, f), saved for the backward (x·w_gate, x·w_up, their product)
Status swiglu_forward(Span out, Span gate_pre, Span up, Span hidden, View<float> x, View<float> w_gate,
                      View<float> w_up, View<float> w_down, int n, int d, int f);
struct SwigluGradients {
  Span x, w_gate, w_up, w_down;
};
Status swiglu_backward(const SwigluGradients& grads, View<float> dout, View<float> x, View<float> w_gate,
                       View<float> w_up, View<float> w_down, View<float> gate_pre, View<float> up, int n, int d, int f);

// Rotary positions (Su et al. 2021), the rotate-half convention of GPT-NeoX and Llama. Row i holds
// token i at position first_position + i, with h heads of d_head features each. In every head the
// first r features (r even, ≤ d_head) are rotated in pairs (j, j + r/2), j < r/2, by the angle
// position · theta^(−2j/r); the other d_head − r features are copied as they are.
//   out, x: (n, h · d_head)
struct Rope {
  int n = 0, heads = 0, d_head = 0, rotary_dims = 0, first_position = 0;
  double theta = 10000;
};
Status rope_apply(Span out, View<float> x, const Rope& rope);
// The inverse rotation: dx += Rᵀ · dout, R being rope_apply's rotation.
Status rope_backward(Span dx, View<float> dout, const Rope& rope);

}  // namespace attn
