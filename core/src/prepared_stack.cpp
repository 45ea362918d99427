// A prepared stack (prepared_stack.hpp has the contract): the weights checked and copied once, then
// runs without a trace. n tokens, d features (d_model), f hidden features, V the vocabulary.
#include "attention/prepared_stack.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include "attention/layers.hpp"
#include "forward.hpp"
#include "kernels/kernels.hpp"
#include "ops.hpp"
#include "prepared_stack_steps.hpp"
#include "transformer_common.hpp"
#include "validate.hpp"

namespace attn {

namespace stack_steps {

std::string str(long long value) { return std::to_string(value); }

std::vector<float> copy_of(const View<float>& values) {
  return values.present ? std::vector<float>(values.data, values.data + values.size) : std::vector<float>();
}

// b (inner, cols), row-major, or with `transposed` stored as (cols, inner): packed into panels where
// the packed products are the build's fastest, kept row-major (transposed back if need be) elsewhere.
PreparedProduct product_of(const float* b, int inner, int cols, bool transposed) {
  PreparedProduct p;
  p.inner = inner;
  p.cols = cols;
  p.packed = ops::packed_is_fastest();
  if (p.packed) {
    ops::pack_panels_into(b, transposed ? inner : cols, inner, cols, transposed, &p.values);
    return p;
  }
  p.values.assign(static_cast<std::size_t>(inner) * cols, 0.0f);
  for (int k = 0; k < inner; ++k) {
    for (int j = 0; j < cols; ++j) {
      p.values[static_cast<std::size_t>(k) * cols + j] =
          transposed ? b[static_cast<std::size_t>(j) * inner + k] : b[static_cast<std::size_t>(k) * cols + j];
    }
  }
  return p;
}

PreparedProduct product_of(const View<float>& b, int inner, int cols) {
  return b.present ? product_of(b.data, inner, cols, false) : PreparedProduct();
}

HandedOver::HandedOver(const Stack& stack, const std::vector<std::vector<float>*>& storage) {
  if (storage.empty()) return;
  std::vector<const View<float>*> views;  // every float view of the stack
  for (const View<float>* v : {&stack.tokens, &stack.position_table, &stack.type_table, &stack.embedding_norm.weight,
                               &stack.embedding_norm.bias, &stack.final_norm.weight, &stack.final_norm.bias,
                               &stack.unembedding_weight, &stack.unembedding_bias})
    views.push_back(v);
  for (const Block& block : stack.layers) {
    const Inputs& w = block.weights;
    const Mlp& m = block.mlp;
    for (const View<float>* v :
         {&w.wq, &w.wk, &w.wv, &w.wo, &w.bq, &w.bk, &w.bv, &w.bo, &block.norm1.weight, &block.norm1.bias,
          &block.norm2.weight, &block.norm2.bias, &m.w1, &m.b1, &m.w2, &m.b2, &m.w_gate, &m.w_up, &m.w_down})
      views.push_back(v);
  }
  // a vector is taken only when the one view on any of its floats is the whole of it
  for (std::vector<float>* vector : storage) {
    if (!vector || vector->empty()) continue;
    const float *begin = vector->data(), *end = begin + vector->size();
    int overlapping = 0;
    for (const View<float>* v : views) {
      if (v->present && v->data && v->size > 0 && v->data < end && begin < v->data + v->size) ++overlapping;
    }
    if (overlapping == 1) vectors_[begin] = vector;
  }
}

std::vector<float>* HandedOver::find(const View<float>& v) const {
  if (!v.present) return nullptr;
  const auto at = vectors_.find(v.data);
  return at != vectors_.end() && at->second->size() == v.size ? at->second : nullptr;
}

// product_of(b, inner, cols), taking over the vector that holds b where `handed` has it: packed in
// place (whole panels), or moved as it is where the build keeps weights row-major.
PreparedProduct product_of(const View<float>& b, int inner, int cols, const HandedOver& handed) {
  std::vector<float>* own = handed.find(b);
  const bool packed = ops::packed_is_fastest();
  if (!own || (packed && cols % kernels::kGemmNr != 0)) return product_of(b, inner, cols);
  PreparedProduct p;
  p.inner = inner;
  p.cols = cols;
  p.packed = packed;
  if (packed) kernels::pack_panels_in_place(inner, cols, own->data());
  p.values = std::move(*own);
  own->clear();
  return p;
}

// c (rows, cols) = a (rows, inner) · b
void apply(const PreparedProduct& b, const float* a, int rows, float* c, ProductScratch* scratch) {
  if (b.packed) {
    ops::matmul_packed(a, b.inner, b.values.data(), c, b.cols, rows, b.inner, b.cols, scratch);
  } else {
    ops::matmul(a, b.inner, b.values.data(), b.cols, c, b.cols, rows, b.inner, b.cols, scratch);
  }
}

void add_bias(const std::vector<float>& bias, int rows, float* c) {
  if (bias.empty()) return;
  const std::size_t cols = bias.size();
  for (int i = 0; i < rows; ++i) {
    float* row = c + static_cast<std::size_t>(i) * cols;
    for (std::size_t j = 0; j < cols; ++j) row[j] += bias[j];
  }
}

PreparedNorm norm_of(const Norm& norm) {
  return PreparedNorm{norm.kind, norm.eps, copy_of(norm.weight), copy_of(norm.bias)};
}

Status prepare_block(const Stack& stack, int l, const HandedOver& handed, PreparedBlock* out) {
  const Block& block = stack.layers[static_cast<std::size_t>(l)];
  if (block.attention.mask_mode == MaskMode::Keep) {
    const std::string field = layer_prefix(l) + "attention.mask";
    return Status::Type(field, field + ": a prepared stack takes mask 'none' or 'causal'; a keep-matrix depends on n");
  }
  PreparedBlock b;
  b.arrangement = block.arrangement;
  b.attention = block_config(stack, block, 1);
  const std::vector<float> zero_row(static_cast<std::size_t>(stack.d_model), 0.0f);
  const View<float>* views[8] = {&block.weights.wq, &block.weights.wk, &block.weights.wv, &block.weights.wo,
                                 &block.weights.bq, &block.weights.bk, &block.weights.bv, &block.weights.bo};
  std::vector<float>* const owned[4] = {handed.find(*views[0]), handed.find(*views[1]), handed.find(*views[2]),
                                        handed.find(*views[3])};
  if (Status s = prepare_model_in(b.attention, block_inputs(block, View<float>(zero_row), StackInputs()), owned,
                                  &b.shape, &b.packed);
      !s.ok()) {
    return prefixed(layer_prefix(l) + "attention.", s);
  }
  for (int i = 0; i < 8; ++i) {
    b.present[i] = views[i]->present;
    if (i < 4 && ops::packed_is_fastest()) continue;  // the panels hold them
    // an owned weight the panels did not take is moved where the build keeps weights as they are
    const bool move = i < 4 && owned[i] != nullptr;
    b.weights[i] = move ? std::move(*owned[i]) : copy_of(*views[i]);
  }
  b.norm1 = norm_of(block.norm1);
  b.norm2 = norm_of(block.norm2);
  const Mlp& mlp = block.mlp;
  const int d = stack.d_model, f = mlp.hidden;
  b.mlp = block.arrangement == Arrangement::AttentionOnly ? MlpKind::None : mlp.kind;
  b.activation = mlp.activation;
  b.hidden = f;
  b.w1 = product_of(mlp.w1, d, f, handed);
  b.w2 = product_of(mlp.w2, f, d, handed);
  b.w_gate = product_of(mlp.w_gate, d, f, handed);
  b.w_up = product_of(mlp.w_up, d, f, handed);
  b.w_down = product_of(mlp.w_down, f, d, handed);
  b.b1 = copy_of(mlp.b1);
  b.b2 = copy_of(mlp.b2);
  *out = std::move(b);
  return Status::Ok();
}

// The weights' views for attention_forward_prepared. Where the panels hold wq … wo, the views give
// only presence and size (project() reads the panels, never these values); they point at the panels
// so that no view is null.
Inputs attention_inputs(const PreparedBlock& b, View<float> x) {
  Inputs in;
  View<float>* views[8] = {&in.wq, &in.wk, &in.wv, &in.wo, &in.bq, &in.bk, &in.bv, &in.bo};
  const std::vector<float>* panels[4] = {&b.packed.wq, &b.packed.wk, &b.packed.wv, &b.packed.wo};
  const std::size_t sizes[4] = {static_cast<std::size_t>(b.shape.heads) * b.shape.d_model * b.shape.d_k,
                                static_cast<std::size_t>(b.shape.kv_heads) * b.shape.d_model * b.shape.d_k,
                                static_cast<std::size_t>(b.shape.kv_heads) * b.shape.d_model * b.shape.d_v,
                                static_cast<std::size_t>(b.shape.heads) * b.shape.d_v * b.shape.d_model};
  for (int i = 0; i < 8; ++i) {
    if (!b.present[i]) continue;
    const bool in_panels = i < 4 && !panels[i]->empty();
    *views[i] = in_panels ? View<float>(panels[i]->data(), sizes[i]) : View<float>(b.weights[i]);
  }
  in.x = x;
  return in;
}

}  // namespace stack_steps

using namespace stack_steps;  // NOLINT: the steps are this file's, shared with prepared_trace.cpp

namespace {

// The tied unembedding's panels made in the token table's own storage (`table`, vocab × d, row-major):
// panel p (tokens 8p … 8p + 7, k-major) takes exactly the floats of rows 8p … 8p + 7, so each group of
// rows is copied aside and packed back where it lay; the last, partial panel needs packed_size's padding
// (within the vector's capacity when it was staged with room for it, see stage()). No second table.
PreparedProduct tied_panels_in_place(std::vector<float>* table, int vocab, int d) {
  PreparedProduct p;
  p.inner = d;
  p.cols = vocab;
  p.packed = true;
  const std::size_t panel = static_cast<std::size_t>(kernels::kGemmNr) * d;
  std::vector<float> rows(panel);
  table->resize(kernels::packed_size(d, vocab));
  for (int first = 0; first < vocab; first += kernels::kGemmNr) {
    const int nc = std::min(kernels::kGemmNr, vocab - first);
    float* at = table->data() + static_cast<std::size_t>(first) * d;
    std::copy(at, at + static_cast<std::size_t>(nc) * d, rows.begin());
    kernels::pack_panels_transposed(d, nc, rows.data(), d, at);
  }
  p.values = std::move(*table);
  return p;
}

}  // namespace

std::size_t token_table_room(int vocab, int d_model) { return kernels::packed_size(d_model, vocab); }

Status prepare_stack(const Stack& stack, PreparedStack* prepared, const std::function<void(int)>& layer_done,
                     std::vector<float>* token_storage, const std::vector<std::vector<float>*>& block_storage) {
  // every check that does not depend on n, made on one token (id 0, type 0) as stack_forward's
  const std::int32_t zero = 0;
  StackInputs one;
  one.ids = View<std::int32_t>(&zero, 1);
  if (Status s = validate_stack(stack, one); !s.ok()) return s;
  PreparedStack p;
  p.layers.resize(stack.layers.size());
  const HandedOver handed(stack, block_storage);
  for (std::size_t l = 0; l < stack.layers.size(); ++l) {
    if (Status s = prepare_block(stack, static_cast<int>(l), handed, &p.layers[l]); !s.ok()) return s;
    if (layer_done) layer_done(static_cast<int>(l));
  }
  const int d = stack.d_model, vocab = stack.vocab;
  p.vocab = vocab;
  p.d_model = d;
  p.positions = stack.positions;
  p.position_table = copy_of(stack.position_table);
  p.max_positions = static_cast<int>(p.position_table.size() / static_cast<std::size_t>(d));
  p.token_types = stack.token_types;
  p.type_table = copy_of(stack.type_table);
  p.embedding_norm = norm_of(stack.embedding_norm);
  p.final_norm = norm_of(stack.final_norm);
  p.unembedding = stack.unembedding;
  p.unembedding_bias = copy_of(stack.unembedding_bias);
  // the token table's own storage, when the caller hands it over (a staged table): used in place
  const bool owned = token_storage != nullptr && token_storage->data() == stack.tokens.data &&
                     token_storage->size() == stack.tokens.size;
  if (stack.unembedding == Unembedding::Own) {
    p.unembedding_weight = product_of(stack.unembedding_weight, d, vocab);
  } else if (stack.unembedding == Unembedding::Tied) {
    p.unembedding_weight = owned && ops::packed_is_fastest()
                               ? tied_panels_in_place(token_storage, vocab, d)
                               : product_of(stack.tokens.data, d, vocab, /*transposed=*/true);
  }
  // tied and packed: the panels hold the table, and embedding rows are read out of them
  if (!(stack.unembedding == Unembedding::Tied && p.unembedding_weight.packed)) {
    p.tokens = owned ? std::move(*token_storage) : copy_of(stack.tokens);
  }
  *prepared = std::move(p);
  return Status::Ok();
}

namespace stack_steps {

// Row v of the token table, from the table or from the tied unembedding's panels (panel v / 8 holds
// tokens v − v % 8 … as 8 columns of tokensᵀ, k-major).
void token_row(const PreparedStack& s, int v, float* row) {
  const int d = s.d_model;
  if (!s.tokens.empty()) {
    const float* token = s.tokens.data() + static_cast<std::size_t>(v) * d;
    std::copy(token, token + d, row);
    return;
  }
  const float* panel = s.unembedding_weight.values.data() + static_cast<std::size_t>(v / 8) * 8 * d + v % 8;
  for (int k = 0; k < d; ++k) row[k] = panel[static_cast<std::size_t>(k) * 8];
}

// ids (or typeIds) one per token, each in [0, count)
Status check_ids(const char* field, View<std::int32_t> ids, std::size_t n, int count, const char* what) {
  if (!ids.present || ids.size != n) {
    return Status::Range(field, std::string(field) + " has " + str(static_cast<long long>(ids.size)) +
                                    " values; expected one per token (" + str(static_cast<long long>(n)) + ")");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (ids.data[i] < 0 || ids.data[i] >= count) {
      return Status::Range(field, std::string(field) + "[" + str(static_cast<long long>(i)) + "] is " +
                                      str(ids.data[i]) + "; it must be between 0 and " + str(count - 1) + " (" + what +
                                      " − 1)");
    }
  }
  return Status::Ok();
}

// x: n × dModel finite values
Status check_x(View<float> x, int d) {
  const std::size_t n = x.size / static_cast<std::size_t>(d);
  if (n < 1 || n > static_cast<std::size_t>(kMaxTokens) || x.size != n * d || x.data == nullptr) {
    return Status::Range("x", "x has " + str(static_cast<long long>(x.size)) +
                                  " values; expected n × dModel (dModel = " + str(d) + ") with n from 1 to " +
                                  str(kMaxTokens));
  }
  if (all_finite(x.data, x.size)) return Status::Ok();
  std::size_t i = 0;
  while (x.data[i] - x.data[i] == 0) ++i;  // the first NaN or infinity (x − x is NaN for both)
  return Status::Range("x", "x[" + str(static_cast<long long>(i)) + "] is " + format_number(x.data[i]) +
                                "; every value must be a finite number");
}

Status check_run(const PreparedStack& s, const StackInputs& inputs, View<float> x, int* n_out) {
  std::size_t n = inputs.ids.size;
  if (x.present) {
    if (Status st = check_x(x, s.d_model); !st.ok()) return st;
    n = x.size / static_cast<std::size_t>(s.d_model);
  } else {
    if (!inputs.ids.present || n < 1 || n > static_cast<std::size_t>(kMaxTokens)) {
      return Status::Range("ids", "ids has " + str(static_cast<long long>(n)) + " tokens; it must have between 1 and " +
                                      str(kMaxTokens));
    }
    if (Status st = check_ids("ids", inputs.ids, n, s.vocab, "vocab"); !st.ok()) return st;
  }
  if (s.positions == PositionKind::Learned && n > static_cast<std::size_t>(s.max_positions)) {
    return Status::Range("positionTable", "positionTable has " + str(s.max_positions) + " positions; " +
                                              str(static_cast<long long>(n)) + " tokens need one each");
  }
  if (inputs.type_ids.present) {
    if (s.token_types == 0) {
      return Status::Range("typeIds", "typeIds must be left out: tokenTypes is 0");
    }
    if (Status st = check_ids("typeIds", inputs.type_ids, n, s.token_types, "tokenTypes"); !st.ok()) return st;
  }
  *n_out = static_cast<int>(n);
  return Status::Ok();
}

// out = norm(x) over n rows; None copies. Uses the workspace's row statistics.
void norm_rows(const PreparedNorm& norm, const float* x, int n, int d, float* out, StackWorkspace* ws) {
  const std::size_t nd = static_cast<std::size_t>(n) * d;
  if (norm.kind == NormKind::None) {
    std::copy(x, x + nd, out);
    return;
  }
  ws->mean.resize(static_cast<std::size_t>(n));
  ws->rstd.resize(static_cast<std::size_t>(n));
  if (norm.kind == NormKind::RmsNorm) {
    rmsnorm_forward(Span(out, nd), Span(ws->rstd), View<float>(x, nd), View<float>(norm.weight), n, d, norm.eps);
    return;
  }
  std::vector<float>& zeros = ws->zeros;  // a bias of zeros when the norm has none
  if (norm.bias.empty()) zeros.assign(static_cast<std::size_t>(d), 0.0f);
  const View<float> bias =
      norm.bias.empty() ? View<float>(zeros.data(), static_cast<std::size_t>(d)) : View<float>(norm.bias);
  layernorm_forward(Span(out, nd), Span(ws->mean), Span(ws->rstd), View<float>(x, nd), View<float>(norm.weight), bias,
                    n, d, norm.eps);
}

// ws->stream = tokens[ids] (or x) + types + positions, then the embedding norm (in place via normed).
void embed(const PreparedStack& s, const StackInputs& inputs, View<float> x, int n, StackWorkspace* ws) {
  const int d = s.d_model;
  const std::size_t nd = static_cast<std::size_t>(n) * d;
  ws->stream.resize(nd);
  const std::vector<float> sinusoids =
      s.positions == PositionKind::Sinusoidal ? sinusoidal_positions(n, d) : std::vector<float>();
  for (int i = 0; i < n; ++i) {
    float* row = ws->stream.data() + static_cast<std::size_t>(i) * d;
    if (x.present) {
      std::copy(x.data + static_cast<std::size_t>(i) * d, x.data + static_cast<std::size_t>(i + 1) * d, row);
    } else {
      token_row(s, inputs.ids.data[i], row);
    }
    if (s.token_types > 0) {
      const int type = inputs.type_ids.present ? inputs.type_ids.data[i] : 0;
      const float* type_row = s.type_table.data() + static_cast<std::size_t>(type) * d;
      for (int j = 0; j < d; ++j) row[j] += type_row[j];
    }
    const float* position =
        s.positions == PositionKind::Learned      ? s.position_table.data() + static_cast<std::size_t>(i) * d
        : s.positions == PositionKind::Sinusoidal ? sinusoids.data() + static_cast<std::size_t>(i) * d
                                                  : nullptr;
    if (position)
      for (int j = 0; j < d; ++j) row[j] += position[j];
  }
  if (s.embedding_norm.kind == NormKind::None) return;
  ws->normed.resize(nd);
  norm_rows(s.embedding_norm, ws->stream.data(), n, d, ws->normed.data(), ws);
  ws->stream.swap(ws->normed);
}

Status overflow(int l, const char* what) {
  const std::string where = layer_prefix(l);
  const std::string field = where.substr(0, where.size() - 1);
  return Status::Range(
      field,
      field + ": " + what + " overflows float32 (a value beyond ±3.4e38); the weights are too large for this input");
}

// GELU tanh (GPT-2's gelu_new) in place, in float32 on the build's exp kernel (kExpMinusMaxKernels,
// SIMD where the build has it) in place of layers.hpp's double std::tanh per value:
//   gelu(x) = x · (1 + tanh u) / 2, u = √(2/π) (x + 0.044715 x³), and with e = exp(−2|u|) ≤ 1,
//   (1 + tanh u) / 2 = 1 / (1 + e) for x ≥ 0 and e / (1 + e) for x < 0 (u has x's sign),
// a form with no cancellation. Relative error a few float32 roundings of u's (2|u| ε on e).
void gelu_tanh_in_place(float* values, std::size_t count) {
  constexpr kernels::ExpMinusMaxKernel exp_kernel = std::end(kernels::kExpMinusMaxKernels)[-1].fn;
  constexpr std::size_t kChunk = 1024;  // e stays in L1 between the passes
  float e[kChunk];
  for (std::size_t first = 0; first < count; first += kChunk) {
    const std::size_t size = std::min(kChunk, count - first);
    float* x = values + first;
    for (std::size_t i = 0; i < size; ++i) {
      const float u = 0.7978845608f * (x[i] + 0.044715f * x[i] * x[i] * x[i]);
      e[i] = -2.0f * std::fabs(u);
    }
    exp_kernel(static_cast<int>(size), e, 0.0f);
    for (std::size_t i = 0; i < size; ++i) x[i] = x[i] * (x[i] >= 0 ? 1.0f : e[i]) / (1.0f + e[i]);
  }
}

void activate_in_place(std::vector<float>& values, Activation activation) {
  if (activation == Activation::GeluTanh) {
    gelu_tanh_in_place(values.data(), values.size());
    return;
  }
  activation_forward(Span(values), View<float>(values), activation);  // one value at a time: in place is safe
}

// ws->sub (n, d) = mlp(a)
void mlp_rows(const PreparedBlock& b, const float* a, int n, int d, StackWorkspace* ws) {
  const std::size_t nf = static_cast<std::size_t>(n) * b.hidden;
  ws->pre.resize(nf);
  ws->sub.resize(static_cast<std::size_t>(n) * d);
  if (b.mlp == MlpKind::Plain) {
    apply(b.w1, a, n, ws->pre.data(), &ws->products);
    add_bias(b.b1, n, ws->pre.data());
    activate_in_place(ws->pre, b.activation);
    apply(b.w2, ws->pre.data(), n, ws->sub.data(), &ws->products);
    add_bias(b.b2, n, ws->sub.data());
    return;
  }
  ws->up.resize(nf);
  apply(b.w_gate, a, n, ws->pre.data(), &ws->products);
  apply(b.w_up, a, n, ws->up.data(), &ws->products);
  activation_forward(Span(ws->pre), View<float>(ws->pre), Activation::Silu);
  for (std::size_t i = 0; i < nf; ++i) ws->pre[i] *= ws->up[i];
  apply(b.w_down, ws->pre.data(), n, ws->sub.data(), &ws->products);
}

void add_into(std::vector<float>& stream, const float* values) {
  for (std::size_t i = 0; i < stream.size(); ++i) stream[i] += values[i];
}

// One block on ws->stream, in place; with `keep` present (a padding mask, (n, n) flags) its attention
// takes those flags in place of its own mask, as attention_forward's MaskMode::Keep.
Status block_rows(const PreparedBlock& b, int l, int n, int d, View<std::uint8_t> keep, StackWorkspace* ws) {
  const std::size_t nd = static_cast<std::size_t>(n) * d;
  const bool pre = b.arrangement == Arrangement::PreNorm;
  ws->normed.resize(nd);
  if (pre) norm_rows(b.norm1, ws->stream.data(), n, d, ws->normed.data(), ws);
  const View<float> attention_in(pre ? ws->normed.data() : ws->stream.data(), nd);
  Config config = b.attention;
  Inputs inputs = attention_inputs(b, attention_in);
  if (keep.present) {
    config.mask_mode = MaskMode::Keep;
    inputs.keep = keep;
  }
  if (Status s = attention_forward_prepared(config, inputs, b.shape, b.packed, &ws->attention_result, &ws->attention);
      !s.ok()) {
    return prefixed(layer_prefix(l) + "attention.", s);
  }
  return block_after_attention(b, l, n, d, ws->attention_result.output.data(), ws);
}

// The rest of a block once attention's output is known: the residual, the norms, the MLP.
Status block_after_attention(const PreparedBlock& b, int l, int n, int d, const float* attention_output,
                             StackWorkspace* ws) {
  const std::size_t nd = static_cast<std::size_t>(n) * d;
  const bool pre = b.arrangement == Arrangement::PreNorm;
  add_into(ws->stream, attention_output);
  if (!ops::all_finite(ws->stream.data(), nd)) return overflow(l, "the residual after attention");
  if (b.arrangement == Arrangement::PostNorm) {
    norm_rows(b.norm1, ws->stream.data(), n, d, ws->normed.data(), ws);
    ws->stream.swap(ws->normed);
  }
  if (b.mlp == MlpKind::None) return Status::Ok();
  if (pre) norm_rows(b.norm2, ws->stream.data(), n, d, ws->normed.data(), ws);
  mlp_rows(b, pre ? ws->normed.data() : ws->stream.data(), n, d, ws);
  add_into(ws->stream, ws->sub.data());
  if (!ops::all_finite(ws->stream.data(), nd)) return overflow(l, "the residual after the MLP");
  if (!pre) {
    norm_rows(b.norm2, ws->stream.data(), n, d, ws->normed.data(), ws);
    ws->stream.swap(ws->normed);
  }
  return Status::Ok();
}

// result->logits = output · unembedding + bias
Status unembed(const PreparedStack& s, int n, PreparedStackResult* result, StackWorkspace* ws) {
  result->logits.resize(static_cast<std::size_t>(n) * s.vocab);
  apply(s.unembedding_weight, result->output.data(), n, result->logits.data(), &ws->products);
  add_bias(s.unembedding_bias, n, result->logits.data());
  if (ops::all_finite(result->logits.data(), result->logits.size())) return Status::Ok();
  return Status::Range("unembedding", "unembedding: the logits overflow float32 (a value beyond ±3.4e38)");
}

}  // namespace stack_steps

Status prepared_stack_forward(const PreparedStack& s, const StackInputs& inputs, View<float> x,
                              const PreparedRunOptions& options, PreparedStackResult* result, StackWorkspace* ws) {
  int n = 0;
  if (Status st = check_run(s, inputs, x, &n); !st.ok()) return st;
  const std::size_t flags = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  if (options.keep.present && (options.keep.size != flags || options.keep.data == nullptr)) {
    return Status::Range("padding", "padding has " + str(static_cast<long long>(options.keep.size)) +
                                        " key flags; expected n × n (n = " + str(n) + ")");
  }
  const int d = s.d_model;
  StackWorkspace own;
  StackWorkspace* w = ws ? ws : &own;
  PreparedStackResult out;
  out.n = n;
  embed(s, inputs, x, n, w);
  if (!ops::all_finite(w->stream.data(), w->stream.size())) {
    return Status::Range("tokens", "tokens: the embeddings overflow float32 (a value beyond ±3.4e38)");
  }
  if (options.hidden_states) out.hidden_states.push_back(w->stream);
  for (std::size_t l = 0; l < s.layers.size(); ++l) {
    if (Status st = block_rows(s.layers[l], static_cast<int>(l), n, d, options.keep, w); !st.ok()) return st;
    if (options.hidden_states) out.hidden_states.push_back(w->stream);
  }
  out.output.resize(w->stream.size());
  norm_rows(s.final_norm, w->stream.data(), n, d, out.output.data(), w);
  if (options.logits && s.unembedding != Unembedding::None) {
    if (Status st = unembed(s, n, &out, w); !st.ok()) return st;
  }
  *result = std::move(out);
  return Status::Ok();
}

}  // namespace attn
