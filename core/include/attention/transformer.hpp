// Transformer blocks and stacks of them, built from layers.hpp's layers and attention_forward /
// attention_backward, in the way of llm.c's train_gpt2.c: a block composes the layer calls in the
// order the papers draw them, a stack is a loop over blocks between an embedding and an unembedding,
// and the trace is that loop's buffers, kept (the backward pass reads them).
//
// Letters: n tokens, d features per token (d_model), f hidden features of a block's MLP, V the
// vocabulary, L blocks. Every matrix is row-major; weights are stored (in, out), as layers.hpp's:
//   tokens: (V, d)   positions: (max_positions, d)   token types: (types, d)
//   own unembedding: (d, V), its bias (V)   (Hugging Face's nn.Linear keeps (out, in): transpose it)
// A block's attention takes attention.hpp's Config and Inputs; the stack fills in n, m = 0 (self-
// attention) and d_model, and the attention's output must be d_model wide (wo, or h · d_v = d).
//
// Nothing throws. Every weight, id and size is checked before any work; a refusal is a Status whose
// field is spelt as the JavaScript API's request ("layers[1].norm2.weight", "ids"), and a failed call
// leaves the trace untouched.
#pragma once

#include <cstdint>
#include <vector>

#include "attention/attention.hpp"
#include "attention/layers.hpp"

namespace attn {

constexpr int kMaxLayers = 1024;  // a stack's blocks
constexpr int kMaxVocab = 1 << 20;
// The token table (vocab × d_model values, and the own unembedding's d_model × vocab): 2^27 floats,
// 512 MiB, above kMaxMatrixValues so that GPT-2 small's 50,257 × 768 = 38.6 M table fits. The real
// bound is WebAssembly memory (2 GiB in these builds): a prepared GPT-2 small keeps 124 M floats, and
// preparing it from JavaScript holds the request's copy beside them for the call.
constexpr long long kMaxTableValues = 1LL << 27;
// A stack's trace as a whole (every block's buffers and heads' matrices): 2^26 floats, 256 MiB.
constexpr long long kMaxStackTraceValues = 1LL << 26;

enum class NormKind { None, LayerNorm, RmsNorm };

// LayerNorm (weight, bias optional: absent is zero) or RMSNorm (weight, no bias); None passes the
// stream through unchanged.
struct Norm {
  NormKind kind = NormKind::None;
  float eps = 1e-5f;
  View<float> weight;  // (d)
  View<float> bias;    // (d), LayerNorm only
};

// Where a block's norms stand:
//   PreNorm (GPT-2, Llama)   a = x + attn(norm1(x))        out = a + mlp(norm2(a))
//   PostNorm (BERT)          a = norm1(x + attn(x))        out = norm2(a + mlp(a))
//   AttentionOnly            out = x + attn(x)             (no norm, no MLP: the circuit lessons)
enum class Arrangement { PreNorm, PostNorm, AttentionOnly };

enum class MlpKind { None, Plain, SwiGlu };

// Plain: act(x · w1 + b1) · w2 + b2 (biases optional); SwiGlu: (silu(x · w_gate) ⊙ (x · w_up)) · w_down.
struct Mlp {
  MlpKind kind = MlpKind::None;
  Activation activation = Activation::GeluTanh;  // Plain only
  int hidden = 0;                                // f
  View<float> w1, b1, w2, b2;                    // (d, f), (f), (f, d), (d)
  View<float> w_gate, w_up, w_down;              // (d, f), (d, f), (f, d)
};

struct Block {
  Arrangement arrangement = Arrangement::PreNorm;
  Config attention;  // n, m and d_model are the stack's; positions must be None (the stack adds them)
  Inputs weights;    // wq … bo; x, context and keep are the stack's
  Norm norm1, norm2;
  Mlp mlp;
};

enum class PositionKind { None, Learned, Sinusoidal, Rotary };
enum class Unembedding { None, Tied, Own };

struct Stack {
  int vocab = 0, d_model = 0;
  View<float> tokens;  // (V, d)
  PositionKind positions = PositionKind::None;
  View<float> position_table;  // (max_positions, d), Learned only; n ≤ max_positions
  Rotary rotary;               // Rotary only: set on every block's attention (dims > 0), in place of its own
  int token_types = 0;         // 0: none
  View<float> type_table;      // (token_types, d)
  Norm embedding_norm;         // BERT's embeddings.LayerNorm; None elsewhere
  std::vector<Block> layers;
  Norm final_norm;  // GPT-2's ln_f, Llama's norm; None for BERT
  Unembedding unembedding = Unembedding::None;
  View<float> unembedding_weight;  // (d, V), Own only
  View<float> unembedding_bias;    // (V), optional
};

struct StackInputs {
  View<std::int32_t> ids;       // (n) token ids, each in [0, V)
  View<std::int32_t> type_ids;  // (n) each in [0, token_types); absent: all 0
  View<std::uint8_t> keep;      // (n, n) for blocks whose mask is MaskMode::Keep
};

// A norm's output and the row statistics its backward reads (mean: LayerNorm only).
struct NormTrace {
  std::vector<float> out;         // (n, d)
  std::vector<float> mean, rstd;  // (n)
};

struct BlockTrace {
  std::vector<float> input;       // (n, d) the residual stream into the block
  NormTrace norm1;                // PreNorm: norm1(input), the attention's input; PostNorm: norm1(attended)
  Result attention;               // with its trace, per head
  std::vector<float> attended;    // (n, d) input + the attention's output
  std::vector<float> middle;      // (n, d) the stream after the attention sub-layer: attended, or PostNorm's norm1
  NormTrace norm2;                // PreNorm: norm2(middle), the MLP's input; PostNorm: norm2(summed) = output
  std::vector<float> mlp_pre;     // (n, f) x · w1 + b1, or SwiGLU's x · w_gate
  std::vector<float> mlp_up;      // (n, f) SwiGLU's x · w_up
  std::vector<float> mlp_hidden;  // (n, f) act(mlp_pre), or silu(mlp_pre) ⊙ mlp_up
  std::vector<float> mlp_out;     // (n, d)
  std::vector<float> summed;      // (n, d) middle + mlp_out
  std::vector<float> output;      // (n, d) the residual stream out of the block
};

struct StackTrace {
  int n = 0;
  std::vector<float> embedded;     // (n, d) tokens + positions + token types
  NormTrace embedding_norm;        // its norm, when there is one
  std::vector<float> embeddings;   // (n, d) the stream into block 0 (Hugging Face's hidden_states[0])
  std::vector<BlockTrace> layers;  // L
  NormTrace final_norm;
  std::vector<float> output;  // (n, d) after the final norm (hidden_states[L])
  std::vector<float> logits;  // (n, V) with an unembedding
};

// Every check stack_forward makes before any work.
Status validate_stack(const Stack& stack, const StackInputs& inputs);

// The forward pass: embeddings, the L blocks, the final norm, the logits. Refused, naming the block,
// when an activation overflows float32.
Status stack_forward(const Stack& stack, const StackInputs& inputs, StackTrace* trace);

// ---- Backward (learning builds) ----------------------------------------------------------------------

struct NormGradients {
  std::vector<float> weight, bias;
};
struct BlockGradients {
  Gradients attention;  // the weights present; x and context stay empty
  NormGradients norm1, norm2;
  std::vector<float> w1, b1, w2, b2, w_gate, w_up, w_down;
};
struct StackGradients {
  std::vector<float> tokens, position_table, type_table;
  NormGradients embedding_norm;
  std::vector<BlockGradients> layers;
  NormGradients final_norm;
  std::vector<float> unembedding_weight, unembedding_bias;
};

// Gradients sized like the stack's weights present, zeroed, ready for stack_backward.
StackGradients zero_stack_gradients(const Stack& stack);

// The gradient of Σ d_logits ⊙ logits + Σ d_output ⊙ output with respect to every weight, added with
// += into `gradients` (from zero_stack_gradients). `trace` is stack_forward's for the same stack and
// inputs. d_logits: (n, V), needs an unembedding; d_output: (n, d); either may be absent, not both.
Status stack_backward(const Stack& stack, const StackInputs& inputs, const StackTrace& trace, View<float> d_logits,
                      View<float> d_output, StackGradients* gradients);

}  // namespace attn
