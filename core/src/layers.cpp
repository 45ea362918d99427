// The layer kinds of a transformer block, forward and backward side by side (layers.hpp has the
// shapes, the weight layout and the contract).
// n rows, d features, f hidden features, h heads, d_head features per head, r rotated features.
#include "attention/layers.hpp"

#include <Eigen/Core>
#include <cmath>
#include <string>
#include <vector>

#include "validate.hpp"

namespace attn {

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const Matrix>;
using MutMap = Eigen::Map<Matrix>;
using RowVector = Eigen::Map<const Eigen::RowVectorXf>;
using MutRowVector = Eigen::Map<Eigen::RowVectorXf>;

std::string str(long long value) { return std::to_string(value); }
constexpr long long kCap = static_cast<long long>(kMaxMatrixValues);

Status check_size(const char* name, int value) {
  if (value >= 1 && value <= kCap) return Status::Ok();
  return Status::Range(name,
                       std::string(name) + " must be between 1 and " + str(kMaxMatrixValues) + ", got " + str(value));
}

// An input: present, `expected` values (`shape` spells it, "n × d = 12"), each finite.
Status check_in(const char* field, View<float> values, long long expected, const char* shape) {
  const std::string what = std::string(shape) + " = " + str(expected);
  if (!values.present || values.data == nullptr) {
    return Status::Type(field, std::string(field) + " is missing; expected " + what + " values");
  }
  if (static_cast<long long>(values.size) != expected) {
    return Status::Range(field, std::string(field) + " has " + str(values.size) + " values; expected " + what);
  }
  if (all_finite(values.data, values.size)) return Status::Ok();
  for (std::size_t i = 0; i < values.size; ++i) {
    if (!std::isfinite(values.data[i])) {
      return Status::Range(field, std::string(field) + "[" + str(i) + "] is " + format_number(values.data[i]) +
                                      "; every value must be a finite number");
    }
  }
  return Status::Ok();
}

// An output or a gradient: `expected` values; an empty Span is allowed where `optional`.
Status check_out(const char* field, Span values, long long expected, const char* shape, bool optional = false) {
  if (optional && values.data == nullptr && values.size == 0) return Status::Ok();
  if (values.data != nullptr && static_cast<long long>(values.size) == expected) return Status::Ok();
  return Status::Range(field, std::string(field) + " has " + str(values.size) + " values" +
                                  (values.data == nullptr ? " and no buffer" : "") + "; expected " + shape + " = " +
                                  str(expected) + (optional ? ", or empty when not wanted" : ""));
}

Status check_rows(int n, int d) {
  if (Status s = check_size("n", n); !s.ok()) return s;
  if (Status s = check_size("d", d); !s.ok()) return s;
  if (static_cast<long long>(n) * d <= kCap) return Status::Ok();
  return Status::Range("n", "n × d = " + str(static_cast<long long>(n) * d) + " is above the cap of " +
                                str(kMaxMatrixValues) + " values");
}

Status check_eps(float eps) {
  if (std::isfinite(eps) && eps > 0) return Status::Ok();
  return Status::Range("eps", "eps is " + format_number(eps) + "; it must be a finite number above 0");
}

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;

float activate(float x, Activation activation) {
  switch (activation) {
    case Activation::GeluErf: return static_cast<float>(0.5 * x * (1.0 + std::erf(x * kSqrtHalf)));
    case Activation::GeluTanh: {
      const double inner = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
      return static_cast<float>(0.5 * x * (1.0 + std::tanh(inner)));
    }
    case Activation::Relu: return x > 0 ? x : 0.0f;
    case Activation::Silu: return static_cast<float>(x / (1.0 + std::exp(-static_cast<double>(x))));
  }
  return 0;
}

float activate_derivative(float x, Activation activation) {
  switch (activation) {
    case Activation::GeluErf:
      return static_cast<float>(0.5 * (1.0 + std::erf(x * kSqrtHalf)) + x * kInvSqrt2Pi * std::exp(-0.5 * x * x));
    case Activation::GeluTanh: {
      const double t = std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
      return static_cast<float>(0.5 * (1.0 + t) +
                                0.5 * x * (1.0 - t * t) * kSqrt2OverPi * (1.0 + 3 * kGeluCubic * x * x));
    }
    case Activation::Relu: return x > 0 ? 1.0f : 0.0f;
    case Activation::Silu: {
      const double sigmoid = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
      return static_cast<float>(sigmoid * (1.0 + x * (1.0 - sigmoid)));
    }
  }
  return 0;
}

}  // namespace

// ---- LayerNorm -------------------------------------------------------------------------------------

Status layernorm_forward(Span out, Span mean, Span rstd, View<float> x, View<float> weight, View<float> bias, int n,
                         int d, float eps) {
  if (Status s = check_rows(n, d); !s.ok()) return s;
  if (Status s = check_eps(eps); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("weight", weight, d, "d"); !s.ok()) return s;
  if (Status s = check_in("bias", bias, d, "d"); !s.ok()) return s;
  if (Status s = check_out("out", out, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_out("mean", mean, n, "n"); !s.ok()) return s;
  if (Status s = check_out("rstd", rstd, n, "n"); !s.ok()) return s;
  for (int i = 0; i < n; ++i) {
    const float* x_row = x.data + static_cast<std::size_t>(i) * d;
    float* out_row = out.data + static_cast<std::size_t>(i) * d;
    // pass 1: the row's mean; pass 2: its variance about that mean (two passes: no cancellation)
    double sum = 0;
    for (int j = 0; j < d; ++j) sum += x_row[j];
    const double mean_i = sum / d;
    double squares = 0;
    for (int j = 0; j < d; ++j) squares += (x_row[j] - mean_i) * (x_row[j] - mean_i);
    const double rstd_i = 1.0 / std::sqrt(squares / d + eps);
    // pass 3: normalise, scale and shift
    for (int j = 0; j < d; ++j) {
      out_row[j] = static_cast<float>((x_row[j] - mean_i) * rstd_i * weight.data[j] + bias.data[j]);
    }
    mean.data[i] = static_cast<float>(mean_i);
    rstd.data[i] = static_cast<float>(rstd_i);
  }
  return Status::Ok();
}

Status layernorm_backward(Span dx, Span dweight, Span dbias, View<float> dout, View<float> x, View<float> weight,
                          View<float> mean, View<float> rstd, int n, int d) {
  if (Status s = check_rows(n, d); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d;
  if (Status s = check_in("dOut", dout, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("weight", weight, d, "d"); !s.ok()) return s;
  if (Status s = check_in("mean", mean, n, "n"); !s.ok()) return s;
  if (Status s = check_in("rstd", rstd, n, "n"); !s.ok()) return s;
  if (Status s = check_out("dX", dx, nd, "n × d", true); !s.ok()) return s;
  if (Status s = check_out("dWeight", dweight, d, "d", true); !s.ok()) return s;
  if (Status s = check_out("dBias", dbias, d, "d", true); !s.ok()) return s;
  for (int i = 0; i < n; ++i) {
    const float* x_row = x.data + static_cast<std::size_t>(i) * d;
    const float* dout_row = dout.data + static_cast<std::size_t>(i) * d;
    const double mean_i = mean.data[i], rstd_i = rstd.data[i];
    // backward pass 3: dweight, dbias, and the two row means the gradient of the normalisation needs
    double dnorm_mean = 0, dnorm_norm_mean = 0;
    for (int j = 0; j < d; ++j) {
      const double norm_ij = (x_row[j] - mean_i) * rstd_i;
      const double dnorm_ij = static_cast<double>(weight.data[j]) * dout_row[j];
      dnorm_mean += dnorm_ij;
      dnorm_norm_mean += dnorm_ij * norm_ij;
      if (dbias.data) dbias.data[j] += dout_row[j];
      if (dweight.data) dweight.data[j] += static_cast<float>(norm_ij * dout_row[j]);
    }
    if (!dx.data) continue;
    dnorm_mean /= d;
    dnorm_norm_mean /= d;
    // backward passes 2 and 1: through the variance and the mean
    float* dx_row = dx.data + static_cast<std::size_t>(i) * d;
    for (int j = 0; j < d; ++j) {
      const double norm_ij = (x_row[j] - mean_i) * rstd_i;
      const double dnorm_ij = static_cast<double>(weight.data[j]) * dout_row[j];
      dx_row[j] += static_cast<float>((dnorm_ij - dnorm_mean - norm_ij * dnorm_norm_mean) * rstd_i);
    }
  }
  return Status::Ok();
}

// ---- RMSNorm ---------------------------------------------------------------------------------------

Status rmsnorm_forward(Span out, Span rstd, View<float> x, View<float> weight, int n, int d, float eps) {
  if (Status s = check_rows(n, d); !s.ok()) return s;
  if (Status s = check_eps(eps); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("weight", weight, d, "d"); !s.ok()) return s;
  if (Status s = check_out("out", out, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_out("rstd", rstd, n, "n"); !s.ok()) return s;
  for (int i = 0; i < n; ++i) {
    const float* x_row = x.data + static_cast<std::size_t>(i) * d;
    float* out_row = out.data + static_cast<std::size_t>(i) * d;
    double squares = 0;
    for (int j = 0; j < d; ++j) squares += static_cast<double>(x_row[j]) * x_row[j];
    const double rstd_i = 1.0 / std::sqrt(squares / d + eps);
    // x · rstd rounded to float before the weight, as Llama's RMSNorm in float32 does
    for (int j = 0; j < d; ++j) out_row[j] = static_cast<float>(x_row[j] * rstd_i) * weight.data[j];
    rstd.data[i] = static_cast<float>(rstd_i);
  }
  return Status::Ok();
}

Status rmsnorm_backward(Span dx, Span dweight, View<float> dout, View<float> x, View<float> weight, View<float> rstd,
                        int n, int d) {
  if (Status s = check_rows(n, d); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d;
  if (Status s = check_in("dOut", dout, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("weight", weight, d, "d"); !s.ok()) return s;
  if (Status s = check_in("rstd", rstd, n, "n"); !s.ok()) return s;
  if (Status s = check_out("dX", dx, nd, "n × d", true); !s.ok()) return s;
  if (Status s = check_out("dWeight", dweight, d, "d", true); !s.ok()) return s;
  for (int i = 0; i < n; ++i) {
    const float* x_row = x.data + static_cast<std::size_t>(i) * d;
    const float* dout_row = dout.data + static_cast<std::size_t>(i) * d;
    const double rstd_i = rstd.data[i];
    // backward pass 2: dweight, and mean(dnorm · x) for the gradient through rstd
    double dnorm_x_mean = 0;
    for (int j = 0; j < d; ++j) {
      dnorm_x_mean += static_cast<double>(weight.data[j]) * dout_row[j] * x_row[j];
      if (dweight.data) dweight.data[j] += static_cast<float>(x_row[j] * rstd_i * dout_row[j]);
    }
    if (!dx.data) continue;
    dnorm_x_mean /= d;
    // backward pass 1: d(x_j · rstd)/dx = rstd on the diagonal, − rstd³ · x_j · x_k / d everywhere
    float* dx_row = dx.data + static_cast<std::size_t>(i) * d;
    for (int j = 0; j < d; ++j) {
      const double dnorm_ij = static_cast<double>(weight.data[j]) * dout_row[j];
      dx_row[j] += static_cast<float>(rstd_i * dnorm_ij - rstd_i * rstd_i * rstd_i * x_row[j] * dnorm_x_mean);
    }
  }
  return Status::Ok();
}

// ---- Activations -----------------------------------------------------------------------------------

Status activation_forward(Span out, View<float> x, Activation activation) {
  if (Status s = check_in("x", x, static_cast<long long>(x.size), "count"); !s.ok()) return s;
  if (Status s = check_out("out", out, static_cast<long long>(x.size), "x's count"); !s.ok()) return s;
  for (std::size_t i = 0; i < x.size; ++i) out.data[i] = activate(x.data[i], activation);
  return Status::Ok();
}

Status activation_backward(Span dx, View<float> dout, View<float> x, Activation activation) {
  const long long count = static_cast<long long>(x.size);
  if (Status s = check_in("x", x, count, "count"); !s.ok()) return s;
  if (Status s = check_in("dOut", dout, count, "x's count"); !s.ok()) return s;
  if (Status s = check_out("dX", dx, count, "x's count"); !s.ok()) return s;
  for (std::size_t i = 0; i < x.size; ++i) dx.data[i] += activate_derivative(x.data[i], activation) * dout.data[i];
  return Status::Ok();
}

// ---- MLP: act(x · w1 + b1) · w2 + b2 ---------------------------------------------------------------

namespace {

Status check_mlp_sizes(int n, int d, int f) {
  if (Status s = check_rows(n, d); !s.ok()) return s;
  if (Status s = check_size("f", f); !s.ok()) return s;
  const long long largest = static_cast<long long>(f) * (n > d ? n : d);
  if (largest <= kCap) return Status::Ok();
  return Status::Range("f",
                       "f × max(n, d) = " + str(largest) + " is above the cap of " + str(kMaxMatrixValues) + " values");
}

}  // namespace

Status mlp_forward(Span out, Span hidden_pre, Span hidden, View<float> x, View<float> w1, View<float> b1,
                   View<float> w2, View<float> b2, int n, int d, int f, Activation activation) {
  if (Status s = check_mlp_sizes(n, d, f); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d, nf = static_cast<long long>(n) * f;
  const long long df = static_cast<long long>(d) * f;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("w1", w1, df, "d × f"); !s.ok()) return s;
  if (b1.present) {
    if (Status s = check_in("b1", b1, f, "f"); !s.ok()) return s;
  }
  if (Status s = check_in("w2", w2, df, "f × d"); !s.ok()) return s;
  if (b2.present) {
    if (Status s = check_in("b2", b2, d, "d"); !s.ok()) return s;
  }
  if (Status s = check_out("out", out, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_out("hiddenPre", hidden_pre, nf, "n × f"); !s.ok()) return s;
  if (Status s = check_out("hidden", hidden, nf, "n × f"); !s.ok()) return s;
  // pass 1: hidden_pre = x · w1 + b1
  MutMap pre(hidden_pre.data, n, f);
  pre.noalias() = ConstMap(x.data, n, d) * ConstMap(w1.data, d, f);
  if (b1.present) pre.rowwise() += RowVector(b1.data, f);
  // pass 2: the activation
  for (long long i = 0; i < nf; ++i) hidden.data[i] = activate(hidden_pre.data[i], activation);
  // pass 3: out = hidden · w2 + b2
  MutMap out_matrix(out.data, n, d);
  out_matrix.noalias() = ConstMap(hidden.data, n, f) * ConstMap(w2.data, f, d);
  if (b2.present) out_matrix.rowwise() += RowVector(b2.data, d);
  return Status::Ok();
}

namespace {

Status check_mlp_backward(const MlpGradients& grads, View<float> dout, View<float> x, View<float> w1, View<float> w2,
                          View<float> hidden_pre, View<float> hidden, int n, int d, int f) {
  if (Status s = check_mlp_sizes(n, d, f); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d, nf = static_cast<long long>(n) * f;
  const long long df = static_cast<long long>(d) * f;
  if (Status s = check_in("dOut", dout, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("w1", w1, df, "d × f"); !s.ok()) return s;
  if (Status s = check_in("w2", w2, df, "f × d"); !s.ok()) return s;
  if (Status s = check_in("hiddenPre", hidden_pre, nf, "n × f"); !s.ok()) return s;
  if (Status s = check_in("hidden", hidden, nf, "n × f"); !s.ok()) return s;
  if (Status s = check_out("dX", grads.x, nd, "n × d", true); !s.ok()) return s;
  if (Status s = check_out("dW1", grads.w1, df, "d × f", true); !s.ok()) return s;
  if (Status s = check_out("dB1", grads.b1, f, "f", true); !s.ok()) return s;
  if (Status s = check_out("dW2", grads.w2, df, "f × d", true); !s.ok()) return s;
  return check_out("dB2", grads.b2, d, "d", true);
}

}  // namespace

Status mlp_backward(const MlpGradients& grads, View<float> dout, View<float> x, View<float> w1, View<float> w2,
                    View<float> hidden_pre, View<float> hidden, int n, int d, int f, Activation activation) {
  if (Status s = check_mlp_backward(grads, dout, x, w1, w2, hidden_pre, hidden, n, d, f); !s.ok()) return s;
  const ConstMap dout_matrix(dout.data, n, d);
  // backward pass 3: dw2, db2, and dhidden = dout · w2ᵀ
  if (grads.b2.data) MutRowVector(grads.b2.data, d) += dout_matrix.colwise().sum();
  if (grads.w2.data) MutMap(grads.w2.data, f, d).noalias() += ConstMap(hidden.data, n, f).transpose() * dout_matrix;
  const bool want_dpre = grads.x.data || grads.w1.data || grads.b1.data;
  if (!want_dpre) return Status::Ok();
  Matrix dpre = dout_matrix * ConstMap(w2.data, f, d).transpose();
  // backward pass 2: through the activation
  const ConstMap pre(hidden_pre.data, n, f);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < f; ++j) dpre(i, j) *= activate_derivative(pre(i, j), activation);
  }
  // backward pass 1: dw1, db1, dx
  if (grads.b1.data) MutRowVector(grads.b1.data, f) += dpre.colwise().sum();
  if (grads.w1.data) MutMap(grads.w1.data, d, f).noalias() += ConstMap(x.data, n, d).transpose() * dpre;
  if (grads.x.data) MutMap(grads.x.data, n, d).noalias() += dpre * ConstMap(w1.data, d, f).transpose();
  return Status::Ok();
}

// ---- SwiGLU: (silu(x · w_gate) ⊙ (x · w_up)) · w_down ---------------------------------------------

Status swiglu_forward(Span out, Span gate_pre, Span up, Span hidden, View<float> x, View<float> w_gate,
                      View<float> w_up, View<float> w_down, int n, int d, int f) {
  if (Status s = check_mlp_sizes(n, d, f); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d, nf = static_cast<long long>(n) * f;
  const long long df = static_cast<long long>(d) * f;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("wGate", w_gate, df, "d × f"); !s.ok()) return s;
  if (Status s = check_in("wUp", w_up, df, "d × f"); !s.ok()) return s;
  if (Status s = check_in("wDown", w_down, df, "f × d"); !s.ok()) return s;
  if (Status s = check_out("out", out, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_out("gatePre", gate_pre, nf, "n × f"); !s.ok()) return s;
  if (Status s = check_out("up", up, nf, "n × f"); !s.ok()) return s;
  if (Status s = check_out("hidden", hidden, nf, "n × f"); !s.ok()) return s;
  // pass 1: the two projections
  const ConstMap x_matrix(x.data, n, d);
  MutMap(gate_pre.data, n, f).noalias() = x_matrix * ConstMap(w_gate.data, d, f);
  MutMap(up.data, n, f).noalias() = x_matrix * ConstMap(w_up.data, d, f);
  // pass 2: the gate
  for (long long i = 0; i < nf; ++i) hidden.data[i] = activate(gate_pre.data[i], Activation::Silu) * up.data[i];
  // pass 3: down again
  MutMap(out.data, n, d).noalias() = ConstMap(hidden.data, n, f) * ConstMap(w_down.data, f, d);
  return Status::Ok();
}

namespace {

Status check_swiglu_backward(const SwigluGradients& grads, View<float> dout, View<float> x, View<float> w_gate,
                             View<float> w_up, View<float> w_down, View<float> gate_pre, View<float> up, int n, int d,
                             int f) {
  if (Status s = check_mlp_sizes(n, d, f); !s.ok()) return s;
  const long long nd = static_cast<long long>(n) * d, nf = static_cast<long long>(n) * f;
  const long long df = static_cast<long long>(d) * f;
  if (Status s = check_in("dOut", dout, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("x", x, nd, "n × d"); !s.ok()) return s;
  if (Status s = check_in("wGate", w_gate, df, "d × f"); !s.ok()) return s;
  if (Status s = check_in("wUp", w_up, df, "d × f"); !s.ok()) return s;
  if (Status s = check_in("wDown", w_down, df, "f × d"); !s.ok()) return s;
  if (Status s = check_in("gatePre", gate_pre, nf, "n × f"); !s.ok()) return s;
  if (Status s = check_in("up", up, nf, "n × f"); !s.ok()) return s;
  if (Status s = check_out("dX", grads.x, nd, "n × d", true); !s.ok()) return s;
  if (Status s = check_out("dWGate", grads.w_gate, df, "d × f", true); !s.ok()) return s;
  if (Status s = check_out("dWUp", grads.w_up, df, "d × f", true); !s.ok()) return s;
  return check_out("dWDown", grads.w_down, df, "f × d", true);
}

}  // namespace

Status swiglu_backward(const SwigluGradients& grads, View<float> dout, View<float> x, View<float> w_gate,
                       View<float> w_up, View<float> w_down, View<float> gate_pre, View<float> up, int n, int d,
                       int f) {
  if (Status s = check_swiglu_backward(grads, dout, x, w_gate, w_up, w_down, gate_pre, up, n, d, f); !s.ok()) {
    return s;
  }
  const ConstMap dout_matrix(dout.data, n, d), gate(gate_pre.data, n, f), up_matrix(up.data, n, f);
  // backward pass 3: dw_down (the hidden recomputed from the saved gate and up), dhidden
  if (grads.w_down.data) {
    Matrix hidden(n, f);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < f; ++j) hidden(i, j) = activate(gate(i, j), Activation::Silu) * up_matrix(i, j);
    }
    MutMap(grads.w_down.data, f, d).noalias() += hidden.transpose() * dout_matrix;
  }
  if (!grads.x.data && !grads.w_gate.data && !grads.w_up.data) return Status::Ok();
  const Matrix dhidden = dout_matrix * ConstMap(w_down.data, f, d).transpose();
  // backward pass 2: through the product and the gate's silu
  Matrix dgate(n, f), dup(n, f);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < f; ++j) {
      dup(i, j) = dhidden(i, j) * activate(gate(i, j), Activation::Silu);
      dgate(i, j) = dhidden(i, j) * up_matrix(i, j) * activate_derivative(gate(i, j), Activation::Silu);
    }
  }
  // backward pass 1: the two projections
  const ConstMap x_matrix(x.data, n, d);
  if (grads.w_gate.data) MutMap(grads.w_gate.data, d, f).noalias() += x_matrix.transpose() * dgate;
  if (grads.w_up.data) MutMap(grads.w_up.data, d, f).noalias() += x_matrix.transpose() * dup;
  if (grads.x.data) {
    MutMap dx(grads.x.data, n, d);
    dx.noalias() += dgate * ConstMap(w_gate.data, d, f).transpose();
    dx.noalias() += dup * ConstMap(w_up.data, d, f).transpose();
  }
  return Status::Ok();
}

// ---- Rotary positions ------------------------------------------------------------------------------

namespace {

Status check_rope(const Rope& rope) {
  if (Status s = check_size("n", rope.n); !s.ok()) return s;
  if (Status s = check_size("heads", rope.heads); !s.ok()) return s;
  if (Status s = check_size("dHead", rope.d_head); !s.ok()) return s;
  if (static_cast<long long>(rope.n) * rope.heads * rope.d_head > kCap) {
    return Status::Range("n", "n × heads × dHead is above the cap of " + str(kMaxMatrixValues) + " values");
  }
  if (rope.rotary_dims < 2 || rope.rotary_dims > rope.d_head || rope.rotary_dims % 2 != 0) {
    return Status::Range("rotaryDims", "rotaryDims is " + str(rope.rotary_dims) +
                                           "; it must be even, at least 2 and at most dHead (" + str(rope.d_head) +
                                           ")");
  }
  if (!std::isfinite(rope.theta) || rope.theta <= 1) {
    return Status::Range("theta", "theta is " + format_number(rope.theta) + "; it must be a finite number above 1");
  }
  if (rope.first_position < 0 || rope.first_position > kCap) {
    return Status::Range("firstPosition", "firstPosition is " + str(rope.first_position) +
                                              "; it must be between 0 and " + str(kMaxMatrixValues));
  }
  return Status::Ok();
}

// Rotates every head's pairs of `in` by the row's angles, or by their negatives (`inverse`), and
// adds the result into `out` (accumulate) or writes it there.
void rotate(float* out, const float* in, const Rope& rope, bool inverse, bool accumulate) {
  const int half = rope.rotary_dims / 2, width = rope.heads * rope.d_head;
  std::vector<double> cos_j(half), sin_j(half);
  for (int i = 0; i < rope.n; ++i) {
    const double position = static_cast<double>(rope.first_position) + i;
    for (int j = 0; j < half; ++j) {
      const double angle = position * std::pow(rope.theta, -2.0 * j / rope.rotary_dims);
      cos_j[j] = std::cos(angle);
      sin_j[j] = inverse ? -std::sin(angle) : std::sin(angle);
    }
    for (int head = 0; head < rope.heads; ++head) {
      const std::size_t offset = static_cast<std::size_t>(i) * width + static_cast<std::size_t>(head) * rope.d_head;
      const float* in_h = in + offset;
      float* out_h = out + offset;
      for (int j = 0; j < half; ++j) {
        const double first = in_h[j], second = in_h[j + half];
        const float rotated_first = static_cast<float>(first * cos_j[j] - second * sin_j[j]);
        const float rotated_second = static_cast<float>(second * cos_j[j] + first * sin_j[j]);
        out_h[j] = accumulate ? out_h[j] + rotated_first : rotated_first;
        out_h[j + half] = accumulate ? out_h[j + half] + rotated_second : rotated_second;
      }
      for (int j = rope.rotary_dims; j < rope.d_head; ++j) out_h[j] = accumulate ? out_h[j] + in_h[j] : in_h[j];
    }
  }
}

}  // namespace

Status rope_apply(Span out, View<float> x, const Rope& rope) {
  if (Status s = check_rope(rope); !s.ok()) return s;
  const long long count = static_cast<long long>(rope.n) * rope.heads * rope.d_head;
  if (Status s = check_in("x", x, count, "n × heads × dHead"); !s.ok()) return s;
  if (Status s = check_out("out", out, count, "n × heads × dHead"); !s.ok()) return s;
  rotate(out.data, x.data, rope, false, false);
  return Status::Ok();
}

Status rope_backward(Span dx, View<float> dout, const Rope& rope) {
  if (Status s = check_rope(rope); !s.ok()) return s;
  const long long count = static_cast<long long>(rope.n) * rope.heads * rope.d_head;
  if (Status s = check_in("dOut", dout, count, "n × heads × dHead"); !s.ok()) return s;
  if (Status s = check_out("dX", dx, count, "n × heads × dHead"); !s.ok()) return s;
  rotate(dx.data, dout.data, rope, true, true);
  return Status::Ok();
}

}  // namespace attn
