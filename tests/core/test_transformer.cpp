// Stacks of transformer blocks (transformer.hpp): the forward pass against an independent float64
// forward written here, the backward pass against central finite differences of that forward, at
// random small shapes, for every option (norms, arrangements, MLPs and activations, positions, token
// types, embedding and final norms, tied or own unembedding); and every refusal, naming its field.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "attention/prepared_stack.hpp"
#include "attention/prepared_trace.hpp"
#include "attention/transformer.hpp"

namespace {

using Vec = std::vector<double>;
using Floats = std::vector<float>;
using attn::Activation;
using attn::Arrangement;
using attn::MlpKind;
using attn::NormKind;
using attn::PositionKind;
using attn::Unembedding;

// One stack's options; the sizes are drawn at random for each case.
struct Spec {
  std::string name;
  NormKind norm = NormKind::LayerNorm;
  bool norm_bias = true;
  Arrangement arrangement = Arrangement::PreNorm;
  MlpKind mlp = MlpKind::Plain;
  Activation activation = Activation::GeluTanh;
  bool mlp_bias = true, attention_bias = true, causal = true;
  PositionKind positions = PositionKind::Learned;
  int token_types = 0;
  bool embedding_norm = false, final_norm = true;
  Unembedding unembedding = Unembedding::Tied;
  bool unembedding_bias = false;
  int kv_heads = 0, rotary_dims = 0, window = 0;  // rotary_dims > 0 with positions Rotary
  double theta = 10000;
  bool padding = false;  // a padding mask: MaskMode::Keep with (n, n) flags from per-token `kept` (and causal)
  // drawn
  std::vector<int> kept;  // with padding: 1 for a token, 0 for padding; token 0 always kept
  int vocab = 0, d = 0, heads = 0, d_k = 0, f = 0, n = 0, layers = 0;
};

using Params = std::map<std::string, Vec>;

std::string at(int l, const char* what) { return "layers[" + std::to_string(l) + "]." + what; }

// ---- the float64 forward -----------------------------------------------------------------------------

// (rows, inner) · (inner, cols)
Vec matmul(const Vec& a, const Vec& b, int rows, int inner, int cols) {
  Vec c(static_cast<std::size_t>(rows) * cols, 0.0);
  for (int i = 0; i < rows; ++i)
    for (int k = 0; k < inner; ++k)
      for (int j = 0; j < cols; ++j) c[i * cols + j] += a[i * inner + k] * b[k * cols + j];
  return c;
}

Vec add(const Vec& a, const Vec& b) {
  Vec c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}

Vec norm64(const Spec& spec, const Params& p, const std::string& name, const Vec& x, int n, int d, bool on) {
  if (!on || spec.norm == NormKind::None) return x;
  const Vec& w = p.at(name + ".weight");
  const bool has_bias = p.count(name + ".bias") != 0;
  Vec out(x.size());
  for (int i = 0; i < n; ++i) {
    double mean = 0, squares = 0;
    for (int j = 0; j < d; ++j) mean += x[i * d + j] / d;
    if (spec.norm == NormKind::RmsNorm) mean = 0;
    for (int j = 0; j < d; ++j) squares += (x[i * d + j] - mean) * (x[i * d + j] - mean) / d;
    const double eps = 1e-5, scale = 1 / std::sqrt(squares + eps);
    for (int j = 0; j < d; ++j)
      out[i * d + j] = (x[i * d + j] - mean) * scale * w[j] + (has_bias ? p.at(name + ".bias")[j] : 0.0);
  }
  return out;
}

double act64(double x, Activation activation) {
  const double pi = 3.14159265358979323846;
  switch (activation) {
    case Activation::GeluErf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Activation::GeluTanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
    case Activation::Relu: return x > 0 ? x : 0;
    case Activation::Silu: return x / (1 + std::exp(-x));
  }
  return 0;
}

Vec mlp64(const Spec& spec, const Params& p, int l, const Vec& x) {
  const int n = spec.n, d = spec.d, f = spec.f;
  if (spec.mlp == MlpKind::SwiGlu) {
    const Vec gate = matmul(x, p.at(at(l, "mlp.wGate")), n, d, f), up = matmul(x, p.at(at(l, "mlp.wUp")), n, d, f);
    Vec hidden(gate.size());
    for (std::size_t i = 0; i < hidden.size(); ++i) hidden[i] = act64(gate[i], Activation::Silu) * up[i];
    return matmul(hidden, p.at(at(l, "mlp.wDown")), n, f, d);
  }
  Vec hidden = matmul(x, p.at(at(l, "mlp.w1")), n, d, f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < f; ++j) {
      const double pre = hidden[i * f + j] + (spec.mlp_bias ? p.at(at(l, "mlp.b1"))[j] : 0.0);
      hidden[i * f + j] = act64(pre, spec.activation);
    }
  Vec out = matmul(hidden, p.at(at(l, "mlp.w2")), n, f, d);
  if (spec.mlp_bias)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) out[i * d + j] += p.at(at(l, "mlp.b2"))[j];
  return out;
}

// Rotate-half RoPE on one head's (n, d_k) rows, in place.
void rotate64(Vec& rows, int n, int d_k, int dims, double theta) {
  const int half = dims / 2;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < half; ++j) {
      const double angle = i * std::pow(theta, -2.0 * j / dims);
      const double a = rows[i * d_k + j], b = rows[i * d_k + j + half];
      rows[i * d_k + j] = a * std::cos(angle) - b * std::sin(angle);
      rows[i * d_k + j + half] = b * std::cos(angle) + a * std::sin(angle);
    }
}

// One head's projection: x · w[head] + b[head]   w: (heads, d, width)
Vec project64(const Vec& x, const Params& p, const std::string& w, const std::string& b, int head, int n, int d,
              int width) {
  const Vec& all = p.at(w);
  const Vec block(all.begin() + static_cast<std::ptrdiff_t>(head) * d * width,
                  all.begin() + static_cast<std::ptrdiff_t>(head + 1) * d * width);
  Vec y = matmul(x, block, n, d, width);
  if (p.count(b))
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < width; ++c) y[i * width + c] += p.at(b)[head * width + c];
  return y;
}

Vec attention64(const Spec& spec, const Params& p, int l, const Vec& x) {
  const int n = spec.n, d = spec.d, d_k = spec.d_k, heads = spec.heads;
  const int kv_heads = spec.kv_heads ? spec.kv_heads : heads;
  Vec concat(static_cast<std::size_t>(n) * heads * d_k, 0.0);
  for (int h = 0; h < heads; ++h) {
    const int g = h / (heads / kv_heads);
    Vec q = project64(x, p, at(l, "attention.wq"), at(l, "attention.bq"), h, n, d, d_k);
    Vec k = project64(x, p, at(l, "attention.wk"), at(l, "attention.bk"), g, n, d, d_k);
    const Vec v = project64(x, p, at(l, "attention.wv"), at(l, "attention.bv"), g, n, d, d_k);
    if (spec.rotary_dims > 0) {
      rotate64(q, n, d_k, spec.rotary_dims, spec.theta);
      rotate64(k, n, d_k, spec.rotary_dims, spec.theta);
    }
    for (int i = 0; i < n; ++i) {
      Vec weights(n, 0.0);
      double largest = -1e300, sum = 0;
      auto visible = [&](int j) {
        return (!spec.causal || j <= i) && (spec.window == 0 || i - j < spec.window) && (!spec.padding || spec.kept[j]);
      };
      for (int j = 0; j < n; ++j) {
        if (!visible(j)) continue;
        for (int c = 0; c < d_k; ++c) weights[j] += q[i * d_k + c] * k[j * d_k + c] / std::sqrt(double(d_k));
        largest = std::max(largest, weights[j]);
      }
      for (int j = 0; j < n; ++j) sum += visible(j) ? std::exp(weights[j] - largest) : 0.0;
      for (int j = 0; j < n; ++j) {
        if (!visible(j)) continue;
        const double w = std::exp(weights[j] - largest) / sum;
        for (int c = 0; c < d_k; ++c) concat[(i * heads + h) * d_k + c] += w * v[j * d_k + c];
      }
    }
  }
  Vec out = matmul(concat, p.at(at(l, "attention.wo")), n, heads * d_k, d);
  if (spec.attention_bias)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) out[i * d + j] += p.at(at(l, "attention.bo"))[j];
  return out;
}

Vec block64(const Spec& spec, const Params& p, int l, const Vec& x) {
  const int n = spec.n, d = spec.d;
  const bool has_mlp = spec.mlp != MlpKind::None;
  switch (spec.arrangement) {
    case Arrangement::AttentionOnly: return add(x, attention64(spec, p, l, x));
    case Arrangement::PreNorm: {
      const Vec a = add(x, attention64(spec, p, l, norm64(spec, p, at(l, "norm1"), x, n, d, true)));
      return has_mlp ? add(a, mlp64(spec, p, l, norm64(spec, p, at(l, "norm2"), a, n, d, true))) : a;
    }
    case Arrangement::PostNorm: {
      const Vec a = norm64(spec, p, at(l, "norm1"), add(x, attention64(spec, p, l, x)), n, d, true);
      return has_mlp ? norm64(spec, p, at(l, "norm2"), add(a, mlp64(spec, p, l, a)), n, d, true) : a;
    }
  }
  return x;
}

// The stack's output (n, d), then its logits (n, V) when it has an unembedding.
Vec stack64(const Spec& spec, const Params& p, const std::vector<std::int32_t>& ids,
            const std::vector<std::int32_t>& types) {
  const int n = spec.n, d = spec.d, vocab = spec.vocab;
  Vec x(static_cast<std::size_t>(n) * d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) {
      double value = p.at("tokens")[ids[i] * d + j];
      if (spec.positions == PositionKind::Learned) value += p.at("positionTable")[i * d + j];
      if (spec.positions == PositionKind::Sinusoidal) {
        const double angle = i / std::pow(10000.0, double(j - j % 2) / d);
        value += j % 2 == 0 ? std::sin(angle) : std::cos(angle);
      }
      if (spec.token_types > 0) value += p.at("typeTable")[types[i] * d + j];
      x[i * d + j] = value;
    }
  x = norm64(spec, p, "embeddingNorm", x, n, d, spec.embedding_norm);
  for (int l = 0; l < spec.layers; ++l) x = block64(spec, p, l, x);
  x = norm64(spec, p, "finalNorm", x, n, d, spec.final_norm);
  if (spec.unembedding == Unembedding::None) return x;
  Vec unembedding(static_cast<std::size_t>(d) * vocab);
  for (int v = 0; v < vocab; ++v)
    for (int j = 0; j < d; ++j)
      unembedding[j * vocab + v] =
          spec.unembedding == Unembedding::Tied ? p.at("tokens")[v * d + j] : p.at("unembeddingWeight")[j * vocab + v];
  Vec logits = matmul(x, unembedding, n, d, vocab);
  if (spec.unembedding_bias)
    for (int i = 0; i < n; ++i)
      for (int v = 0; v < vocab; ++v) logits[i * vocab + v] += p.at("unembeddingBias")[v];
  x.insert(x.end(), logits.begin(), logits.end());
  return x;
}

// ---- the same stack for the core ---------------------------------------------------------------------

Vec random_vec(std::mt19937& rng, std::size_t count, double scale, double centre = 0) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Vec values(count);
  for (double& value : values) value = static_cast<float>(centre + scale * uniform(rng));  // float-exact
  return values;
}

void add_norm(const Spec& spec, Params& p, std::mt19937& rng, const std::string& name) {
  if (spec.norm == NormKind::None) return;
  p[name + ".weight"] = random_vec(rng, spec.d, 0.3, 1.0);
  if (spec.norm == NormKind::LayerNorm && spec.norm_bias) p[name + ".bias"] = random_vec(rng, spec.d, 0.3);
}

void add_block(const Spec& spec, Params& p, std::mt19937& rng, int l) {
  const int d = spec.d, d_k = spec.d_k, heads = spec.heads, kv = spec.kv_heads ? spec.kv_heads : heads;
  const double scale = 1.2 / std::sqrt(double(d));
  p[at(l, "attention.wq")] = random_vec(rng, std::size_t(heads) * d * d_k, scale);
  p[at(l, "attention.wk")] = random_vec(rng, std::size_t(kv) * d * d_k, scale);
  p[at(l, "attention.wv")] = random_vec(rng, std::size_t(kv) * d * d_k, scale);
  p[at(l, "attention.wo")] = random_vec(rng, std::size_t(heads) * d_k * d, scale);
  if (spec.attention_bias) {
    p[at(l, "attention.bq")] = random_vec(rng, std::size_t(heads) * d_k, 0.3);
    p[at(l, "attention.bk")] = random_vec(rng, std::size_t(kv) * d_k, 0.3);
    p[at(l, "attention.bv")] = random_vec(rng, std::size_t(kv) * d_k, 0.3);
    p[at(l, "attention.bo")] = random_vec(rng, d, 0.3);
  }
  if (spec.arrangement == Arrangement::AttentionOnly) return;
  add_norm(spec, p, rng, at(l, "norm1"));
  if (spec.mlp == MlpKind::None) return;
  add_norm(spec, p, rng, at(l, "norm2"));
  const std::size_t df = std::size_t(d) * spec.f;
  if (spec.mlp == MlpKind::SwiGlu) {
    for (const char* w : {"mlp.wGate", "mlp.wUp", "mlp.wDown"}) p[at(l, w)] = random_vec(rng, df, scale);
    return;
  }
  p[at(l, "mlp.w1")] = random_vec(rng, df, scale);
  p[at(l, "mlp.w2")] = random_vec(rng, df, scale);
  if (!spec.mlp_bias) return;
  p[at(l, "mlp.b1")] = random_vec(rng, spec.f, 0.3);
  p[at(l, "mlp.b2")] = random_vec(rng, d, 0.3);
}

Params make_params(const Spec& spec, std::mt19937& rng) {
  Params p;
  p["tokens"] = random_vec(rng, std::size_t(spec.vocab) * spec.d, 1.0);
  if (spec.positions == PositionKind::Learned)
    p["positionTable"] = random_vec(rng, std::size_t(spec.n + 2) * spec.d, 0.5);
  if (spec.token_types > 0) p["typeTable"] = random_vec(rng, std::size_t(spec.token_types) * spec.d, 0.5);
  if (spec.embedding_norm) add_norm(spec, p, rng, "embeddingNorm");
  for (int l = 0; l < spec.layers; ++l) add_block(spec, p, rng, l);
  if (spec.final_norm) add_norm(spec, p, rng, "finalNorm");
  if (spec.unembedding == Unembedding::Own)
    p["unembeddingWeight"] = random_vec(rng, std::size_t(spec.d) * spec.vocab, 0.5);
  if (spec.unembedding_bias) p["unembeddingBias"] = random_vec(rng, spec.vocab, 0.5);
  return p;
}

using Weights = std::map<std::string, Floats>;

attn::View<float> view(const Weights& w, const std::string& name) {
  const auto found = w.find(name);
  return found == w.end() ? attn::View<float>() : attn::View<float>(found->second);
}

attn::Norm norm_of(const Spec& spec, const Weights& w, const std::string& name) {
  attn::Norm norm;
  if (!w.count(name + ".weight")) return norm;
  norm.kind = spec.norm;
  norm.weight = view(w, name + ".weight");
  norm.bias = view(w, name + ".bias");
  return norm;
}

// Grouped-query attention and the sliding window, each block's (rotary positions are the stack's).
void set_modern(const Spec& spec, attn::Config* config) {
  config->kv_heads = spec.kv_heads;
  config->window = spec.window;
}

attn::Block block_of(const Spec& spec, const Weights& w, int l) {
  attn::Block block;
  block.arrangement = spec.arrangement;
  block.attention.heads = spec.heads;
  block.attention.d_k = spec.d_k;
  block.attention.mask_mode = spec.padding  ? attn::MaskMode::Keep
                              : spec.causal ? attn::MaskMode::Causal
                                            : attn::MaskMode::None;
  set_modern(spec, &block.attention);
  attn::Inputs& in = block.weights;
  in.wq = view(w, at(l, "attention.wq"));
  in.wk = view(w, at(l, "attention.wk"));
  in.wv = view(w, at(l, "attention.wv"));
  in.wo = view(w, at(l, "attention.wo"));
  in.bq = view(w, at(l, "attention.bq"));
  in.bk = view(w, at(l, "attention.bk"));
  in.bv = view(w, at(l, "attention.bv"));
  in.bo = view(w, at(l, "attention.bo"));
  block.norm1 = norm_of(spec, w, at(l, "norm1"));
  block.norm2 = norm_of(spec, w, at(l, "norm2"));
  if (spec.arrangement == Arrangement::AttentionOnly) return block;
  attn::Mlp& mlp = block.mlp;
  mlp.kind = spec.mlp;
  mlp.activation = spec.activation;
  mlp.hidden = spec.mlp == MlpKind::None ? 0 : spec.f;
  mlp.w1 = view(w, at(l, "mlp.w1"));
  mlp.b1 = view(w, at(l, "mlp.b1"));
  mlp.w2 = view(w, at(l, "mlp.w2"));
  mlp.b2 = view(w, at(l, "mlp.b2"));
  mlp.w_gate = view(w, at(l, "mlp.wGate"));
  mlp.w_up = view(w, at(l, "mlp.wUp"));
  mlp.w_down = view(w, at(l, "mlp.wDown"));
  return block;
}

attn::Stack stack_of(const Spec& spec, const Weights& w) {
  attn::Stack stack;
  stack.vocab = spec.vocab;
  stack.d_model = spec.d;
  stack.tokens = view(w, "tokens");
  stack.positions = spec.positions;
  stack.position_table = view(w, "positionTable");
  stack.rotary.dims = spec.rotary_dims;
  stack.rotary.theta = spec.theta;
  stack.token_types = spec.token_types;
  stack.type_table = view(w, "typeTable");
  stack.embedding_norm = norm_of(spec, w, "embeddingNorm");
  for (int l = 0; l < spec.layers; ++l) stack.layers.push_back(block_of(spec, w, l));
  stack.final_norm = norm_of(spec, w, "finalNorm");
  stack.unembedding = spec.unembedding;
  stack.unembedding_weight = view(w, "unembeddingWeight");
  stack.unembedding_bias = view(w, "unembeddingBias");
  return stack;
}

Weights to_floats(const Params& p) {
  Weights w;
  for (const auto& [name, values] : p) w[name] = Floats(values.begin(), values.end());
  return w;
}

// Every gradient buffer by the name of its weight.
std::map<std::string, Floats*> gradients_by_name(attn::StackGradients& g) {
  std::map<std::string, Floats*> named{{"tokens", &g.tokens},
                                       {"positionTable", &g.position_table},
                                       {"typeTable", &g.type_table},
                                       {"embeddingNorm.weight", &g.embedding_norm.weight},
                                       {"embeddingNorm.bias", &g.embedding_norm.bias},
                                       {"finalNorm.weight", &g.final_norm.weight},
                                       {"finalNorm.bias", &g.final_norm.bias},
                                       {"unembeddingWeight", &g.unembedding_weight},
                                       {"unembeddingBias", &g.unembedding_bias}};
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l) {
    attn::BlockGradients& b = g.layers[l];
    const std::pair<const char*, Floats*> in_block[] = {{"attention.wq", &b.attention.wq},
                                                        {"attention.wk", &b.attention.wk},
                                                        {"attention.wv", &b.attention.wv},
                                                        {"attention.wo", &b.attention.wo},
                                                        {"attention.bq", &b.attention.bq},
                                                        {"attention.bk", &b.attention.bk},
                                                        {"attention.bv", &b.attention.bv},
                                                        {"attention.bo", &b.attention.bo},
                                                        {"norm1.weight", &b.norm1.weight},
                                                        {"norm1.bias", &b.norm1.bias},
                                                        {"norm2.weight", &b.norm2.weight},
                                                        {"norm2.bias", &b.norm2.bias},
                                                        {"mlp.w1", &b.w1},
                                                        {"mlp.b1", &b.b1},
                                                        {"mlp.w2", &b.w2},
                                                        {"mlp.b2", &b.b2},
                                                        {"mlp.wGate", &b.w_gate},
                                                        {"mlp.wUp", &b.w_up},
                                                        {"mlp.wDown", &b.w_down}};
    for (const auto& [what, buffer] : in_block) named[at(l, what)] = buffer;
  }
  return named;
}

double dot(const Vec& a, const Vec& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// ‖got − want‖ / max(‖want‖, floor); the gradients' floor is 0.01, as test_backward.cpp's: bk's is zero
// in theory (q · bk adds one constant to a row of scores, which the softmax ignores).
double relative_error(const Floats& got, const Vec& want, double floor) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), floor);
}

// Random sizes for a spec: rotary needs an even d_k, grouped heads a divisor.
void draw_sizes(Spec* spec, std::mt19937& rng) {
  auto between = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
  spec->vocab = between(5, 9);
  spec->d = between(3, 7);
  spec->heads = spec->kv_heads ? 2 * spec->kv_heads : between(1, 3);
  spec->d_k = spec->rotary_dims ? 2 * between(spec->rotary_dims / 2, 3) : between(2, 4);
  spec->f = between(3, 9);
  spec->n = between(3, 6);
  spec->layers = 2;
}

struct Worst {
  double forward = 0, gradient = 0, prepared = 0;
};

// A run's padding mask (PreparedRunOptions::keep) that hides nothing the blocks' own mask shows (every
// key with mask none, keys j <= i when causal) gives the run without one, to 1e-6 (the keep path's
// products may add in another order); flags of any size but n × n are refused, naming padding.
void check_prepared_keep(const attn::PreparedStack& prepared, const attn::Stack& stack, const attn::StackInputs& inputs,
                         const attn::PreparedStackResult& result, attn::StackWorkspace* workspace) {
  const attn::MaskMode mode = stack.layers[0].attention.mask_mode;
  for (const attn::Block& block : stack.layers) {
    if (block.attention.mask_mode != mode) return;  // padding needs the blocks to agree
  }
  const int n = static_cast<int>(inputs.ids.size);
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) keep[static_cast<std::size_t>(i) * n + j] = mode != attn::MaskMode::Causal || j <= i;
  }
  attn::PreparedRunOptions options;
  options.keep = attn::View<std::uint8_t>(keep);
  attn::PreparedStackResult by_keep;
  const attn::Status status = attn::prepared_stack_forward(prepared, inputs, {}, options, &by_keep, workspace);
  INFO("with keep: " << status.field << ": " << status.message);
  REQUIRE(status.ok());
  CHECK(relative_error(by_keep.output, Vec(result.output.begin(), result.output.end()), 1e-6) <= 1e-6);
  options.keep = attn::View<std::uint8_t>(keep.data(), keep.size() - 1);
  const attn::Status short_keep = attn::prepared_stack_forward(prepared, inputs, {}, options, &by_keep, workspace);
  CHECK(short_keep.field == "padding");
}

// The prepared stack (prepared_stack.hpp) on the same stack and ids, run twice in one workspace: its
// output and logits against float64 to the traced forward's bound (1e-5 norm-wise), and against the
// traced forward itself to 1e-5: the two differ only in the order the MLP's and unembedding's
// products add (the SIMD gemm against Eigen), a few float32 roundings per value. Every hidden state
// too, and x given as the token rows gives the ids' result bit for bit.
void check_prepared(const attn::Stack& stack, const attn::StackInputs& inputs, const attn::StackTrace& trace,
                    const Vec& want, double* worst) {
  attn::PreparedStack prepared;
  const attn::Status status = attn::prepare_stack(stack, &prepared);
  INFO("prepare_stack: " << status.field << ": " << status.message);
  REQUIRE(status.ok());
  attn::PreparedRunOptions options;
  options.hidden_states = true;
  attn::PreparedStackResult result;
  attn::StackWorkspace workspace;
  for (int run = 0; run < 2; ++run) {
    const attn::Status s = attn::prepared_stack_forward(prepared, inputs, {}, options, &result, &workspace);
    INFO("run " << run << ": " << s.field << ": " << s.message);
    REQUIRE(s.ok());
  }
  Floats got = result.output;
  got.insert(got.end(), result.logits.begin(), result.logits.end());
  Vec traced(trace.output.begin(), trace.output.end());
  traced.insert(traced.end(), trace.logits.begin(), trace.logits.end());
  const double error = relative_error(got, want, 1e-6);
  CHECK(error <= 1e-5);
  CHECK(relative_error(got, traced, 1e-6) <= 1e-5);
  *worst = std::max(*worst, error);
  REQUIRE(result.hidden_states.size() == trace.layers.size() + 1);
  for (std::size_t l = 0; l <= trace.layers.size(); ++l) {
    INFO("hidden_states[" << l << "]");
    const Floats& stream = l == 0 ? trace.embeddings : trace.layers[l - 1].output;
    CHECK(relative_error(result.hidden_states[l], Vec(stream.begin(), stream.end()), 1e-6) <= 1e-5);
  }
  // x = the token rows, in place of the ids
  const int d = stack.d_model;
  Floats x;
  for (std::size_t i = 0; i < inputs.ids.size; ++i) {
    const float* row = stack.tokens.data + static_cast<std::size_t>(inputs.ids.data[i]) * d;
    x.insert(x.end(), row, row + d);
  }
  attn::StackInputs types = inputs;
  types.ids = attn::View<std::int32_t>();
  attn::PreparedStackResult by_x;
  REQUIRE(attn::prepared_stack_forward(prepared, types, attn::View<float>(x), options, &by_x, &workspace).ok());
  CHECK(by_x.output == result.output);
  CHECK(by_x.logits == result.logits);
  check_prepared_keep(prepared, stack, inputs, result, &workspace);
}

// ‖got − want‖ / max(‖want‖, 1e-6) for float32 against float32
double relative_to(const Floats& got, const Floats& want) {
  INFO("sizes " << got.size() << " and " << want.size());
  REQUIRE(got.size() == want.size());
  return relative_error(got, Vec(want.begin(), want.end()), 1e-6);
}

// The traced run with a sink (one block's trace reused block after block): the sink sees blocks
// 0 … L − 1 in turn with the very numbers of the kept trace `kept` (same arithmetic, compared exactly),
// the trace keeps no layer and the rest as `kept`; with blocks, only those; a sink that answers false
// stops the run there (field "trace"), and the next run is whole again.
void check_prepared_sink(const attn::PreparedStack& prepared, const attn::StackInputs& inputs,
                         const attn::PreparedStackTrace& kept, int open, attn::StackWorkspace* workspace) {
  attn::PreparedTraceOptions options;
  options.open_layer = open;
  std::vector<int> seen;
  const auto same = [&](int l, const attn::PreparedLayerTrace& layer) {
    const attn::PreparedLayerTrace& want = kept.layers[static_cast<std::size_t>(l)];
    seen.push_back(l);
    return layer.attention_input == want.attention_input && layer.weights == want.weights &&
           layer.attention_output == want.attention_output && layer.output == want.output;
  };
  attn::PreparedStackTrace got;
  REQUIRE(attn::prepared_stack_trace(prepared, inputs, {}, options, &got, workspace, same).ok());
  const int layers = static_cast<int>(kept.layers.size());
  REQUIRE(static_cast<int>(seen.size()) == layers);
  for (int l = 0; l < layers; ++l) CHECK(seen[static_cast<std::size_t>(l)] == l);
  CHECK(got.layers.empty());
  CHECK(got.embeddings == kept.embeddings);
  CHECK(got.output == kept.output);
  CHECK(got.last_logits == kept.last_logits);
  CHECK(got.open.output == kept.open.output);
  seen.clear();
  options.blocks = 1;
  REQUIRE(attn::prepared_stack_trace(prepared, inputs, {}, options, &got, workspace, same).ok());
  CHECK((seen == std::vector<int>{0} && got.output.empty() && got.last_logits.empty()));
  options.blocks = -1;
  seen.clear();
  const auto stop = [&](int l, const attn::PreparedLayerTrace&) {
    seen.push_back(l);
    return false;
  };
  CHECK(attn::prepared_stack_trace(prepared, inputs, {}, options, &got, workspace, stop).field == "trace");
  CHECK(seen == std::vector<int>{0});
  seen.clear();
  REQUIRE(attn::prepared_stack_trace(prepared, inputs, {}, options, &got, workspace, same).ok());
  CHECK(static_cast<int>(seen.size()) == layers);
  CHECK(got.output == kept.output);
}

// The prepared stack's traced run (prepared_trace.hpp) against the traced forward, whose numbers
// check_spec holds to float64: every block's attention probabilities per head, what attention read
// and gave, the stream out; block `open`'s whole attention trace; the output and the last logits
// against float64 itself. All to 1e-5 (the MLP's products add in another order, as check_prepared's).
void check_prepared_trace(const attn::Stack& stack, const attn::StackInputs& inputs, const attn::StackTrace& trace,
                          const Vec& want, int open) {
  attn::PreparedStack prepared;
  REQUIRE(attn::prepare_stack(stack, &prepared).ok());
  attn::PreparedTraceOptions options;
  options.open_layer = open;
  attn::PreparedStackTrace got;
  attn::StackWorkspace workspace;
  const attn::Status s = attn::prepared_stack_trace(prepared, inputs, {}, options, &got, &workspace);
  INFO(s.field << ": " << s.message);
  REQUIRE(s.ok());
  CHECK(relative_to(got.embeddings, trace.embeddings) <= 1e-5);
  attn::PreparedStackTrace refused = got;  // a refused run leaves the trace as it was
  for (const int bad : {-2, static_cast<int>(stack.layers.size())}) {
    attn::PreparedTraceOptions wrong;
    wrong.open_layer = bad;
    CHECK(attn::prepared_stack_trace(prepared, inputs, {}, wrong, &refused, &workspace).field == "openLayer");
  }
  CHECK(refused.layers.size() == got.layers.size());
  attn::PreparedTraceOptions first;  // block 0 alone: the same numbers, nothing after it
  first.blocks = 1;
  attn::PreparedStackTrace alone;
  REQUIRE(attn::prepared_stack_trace(prepared, inputs, {}, first, &alone, &workspace).ok());
  REQUIRE(alone.layers.size() == 1);
  CHECK(alone.layers[0].weights == got.layers[0].weights);
  CHECK(alone.layers[0].output == got.layers[0].output);
  CHECK((alone.output.empty() && alone.last_logits.empty()));
  first.blocks = static_cast<int>(stack.layers.size()) + 1;
  CHECK(attn::prepared_stack_trace(prepared, inputs, {}, first, &alone, &workspace).field == "blocks");
  REQUIRE(got.layers.size() == trace.layers.size());
  check_prepared_sink(prepared, inputs, got, open, &workspace);
  for (std::size_t l = 0; l < trace.layers.size(); ++l) {
    INFO("layers[" << l << "]");
    const attn::BlockTrace& b = trace.layers[l];
    const bool pre = stack.layers[l].arrangement == Arrangement::PreNorm;
    CHECK(relative_to(got.layers[l].attention_input, pre ? b.norm1.out : b.input) <= 1e-5);
    REQUIRE(got.layers[l].weights.size() == b.attention.heads.size());
    for (std::size_t h = 0; h < b.attention.heads.size(); ++h) {
      CHECK(relative_to(got.layers[l].weights[h], b.attention.heads[h].weights) <= 1e-5);
    }
    CHECK(relative_to(got.layers[l].attention_output, b.attention.output) <= 1e-5);
    CHECK(relative_to(got.layers[l].output, b.output) <= 1e-5);
  }
  REQUIRE(got.open.heads.size() == trace.layers[open].attention.heads.size());
  for (std::size_t h = 0; h < got.open.heads.size(); ++h) {
    const attn::HeadTrace &a = got.open.heads[h], &b = trace.layers[open].attention.heads[h];
    for (const auto& pair : {std::make_pair(&a.q, &b.q), std::make_pair(&a.k, &b.k), std::make_pair(&a.v, &b.v),
                             std::make_pair(&a.scores, &b.scores), std::make_pair(&a.z, &b.z)}) {
      CHECK(relative_to(*pair.first, *pair.second) <= 1e-5);
    }
  }
  const std::size_t nd = trace.output.size();
  CHECK(relative_error(got.output, Vec(want.begin(), want.begin() + nd), 1e-6) <= 1e-5);
  if (stack.unembedding == Unembedding::None) {
    CHECK(got.last_logits.empty());
    return;
  }
  const Vec last(want.end() - stack.vocab, want.end());  // the logits' last row
  CHECK(relative_error(got.last_logits, last, 1e-6) <= 1e-5);
}

// The trace's buffers mean what transformer.hpp says: each residual is its two terms' sum, the MLP's
// hidden values are its activation of the pre-activations, the stream out of one block is the next's
// input, and the final norm reads the last block's output.
void check_trace(const Spec& spec, const attn::StackTrace& trace) {
  for (std::size_t l = 0; l < trace.layers.size(); ++l) {
    INFO("layers[" << l << "]");
    const attn::BlockTrace& b = trace.layers[l];
    CHECK(b.input == (l == 0 ? trace.embeddings : trace.layers[l - 1].output));
    for (std::size_t i = 0; i < b.input.size(); ++i) {
      CHECK(b.attended[i] == b.input[i] + b.attention.output[i]);
      if (spec.mlp != MlpKind::None && spec.arrangement != Arrangement::AttentionOnly) {
        CHECK(b.summed[i] == b.middle[i] + b.mlp_out[i]);
      }
    }
    const bool pre = spec.arrangement == Arrangement::PreNorm;
    CHECK(b.middle == (spec.arrangement == Arrangement::PostNorm ? b.norm1.out : b.attended));
    CHECK(b.output == (pre || spec.mlp == MlpKind::None ? b.summed : b.norm2.out));
    for (std::size_t i = 0; i < b.mlp_hidden.size(); ++i) {
      const double want = spec.mlp == MlpKind::SwiGlu ? act64(b.mlp_pre[i], Activation::Silu) * b.mlp_up[i]
                                                      : act64(b.mlp_pre[i], spec.activation);
      CHECK(std::abs(b.mlp_hidden[i] - want) <= 1e-6 * (1 + std::abs(want)));
    }
  }
  CHECK(trace.output == (spec.final_norm ? trace.final_norm.out : trace.layers.back().output));
}

// A spec's stack drawn from rng: its float64 parameters and their float32 copy, random ids (and
// token types), the stack and inputs that view them, and its traced forward with the status it
// returned. Not copied: the stack and inputs point into it.
struct Drawn {
  Params params;
  Weights weights;
  std::vector<std::int32_t> ids, types;
  std::vector<std::uint8_t> keep;
  attn::Stack stack;
  attn::StackInputs inputs;
  attn::StackTrace trace;
  attn::Status status;

  // spec.kept (the padding's kept keys) is drawn here when spec.padding is set
  Drawn(Spec& spec, std::mt19937& rng)
      : params(make_params(spec, rng)), weights(to_floats(params)), ids(spec.n), types(spec.n) {
    for (int i = 0; i < spec.n; ++i) {
      ids[i] = std::uniform_int_distribution<int>(0, spec.vocab - 1)(rng);
      types[i] = spec.token_types ? i % spec.token_types : 0;
    }
    if (spec.padding) {  // the padding mask as the core takes it: key j visible to query i
      spec.kept.assign(spec.n, 1);
      for (int j = 1; j < spec.n; ++j) spec.kept[j] = std::uniform_int_distribution<int>(0, 2)(rng) > 0 ? 1 : 0;
      for (int i = 0; i < spec.n; ++i)
        for (int j = 0; j < spec.n; ++j) keep.push_back(spec.kept[j] && (!spec.causal || j <= i) ? 1 : 0);
    }
    stack = stack_of(spec, weights);
    inputs.ids = attn::View<std::int32_t>(ids);
    if (spec.token_types) inputs.type_ids = attn::View<std::int32_t>(types);
    if (spec.padding) inputs.keep = attn::View<std::uint8_t>(keep);
    status = attn::stack_forward(stack, inputs, &trace);
  }
  Drawn(const Drawn&) = delete;
  Drawn& operator=(const Drawn&) = delete;
};

void check_spec(Spec spec, std::mt19937& rng, bool with_d_output, Worst* worst) {
  draw_sizes(&spec, rng);
  INFO(spec.name << ": vocab " << spec.vocab << ", d " << spec.d << ", heads " << spec.heads << ", d_k " << spec.d_k
                 << ", f " << spec.f << ", n " << spec.n);
  const Drawn drawn(spec, rng);
  const Params& params = drawn.params;
  const std::vector<std::int32_t>&ids = drawn.ids, &types = drawn.types;
  const attn::Stack& stack = drawn.stack;
  const attn::StackInputs& inputs = drawn.inputs;
  const attn::StackTrace& trace = drawn.trace;
  INFO(drawn.status.field << ": " << drawn.status.message);
  REQUIRE(drawn.status.ok());
  // forward: the output, then the logits, against float64
  const Vec want = stack64(spec, params, ids, types);
  Floats got = trace.output;
  got.insert(got.end(), trace.logits.begin(), trace.logits.end());
  check_trace(spec, trace);
  const double forward_error = relative_error(got, want, 1e-6);
  CHECK(forward_error <= 1e-5);
  worst->forward = std::max(worst->forward, forward_error);
  if (!spec.padding) {  // prepared: no Keep masks
    check_prepared(stack, inputs, trace, want, &worst->prepared);
    check_prepared_trace(stack, inputs, trace, want, spec.n % spec.layers);
  }
  // backward: L = Σ d_output ⊙ output + Σ d_logits ⊙ logits
  const std::size_t nd = trace.output.size();
  const bool logits = spec.unembedding != Unembedding::None;
  Vec upstream = random_vec(rng, got.size(), 1.0);
  if (!with_d_output && logits) std::fill(upstream.begin(), upstream.begin() + nd, 0.0);
  const Floats d_output(upstream.begin(), upstream.begin() + nd), d_logits(upstream.begin() + nd, upstream.end());
  attn::StackGradients gradients = attn::zero_stack_gradients(stack);
  const attn::Status back =
      attn::stack_backward(stack, inputs, trace, logits ? attn::View<float>(d_logits) : attn::View<float>(),
                           with_d_output || !logits ? attn::View<float>(d_output) : attn::View<float>(), &gradients);
  INFO(back.field << ": " << back.message);
  REQUIRE(back.ok());
  std::map<std::string, Floats*> named = gradients_by_name(gradients);
  Params shifted = params;
  for (const auto& entry : params) {
    const std::string& name = entry.first;  // named: doctest's INFO cannot capture a structured binding
    const Vec& values = entry.second;
    INFO("gradient of " << name);
    REQUIRE(named.count(name) == 1);
    const Floats& analytic = *named[name];
    REQUIRE(analytic.size() == values.size());
    Vec numeric(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double step = 1e-5;
      shifted[name][i] = values[i] + step;
      const double up = dot(upstream, stack64(spec, shifted, ids, types));
      shifted[name][i] = values[i] - step;
      const double down = dot(upstream, stack64(spec, shifted, ids, types));
      shifted[name][i] = values[i];
      numeric[i] = (up - down) / (2 * step);
    }
    const double error = relative_error(analytic, numeric, 1e-2);
    CHECK(error <= 1e-3);
    worst->gradient = std::max(worst->gradient, error);
  }
  // no gradient buffer beyond the weights given
  for (const auto& entry : named) CHECK_MESSAGE((params.count(entry.first) == 1 || entry.second->empty()), entry.first);
}

Spec spec_named(const char* name) {
  Spec spec;
  spec.name = name;
  return spec;
}

// Two stacks with a padding mask (MaskMode::Keep from per-token flags): causal and not.
void add_padding_specs(std::vector<Spec>* specs) {
  Spec padded = spec_named("padding mask (keep flags per token) with the causal mask: GQA, RoPE, pre-LN");
  padded.padding = true;
  padded.positions = PositionKind::Rotary;
  padded.rotary_dims = 2;
  padded.kv_heads = 1;
  specs->push_back(padded);
  Spec padded_bert = spec_named("padding mask without a causal mask: post-LN, GELU erf, as BERT's attention_mask");
  padded_bert.padding = true;
  padded_bert.causal = false;
  padded_bert.arrangement = Arrangement::PostNorm;
  padded_bert.activation = Activation::GeluErf;
  specs->push_back(padded_bert);
}

}  // namespace

TEST_CASE("stack_forward and stack_backward against float64 and its finite differences, every option") {
  std::mt19937 rng(20261127);
  std::vector<Spec> specs;
  Spec gpt2 = spec_named("GPT-2: pre-LN, LayerNorm, GELU tanh with biases, learned positions, tied");
  specs.push_back(gpt2);
  Spec bert = spec_named("BERT: post-LN, GELU erf, token types, embedding norm, no final norm, no unembedding");
  bert.arrangement = Arrangement::PostNorm;
  bert.activation = Activation::GeluErf;
  bert.token_types = 2;
  bert.embedding_norm = true;
  bert.final_norm = false;
  bert.causal = false;
  bert.unembedding = Unembedding::None;
  specs.push_back(bert);
  Spec llama = spec_named("Llama-like: RMSNorm, SwiGLU, no biases, no positions, own unembedding");
  llama.norm = NormKind::RmsNorm;
  llama.mlp = MlpKind::SwiGlu;
  llama.attention_bias = llama.mlp_bias = false;
  llama.positions = PositionKind::None;
  llama.unembedding = Unembedding::Own;
  specs.push_back(llama);
  Spec circuits = spec_named("attention-only, sinusoidal positions, tied with a bias, no mask");
  circuits.arrangement = Arrangement::AttentionOnly;
  circuits.mlp = MlpKind::None;
  circuits.positions = PositionKind::Sinusoidal;
  circuits.final_norm = false;
  circuits.causal = false;
  circuits.unembedding_bias = true;
  specs.push_back(circuits);
  Spec relu = spec_named("ReLU without biases, LayerNorm without bias, own unembedding with a bias, 3 token types");
  relu.activation = Activation::Relu;
  relu.mlp_bias = relu.norm_bias = false;
  relu.unembedding = Unembedding::Own;
  relu.unembedding_bias = true;
  relu.token_types = 3;
  specs.push_back(relu);
  Spec silu = spec_named("SiLU MLP, post-LN, RMSNorm, embedding norm");
  silu.activation = Activation::Silu;
  silu.arrangement = Arrangement::PostNorm;
  silu.norm = NormKind::RmsNorm;
  silu.embedding_norm = true;
  specs.push_back(silu);
  Spec no_mlp = spec_named("pre-LN without an MLP, no norms at all");
  no_mlp.mlp = MlpKind::None;
  no_mlp.norm = NormKind::None;
  specs.push_back(no_mlp);
  Spec llama_rope = spec_named("Llama: RMSNorm, SwiGLU, grouped-query attention (2 of 4 heads), RoPE, own unembedding");
  llama_rope.norm = NormKind::RmsNorm;
  llama_rope.mlp = MlpKind::SwiGlu;
  llama_rope.attention_bias = llama_rope.mlp_bias = false;
  llama_rope.positions = PositionKind::Rotary;
  llama_rope.rotary_dims = 2;  // with d_k 2, 4 or 6: whole or partial rotation
  llama_rope.kv_heads = 2;
  llama_rope.unembedding = Unembedding::Own;
  specs.push_back(llama_rope);
  Spec qwen2 = spec_named("Qwen2 with a window: q, k, v biases, multi-query (1 of 2 heads), RoPE theta 50, window 2");
  qwen2.norm = NormKind::RmsNorm;
  qwen2.mlp = MlpKind::SwiGlu;
  qwen2.mlp_bias = false;
  qwen2.positions = PositionKind::Rotary;
  qwen2.rotary_dims = 4;
  qwen2.theta = 50;
  qwen2.kv_heads = 1;
  qwen2.window = 2;
  qwen2.unembedding = Unembedding::Own;
  specs.push_back(qwen2);
  Spec windowed = spec_named("post-LN, no mask, window 3, grouped heads (3 of 6), learned positions");
  windowed.arrangement = Arrangement::PostNorm;
  windowed.causal = false;
  windowed.window = 3;
  windowed.kv_heads = 3;
  specs.push_back(windowed);
  add_padding_specs(&specs);
  Worst worst;
  for (const Spec& spec : specs) {
    check_spec(spec, rng, true, &worst);
    if (spec.unembedding != Unembedding::None) check_spec(spec, rng, false, &worst);  // d_logits alone
  }
  MESSAGE("largest relative error: forward " << worst.forward << ", gradients " << worst.gradient << ", prepared "
                                             << worst.prepared);
}

namespace {

// A valid small GPT-2-like stack to break one field at a time.
struct Breakable {
  Spec spec = spec_named("breakable");
  Weights weights;
  std::vector<std::int32_t> ids;
  Breakable() {
    std::mt19937 rng(7);
    spec.vocab = 7, spec.d = 4, spec.heads = 2, spec.d_k = 2, spec.f = 6, spec.n = 3, spec.layers = 2;
    weights = to_floats(make_params(spec, rng));
    ids = {1, 6, 0};
  }
  attn::StackInputs inputs() const {
    attn::StackInputs in;
    in.ids = attn::View<std::int32_t>(ids);
    return in;
  }
};

// stack_forward refuses, naming `field`, and leaves the trace as it was.
attn::Status refused(const attn::Stack& stack, const attn::StackInputs& inputs, const std::string& field) {
  attn::StackTrace trace;
  trace.n = -1;
  const attn::Status status = attn::stack_forward(stack, inputs, &trace);
  INFO(status.message);
  CHECK(!status.ok());
  CHECK(status.field == field);
  CHECK(status.message.find(field.substr(0, field.find('['))) != std::string::npos);
  CHECK(trace.n == -1);
  CHECK(trace.layers.empty());
  return status;
}

}  // namespace

TEST_CASE("stack_forward refuses bad stacks before any work, naming the field") {
  Breakable b;
  REQUIRE(attn::validate_stack(stack_of(b.spec, b.weights), b.inputs()).ok());
  // wrong sizes
  for (const char* name :
       {"tokens", "positionTable", "layers[0].attention.wq", "layers[1].attention.bo", "layers[1].norm2.weight",
        "layers[0].norm1.bias", "layers[0].mlp.w1", "layers[1].mlp.b2", "finalNorm.weight"}) {
    Breakable broken;
    broken.weights[name].pop_back();
    const attn::Status s = refused(stack_of(broken.spec, broken.weights), broken.inputs(), name);
    if (std::string(name) == "layers[1].norm2.weight") {
      CHECK(s.message == "layers[1].norm2.weight has 3 values; expected dModel = 4");
    }
  }
  // NaN and infinity anywhere
  for (const char* name : {"tokens", "layers[0].attention.wv", "layers[1].mlp.b2", "finalNorm.bias"}) {
    Breakable broken;
    broken.weights[name][1] = std::numeric_limits<float>::quiet_NaN();
    const attn::Status s = refused(stack_of(broken.spec, broken.weights), broken.inputs(), name);
    CHECK(s.message.find("NaN") != std::string::npos);
  }
  Breakable infinite;
  infinite.weights["layers[1].norm1.weight"][0] = std::numeric_limits<float>::infinity();
  refused(stack_of(infinite.spec, infinite.weights), infinite.inputs(), "layers[1].norm1.weight");
  // token ids out of range
  Breakable ids;
  ids.ids[2] = 7;
  const attn::Status s = refused(stack_of(ids.spec, ids.weights), ids.inputs(), "ids");
  CHECK(s.message == "ids[2] is 7; it must be between 0 and 6 (vocab − 1)");
  ids.ids[2] = -1;
  refused(stack_of(ids.spec, ids.weights), ids.inputs(), "ids");
  ids.ids.assign(7, 0);  // more tokens than the 5 learned positions
  refused(stack_of(ids.spec, ids.weights), ids.inputs(), "positionTable");
  ids.ids.clear();
  refused(stack_of(ids.spec, ids.weights), ids.inputs(), "ids");
}

TEST_CASE("stack_forward refuses 10,000 layers, bad options, and names the block whose activations overflow") {
  Breakable b;
  attn::Stack stack = stack_of(b.spec, b.weights);
  attn::Stack deep = stack;
  deep.layers.assign(10000, stack.layers[0]);
  CHECK(refused(deep, b.inputs(), "layers").message == "layers has 10000 blocks, above the cap of 1024");
  // 1024 blocks of 64 heads on 256 tokens: each block's trace is small enough, all of them are not
  deep.layers.assign(1024, stack.layers[0]);
  for (attn::Block& block : deep.layers) block.attention.heads = 64;
  const std::vector<std::int32_t> many_ids(256, 1);
  attn::StackInputs long_input;
  long_input.ids = attn::View<std::int32_t>(many_ids);
  CHECK(refused(deep, long_input, "layers").message.find("above the cap of 67108864") != std::string::npos);
  // token types: ids beyond the table, and a table without types
  Breakable typed;
  typed.spec.token_types = 2;
  typed.weights["typeTable"] = Floats(8, 0.5f);
  const std::vector<std::int32_t> type_ids{0, 2, 1};
  attn::StackInputs inputs = typed.inputs();
  inputs.type_ids = attn::View<std::int32_t>(type_ids);
  refused(stack_of(typed.spec, typed.weights), inputs, "typeIds");
  attn::Stack untyped = stack_of(typed.spec, typed.weights);
  untyped.token_types = 0;
  refused(untyped, b.inputs(), "typeTable");
  // options that do not fit
  attn::Stack options = stack;
  options.layers[0].norm1.eps = 0;
  refused(options, b.inputs(), "layers[0].norm1.eps");
  options = stack;
  options.final_norm.kind = NormKind::RmsNorm;
  refused(options, b.inputs(), "finalNorm.bias");
  options = stack;
  options.layers[1].attention.positions = attn::PositionMode::Sinusoidal;
  refused(options, b.inputs(), "layers[1].attention.positions");
  options = stack;
  options.layers[0].arrangement = Arrangement::AttentionOnly;
  refused(options, b.inputs(), "layers[0].norm1");
  options = stack;
  options.layers[0].attention.heads = 0;
  refused(options, b.inputs(), "layers[0].attention.heads");
  options = stack;
  options.layers[0].weights.wo = attn::View<float>();
  options.layers[0].weights.bo = attn::View<float>();
  options.layers[0].attention.d_k = 1;  // h · d_v = 2, not d_model = 4
  Breakable narrow;
  narrow.weights["layers[0].attention.wq"].resize(8);
  narrow.weights["layers[0].attention.wk"].resize(8);
  narrow.weights["layers[0].attention.wv"].resize(8);
  narrow.weights["layers[0].attention.bq"].resize(2);
  narrow.weights["layers[0].attention.bk"].resize(2);
  narrow.weights["layers[0].attention.bv"].resize(2);
  options.layers[0].weights = stack_of(narrow.spec, narrow.weights).layers[0].weights;
  options.layers[0].weights.wo = attn::View<float>();
  options.layers[0].weights.bo = attn::View<float>();
  refused(options, b.inputs(), "layers[0].attention.wo");
}

TEST_CASE("stack_forward refuses grouped heads, rotary settings and windows that do not fit, and overflow") {
  Breakable b;
  const attn::Stack stack = stack_of(b.spec, b.weights);
  attn::Stack options = stack;
  // grouped heads that do not divide the heads; rotary positions with an odd or no rotated width
  options = stack;
  options.layers[1].attention.kv_heads = 3;
  refused(options, b.inputs(), "layers[1].attention.kvHeads");
  options = stack;
  options.positions = PositionKind::Rotary;
  options.position_table = attn::View<float>();
  refused(options, b.inputs(), "rotary.dims");
  options.rotary.dims = 1;
  refused(options, b.inputs(), "rotary.dims");
  options.rotary.dims = 2;
  options.rotary.theta = std::numeric_limits<double>::quiet_NaN();
  refused(options, b.inputs(), "rotary.theta");
  options.rotary.theta = 10000;
  REQUIRE(attn::validate_stack(options, b.inputs()).ok());
  options.positions = PositionKind::None;  // rotary settings that nothing would use
  refused(options, b.inputs(), "rotary.dims");
  options = stack;
  options.layers[0].attention.window = -1;
  refused(options, b.inputs(), "layers[0].attention.window");
  options = stack;
  options.unembedding = Unembedding::None;
  options.unembedding_bias = attn::View<float>(b.weights.at("tokens"));
  refused(options, b.inputs(), "unembeddingBias");
  // finite weights whose activations overflow: the MLP of block 1 (values near 1e30 squared)
  Breakable huge;
  for (float& w : huge.weights["layers[1].mlp.w1"]) w = 1e30f;
  for (float& w : huge.weights["layers[1].mlp.w2"]) w = 1e30f;
  const attn::Status overflow = refused(stack_of(huge.spec, huge.weights), huge.inputs(), "layers[1]");
  CHECK(overflow.message.find("overflows") != std::string::npos);
}

TEST_CASE("stack_backward refuses missing or mis-sized upstream gradients, a foreign trace, unsized buffers") {
  Breakable b;
  const attn::Stack stack = stack_of(b.spec, b.weights);
  const attn::StackInputs inputs = b.inputs();
  attn::StackTrace trace;
  REQUIRE(attn::stack_forward(stack, inputs, &trace).ok());
  attn::StackGradients g = attn::zero_stack_gradients(stack);
  const Floats d_output(3 * 4, 1.0f), d_logits(3 * 7, 1.0f), short_logits(3 * 7 - 1, 1.0f);
  const attn::View<float> none;
  CHECK(attn::stack_backward(stack, inputs, trace, none, none, &g).field == "dLogits");
  CHECK(attn::stack_backward(stack, inputs, trace, attn::View<float>(short_logits), none, &g).field == "dLogits");
  CHECK(attn::stack_backward(stack, inputs, trace, none, attn::View<float>(d_logits), &g).field == "dOutput");
  Floats nan_output = d_output;
  nan_output[5] = std::numeric_limits<float>::quiet_NaN();
  CHECK(attn::stack_backward(stack, inputs, trace, none, attn::View<float>(nan_output), &g).field == "dOutput");
  attn::Stack headless = stack;
  headless.unembedding = Unembedding::None;
  CHECK(attn::stack_backward(headless, inputs, trace, attn::View<float>(d_logits), none, &g).field == "dLogits");
  attn::StackTrace foreign = trace;
  foreign.layers.pop_back();
  CHECK(attn::stack_backward(stack, inputs, foreign, none, attn::View<float>(d_output), &g).field == "trace");
  attn::StackGradients unsized = g;
  unsized.layers[1].w2.clear();
  CHECK(attn::stack_backward(stack, inputs, trace, none, attn::View<float>(d_output), &unsized).field == "gradients");
  // nothing was added by the refusals
  for (const auto& entry : gradients_by_name(g)) {
    const Floats& buffer = *entry.second;
    CHECK_MESSAGE(std::all_of(buffer.begin(), buffer.end(), [](float v) { return v == 0.0f; }), entry.first);
  }
}

namespace {

// A larger stack than check_spec's (n above the 32 rows from which the products pack a into strips,
// d and f past one 8-column panel), forward only, prepared against float64 and the traced forward.
void check_prepared_large(Spec spec, std::mt19937& rng, int f = 100, int n = 41) {
  spec.vocab = 61, spec.d = 48, spec.heads = spec.kv_heads ? 2 * spec.kv_heads : 4, spec.d_k = 12, spec.f = f;
  spec.n = n, spec.layers = 2;
  INFO(spec.name);
  const Drawn drawn(spec, rng);
  REQUIRE(drawn.status.ok());
  double worst = 0;
  check_prepared(drawn.stack, drawn.inputs, drawn.trace, stack64(spec, drawn.params, drawn.ids, drawn.types), &worst);
  MESSAGE(spec.name << ": prepared against float64 " << worst);
}

}  // namespace

TEST_CASE("prepared stacks at n = 41, d = 48, f = 100: GPT-2-like, BERT-like, Llama-like, against float64") {
  std::mt19937 rng(271);
  Spec gpt2 = spec_named("GPT-2-like");
  check_prepared_large(gpt2, rng);
  Spec bert = spec_named("BERT-like: post-LN, GELU erf, 2 token types, embedding norm, no mask");
  bert.arrangement = Arrangement::PostNorm;
  bert.activation = Activation::GeluErf;
  bert.token_types = 2;
  bert.embedding_norm = true;
  bert.final_norm = false;
  bert.causal = false;
  bert.unembedding = Unembedding::None;
  check_prepared_large(bert, rng);
  Spec llama = spec_named("Llama-like: RMSNorm, SwiGLU, 2 of 4 heads, RoPE, own unembedding");
  llama.norm = NormKind::RmsNorm;
  llama.mlp = MlpKind::SwiGlu;
  llama.attention_bias = llama.mlp_bias = false;
  llama.positions = PositionKind::Rotary;
  llama.rotary_dims = 8;
  llama.kv_heads = 2;
  llama.unembedding = Unembedding::Own;
  check_prepared_large(llama, rng);
}

// f = 1100: the MLP's second product has a long shared dimension (one sum of 1100 products per value,
// no partial panel: 1100 is not a multiple of the kernels' widths)
TEST_CASE("a prepared GPT-2-like stack with f = 1100 (its MLP's long shared dimension), against float64") {
  std::mt19937 rng(1100);
  check_prepared_large(spec_named("GPT-2-like"), rng, 1100);
}

// The same at n = 16 and 9: a few rows' products, whose kernels read the next panel (and the next chunk
// of the MLP's second product) as they compute (gemm_driver.cpp's ppmm_tile), four strips and three
TEST_CASE("a prepared GPT-2-like stack at n = 16 and 9 with f = 1100, against float64") {
  std::mt19937 rng(1116);
  check_prepared_large(spec_named("GPT-2-like"), rng, 1100, 16);
  check_prepared_large(spec_named("GPT-2-like"), rng, 1100, 9);
}

namespace {

// The addresses of a stack's block product weights (what prepare_stack's block_storage may take), and
// of the storage a prepared stack's blocks hold.
std::set<const float*> block_products(const attn::Stack& stack) {
  std::set<const float*> found;
  for (const attn::Block& b : stack.layers) {
    for (const attn::View<float>* v : {&b.weights.wq, &b.weights.wk, &b.weights.wv, &b.weights.wo, &b.mlp.w1, &b.mlp.w2,
                                       &b.mlp.w_gate, &b.mlp.w_up, &b.mlp.w_down})
      if (v->present) found.insert(v->data);
  }
  return found;
}
std::set<const float*> block_storage(const attn::PreparedStack& prepared) {
  std::set<const float*> found;
  for (const attn::PreparedBlock& b : prepared.layers) {
    for (const Floats* v :
         {&b.packed.wq, &b.packed.wk, &b.packed.wv, &b.packed.wo, &b.weights[0], &b.weights[1], &b.weights[2],
          &b.weights[3], &b.w1.values, &b.w2.values, &b.w_gate.values, &b.w_up.values, &b.w_down.values})
      if (!v->empty()) found.insert(v->data());
  }
  return found;
}

// A stack prepared from weights handed over (block_storage: every vector of the drawn weights, as a
// staged model hands its tensors): each block product taken as the prepared block's own storage, the
// other vectors left alone, and the runs the same bits as those of the stack prepared by copying.
void check_handed_over(Spec spec, std::mt19937& rng) {
  INFO(spec.name);
  spec.vocab = 61, spec.d = 48, spec.heads = 4, spec.d_k = 8, spec.f = 96, spec.n = 9, spec.layers = 2;
  Drawn drawn(spec, rng);
  REQUIRE(drawn.status.ok());
  attn::PreparedStack copied, handed;
  REQUIRE(attn::prepare_stack(drawn.stack, &copied).ok());
  attn::PreparedStackResult want, got;
  REQUIRE(attn::prepared_stack_forward(copied, drawn.inputs, {}, {}, &want, nullptr).ok());
  const std::set<const float*> products = block_products(drawn.stack);
  const Floats tokens = drawn.weights["tokens"];
  std::vector<std::vector<float>*> storage;
  for (auto& [name, values] : drawn.weights) storage.push_back(&values);
  REQUIRE(attn::prepare_stack(drawn.stack, &handed, {}, nullptr, storage).ok());
  CHECK(block_storage(handed) == products);
  CHECK(drawn.weights["tokens"] == tokens);  // not a block's: read, not taken
  REQUIRE(attn::prepared_stack_forward(handed, drawn.inputs, {}, {}, &got, nullptr).ok());
  CHECK(got.output == want.output);
  CHECK(got.logits == want.logits);
  CHECK(relative_to(got.logits, drawn.trace.logits) <= 1e-5);  // and the unprepared forward's
}

}  // namespace

TEST_CASE("prepare_stack packs handed-over block weights where they lie: the bits of copying them") {
  std::mt19937 rng(4096);
  check_handed_over(spec_named("GPT-2-like"), rng);
  Spec llama = spec_named("Llama-like: RMSNorm, SwiGLU, 2 of 4 heads, own unembedding");
  llama.norm = NormKind::RmsNorm;
  llama.mlp = MlpKind::SwiGlu;
  llama.attention_bias = llama.mlp_bias = false;
  llama.kv_heads = 2;
  llama.unembedding = Unembedding::Own;
  check_handed_over(llama, rng);
  // one vector two weights view (wk given as wq): neither takes it, so it stays as it was for the other
  Spec spec = spec_named("GPT-2-like");
  spec.vocab = 61, spec.d = 48, spec.heads = 4, spec.d_k = 8, spec.f = 96, spec.n = 9, spec.layers = 2;
  Drawn drawn(spec, rng);
  attn::Stack shared = drawn.stack;
  shared.layers[1].weights.wk = shared.layers[1].weights.wq;
  attn::PreparedStack copied, handed;
  REQUIRE(attn::prepare_stack(shared, &copied).ok());
  const Floats wq = drawn.weights["layers[1].attention.wq"];
  const float* wq_at = drawn.weights["layers[1].attention.wq"].data();
  std::vector<std::vector<float>*> storage;
  for (auto& [name, values] : drawn.weights) storage.push_back(&values);
  REQUIRE(attn::prepare_stack(shared, &handed, {}, nullptr, storage).ok());
  CHECK(drawn.weights["layers[1].attention.wq"] == wq);
  CHECK(block_storage(handed).count(wq_at) == 0);
  attn::PreparedStackResult want, got;
  REQUIRE(attn::prepared_stack_forward(copied, drawn.inputs, {}, {}, &want, nullptr).ok());
  REQUIRE(attn::prepared_stack_forward(handed, drawn.inputs, {}, {}, &got, nullptr).ok());
  CHECK(got.logits == want.logits);
}

TEST_CASE("prepare_stack refuses bad weights naming the field and keeps what it had; runs refuse bad input") {
  Breakable good;
  attn::PreparedStack prepared;
  REQUIRE(attn::prepare_stack(stack_of(good.spec, good.weights), &prepared).ok());
  attn::PreparedStackResult before;
  attn::StackWorkspace ws;
  REQUIRE(attn::prepared_stack_forward(prepared, good.inputs(), {}, {}, &before, &ws).ok());
  // a bad weight: refused as stack_forward refuses it, and the prepared stack still runs as before
  for (const char* name : {"tokens", "layers[1].attention.wk", "layers[0].mlp.w2", "finalNorm.weight"}) {
    Breakable broken;
    broken.weights[name][0] = std::numeric_limits<float>::quiet_NaN();
    const attn::Status s = attn::prepare_stack(stack_of(broken.spec, broken.weights), &prepared);
    CHECK(s.field == name);
    CHECK(s.message.find("NaN") != std::string::npos);
    attn::PreparedStackResult again;
    REQUIRE(attn::prepared_stack_forward(prepared, good.inputs(), {}, {}, &again, &ws).ok());
    CHECK(again.logits == before.logits);
  }
  attn::Stack keep = stack_of(good.spec, good.weights);
  keep.layers[1].attention.mask_mode = attn::MaskMode::Keep;
  CHECK(attn::prepare_stack(keep, &prepared).field == "layers[1].attention.mask");
  // bad runs, each named; the result is left as it was
  const auto refused_run = [&](const attn::StackInputs& in, attn::View<float> x, const std::string& field) {
    attn::PreparedStackResult result;
    result.n = -1;
    const attn::Status s = attn::prepared_stack_forward(prepared, in, x, {}, &result, &ws);
    INFO(s.message);
    CHECK(s.field == field);
    CHECK(s.message.rfind(field, 0) == 0);
    CHECK(result.n == -1);
    return s;
  };
  Breakable ids;
  ids.ids[2] = 7;
  CHECK(refused_run(ids.inputs(), {}, "ids").message == "ids[2] is 7; it must be between 0 and 6 (vocab − 1)");
  ids.ids.assign(6, 0);  // more tokens than the 5 learned positions
  refused_run(ids.inputs(), {}, "positionTable");
  ids.ids.clear();
  refused_run(ids.inputs(), {}, "ids");
  const std::vector<std::int32_t> types = {0, 0, 0};
  attn::StackInputs typed = good.inputs();
  typed.type_ids = attn::View<std::int32_t>(types);
  refused_run(typed, {}, "typeIds");
  Floats x(3 * 4, 0.5f);
  x[5] = std::numeric_limits<float>::infinity();
  CHECK(refused_run({}, attn::View<float>(x), "x").message == "x[5] is Infinity; every value must be a finite number");
  x.pop_back();
  refused_run({}, attn::View<float>(x), "x");
  // and the prepared stack still gives what it gave
  attn::PreparedStackResult after;
  REQUIRE(attn::prepared_stack_forward(prepared, good.inputs(), {}, {}, &after, &ws).ok());
  CHECK(after.logits == before.logits);
}

TEST_CASE("a token table of GPT-2 small's size (50,257 × 768 = 38.6 M values) is taken; above 2^27 values, refused") {
  attn::Stack stack;
  stack.vocab = 50257;
  stack.d_model = 768;
  const Floats table(static_cast<std::size_t>(stack.vocab) * stack.d_model, 0.25f);
  stack.tokens = attn::View<float>(table);
  stack.unembedding = Unembedding::Tied;
  const std::vector<std::int32_t> ids = {50256, 0};
  attn::StackInputs inputs;
  inputs.ids = attn::View<std::int32_t>(ids);
  attn::StackTrace trace;
  REQUIRE(attn::stack_forward(stack, inputs, &trace).ok());
  CHECK(trace.logits.size() == 2u * 50257u);
  CHECK(trace.logits[50256] == doctest::Approx(768 * 0.0625));  // a row of 0.25s dotted with itself
  attn::PreparedStack prepared;
  REQUIRE(attn::prepare_stack(stack, &prepared).ok());
  attn::PreparedStackResult result;
  REQUIRE(attn::prepared_stack_forward(prepared, inputs, {}, {}, &result, nullptr).ok());
  CHECK(result.output == trace.output);  // the rows read back out of the tied panels
  CHECK(result.logits[50256] == doctest::Approx(768 * 0.0625));
  stack.vocab = (1 << 27) / 768 + 1;  // sizes are checked before the table is read
  const attn::Status s = attn::stack_forward(stack, inputs, &trace);
  CHECK(s.field == "vocab");
  CHECK(s.message ==
        "vocab is 174763; it must be at least 1, with vocab × dModel at most 134217728 (a token table of 512 MiB)");
  CHECK(attn::prepare_stack(stack, &prepared).field == "vocab");
}
