// The forward pass of a transformer block and of a stack of them (transformer.hpp has the contract;
// transformer_backward.cpp undoes it, pass by pass in reverse).
// n tokens, d features (d_model), f hidden features of the MLP, V the vocabulary.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "attention/transformer.hpp"
#include "transformer_common.hpp"
#include "validate.hpp"

namespace attn {

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const Matrix>;
using MutMap = Eigen::Map<Matrix>;
using RowVector = Eigen::Map<const Eigen::RowVectorXf>;

// a + b, elementwise: a residual addition
std::vector<float> sum(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

Status overflow(const std::string& where, const char* what) {
  return Status::Range(where.substr(0, where.size() - 1),
                       where.substr(0, where.size() - 1) + ": " + what +
                           " overflows float32 (a value beyond ±3.4e38); the weights are too large for this input");
}

}  // namespace

// out = norm(x), with the row statistics the backward needs; None copies x.
//   x, out: (n, d)   mean, rstd: (n)
Status norm_forward(const Norm& norm, const std::vector<float>& x, int n, int d, NormTrace* trace) {
  trace->out.assign(x.size(), 0.0f);
  trace->mean.assign(norm.kind == NormKind::LayerNorm ? n : 0, 0.0f);
  trace->rstd.assign(norm.kind == NormKind::None ? 0 : n, 0.0f);
  switch (norm.kind) {
    case NormKind::None: trace->out = x; return Status::Ok();
    case NormKind::RmsNorm: return rmsnorm_forward(trace->out, trace->rstd, view_of(x), norm.weight, n, d, norm.eps);
    case NormKind::LayerNorm: {
      const std::vector<float> zeros(norm.bias.present ? 0 : d, 0.0f);
      const View<float> bias = norm.bias.present ? norm.bias : view_of(zeros);
      return layernorm_forward(trace->out, trace->mean, trace->rstd, view_of(x), norm.weight, bias, n, d, norm.eps);
    }
  }
  return Status::Ok();
}

namespace {

// trace->mlp_out = mlp(x), keeping the hidden activations; with Portable arithmetic (the block's
// attention's), transformer_portable.cpp's products and activations.
Status block_mlp_forward(const Mlp& mlp, Arithmetic arithmetic, const std::vector<float>& x, int n, int d,
                         BlockTrace* trace) {
  const std::size_t nf = static_cast<std::size_t>(n) * mlp.hidden;
  trace->mlp_out.assign(static_cast<std::size_t>(n) * d, 0.0f);
  if (mlp.kind == MlpKind::None) return Status::Ok();
  trace->mlp_pre.assign(nf, 0.0f);
  trace->mlp_hidden.assign(nf, 0.0f);
  if (mlp.kind == MlpKind::SwiGlu) trace->mlp_up.assign(nf, 0.0f);
  if (arithmetic == Arithmetic::Portable) {
    portable_mlp_forward(mlp, x, n, d, trace);
    return Status::Ok();
  }
  if (mlp.kind == MlpKind::Plain) {
    return mlp_forward(trace->mlp_out, trace->mlp_pre, trace->mlp_hidden, view_of(x), mlp.w1, mlp.b1, mlp.w2, mlp.b2, n,
                       d, mlp.hidden, mlp.activation);
  }
  return swiglu_forward(trace->mlp_out, trace->mlp_pre, trace->mlp_up, trace->mlp_hidden, view_of(x), mlp.w_gate,
                        mlp.w_up, mlp.w_down, n, d, mlp.hidden);
}

// pass 1: the attention sub-layer; the norm before it (PreNorm) or after the residual (PostNorm).
Status attention_sublayer(const Stack& stack, const StackInputs& inputs, int l, BlockTrace* trace) {
  const Block& block = stack.layers[static_cast<std::size_t>(l)];
  const int d = stack.d_model, n = static_cast<int>(trace->input.size()) / d;
  const std::string where = layer_prefix(l);
  const bool pre = block.arrangement == Arrangement::PreNorm;
  if (pre) {
    if (Status s = norm_forward(block.norm1, trace->input, n, d, &trace->norm1); !s.ok())
      return prefixed(where + "norm1.", s);
  }
  const std::vector<float>& attention_in = pre ? trace->norm1.out : trace->input;
  const Status s = attention_forward(block_config(stack, block, n), block_inputs(block, view_of(attention_in), inputs),
                                     true, &trace->attention);
  if (!s.ok()) return prefixed(where + "attention.", s);
  trace->attended = sum(trace->input, trace->attention.output);
  if (!all_finite(trace->attended.data(), trace->attended.size()))
    return overflow(where, "the residual after attention");
  if (block.arrangement != Arrangement::PostNorm) {
    trace->middle = trace->attended;
    return Status::Ok();
  }
  if (Status s1 = norm_forward(block.norm1, trace->attended, n, d, &trace->norm1); !s1.ok()) {
    return prefixed(where + "norm1.", s1);
  }
  trace->middle = trace->norm1.out;
  return Status::Ok();
}

// pass 2: the MLP sub-layer, the same way round.
Status mlp_sublayer(const Stack& stack, int l, BlockTrace* trace) {
  const Block& block = stack.layers[static_cast<std::size_t>(l)];
  const int d = stack.d_model, n = static_cast<int>(trace->input.size()) / d;
  const std::string where = layer_prefix(l);
  if (block.arrangement == Arrangement::AttentionOnly || block.mlp.kind == MlpKind::None) {
    trace->summed = trace->middle;
    trace->output = trace->middle;
    return Status::Ok();
  }
  const bool pre = block.arrangement == Arrangement::PreNorm;
  if (pre) {
    if (Status s = norm_forward(block.norm2, trace->middle, n, d, &trace->norm2); !s.ok())
      return prefixed(where + "norm2.", s);
  }
  if (Status s =
          block_mlp_forward(block.mlp, block.attention.arithmetic, pre ? trace->norm2.out : trace->middle, n, d, trace);
      !s.ok()) {
    return prefixed(where + "mlp.", s);
  }
  if (!all_finite(trace->mlp_hidden.data(), trace->mlp_hidden.size()) ||
      !all_finite(trace->mlp_out.data(), trace->mlp_out.size())) {
    return overflow(where, "the MLP's output");
  }
  trace->summed = sum(trace->middle, trace->mlp_out);
  if (!all_finite(trace->summed.data(), trace->summed.size())) return overflow(where, "the residual after the MLP");
  if (pre) {
    trace->output = trace->summed;
    return Status::Ok();
  }
  if (Status s = norm_forward(block.norm2, trace->summed, n, d, &trace->norm2); !s.ok())
    return prefixed(where + "norm2.", s);
  trace->output = trace->norm2.out;
  return Status::Ok();
}

}  // namespace

Status block_forward(const Stack& stack, const StackInputs& inputs, int l, BlockTrace* trace) {
  if (Status s = attention_sublayer(stack, inputs, l, trace); !s.ok()) return s;
  return mlp_sublayer(stack, l, trace);
}

namespace {

// pass 0: embedded = tokens[ids] + token types + positions (learned or sinusoidal), then its norm.
Status embed(const Stack& stack, const StackInputs& inputs, StackTrace* trace) {
  const int n = trace->n, d = stack.d_model;
  trace->embedded.assign(static_cast<std::size_t>(n) * d, 0.0f);
  const std::vector<float> sinusoids =
      stack.positions == PositionKind::Sinusoidal ? sinusoidal_positions(n, d) : std::vector<float>();
  for (int i = 0; i < n; ++i) {
    float* row = trace->embedded.data() + static_cast<std::size_t>(i) * d;
    const float* token = stack.tokens.data + static_cast<std::size_t>(inputs.ids.data[i]) * d;
    for (int j = 0; j < d; ++j) row[j] = token[j];
    if (stack.token_types > 0) {
      const int type = inputs.type_ids.present ? inputs.type_ids.data[i] : 0;
      const float* type_row = stack.type_table.data + static_cast<std::size_t>(type) * d;
      for (int j = 0; j < d; ++j) row[j] += type_row[j];
    }
    const float* position =
        stack.positions == PositionKind::Learned      ? stack.position_table.data + static_cast<std::size_t>(i) * d
        : stack.positions == PositionKind::Sinusoidal ? sinusoids.data() + static_cast<std::size_t>(i) * d
                                                      : nullptr;
    if (position)
      for (int j = 0; j < d; ++j) row[j] += position[j];
  }
  if (!all_finite(trace->embedded.data(), trace->embedded.size())) {
    return Status::Range("tokens", "tokens: the embeddings overflow float32 (a value beyond ±3.4e38)");
  }
  if (Status s = norm_forward(stack.embedding_norm, trace->embedded, n, d, &trace->embedding_norm); !s.ok()) {
    return prefixed("embeddingNorm.", s);
  }
  trace->embeddings = trace->embedding_norm.out;
  return Status::Ok();
}

// pass L + 2: logits = output · tokensᵀ (tied) or output · unembedding (own), + bias.
Status unembed(const Stack& stack, StackTrace* trace) {
  const int n = trace->n, d = stack.d_model, vocab = stack.vocab;
  trace->logits.clear();
  if (stack.unembedding == Unembedding::None) return Status::Ok();
  trace->logits.assign(static_cast<std::size_t>(n) * vocab, 0.0f);
  MutMap logits(trace->logits.data(), n, vocab);
  const ConstMap output(trace->output.data(), n, d);
  if (stack.unembedding == Unembedding::Tied) {
    logits.noalias() = output * ConstMap(stack.tokens.data, vocab, d).transpose();
  } else {
    logits.noalias() = output * ConstMap(stack.unembedding_weight.data, d, vocab);
  }
  if (stack.unembedding_bias.present) logits.rowwise() += RowVector(stack.unembedding_bias.data, vocab);
  if (all_finite(trace->logits.data(), trace->logits.size())) return Status::Ok();
  return Status::Range("unembedding", "unembedding: the logits overflow float32 (a value beyond ±3.4e38)");
}

}  // namespace

Status stack_forward(const Stack& stack, const StackInputs& inputs, StackTrace* result) {
  if (Status s = validate_stack(stack, inputs); !s.ok()) return s;
  StackTrace trace;
  trace.n = static_cast<int>(inputs.ids.size);
  const int n = trace.n, d = stack.d_model;
  if (Status s = embed(stack, inputs, &trace); !s.ok()) return s;
  // passes 1 … L: the blocks, each reading the stream the one before wrote
  trace.layers.resize(stack.layers.size());
  for (std::size_t l = 0; l < stack.layers.size(); ++l) {
    trace.layers[l].input = l == 0 ? trace.embeddings : trace.layers[l - 1].output;
    if (Status s = block_forward(stack, inputs, static_cast<int>(l), &trace.layers[l]); !s.ok()) return s;
  }
  // pass L + 1: the final norm
  const std::vector<float>& last = trace.layers.empty() ? trace.embeddings : trace.layers.back().output;
  if (Status s = norm_forward(stack.final_norm, last, n, d, &trace.final_norm); !s.ok())
    return prefixed("finalNorm.", s);
  trace.output = trace.final_norm.out;
  if (Status s = unembed(stack, &trace); !s.ok()) return s;
  *result = std::move(trace);
  return Status::Ok();
}

}  // namespace attn
