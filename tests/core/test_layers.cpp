// The layers of a transformer block (layers.hpp): each forward against a float64 reference written
// here, each backward against central finite differences of that reference (and, loosely, of the
// float32 forward itself), at awkward sizes; argument checks; and RMSNorm against a real Hugging Face
// Llama (../shared/models/llama/).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention/layers.hpp"
#include "model_files.hpp"

namespace {

using Vec = std::vector<double>;
using Floats = std::vector<float>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Floats random_floats(std::mt19937& rng, std::size_t count, double scale = 1.0, double away_from_zero = 0.0) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Floats values(count);
  for (float& value : values) {
    double u = uniform(rng);
    u = u < 0 ? u - away_from_zero : u + away_from_zero;
    value = static_cast<float>(scale * u);
  }
  return values;
}

Vec to_f64(const Floats& values) { return Vec(values.begin(), values.end()); }

// ‖got − want‖ / max(‖want‖, floor)
double relative_error(const Floats& got, const Vec& want, double floor = 1e-2) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), floor);
}

double dot(const Vec& a, const Vec& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// A layer under test: its differentiable inputs, a float64 reference forward, the code's forward,
// and the code's backward adding d(Σ dout ⊙ out)/d(input k) into grads[k].
struct LayerCase {
  std::string name;
  std::vector<Floats> inputs;
  std::vector<std::string> input_names;
  std::function<Vec(const std::vector<Vec>&)> reference;
  std::function<Floats(const std::vector<Floats>&)> forward;
  std::function<void(const std::vector<Floats>&, const Floats& dout, std::vector<Floats>& grads)> backward;
};

struct Worst {
  double forward = 0, backward64 = 0, backward32 = 0;
};

// Central differences of L = Σ dout ⊙ f(inputs), input by input.
std::vector<Vec> numeric_gradients(const std::vector<Vec>& inputs,
                                   const std::function<double(const std::vector<Vec>&)>& loss, double step) {
  std::vector<Vec> grads;
  std::vector<Vec> shifted = inputs;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    Vec grad(inputs[k].size());
    for (std::size_t i = 0; i < inputs[k].size(); ++i) {
      shifted[k][i] = inputs[k][i] + step;
      const double up = loss(shifted);
      shifted[k][i] = inputs[k][i] - step;
      const double down = loss(shifted);
      shifted[k][i] = inputs[k][i];
      grad[i] = (up - down) / (2 * step);
    }
    grads.push_back(grad);
  }
  return grads;
}

void check_case(const LayerCase& c, std::mt19937& rng, Worst* worst) {
  INFO(c.name);
  std::vector<Vec> inputs64;
  for (const Floats& input : c.inputs) inputs64.push_back(to_f64(input));
  // forward: every output written (the code's buffers start as NaN), and equal to the reference
  const Floats out = c.forward(c.inputs);
  const Vec want = c.reference(inputs64);
  REQUIRE(out.size() == want.size());
  CHECK(std::all_of(out.begin(), out.end(), [](float v) { return std::isfinite(v); }));
  const double forward_error = relative_error(out, want, 1e-12);
  CHECK(forward_error <= 1e-5);
  worst->forward = std::max(worst->forward, forward_error);
  // backward: into buffers holding 0.25 already, which it must add to
  const Floats dout = random_floats(rng, out.size());
  const Vec dout64 = to_f64(dout);
  std::vector<Floats> grads;
  for (const Floats& input : c.inputs) grads.emplace_back(input.size(), 0.25f);
  c.backward(c.inputs, dout, grads);
  for (Floats& grad : grads)
    for (float& g : grad) g -= 0.25f;
  const auto loss64 = [&](const std::vector<Vec>& x) { return dot(dout64, c.reference(x)); };
  const auto loss32 = [&](const std::vector<Vec>& x) {
    std::vector<Floats> x32;
    for (const Vec& v : x) x32.emplace_back(v.begin(), v.end());
    return dot(dout64, to_f64(c.forward(x32)));
  };
  const std::vector<Vec> numeric64 = numeric_gradients(inputs64, loss64, 1e-5);
  const std::vector<Vec> numeric32 = numeric_gradients(inputs64, loss32, 3e-3);
  for (std::size_t k = 0; k < grads.size(); ++k) {
    INFO("gradient of " << c.input_names[k]);
    const double error64 = relative_error(grads[k], numeric64[k]);
    const double error32 = relative_error(grads[k], numeric32[k]);
    CHECK(error64 <= 1e-4);
    CHECK(error32 <= 2e-3);
    worst->backward64 = std::max(worst->backward64, error64);
    worst->backward32 = std::max(worst->backward32, error32);
  }
}

void report(const char* what, const Worst& worst) {
  MESSAGE(std::string(what) << ": largest relative error, forward against float64 " << worst.forward
                            << "; backward against float64 differences " << worst.backward64
                            << ", against float32 differences of the forward " << worst.backward32);
}

attn::Span span(Floats& values) { return attn::Span(values); }
attn::View<float> view(const Floats& values) { return attn::View<float>(values); }

// ---- float64 references ----------------------------------------------------------------------------

Vec ref_layernorm(const Vec& x, const Vec& weight, const Vec& bias, int n, int d, double eps) {
  Vec out(x.size());
  for (int i = 0; i < n; ++i) {
    double mean = 0, variance = 0;
    for (int j = 0; j < d; ++j) mean += x[i * d + j] / d;
    for (int j = 0; j < d; ++j) variance += (x[i * d + j] - mean) * (x[i * d + j] - mean) / d;
    for (int j = 0; j < d; ++j)
      out[i * d + j] = (x[i * d + j] - mean) / std::sqrt(variance + eps) * weight[j] + bias[j];
  }
  return out;
}

Vec ref_rmsnorm(const Vec& x, const Vec& weight, int n, int d, double eps) {
  Vec out(x.size());
  for (int i = 0; i < n; ++i) {
    double mean_square = 0;
    for (int j = 0; j < d; ++j) mean_square += x[i * d + j] * x[i * d + j] / d;
    for (int j = 0; j < d; ++j) out[i * d + j] = x[i * d + j] / std::sqrt(mean_square + eps) * weight[j];
  }
  return out;
}

double ref_activation(double x, attn::Activation activation) {
  const double pi = 3.14159265358979323846;
  switch (activation) {
    case attn::Activation::GeluErf: return x * 0.5 * std::erfc(-x / std::sqrt(2.0));  // x · Φ(x)
    case attn::Activation::GeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * std::pow(x, 3))));
    case attn::Activation::Relu: return std::max(x, 0.0);
    case attn::Activation::Silu: return x / (1 + std::exp(-x));
  }
  return 0;
}

// (rows, inner) · (inner, cols), plus an optional bias of cols
Vec ref_matmul(const Vec& a, const Vec& b, const Vec* bias, int rows, int inner, int cols) {
  Vec out(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      double sum = bias ? (*bias)[j] : 0.0;
      for (int k = 0; k < inner; ++k) sum += a[i * inner + k] * b[k * cols + j];
      out[i * cols + j] = sum;
    }
  }
  return out;
}

Vec ref_rope(const Vec& x, const attn::Rope& rope) {
  Vec out = x;
  const int half = rope.rotary_dims / 2;
  for (int i = 0; i < rope.n; ++i) {
    for (int h = 0; h < rope.heads; ++h) {
      const int base = (i * rope.heads + h) * rope.d_head;
      for (int j = 0; j < half; ++j) {
        const double frequency = 1.0 / std::pow(rope.theta, static_cast<double>(2 * j) / rope.rotary_dims);
        const double angle = (rope.first_position + i) * frequency;
        // rotate_half: (x1, x2) → (−x2, x1); out = x · cos + rotate_half(x) · sin
        out[base + j] = x[base + j] * std::cos(angle) - x[base + j + half] * std::sin(angle);
        out[base + j + half] = x[base + j + half] * std::cos(angle) + x[base + j] * std::sin(angle);
      }
    }
  }
  return out;
}

const char* activation_name(attn::Activation activation) {
  switch (activation) {
    case attn::Activation::GeluErf: return "gelu (erf)";
    case attn::Activation::GeluTanh: return "gelu (tanh)";
    case attn::Activation::Relu: return "relu";
    case attn::Activation::Silu: return "silu";
  }
  return "";
}

const attn::Activation kActivations[] = {attn::Activation::GeluErf, attn::Activation::GeluTanh, attn::Activation::Relu,
                                         attn::Activation::Silu};

}  // namespace

TEST_CASE("layernorm_forward and layernorm_backward against float64 and its finite differences") {
  std::mt19937 rng(2201);
  Worst worst;
  for (auto shape : {std::pair{1, 1}, std::pair{3, 5}, std::pair{7, 13}, std::pair{2, 33}}) {
    const int n = shape.first, d = shape.second;  // named: a lambda cannot capture a structured binding
    const float eps = 1e-5f;
    LayerCase c;
    c.name = "layernorm n=" + std::to_string(n) + " d=" + std::to_string(d);
    c.inputs = {random_floats(rng, n * d, 2.0), random_floats(rng, d, 1.5), random_floats(rng, d)};
    c.input_names = {"x", "weight", "bias"};
    c.reference = [=](const std::vector<Vec>& in) { return ref_layernorm(in[0], in[1], in[2], n, d, eps); };
    c.forward = [=](const std::vector<Floats>& in) {
      Floats out(n * d, kNaN), mean(n, kNaN), rstd(n, kNaN);
      REQUIRE(
          attn::layernorm_forward(span(out), span(mean), span(rstd), view(in[0]), view(in[1]), view(in[2]), n, d, eps)
              .ok());
      return out;
    };
    c.backward = [=](const std::vector<Floats>& in, const Floats& dout, std::vector<Floats>& grads) {
      Floats out(n * d), mean(n), rstd(n);
      REQUIRE(
          attn::layernorm_forward(span(out), span(mean), span(rstd), view(in[0]), view(in[1]), view(in[2]), n, d, eps)
              .ok());
      REQUIRE(attn::layernorm_backward(span(grads[0]), span(grads[1]), span(grads[2]), view(dout), view(in[0]),
                                       view(in[1]), view(mean), view(rstd), n, d)
                  .ok());
    };
    check_case(c, rng, &worst);
  }
  report("layernorm", worst);
}

TEST_CASE("rmsnorm_forward and rmsnorm_backward against float64 and its finite differences") {
  std::mt19937 rng(2202);
  Worst worst;
  for (auto shape : {std::pair{1, 1}, std::pair{3, 5}, std::pair{7, 13}, std::pair{2, 33}}) {
    const int n = shape.first, d = shape.second;  // named: a lambda cannot capture a structured binding
    const float eps = 1e-6f;
    LayerCase c;
    c.name = "rmsnorm n=" + std::to_string(n) + " d=" + std::to_string(d);
    c.inputs = {random_floats(rng, n * d, 2.0, 0.05), random_floats(rng, d, 1.5)};
    c.input_names = {"x", "weight"};
    c.reference = [=](const std::vector<Vec>& in) { return ref_rmsnorm(in[0], in[1], n, d, eps); };
    c.forward = [=](const std::vector<Floats>& in) {
      Floats out(n * d, kNaN), rstd(n, kNaN);
      REQUIRE(attn::rmsnorm_forward(span(out), span(rstd), view(in[0]), view(in[1]), n, d, eps).ok());
      return out;
    };
    c.backward = [=](const std::vector<Floats>& in, const Floats& dout, std::vector<Floats>& grads) {
      Floats out(n * d), rstd(n);
      REQUIRE(attn::rmsnorm_forward(span(out), span(rstd), view(in[0]), view(in[1]), n, d, eps).ok());
      REQUIRE(
          attn::rmsnorm_backward(span(grads[0]), span(grads[1]), view(dout), view(in[0]), view(in[1]), view(rstd), n, d)
              .ok());
    };
    check_case(c, rng, &worst);
  }
  report("rmsnorm", worst);
}

TEST_CASE("activation_forward and activation_backward: GELU (erf, tanh), ReLU, SiLU") {
  std::mt19937 rng(2203);
  Worst worst;
  for (attn::Activation activation : kActivations) {
    LayerCase c;
    c.name = activation_name(activation);
    // away from ReLU's kink at 0 by more than the float32 difference step
    c.inputs = {random_floats(rng, 37, 4.0, 0.02)};
    c.input_names = {"x"};
    c.reference = [=](const std::vector<Vec>& in) {
      Vec out(in[0].size());
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = ref_activation(in[0][i], activation);
      return out;
    };
    c.forward = [=](const std::vector<Floats>& in) {
      Floats out(in[0].size(), kNaN);
      REQUIRE(attn::activation_forward(span(out), view(in[0]), activation).ok());
      return out;
    };
    c.backward = [=](const std::vector<Floats>& in, const Floats& dout, std::vector<Floats>& grads) {
      REQUIRE(attn::activation_backward(span(grads[0]), view(dout), view(in[0]), activation).ok());
    };
    check_case(c, rng, &worst);
  }
  report("activations", worst);
}

namespace {

LayerCase mlp_case(std::mt19937& rng, int n, int d, int f, attn::Activation activation, bool biases) {
  LayerCase c;
  c.name = std::string("mlp ") + activation_name(activation) + (biases ? " with biases" : " without biases") +
           " n=" + std::to_string(n) + " d=" + std::to_string(d) + " f=" + std::to_string(f);
  c.input_names = {"x", "w1", "w2"};
  if (biases) c.input_names.insert(c.input_names.end(), {"b1", "b2"});
  // drawn again until no hidden value is within 0.05 of ReLU's kink, which a difference step would cross
  for (bool near_kink = true; near_kink;) {
    c.inputs = {random_floats(rng, n * d), random_floats(rng, d * f, 0.8), random_floats(rng, d * f, 0.8)};
    if (biases) c.inputs.insert(c.inputs.end(), {random_floats(rng, f, 0.5), random_floats(rng, d, 0.5)});
    const Vec b1 = biases ? to_f64(c.inputs[3]) : Vec();
    const Vec pre = ref_matmul(to_f64(c.inputs[0]), to_f64(c.inputs[1]), biases ? &b1 : nullptr, n, d, f);
    near_kink = std::any_of(pre.begin(), pre.end(), [](double v) { return std::abs(v) < 0.05; });
  }
  c.reference = [=](const std::vector<Vec>& in) {
    Vec hidden = ref_matmul(in[0], in[1], biases ? &in[3] : nullptr, n, d, f);
    for (double& value : hidden) value = ref_activation(value, activation);
    return ref_matmul(hidden, in[2], biases ? &in[4] : nullptr, n, f, d);
  };
  const auto run_forward = [=](const std::vector<Floats>& in, Floats& out, Floats& pre, Floats& hidden) {
    const attn::View<float> b1 = biases ? view(in[3]) : attn::View<float>();
    const attn::View<float> b2 = biases ? view(in[4]) : attn::View<float>();
    REQUIRE(attn::mlp_forward(span(out), span(pre), span(hidden), view(in[0]), view(in[1]), b1, view(in[2]), b2, n, d,
                              f, activation)
                .ok());
  };
  c.forward = [=](const std::vector<Floats>& in) {
    Floats out(n * d, kNaN), pre(n * f, kNaN), hidden(n * f, kNaN);
    run_forward(in, out, pre, hidden);
    return out;
  };
  c.backward = [=](const std::vector<Floats>& in, const Floats& dout, std::vector<Floats>& grads) {
    Floats out(n * d), pre(n * f), hidden(n * f);
    run_forward(in, out, pre, hidden);
    attn::MlpGradients g{span(grads[0]), span(grads[1]), {}, span(grads[2]), {}};
    if (biases) g.b1 = span(grads[3]), g.b2 = span(grads[4]);
    REQUIRE(attn::mlp_backward(g, view(dout), view(in[0]), view(in[1]), view(in[2]), view(pre), view(hidden), n, d, f,
                               activation)
                .ok());
  };
  return c;
}

LayerCase swiglu_case(std::mt19937& rng, int n, int d, int f) {
  LayerCase c;
  c.name = "swiglu n=" + std::to_string(n) + " d=" + std::to_string(d) + " f=" + std::to_string(f);
  c.inputs = {random_floats(rng, n * d), random_floats(rng, d * f, 0.8), random_floats(rng, d * f, 0.8),
              random_floats(rng, d * f, 0.8)};
  c.input_names = {"x", "wGate", "wUp", "wDown"};
  c.reference = [=](const std::vector<Vec>& in) {
    const Vec gate = ref_matmul(in[0], in[1], nullptr, n, d, f);
    const Vec up = ref_matmul(in[0], in[2], nullptr, n, d, f);
    Vec hidden(gate.size());
    for (std::size_t i = 0; i < hidden.size(); ++i) hidden[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
    return ref_matmul(hidden, in[3], nullptr, n, f, d);
  };
  const auto run_forward = [=](const std::vector<Floats>& in, Floats& out, Floats& gate, Floats& up) {
    Floats hidden(n * f, kNaN);
    REQUIRE(attn::swiglu_forward(span(out), span(gate), span(up), span(hidden), view(in[0]), view(in[1]), view(in[2]),
                                 view(in[3]), n, d, f)
                .ok());
  };
  c.forward = [=](const std::vector<Floats>& in) {
    Floats out(n * d, kNaN), gate(n * f, kNaN), up(n * f, kNaN);
    run_forward(in, out, gate, up);
    return out;
  };
  c.backward = [=](const std::vector<Floats>& in, const Floats& dout, std::vector<Floats>& grads) {
    Floats out(n * d), gate(n * f), up(n * f);
    run_forward(in, out, gate, up);
    const attn::SwigluGradients g{span(grads[0]), span(grads[1]), span(grads[2]), span(grads[3])};
    REQUIRE(attn::swiglu_backward(g, view(dout), view(in[0]), view(in[1]), view(in[2]), view(in[3]), view(gate),
                                  view(up), n, d, f)
                .ok());
  };
  return c;
}

}  // namespace

TEST_CASE("mlp_forward and mlp_backward, every activation, with and without biases") {
  std::mt19937 rng(2204);
  Worst worst;
  for (attn::Activation activation : kActivations) {
    for (bool biases : {true, false}) {
      check_case(mlp_case(rng, 1, 3, 2, activation, biases), rng, &worst);
      check_case(mlp_case(rng, 5, 7, 11, activation, biases), rng, &worst);
    }
  }
  report("mlp", worst);
}

TEST_CASE("swiglu_forward and swiglu_backward") {
  std::mt19937 rng(2205);
  Worst worst;
  check_case(swiglu_case(rng, 1, 1, 1), rng, &worst);
  check_case(swiglu_case(rng, 3, 5, 2), rng, &worst);
  check_case(swiglu_case(rng, 6, 7, 13), rng, &worst);
  report("swiglu", worst);
}

TEST_CASE("rope_apply and rope_backward: rotate-half, partial rotation, positions from an offset") {
  std::mt19937 rng(2206);
  Worst worst;
  attn::Rope shapes[3];
  shapes[0] = {5, 3, 6, 4, 2, 10000};  // n, heads, d_head, rotary_dims, first_position, theta
  shapes[1] = {3, 2, 8, 8, 0, 10000};
  shapes[2] = {4, 1, 10, 2, 7, 500};
  for (const attn::Rope& rope : shapes) {
    const int count = rope.n * rope.heads * rope.d_head;
    LayerCase c;
    c.name = "rope heads=" + std::to_string(rope.heads) + " dHead=" + std::to_string(rope.d_head) +
             " rotaryDims=" + std::to_string(rope.rotary_dims);
    c.inputs = {random_floats(rng, count, 2.0)};
    c.input_names = {"x"};
    c.reference = [=](const std::vector<Vec>& in) { return ref_rope(in[0], rope); };
    c.forward = [=](const std::vector<Floats>& in) {
      Floats out(count, kNaN);
      REQUIRE(attn::rope_apply(span(out), view(in[0]), rope).ok());
      return out;
    };
    c.backward = [=](const std::vector<Floats>&, const Floats& dout, std::vector<Floats>& grads) {
      REQUIRE(attn::rope_backward(span(grads[0]), view(dout), rope).ok());
    };
    check_case(c, rng, &worst);
    // the backward is the inverse rotation: it takes the rotated x back to x
    const Floats rotated = c.forward(c.inputs);
    Floats back(count, 0.0f);
    REQUIRE(attn::rope_backward(span(back), view(rotated), rope).ok());
    CHECK(relative_error(back, to_f64(c.inputs[0]), 1e-12) <= 1e-6);
  }
  report("rope", worst);
}

TEST_CASE("layers refuse bad arguments, naming the field, and write nothing") {
  Floats x(6, 1.0f), weight(3, 1.0f), bias(3, 0.0f), out(6, kNaN), mean(2, kNaN), rstd(2, kNaN);
  const auto layernorm = [&](float eps) {
    return attn::layernorm_forward(span(out), span(mean), span(rstd), view(x), view(weight), view(bias), 2, 3, eps);
  };
  attn::Status s = layernorm(0.0f);
  CHECK(s.field == "eps");
  CHECK(s.message == "eps is 0; it must be a finite number above 0");
  CHECK(layernorm(kNaN).field == "eps");
  weight.push_back(1.0f);
  s = layernorm(1e-5f);
  CHECK(s.field == "weight");
  CHECK(s.message == "weight has 4 values; expected d = 3");
  weight.pop_back();
  x[4] = kNaN;
  s = attn::rmsnorm_forward(span(out), span(rstd), view(x), view(weight), 2, 3, 1e-6f);
  CHECK(s.field == "x");
  CHECK(s.message == "x[4] is NaN; every value must be a finite number");
  x[4] = 1.0f;
  Floats short_rstd(1);
  s = attn::rmsnorm_forward(span(out), span(short_rstd), view(x), view(weight), 2, 3, 1e-6f);
  CHECK(s.field == "rstd");
  CHECK(s.message == "rstd has 1 values; expected n = 2");
  CHECK(attn::rmsnorm_forward(span(out), span(rstd), view(x), view(weight), 0, 3, 1e-6f).field == "n");
  CHECK(std::all_of(out.begin(), out.end(), [](float v) { return std::isnan(v); }));  // nothing written

  // the MLP: a bias of the wrong length, a missing weight, a gradient for a bias that is absent
  Floats w1(3 * 2, 0.5f), b1(3, 0.0f), w2(2 * 3, 0.5f), pre(4, kNaN), hidden(4, kNaN);
  s = attn::mlp_forward(span(out), span(pre), span(hidden), view(x), view(w1), view(b1), view(w2), {}, 2, 3, 2,
                        attn::Activation::Relu);
  CHECK(s.field == "b1");
  CHECK(s.message == "b1 has 3 values; expected f = 2");
  s = attn::mlp_forward(span(out), span(pre), span(hidden), view(x), {}, {}, view(w2), {}, 2, 3, 2,
                        attn::Activation::Relu);
  CHECK(s.field == "w1");
  CHECK(s.message == "w1 is missing; expected d × f = 6 values");
  Floats dout(6, 1.0f), db2(4);
  attn::MlpGradients grads;
  grads.b2 = span(db2);
  s = attn::mlp_backward(grads, view(dout), view(x), view(w1), view(w2), view(pre), view(hidden), 2, 3, 2,
                         attn::Activation::Relu);
  CHECK(s.field == "hiddenPre");  // the saved activations hold NaN: never written by a forward
  std::fill(pre.begin(), pre.end(), 0.0f);
  std::fill(hidden.begin(), hidden.end(), 0.0f);
  s = attn::mlp_backward(grads, view(dout), view(x), view(w1), view(w2), view(pre), view(hidden), 2, 3, 2,
                         attn::Activation::Relu);
  CHECK(s.field == "dB2");
  CHECK(s.message == "dB2 has 4 values; expected d = 3, or empty when not wanted");

  // RoPE: an odd rotated width, a theta that rotates nothing
  attn::Rope rope{2, 1, 3, 3, 0, 10000};
  s = attn::rope_apply(span(out), view(x), rope);
  CHECK(s.field == "rotaryDims");
  CHECK(s.message == "rotaryDims is 3; it must be even, at least 2 and at most dHead (3)");
  rope.rotary_dims = 2;
  rope.theta = 1;
  CHECK(attn::rope_apply(span(out), view(x), rope).field == "theta");
  CHECK(std::all_of(out.begin(), out.end(), [](float v) { return std::isnan(v); }));
}

// ---- Against a real Hugging Face model -------------------------------------------------------------

namespace {

// One of ../shared/models/: its config, its reference numbers and its tensors.
struct ModelFolder {
  std::string path;
  model_files::Json config, reference;

  Floats tensor(const std::string& name) const {
    return model_files::read_f32_tensor(path + "/model.safetensors", name);
  }
  Vec numbers(const char* list, int index) const { return reference[list][static_cast<std::size_t>(index)].numbers(); }
  Vec layer_numbers(int layer, const char* what) const {
    return reference["layers"][static_cast<std::size_t>(layer)][what].numbers();
  }
};

// False, with a message, where the folder cannot be read (absent, or a build without the host's files).
bool open_model(const char* name, ModelFolder* model) {
  model->path = std::string(ATTN_MODELS_DIR) + "/" + name;
  if (!model_files::file_exists(model->path + "/reference.json")) {
    MESSAGE("skipped: no model folder at " << model->path);
    return false;
  }
  model->config = model_files::read_json(model->path + "/config.json");
  model->reference = model_files::read_json(model->path + "/reference.json");
  return true;
}

// nn.Linear's weight (out, in) as layers.hpp takes it: (in, out).
Floats transposed(const Floats& weight, int out_features, int in_features) {
  Floats result(weight.size());
  for (int o = 0; o < out_features; ++o)
    for (int i = 0; i < in_features; ++i) result[i * out_features + o] = weight[o * in_features + i];
  return result;
}

Floats add(const Floats& a, const Floats& b) {
  Floats sum(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) sum[i] = a[i] + b[i];
  return sum;
}

// Norm-wise relative error over the matrix and row by row, both at most 1e-4.
void check_against_model(const std::string& what, const Floats& got, const Vec& want, int n, int d) {
  REQUIRE(got.size() == want.size());
  double worst_row = 0;
  for (int i = 0; i < n; ++i) {
    const Floats got_row(got.begin() + i * d, got.begin() + (i + 1) * d);
    const Vec want_row(want.begin() + i * d, want.begin() + (i + 1) * d);
    worst_row = std::max(worst_row, relative_error(got_row, want_row, 1e-12));
  }
  const double whole = relative_error(got, want, 1e-12);
  CHECK(whole <= 1e-4);
  CHECK(worst_row <= 1e-4);
  MESSAGE(what << " (n = " << n << ", d = " << d << "): relative error " << whole << " over the matrix, at most "
               << worst_row << " in a row");
}

Floats layernorm(const Floats& x, const Floats& weight, const Floats& bias, int n, int d, float eps) {
  Floats out(x.size(), kNaN), mean(n), rstd(n);
  REQUIRE(
      attn::layernorm_forward(span(out), span(mean), span(rstd), view(x), view(weight), view(bias), n, d, eps).ok());
  return out;
}

}  // namespace

TEST_CASE("rmsnorm_forward reproduces Hugging Face Llama's first input_layernorm: layers[0].input") {
  ModelFolder model;
  if (!open_model("llama", &model)) return;
  const int d = static_cast<int>(model.config["hidden_size"].number);
  const float eps = static_cast<float>(model.config["rms_norm_eps"].number);
  const Vec embeddings = model.numbers("hidden_states", 0);
  const int n = static_cast<int>(embeddings.size() / d);
  const Floats x(embeddings.begin(), embeddings.end());
  const Floats weight = model.tensor("model.layers.0.input_layernorm.weight");
  REQUIRE(weight.size() == static_cast<std::size_t>(d));
  Floats out(x.size(), kNaN), rstd(n, kNaN);
  REQUIRE(attn::rmsnorm_forward(span(out), span(rstd), view(x), view(weight), n, d, eps).ok());
  check_against_model("llama layers[0].input", out, model.layer_numbers(0, "input"), n, d);
}

TEST_CASE("Hugging Face Llama's first block after attention: RMSNorm, SwiGLU, residual = hidden_states[1]") {
  ModelFolder model;
  if (!open_model("llama", &model)) return;
  const int d = static_cast<int>(model.config["hidden_size"].number);
  const int f = static_cast<int>(model.config["intermediate_size"].number);
  const float eps = static_cast<float>(model.config["rms_norm_eps"].number);
  const Vec embeddings = model.numbers("hidden_states", 0), attention_out = model.layer_numbers(0, "output");
  const int n = static_cast<int>(embeddings.size() / d);
  // the residual stream after attention, then its norm, the MLP, and the second residual addition
  const Floats residual =
      add(Floats(embeddings.begin(), embeddings.end()), Floats(attention_out.begin(), attention_out.end()));
  const Floats norm_weight = model.tensor("model.layers.0.post_attention_layernorm.weight");
  Floats normed(n * d, kNaN), rstd(n);
  REQUIRE(attn::rmsnorm_forward(span(normed), span(rstd), view(residual), view(norm_weight), n, d, eps).ok());
  const Floats w_gate = transposed(model.tensor("model.layers.0.mlp.gate_proj.weight"), f, d);
  const Floats w_up = transposed(model.tensor("model.layers.0.mlp.up_proj.weight"), f, d);
  const Floats w_down = transposed(model.tensor("model.layers.0.mlp.down_proj.weight"), d, f);
  Floats mlp_out(n * d, kNaN), gate(n * f), up(n * f), hidden(n * f);
  REQUIRE(attn::swiglu_forward(span(mlp_out), span(gate), span(up), span(hidden), view(normed), view(w_gate),
                               view(w_up), view(w_down), n, d, f)
              .ok());
  check_against_model("llama hidden_states[1]", add(residual, mlp_out), model.numbers("hidden_states", 1), n, d);
}

TEST_CASE(
    "Hugging Face GPT-2's first block after attention: LayerNorm, MLP with gelu_new, residual = hidden_states[1]") {
  ModelFolder model;
  if (!open_model("gpt2", &model)) return;
  const int d = static_cast<int>(model.config["n_embd"].number);
  const int f = 4 * d;  // n_inner is null: GPT-2's MLP is 4 · d wide
  const float eps = static_cast<float>(model.config["layer_norm_epsilon"].number);
  const Vec embeddings = model.numbers("hidden_states", 0), attention_out = model.layer_numbers(0, "output");
  const int n = static_cast<int>(embeddings.size() / d);
  const Floats residual =
      add(Floats(embeddings.begin(), embeddings.end()), Floats(attention_out.begin(), attention_out.end()));
  const Floats normed = layernorm(residual, model.tensor("transformer.h.0.ln_2.weight"),
                                  model.tensor("transformer.h.0.ln_2.bias"), n, d, eps);
  // Conv1D keeps its weight (in, out) already
  const Floats w1 = model.tensor("transformer.h.0.mlp.c_fc.weight"), b1 = model.tensor("transformer.h.0.mlp.c_fc.bias");
  const Floats w2 = model.tensor("transformer.h.0.mlp.c_proj.weight"),
               b2 = model.tensor("transformer.h.0.mlp.c_proj.bias");
  REQUIRE(w1.size() == static_cast<std::size_t>(d) * f);
  Floats mlp_out(n * d, kNaN), pre(n * f), hidden(n * f);
  REQUIRE(attn::mlp_forward(span(mlp_out), span(pre), span(hidden), view(normed), view(w1), view(b1), view(w2),
                            view(b2), n, d, f, attn::Activation::GeluTanh)
              .ok());
  check_against_model("gpt2 hidden_states[1]", add(residual, mlp_out), model.numbers("hidden_states", 1), n, d);
}

TEST_CASE(
    "Hugging Face BERT: the embeddings' LayerNorm = hidden_states[0]; the first block's post-LN tail = "
    "hidden_states[1]") {
  ModelFolder model;
  if (!open_model("bert", &model)) return;
  const int d = static_cast<int>(model.config["hidden_size"].number);
  const int f = static_cast<int>(model.config["intermediate_size"].number);
  const float eps = static_cast<float>(model.config["layer_norm_eps"].number);
  const Vec ids = model.reference["ids"].numbers();
  const int n = static_cast<int>(ids.size());
  // the raw embeddings: word + position + token type 0 (one sentence)
  const Floats words = model.tensor("bert.embeddings.word_embeddings.weight");
  const Floats positions = model.tensor("bert.embeddings.position_embeddings.weight");
  const Floats types = model.tensor("bert.embeddings.token_type_embeddings.weight");
  Floats raw(n * d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j)
      raw[i * d + j] = words[static_cast<int>(ids[i]) * d + j] + positions[i * d + j] + types[j];
  const Floats embedded = layernorm(raw, model.tensor("bert.embeddings.LayerNorm.weight"),
                                    model.tensor("bert.embeddings.LayerNorm.bias"), n, d, eps);
  check_against_model("bert hidden_states[0]", embedded, model.numbers("hidden_states", 0), n, d);
  // post-LN: LayerNorm(x + attention), then LayerNorm(that + MLP(that)), the MLP with exact GELU
  const std::string layer = "bert.encoder.layer.0.";
  const Vec attention_out = model.layer_numbers(0, "output");
  const Floats attended = layernorm(add(embedded, Floats(attention_out.begin(), attention_out.end())),
                                    model.tensor(layer + "attention.output.LayerNorm.weight"),
                                    model.tensor(layer + "attention.output.LayerNorm.bias"), n, d, eps);
  const Floats w1 = transposed(model.tensor(layer + "intermediate.dense.weight"), f, d);
  const Floats w2 = transposed(model.tensor(layer + "output.dense.weight"), d, f);
  Floats mlp_out(n * d, kNaN), pre(n * f), hidden(n * f);
  REQUIRE(attn::mlp_forward(span(mlp_out), span(pre), span(hidden), view(attended), view(w1),
                            view(model.tensor(layer + "intermediate.dense.bias")), view(w2),
                            view(model.tensor(layer + "output.dense.bias")), n, d, f, attn::Activation::GeluErf)
              .ok());
  const Floats block_out = layernorm(add(attended, mlp_out), model.tensor(layer + "output.LayerNorm.weight"),
                                     model.tensor(layer + "output.LayerNorm.bias"), n, d, eps);
  check_against_model("bert hidden_states[1]", block_out, model.numbers("hidden_states", 1), n, d);
}

namespace {

// Llama's causal attention weights from rotated q and k (grouped: query head h reads key head
// h / (heads / kv_heads)), in float64: heads × n × n.
Vec causal_probs(const Floats& q, const Floats& k, int n, int heads, int kv_heads, int d_head) {
  Vec probs(static_cast<std::size_t>(heads) * n * n, 0.0);
  for (int h = 0; h < heads; ++h) {
    const int g = h / (heads / kv_heads);
    for (int i = 0; i < n; ++i) {
      Vec scores(i + 1);
      double largest = -1e300, sum = 0;
      for (int j = 0; j <= i; ++j) {
        double score = 0;
        for (int c = 0; c < d_head; ++c)
          score += double(q[(i * heads + h) * d_head + c]) * k[(j * kv_heads + g) * d_head + c];
        scores[j] = score / std::sqrt(double(d_head));
        largest = std::max(largest, scores[j]);
      }
      for (int j = 0; j <= i; ++j) sum += std::exp(scores[j] - largest);
      for (int j = 0; j <= i; ++j) probs[(h * n + i) * n + j] = std::exp(scores[j] - largest) / sum;
    }
  }
  return probs;
}

// x · weightᵀ for nn.Linear's (out, in) weight, rounded to float32 as the model's q and k are.
Floats linear(const Floats& x, const Floats& weight, int n, int in_features, int out_features) {
  const Vec product = ref_matmul(to_f64(x), to_f64(transposed(weight, out_features, in_features)), nullptr, n,
                                 in_features, out_features);
  return Floats(product.begin(), product.end());
}

}  // namespace

TEST_CASE("rope_apply reproduces Hugging Face Llama's attention weights (layers[0].probs, grouped heads)") {
  ModelFolder model;
  if (!open_model("llama", &model)) return;
  const int d = static_cast<int>(model.config["hidden_size"].number);
  const int heads = static_cast<int>(model.config["num_attention_heads"].number);
  const int kv_heads = static_cast<int>(model.config["num_key_value_heads"].number);
  const int d_head = static_cast<int>(model.config["head_dim"].number);
  // transformers 5 keeps theta in rope_parameters, transformers 4 at the top level
  const double theta = model.config.has("rope_parameters") ? model.config["rope_parameters"]["rope_theta"].number
                                                           : model.config["rope_theta"].number;
  const Vec input = model.layer_numbers(0, "input");
  const int n = static_cast<int>(input.size() / d);
  const Floats x(input.begin(), input.end());
  const Floats q = linear(x, model.tensor("model.layers.0.self_attn.q_proj.weight"), n, d, heads * d_head);
  const Floats k = linear(x, model.tensor("model.layers.0.self_attn.k_proj.weight"), n, d, kv_heads * d_head);
  Floats q_rotated(q.size(), kNaN), k_rotated(k.size(), kNaN);
  REQUIRE(attn::rope_apply(span(q_rotated), view(q), attn::Rope{n, heads, d_head, d_head, 0, theta}).ok());
  REQUIRE(attn::rope_apply(span(k_rotated), view(k), attn::Rope{n, kv_heads, d_head, d_head, 0, theta}).ok());
  const Vec want = model.layer_numbers(0, "probs");
  const Vec got = causal_probs(q_rotated, k_rotated, n, heads, kv_heads, d_head);
  check_against_model("llama layers[0].probs, rows of heads × n", Floats(got.begin(), got.end()), want, heads * n, n);
  // without the rotation the weights are far off: the check above sees RoPE
  const Vec unrotated = causal_probs(q, k, n, heads, kv_heads, d_head);
  const double error_unrotated = relative_error(Floats(unrotated.begin(), unrotated.end()), want, 1e-12);
  CHECK(error_unrotated > 1e-2);
  MESSAGE("without rope_apply the same weights are off by " << error_unrotated);
}
