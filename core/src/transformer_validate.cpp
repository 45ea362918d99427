// The stack's argument checks (validate_stack), made before any work: every size, every weight
// finite, every id in range, the layer count capped. Fields are spelt as the JavaScript request.
#include <cmath>
#include <string>

#include "attention/transformer.hpp"
#include "transformer_common.hpp"
#include "validate.hpp"

namespace attn {

namespace {

std::string str(long long value) { return std::to_string(value); }

// `expected` values (`shape` spells it: "d_model = 32"), each finite.
Status check_values(const std::string& field, View<float> values, long long expected, const std::string& shape) {
  if (!values.present || values.data == nullptr) {
    return Status::Type(field, field + " is missing; expected " + shape + " = " + str(expected) + " values");
  }
  if (static_cast<long long>(values.size) != expected) {
    return Status::Range(field,
                         field + " has " + str(values.size) + " values; expected " + shape + " = " + str(expected));
  }
  if (all_finite(values.data, values.size)) return Status::Ok();
  for (std::size_t i = 0; i < values.size; ++i) {
    if (!std::isfinite(values.data[i])) {
      return Status::Range(field, field + "[" + str(i) + "] is " + format_number(values.data[i]) +
                                      "; every value must be a finite number");
    }
  }
  return Status::Ok();
}

Status check_absent(const std::string& field, bool present, const std::string& why) {
  if (!present) return Status::Ok();
  return Status::Range(field, field + " must be left out: " + why);
}

Status check_norm(const std::string& path, const Norm& norm, int d) {
  if (norm.kind == NormKind::None) {
    if (Status s = check_absent(path + ".weight", norm.weight.present, "the norm's kind is none"); !s.ok()) return s;
    return check_absent(path + ".bias", norm.bias.present, "the norm's kind is none");
  }
  if (!std::isfinite(norm.eps) || norm.eps <= 0) {
    return Status::Range(path + ".eps",
                         path + ".eps is " + format_number(norm.eps) + "; it must be a finite number above 0");
  }
  if (Status s = check_values(path + ".weight", norm.weight, d, "dModel"); !s.ok()) return s;
  if (norm.kind == NormKind::RmsNorm) return check_absent(path + ".bias", norm.bias.present, "RMSNorm has no bias");
  return norm.bias.present ? check_values(path + ".bias", norm.bias, d, "dModel") : Status::Ok();
}

Status check_plain_mlp(const std::string& path, const Mlp& mlp, long long d, long long f) {
  if (Status s = check_values(path + ".w1", mlp.w1, d * f, "dModel × hidden"); !s.ok()) return s;
  if (mlp.b1.present) {
    if (Status s = check_values(path + ".b1", mlp.b1, f, "hidden"); !s.ok()) return s;
  }
  if (Status s = check_values(path + ".w2", mlp.w2, f * d, "hidden × dModel"); !s.ok()) return s;
  if (mlp.b2.present) {
    if (Status s = check_values(path + ".b2", mlp.b2, d, "dModel"); !s.ok()) return s;
  }
  const bool gated = mlp.w_gate.present || mlp.w_up.present || mlp.w_down.present;
  return check_absent(path + ".wGate", gated, "wGate, wUp and wDown belong to the gated MLP (swiglu)");
}

Status check_mlp(const std::string& path, const Mlp& mlp, int d) {
  if (mlp.kind == MlpKind::None) {
    const bool any = mlp.w1.present || mlp.w2.present || mlp.w_gate.present || mlp.w_up.present || mlp.w_down.present ||
                     mlp.b1.present || mlp.b2.present;
    return check_absent(path, any, "weights were given to a block without an MLP (kind none)");
  }
  if (mlp.hidden < 1 || mlp.hidden > kMaxWidth * 4) {
    return Status::Range(path + ".hidden",
                         path + ".hidden is " + str(mlp.hidden) + "; it must be between 1 and " + str(kMaxWidth * 4));
  }
  const long long f = mlp.hidden;
  if (static_cast<long long>(d) * f > static_cast<long long>(kMaxMatrixValues)) {
    return Status::Range(path + ".hidden", "dModel × hidden = " + str(d * f) + " is above the cap of " +
                                               str(kMaxMatrixValues) + " values");
  }
  if (mlp.kind == MlpKind::Plain) return check_plain_mlp(path, mlp, d, f);
  if (Status s = check_values(path + ".wGate", mlp.w_gate, d * f, "dModel × hidden"); !s.ok()) return s;
  if (Status s = check_values(path + ".wUp", mlp.w_up, d * f, "dModel × hidden"); !s.ok()) return s;
  if (Status s = check_values(path + ".wDown", mlp.w_down, f * d, "hidden × dModel"); !s.ok()) return s;
  const bool plain = mlp.w1.present || mlp.w2.present || mlp.b1.present || mlp.b2.present;
  return check_absent(path + ".w1", plain, "w1, b1, w2 and b2 belong to the plain MLP, not swiglu");
}

Status check_attention(const Stack& stack, const Block& block, const StackInputs& inputs, int l, int n) {
  const std::string path = layer_prefix(l) + "attention.";
  const Config config = block_config(stack, block, n);
  if (block.attention.positions != PositionMode::None) {
    return Status::Range(path + "positions", path + "positions must be 'none': the stack adds its positions once");
  }
  if (block.weights.x.present || block.weights.context.present) {
    return Status::Range(path + "x", path + "x and context are the stack's: leave them out");
  }
  View<float> x_size;  // validate() checks x's size alone when it has no data
  x_size.size = static_cast<std::size_t>(n) * stack.d_model;
  x_size.present = true;
  Shape shape{};
  if (Status s = validate(config, block_inputs(block, x_size, inputs), true, &shape); !s.ok()) {
    // the stack's rotary settings are named as the stack's
    const bool stack_rotary = stack.positions == PositionKind::Rotary && s.field.rfind("rotary.", 0) == 0;
    return stack_rotary ? s : prefixed(path, s);
  }
  if (shape.d_out == stack.d_model) return Status::Ok();
  return Status::Range(path + "wo", path + "wo: the attention's output is " + str(shape.d_out) +
                                        " wide; a block needs dModel = " + str(stack.d_model));
}

Status check_block(const Stack& stack, const StackInputs& inputs, int l, int n) {
  const Block& block = stack.layers[static_cast<std::size_t>(l)];
  const std::string path = layer_prefix(l);
  if (Status s = check_attention(stack, block, inputs, l, n); !s.ok()) return s;
  if (block.arrangement == Arrangement::AttentionOnly) {
    const bool any = block.norm1.kind != NormKind::None || block.norm2.kind != NormKind::None;
    if (Status s = check_absent(path + "norm1", any, "an attention-only block has no norm"); !s.ok()) return s;
    return check_absent(path + "mlp", block.mlp.kind != MlpKind::None, "an attention-only block has no MLP");
  }
  if (Status s = check_norm(path + "norm1", block.norm1, stack.d_model); !s.ok()) return s;
  if (Status s = check_norm(path + "norm2", block.norm2, stack.d_model); !s.ok()) return s;
  return check_mlp(path + "mlp", block.mlp, stack.d_model);
}

Status check_ids(const std::string& field, View<std::int32_t> ids, int n, int count, const char* what) {
  if (!ids.present || ids.data == nullptr || static_cast<int>(ids.size) != n) {
    return Status::Range(field, field + " has " + str(ids.size) + " values; expected one per token (" + str(n) + ")");
  }
  for (int i = 0; i < n; ++i) {
    if (ids.data[i] < 0 || ids.data[i] >= count) {
      return Status::Range(field, field + "[" + str(i) + "] is " + str(ids.data[i]) + "; it must be between 0 and " +
                                      str(count - 1) + " (" + what + " − 1)");
    }
  }
  return Status::Ok();
}

Status check_sizes(const Stack& stack, const StackInputs& inputs) {
  if (stack.d_model < 1 || stack.d_model > kMaxWidth) {
    return Status::Range("dModel", "dModel is " + str(stack.d_model) + "; it must be between 1 and " + str(kMaxWidth));
  }
  if (stack.vocab < 1 || stack.vocab > kMaxVocab ||
      static_cast<long long>(stack.vocab) * stack.d_model > kMaxTableValues) {
    return Status::Range("vocab", "vocab is " + str(stack.vocab) +
                                      "; it must be at least 1, with vocab × dModel at most " + str(kMaxTableValues) +
                                      " (a token table of 512 MiB)");
  }
  const long long n = inputs.ids.size;
  if (!inputs.ids.present || n < 1 || n > kMaxTokens) {
    return Status::Range("ids", "ids has " + str(n) + " tokens; it must have between 1 and " + str(kMaxTokens));
  }
  const long long layers = static_cast<long long>(stack.layers.size());
  if (layers > kMaxLayers) {
    return Status::Range("layers", "layers has " + str(layers) + " blocks, above the cap of " + str(kMaxLayers));
  }
  return Status::Ok();
}

Status check_positions(const Stack& stack, int n) {
  if (stack.positions == PositionKind::Rotary && stack.rotary.dims <= 0) {
    return Status::Range("rotary.dims", "rotary.dims is " + str(stack.rotary.dims) +
                                            "; rotary positions need an even number of rotated features above 0");
  }
  if (stack.positions != PositionKind::Rotary && stack.rotary.dims != 0) {
    return Status::Range("rotary.dims", "rotary.dims is " + str(stack.rotary.dims) +
                                            "; the stack's rotary settings need positions 'rotary'");
  }
  if (stack.positions != PositionKind::Learned) {
    return check_absent("positionTable", stack.position_table.present, "positions are not 'learned'");
  }
  const long long d = stack.d_model;
  const long long rows = stack.position_table.present ? static_cast<long long>(stack.position_table.size) / d : 0;
  if (Status s = check_values("positionTable", stack.position_table, rows * d, "maxPositions × dModel"); !s.ok()) {
    return s;
  }
  if (rows * d != static_cast<long long>(stack.position_table.size) || rows < n) {
    return Status::Range("positionTable", "positionTable has " + str(stack.position_table.size) +
                                              " values; expected maxPositions × dModel with at least " + str(n) +
                                              " positions (one per token) of " + str(d));
  }
  return Status::Ok();
}

Status check_embeddings(const Stack& stack, const StackInputs& inputs, int n) {
  const long long d = stack.d_model;
  if (Status s = check_values("tokens", stack.tokens, stack.vocab * d, "vocab × dModel"); !s.ok()) return s;
  if (Status s = check_ids("ids", inputs.ids, n, stack.vocab, "vocab"); !s.ok()) return s;
  if (Status s = check_positions(stack, n); !s.ok()) return s;
  if (stack.token_types < 0 || stack.token_types > kMaxTokens) {
    return Status::Range("tokenTypes",
                         "tokenTypes is " + str(stack.token_types) + "; it must be between 0 and " + str(kMaxTokens));
  }
  if (stack.token_types == 0) {
    if (Status s = check_absent("typeTable", stack.type_table.present, "tokenTypes is 0"); !s.ok()) return s;
    return check_absent("typeIds", inputs.type_ids.present, "tokenTypes is 0");
  }
  if (Status s = check_values("typeTable", stack.type_table, stack.token_types * d, "tokenTypes × dModel"); !s.ok()) {
    return s;
  }
  if (!inputs.type_ids.present) return Status::Ok();
  return check_ids("typeIds", inputs.type_ids, n, stack.token_types, "tokenTypes");
}

Status check_unembedding(const Stack& stack) {
  const long long d = stack.d_model, vocab = stack.vocab;
  if (stack.unembedding != Unembedding::Own) {
    const char* why = "the unembedding is not its own matrix";
    if (Status s = check_absent("unembeddingWeight", stack.unembedding_weight.present, why); !s.ok()) return s;
  } else if (Status s = check_values("unembeddingWeight", stack.unembedding_weight, d * vocab, "dModel × vocab");
             !s.ok()) {
    return s;
  }
  if (!stack.unembedding_bias.present) return Status::Ok();
  if (stack.unembedding == Unembedding::None) {
    return check_absent("unembeddingBias", true, "the stack has no unembedding");
  }
  return check_values("unembeddingBias", stack.unembedding_bias, vocab, "vocab");
}

// The trace keeps every block's buffers and every head's (n, n) matrices: capped as a whole, so that
// a deep stack on a long input is refused rather than run out of memory.
Status check_trace_size(const Stack& stack, int n) {
  long long values = 0;
  for (const Block& block : stack.layers) {
    const long long heads = block.attention.heads > 0 ? block.attention.heads : 1;
    const long long hidden = block.mlp.kind == MlpKind::None ? 0 : block.mlp.hidden;
    values += heads * 4 * n * n + 16LL * n * stack.d_model + 3 * n * hidden;
  }
  if (values <= kMaxStackTraceValues) return Status::Ok();
  return Status::Range("layers", "layers: the trace of " + str(static_cast<long long>(stack.layers.size())) +
                                     " blocks on " + str(n) + " tokens would hold about " + str(values) +
                                     " values, above the cap of " + str(kMaxStackTraceValues));
}

}  // namespace

std::string layer_prefix(int layer) { return "layers[" + std::to_string(layer) + "]."; }

Status prefixed(const std::string& prefix, Status status) {
  if (status.ok()) return status;
  // "wq has 3 values…" becomes "layers[1].attention.wq has 3 values…"; other sentences follow a colon
  const bool names_field = !status.field.empty() && status.message.rfind(status.field, 0) == 0;
  status.message = names_field ? prefix + status.message : prefix.substr(0, prefix.size() - 1) + ": " + status.message;
  status.field = prefix + status.field;
  return status;
}

Config block_config(const Stack& stack, const Block& block, int n) {
  Config config = block.attention;
  config.n = n;
  config.m = 0;
  config.d_model = stack.d_model;
  if (stack.positions == PositionKind::Rotary) config.rotary = stack.rotary;
  return config;
}

Inputs block_inputs(const Block& block, View<float> x, const StackInputs& inputs) {
  Inputs in = block.weights;
  in.x = x;
  in.context = View<float>();
  in.keep = block.attention.mask_mode == MaskMode::Keep ? inputs.keep : View<std::uint8_t>();
  return in;
}

Status validate_stack(const Stack& stack, const StackInputs& inputs) {
  if (Status s = check_sizes(stack, inputs); !s.ok()) return s;
  const int n = static_cast<int>(inputs.ids.size);
  if (Status s = check_trace_size(stack, n); !s.ok()) return s;
  if (Status s = check_embeddings(stack, inputs, n); !s.ok()) return s;
  if (Status s = check_norm("embeddingNorm", stack.embedding_norm, stack.d_model); !s.ok()) return s;
  for (int l = 0; l < static_cast<int>(stack.layers.size()); ++l) {
    if (Status s = check_block(stack, inputs, l, n); !s.ok()) return s;
  }
  if (Status s = check_norm("finalNorm", stack.final_norm, stack.d_model); !s.ok()) return s;
  return check_unembedding(stack);
}

}  // namespace attn
