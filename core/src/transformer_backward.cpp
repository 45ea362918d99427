// The backward pass of a block and of a stack (transformer.hpp), beside transformer_forward.cpp:
// the forward's passes undone in reverse, from its trace. Gradients are added with += into the
// buffers zero_stack_gradients sized.
// n tokens, d features (d_model), f hidden features of the MLP, V the vocabulary.
#include <Eigen/Core>
#include <string>
#include <tuple>
#include <vector>

#include "attention/transformer.hpp"
#include "transformer_common.hpp"
#include "validate.hpp"

namespace attn {

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const Matrix>;
using MutMap = Eigen::Map<Matrix>;
using MutRowVector = Eigen::Map<Eigen::RowVectorXf>;

// A gradient buffer, or an empty Span (not wanted) where the vector is empty.
Span wanted(std::vector<float>& values) { return values.empty() ? Span() : Span(values); }

void add_into(std::vector<float>& dst, const std::vector<float>& src) {
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i] += src[i];
}

void zero_like(const View<float>& input, std::vector<float>* gradient) {
  if (input.present) gradient->assign(input.size, 0.0f);
}

NormGradients zero_norm(const Norm& norm, int d) {
  NormGradients g;
  if (norm.kind != NormKind::None) g.weight.assign(static_cast<std::size_t>(d), 0.0f);
  if (norm.kind == NormKind::LayerNorm && norm.bias.present) g.bias.assign(static_cast<std::size_t>(d), 0.0f);
  return g;
}

BlockGradients zero_block(const Block& block, int d) {
  BlockGradients g;
  const Inputs& w = block.weights;
  zero_like(w.wq, &g.attention.wq);
  zero_like(w.wk, &g.attention.wk);
  zero_like(w.wv, &g.attention.wv);
  zero_like(w.wo, &g.attention.wo);
  zero_like(w.bq, &g.attention.bq);
  zero_like(w.bk, &g.attention.bk);
  zero_like(w.bv, &g.attention.bv);
  zero_like(w.bo, &g.attention.bo);
  g.norm1 = zero_norm(block.norm1, d);
  g.norm2 = zero_norm(block.norm2, d);
  const Mlp& mlp = block.mlp;
  if (mlp.kind == MlpKind::Plain) {
    zero_like(mlp.w1, &g.w1);
    zero_like(mlp.b1, &g.b1);
    zero_like(mlp.w2, &g.w2);
    zero_like(mlp.b2, &g.b2);
  } else if (mlp.kind == MlpKind::SwiGlu) {
    zero_like(mlp.w_gate, &g.w_gate);
    zero_like(mlp.w_up, &g.w_up);
    zero_like(mlp.w_down, &g.w_down);
  }
  return g;
}

}  // namespace

StackGradients zero_stack_gradients(const Stack& stack) {
  StackGradients g;
  const int d = stack.d_model;
  zero_like(stack.tokens, &g.tokens);
  if (stack.positions == PositionKind::Learned) zero_like(stack.position_table, &g.position_table);
  if (stack.token_types > 0) zero_like(stack.type_table, &g.type_table);
  g.embedding_norm = zero_norm(stack.embedding_norm, d);
  for (const Block& block : stack.layers) g.layers.push_back(zero_block(block, d));
  g.final_norm = zero_norm(stack.final_norm, d);
  if (stack.unembedding == Unembedding::Own) zero_like(stack.unembedding_weight, &g.unembedding_weight);
  if (stack.unembedding != Unembedding::None) zero_like(stack.unembedding_bias, &g.unembedding_bias);
  return g;
}

namespace {

// dx += the gradient through norm(x), given dout; the norm's weight and bias gradients too.
Status norm_backward(const Norm& norm, const std::vector<float>& x, const NormTrace& trace,
                     const std::vector<float>& dout, std::vector<float>& dx, NormGradients& g, int n, int d) {
  switch (norm.kind) {
    case NormKind::None: add_into(dx, dout); return Status::Ok();
    case NormKind::RmsNorm:
      return rmsnorm_backward(dx, wanted(g.weight), view_of(dout), view_of(x), norm.weight, view_of(trace.rstd), n, d);
    case NormKind::LayerNorm:
      return layernorm_backward(dx, wanted(g.weight), wanted(g.bias), view_of(dout), view_of(x), norm.weight,
                                view_of(trace.mean), view_of(trace.rstd), n, d);
  }
  return Status::Ok();
}

// dx += the gradient through the block's MLP at input x, given d_mlp_out (Portable: as the forward).
Status mlp_backward_block(const Mlp& mlp, Arithmetic arithmetic, const std::vector<float>& x, const BlockTrace& trace,
                          const std::vector<float>& d_mlp_out, std::vector<float>& dx, BlockGradients& g, int n,
                          int d) {
  if (arithmetic == Arithmetic::Portable) {
    portable_mlp_backward(mlp, x, trace, d_mlp_out, dx, g, n, d);
    return Status::Ok();
  }
  if (mlp.kind == MlpKind::Plain) {
    const MlpGradients grads{dx, wanted(g.w1), wanted(g.b1), wanted(g.w2), wanted(g.b2)};
    return mlp_backward(grads, view_of(d_mlp_out), view_of(x), mlp.w1, mlp.w2, view_of(trace.mlp_pre),
                        view_of(trace.mlp_hidden), n, d, mlp.hidden, mlp.activation);
  }
  const SwigluGradients grads{dx, wanted(g.w_gate), wanted(g.w_up), wanted(g.w_down)};
  return swiglu_backward(grads, view_of(d_mlp_out), view_of(x), mlp.w_gate, mlp.w_up, mlp.w_down,
                         view_of(trace.mlp_pre), view_of(trace.mlp_up), n, d, mlp.hidden);
}

// backward pass 2: d_middle = the gradient reaching the stream after attention, from d_output.
Status mlp_sublayer_backward(const Block& block, const BlockTrace& trace, const std::vector<float>& d_output,
                             std::vector<float>& d_middle, BlockGradients& g, int n, int d) {
  if (block.arrangement == Arrangement::AttentionOnly || block.mlp.kind == MlpKind::None) {
    add_into(d_middle, d_output);
    return Status::Ok();
  }
  const bool pre = block.arrangement == Arrangement::PreNorm;
  std::vector<float> d_summed(d_output.size(), 0.0f);
  if (pre) {
    d_summed = d_output;
  } else if (Status s = norm_backward(block.norm2, trace.summed, trace.norm2, d_output, d_summed, g.norm2, n, d);
             !s.ok()) {
    return prefixed("norm2.", s);
  }
  add_into(d_middle, d_summed);  // the residual
  std::vector<float> d_mlp_in(d_output.size(), 0.0f);
  if (Status s = mlp_backward_block(block.mlp, block.attention.arithmetic, pre ? trace.norm2.out : trace.middle, trace,
                                    d_summed, d_mlp_in, g, n, d);
      !s.ok()) {
    return prefixed("mlp.", s);
  }
  if (!pre) {
    add_into(d_middle, d_mlp_in);
    return Status::Ok();
  }
  return prefixed("norm2.", norm_backward(block.norm2, trace.middle, trace.norm2, d_mlp_in, d_middle, g.norm2, n, d));
}

// backward pass 1: d_input += the gradient through the attention sub-layer, from d_middle.
Status attention_sublayer_backward(const Stack& stack, const StackInputs& inputs, int l, const BlockTrace& trace,
                                   const std::vector<float>& d_middle, std::vector<float>& d_input, BlockGradients& g) {
  const Block& block = stack.layers[static_cast<std::size_t>(l)];
  const int d = stack.d_model, n = static_cast<int>(trace.input.size()) / d;
  std::vector<float> d_attended(d_middle.size(), 0.0f);
  if (block.arrangement != Arrangement::PostNorm) {
    d_attended = d_middle;
  } else if (Status s = norm_backward(block.norm1, trace.attended, trace.norm1, d_middle, d_attended, g.norm1, n, d);
             !s.ok()) {
    return prefixed("norm1.", s);
  }
  add_into(d_input, d_attended);  // the residual
  const bool pre = block.arrangement == Arrangement::PreNorm;
  const std::vector<float>& attention_in = pre ? trace.norm1.out : trace.input;
  g.attention.x.assign(d_middle.size(), 0.0f);
  const Status s = attention_backward(block_config(stack, block, n), block_inputs(block, view_of(attention_in), inputs),
                                      trace.attention, view_of(d_attended), View<float>(), &g.attention);
  std::vector<float> d_attention_in = std::move(g.attention.x);
  g.attention.x.clear();
  if (!s.ok()) return prefixed("attention.", s);
  if (!pre) {
    add_into(d_input, d_attention_in);
    return Status::Ok();
  }
  return prefixed("norm1.",
                  norm_backward(block.norm1, trace.input, trace.norm1, d_attention_in, d_input, g.norm1, n, d));
}

// Block l backward: d_input (zeroed by the caller) += d(block)/d(input) · d_output.
Status block_backward(const Stack& stack, const StackInputs& inputs, int l, const BlockTrace& trace,
                      const std::vector<float>& d_output, std::vector<float>& d_input, BlockGradients& g) {
  const Block& block = stack.layers[static_cast<std::size_t>(l)];
  const int d = stack.d_model, n = static_cast<int>(trace.input.size()) / d;
  std::vector<float> d_middle(d_output.size(), 0.0f);
  if (Status s = mlp_sublayer_backward(block, trace, d_output, d_middle, g, n, d); !s.ok()) {
    return prefixed(layer_prefix(l), s);
  }
  return prefixed(layer_prefix(l), attention_sublayer_backward(stack, inputs, l, trace, d_middle, d_input, g));
}

// backward pass L + 2: d_output += d_logits through the unembedding; its weights' gradients.
void unembed_backward(const Stack& stack, const StackTrace& trace, View<float> d_logits, std::vector<float>& d_output,
                      StackGradients& g) {
  const int n = trace.n, d = stack.d_model, vocab = stack.vocab;
  const ConstMap dl(d_logits.data, n, vocab), output(trace.output.data(), n, d);
  MutMap d_out(d_output.data(), n, d);
  if (stack.unembedding == Unembedding::Tied) {
    d_out.noalias() += dl * ConstMap(stack.tokens.data, vocab, d);
    MutMap(g.tokens.data(), vocab, d).noalias() += dl.transpose() * output;
  } else {
    d_out.noalias() += dl * ConstMap(stack.unembedding_weight.data, d, vocab).transpose();
    MutMap(g.unembedding_weight.data(), d, vocab).noalias() += output.transpose() * dl;
  }
  if (!g.unembedding_bias.empty()) MutRowVector(g.unembedding_bias.data(), vocab) += dl.colwise().sum();
}

// backward pass 0: the embedding norm, then each token's row of the tables.
Status embed_backward(const Stack& stack, const StackInputs& inputs, const StackTrace& trace,
                      const std::vector<float>& d_embeddings, StackGradients& g) {
  const int n = trace.n, d = stack.d_model;
  std::vector<float> d_embedded(d_embeddings.size(), 0.0f);
  if (Status s = norm_backward(stack.embedding_norm, trace.embedded, trace.embedding_norm, d_embeddings, d_embedded,
                               g.embedding_norm, n, d);
      !s.ok()) {
    return prefixed("embeddingNorm.", s);
  }
  for (int i = 0; i < n; ++i) {
    const float* row = d_embedded.data() + static_cast<std::size_t>(i) * d;
    auto add_row = [&](std::vector<float>& table, int index) {
      float* target = table.data() + static_cast<std::size_t>(index) * d;
      for (int j = 0; j < d; ++j) target[j] += row[j];
    };
    add_row(g.tokens, inputs.ids.data[i]);
    if (stack.positions == PositionKind::Learned) add_row(g.position_table, i);
    if (stack.token_types > 0) add_row(g.type_table, inputs.type_ids.present ? inputs.type_ids.data[i] : 0);
  }
  return Status::Ok();
}

bool same_sizes(const std::vector<float>& a, const std::vector<float>& b) { return a.size() == b.size(); }

bool gradients_sized(const StackGradients& got, const StackGradients& want) {
  auto norms = [](const NormGradients& a, const NormGradients& b) {
    return same_sizes(a.weight, b.weight) && same_sizes(a.bias, b.bias);
  };
  bool ok = same_sizes(got.tokens, want.tokens) && same_sizes(got.position_table, want.position_table) &&
            same_sizes(got.type_table, want.type_table) && norms(got.embedding_norm, want.embedding_norm) &&
            norms(got.final_norm, want.final_norm) && same_sizes(got.unembedding_weight, want.unembedding_weight) &&
            same_sizes(got.unembedding_bias, want.unembedding_bias) && got.layers.size() == want.layers.size();
  for (std::size_t l = 0; ok && l < got.layers.size(); ++l) {
    const BlockGradients &a = got.layers[l], &b = want.layers[l];
    const Gradients &ga = a.attention, &gb = b.attention;
    ok = norms(a.norm1, b.norm1) && norms(a.norm2, b.norm2) && same_sizes(a.w1, b.w1) && same_sizes(a.b1, b.b1) &&
         same_sizes(a.w2, b.w2) && same_sizes(a.b2, b.b2) && same_sizes(a.w_gate, b.w_gate) &&
         same_sizes(a.w_up, b.w_up) && same_sizes(a.w_down, b.w_down) && same_sizes(ga.wq, gb.wq) &&
         same_sizes(ga.wk, gb.wk) && same_sizes(ga.wv, gb.wv) && same_sizes(ga.wo, gb.wo) && same_sizes(ga.bq, gb.bq) &&
         same_sizes(ga.bk, gb.bk) && same_sizes(ga.bv, gb.bv) && same_sizes(ga.bo, gb.bo) && ga.x.empty() &&
         ga.context.empty();
  }
  return ok;
}

Status check_backward(const Stack& stack, const StackInputs& inputs, const StackTrace& trace, View<float> d_logits,
                      View<float> d_output, const StackGradients& gradients) {
  if (Status s = validate_stack(stack, inputs); !s.ok()) return s;
  const std::size_t n = inputs.ids.size, d = static_cast<std::size_t>(stack.d_model);
  if (!d_logits.present && !d_output.present) {
    return Status::Type("dLogits", "dLogits and dOutput are both missing; give at least one");
  }
  if (d_logits.present && stack.unembedding == Unembedding::None) {
    return Status::Range("dLogits", "dLogits needs an unembedding; the stack has none");
  }
  for (const auto& [field, values, expected] :
       {std::tuple<const char*, View<float>, std::size_t>{"dLogits", d_logits, n * stack.vocab},
        {"dOutput", d_output, n * d}}) {
    if (!values.present) continue;
    if (values.data == nullptr || values.size != expected) {
      return Status::Range(field, std::string(field) + " has " + std::to_string(values.size) + " values; expected " +
                                      std::to_string(expected));
    }
    if (!all_finite(values.data, values.size)) {
      return Status::Range(field, std::string(field) + " holds a value that is not a finite number");
    }
  }
  if (trace.n != static_cast<int>(n) || trace.layers.size() != stack.layers.size() || trace.output.size() != n * d ||
      trace.logits.size() != (stack.unembedding == Unembedding::None ? 0 : n * stack.vocab)) {
    return Status::Range("trace", "the backward pass needs stack_forward's trace for the same stack and ids");
  }
  if (gradients_sized(gradients, zero_stack_gradients(stack))) return Status::Ok();
  return Status::Range("gradients",
                       "the gradient buffers are not sized like the stack; start from zero_stack_gradients()");
}

}  // namespace

Status stack_backward(const Stack& stack, const StackInputs& inputs, const StackTrace& trace, View<float> d_logits,
                      View<float> d_output, StackGradients* gradients) {
  if (Status s = check_backward(stack, inputs, trace, d_logits, d_output, *gradients); !s.ok()) return s;
  const int n = trace.n, d = stack.d_model;
  StackGradients& g = *gradients;
  // backward pass L + 2: the logits
  std::vector<float> d_stream(d_output.present ? std::vector<float>(d_output.data, d_output.data + d_output.size)
                                               : std::vector<float>(static_cast<std::size_t>(n) * d, 0.0f));
  if (d_logits.present) unembed_backward(stack, trace, d_logits, d_stream, g);
  // backward pass L + 1: the final norm
  const std::vector<float>& last = trace.layers.empty() ? trace.embeddings : trace.layers.back().output;
  std::vector<float> d_last(d_stream.size(), 0.0f);
  if (Status s = norm_backward(stack.final_norm, last, trace.final_norm, d_stream, d_last, g.final_norm, n, d);
      !s.ok()) {
    return prefixed("finalNorm.", s);
  }
  // backward passes L … 1: the blocks, last first
  for (int l = static_cast<int>(stack.layers.size()) - 1; l >= 0; --l) {
    std::vector<float> d_input(d_last.size(), 0.0f);
    const BlockTrace& block_trace = trace.layers[static_cast<std::size_t>(l)];
    if (Status s =
            block_backward(stack, inputs, l, block_trace, d_last, d_input, g.layers[static_cast<std::size_t>(l)]);
        !s.ok()) {
      return s;
    }
    d_last = std::move(d_input);
  }
  // backward pass 0: the embeddings
  return embed_backward(stack, inputs, trace, d_last, g);
}

}  // namespace attn
