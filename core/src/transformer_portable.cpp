// A block's MLP, forward and backward, with Arithmetic::Portable (the stack trainer's): the same bits
// natively and in both WebAssembly builds. The products are ops::portable's (one summation order on
// every build); the activations use elementary.hpp's exp in place of libm's erf, tanh and exp, which
// differ between glibc and Emscripten's musl. The norms need nothing of this: layers.cpp's LayerNorm
// and RMSNorm are plain double loops and a correctly rounded sqrt, the same everywhere.
// n tokens, d features, f hidden features. transformer.hpp's Mlp: Plain act(x · w1 + b1) · w2 + b2,
// SwiGlu (silu(x · w_gate) ⊙ (x · w_up)) · w_down.
#include <cmath>
#include <vector>

#include "attention/transformer.hpp"
#include "elementary.hpp"
#include "ops.hpp"
#include "transformer_common.hpp"

namespace attn {

namespace {

constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kSqrtPi = 1.77245385090551602730;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;

// e^t for t <= 0 (0 below e^−708, under every double's range)
double exp_below(double t) { return t < -708 ? 0.0 : exp_nonpositive(t); }

// tanh y = sign(y) · (1 − e^−2|y|) / (1 + e^−2|y|)
double tanh_portable(double y) {
  const double e = exp_below(-2.0 * std::fabs(y));
  const double t = (1.0 - e) / (1.0 + e);
  return y < 0 ? -t : t;
}

// erf x: its Maclaurin series below |x| = 4 (at most 60 terms; the cancellation costs under 1e-11),
// above it 1 − erfc from erfc's asymptotic series (four terms: their error is below 1e−12 · erfc(4)).
double erf_portable(double x) {
  const double a = std::fabs(x);
  double value;
  if (a < 4) {
    double term = a, sum = a;  // term_k = (−1)^k x^(2k+1) / k!
    for (int k = 1; k < 200; ++k) {
      term *= -a * a / k;
      const double add = term / (2 * k + 1);
      sum += add;
      if (std::fabs(add) < 1e-17 * std::fabs(sum)) break;
    }
    value = kTwoOverSqrtPi * sum;
  } else {
    const double inv2 = 1.0 / (2.0 * a * a);
    const double series =
        1.0 - inv2 + 3.0 * inv2 * inv2 - 15.0 * inv2 * inv2 * inv2 + 105.0 * inv2 * inv2 * inv2 * inv2;
    value = 1.0 - exp_below(-a * a) / (a * kSqrtPi) * series;
  }
  return x < 0 ? -value : value;
}

// 1 / (1 + e^−x), from e^−|x| only
double sigmoid_portable(double x) {
  const double e = exp_below(-std::fabs(x));
  return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

// layers.cpp's activate and activate_derivative, with the functions above
float activate(float x, Activation activation) {
  switch (activation) {
    case Activation::GeluErf: return static_cast<float>(0.5 * x * (1.0 + erf_portable(x * kSqrtHalf)));
    case Activation::GeluTanh:
      return static_cast<float>(0.5 * x * (1.0 + tanh_portable(kSqrt2OverPi * (x + kGeluCubic * x * x * x))));
    case Activation::Relu: return x > 0 ? x : 0.0f;
    case Activation::Silu: return static_cast<float>(x * sigmoid_portable(x));
  }
  return 0;
}

float activate_derivative(float x, Activation activation) {
  switch (activation) {
    case Activation::GeluErf:
      return static_cast<float>(0.5 * (1.0 + erf_portable(x * kSqrtHalf)) + x * kInvSqrt2Pi * exp_below(-0.5 * x * x));
    case Activation::GeluTanh: {
      const double t = tanh_portable(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
      return static_cast<float>(0.5 * (1.0 + t) +
                                0.5 * x * (1.0 - t * t) * kSqrt2OverPi * (1.0 + 3 * kGeluCubic * x * x));
    }
    case Activation::Relu: return x > 0 ? 1.0f : 0.0f;
    case Activation::Silu: {
      const double sigmoid = sigmoid_portable(x);
      return static_cast<float>(sigmoid * (1.0 + x * (1.0 - sigmoid)));
    }
  }
  return 0;
}

// c (rows, cols) = a (rows, inner) · b (inner, cols), + bias per column when present
void product(const float* a, const float* b, View<float> bias, int rows, int inner, int cols, float* c,
             ProductScratch* scratch) {
  ops::portable::matmul(a, inner, b, cols, c, cols, rows, inner, cols, scratch);
  if (!bias.present) return;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) c[static_cast<std::size_t>(i) * cols + j] += bias.data[j];
}

// g (in, out) += xᵀ · dy, x: (n, in), dy: (n, out); skipped when g is not wanted (empty)
void add_weight_gradient(std::vector<float>& g, const float* x, const float* dy, int n, int in, int out,
                         std::vector<float>* tmp, ProductScratch* scratch) {
  if (g.empty()) return;
  tmp->resize(static_cast<std::size_t>(in) * out);
  ops::portable::matmul_transa(x, in, dy, out, tmp->data(), out, in, n, out, scratch);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] += (*tmp)[i];
}

// dx (n, in) += dy (n, out) · wᵀ, w: (in, out)
void add_input_gradient(std::vector<float>& dx, const float* dy, const float* w, int n, int in, int out,
                        std::vector<float>* tmp, ProductScratch* scratch) {
  tmp->resize(static_cast<std::size_t>(n) * in);
  ops::portable::matmul_transb(dy, out, w, out, tmp->data(), in, n, out, in, scratch);
  for (std::size_t i = 0; i < dx.size(); ++i) dx[i] += (*tmp)[i];
}

// g (cols) += the column sums of dy (rows, cols), rows in order
void add_column_sums(std::vector<float>& g, const float* dy, int rows, int cols) {
  if (g.empty()) return;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) g[static_cast<std::size_t>(j)] += dy[static_cast<std::size_t>(i) * cols + j];
}

}  // namespace

void portable_mlp_forward(const Mlp& mlp, const std::vector<float>& x, int n, int d, BlockTrace* trace) {
  const int f = mlp.hidden;
  ProductScratch scratch;
  if (mlp.kind == MlpKind::Plain) {
    product(x.data(), mlp.w1.data, mlp.b1, n, d, f, trace->mlp_pre.data(), &scratch);
    for (std::size_t i = 0; i < trace->mlp_pre.size(); ++i)
      trace->mlp_hidden[i] = activate(trace->mlp_pre[i], mlp.activation);
    product(trace->mlp_hidden.data(), mlp.w2.data, mlp.b2, n, f, d, trace->mlp_out.data(), &scratch);
    return;
  }
  product(x.data(), mlp.w_gate.data, View<float>(), n, d, f, trace->mlp_pre.data(), &scratch);
  product(x.data(), mlp.w_up.data, View<float>(), n, d, f, trace->mlp_up.data(), &scratch);
  for (std::size_t i = 0; i < trace->mlp_pre.size(); ++i)
    trace->mlp_hidden[i] = activate(trace->mlp_pre[i], Activation::Silu) * trace->mlp_up[i];
  product(trace->mlp_hidden.data(), mlp.w_down.data, View<float>(), n, f, d, trace->mlp_out.data(), &scratch);
}

void portable_mlp_backward(const Mlp& mlp, const std::vector<float>& x, const BlockTrace& trace,
                           const std::vector<float>& d_out, std::vector<float>& dx, BlockGradients& g, int n, int d) {
  const int f = mlp.hidden;
  const std::size_t nf = static_cast<std::size_t>(n) * f;
  ProductScratch scratch;
  std::vector<float> tmp, d_hidden(nf);
  const float* w_out = mlp.kind == MlpKind::Plain ? mlp.w2.data : mlp.w_down.data;
  // backward pass 3: the output projection's weights (and bias), and d_hidden = d_out · w_outᵀ
  add_weight_gradient(mlp.kind == MlpKind::Plain ? g.w2 : g.w_down, trace.mlp_hidden.data(), d_out.data(), n, f, d,
                      &tmp, &scratch);
  if (mlp.kind == MlpKind::Plain) add_column_sums(g.b2, d_out.data(), n, d);
  ops::portable::matmul_transb(d_out.data(), d, w_out, d, d_hidden.data(), f, n, d, f, &scratch);
  if (mlp.kind == MlpKind::Plain) {
    // backward pass 2: through the activation; pass 1: w1, b1, x
    for (std::size_t i = 0; i < nf; ++i) d_hidden[i] *= activate_derivative(trace.mlp_pre[i], mlp.activation);
    add_column_sums(g.b1, d_hidden.data(), n, f);
    add_weight_gradient(g.w1, x.data(), d_hidden.data(), n, d, f, &tmp, &scratch);
    add_input_gradient(dx, d_hidden.data(), mlp.w1.data, n, d, f, &tmp, &scratch);
    return;
  }
  // backward pass 2: through the product and the gate's silu; pass 1: the two projections and x
  std::vector<float> d_gate(nf), d_up(nf);
  for (std::size_t i = 0; i < nf; ++i) {
    d_up[i] = d_hidden[i] * activate(trace.mlp_pre[i], Activation::Silu);
    d_gate[i] = d_hidden[i] * trace.mlp_up[i] * activate_derivative(trace.mlp_pre[i], Activation::Silu);
  }
  add_weight_gradient(g.w_gate, x.data(), d_gate.data(), n, d, f, &tmp, &scratch);
  add_weight_gradient(g.w_up, x.data(), d_up.data(), n, d, f, &tmp, &scratch);
  add_input_gradient(dx, d_gate.data(), mlp.w_gate.data, n, d, f, &tmp, &scratch);
  add_input_gradient(dx, d_up.data(), mlp.w_up.data, n, d, f, &tmp, &scratch);
}

}  // namespace attn
