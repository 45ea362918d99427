// A transformer stack run many times (a real model, a benchmark): prepare_stack checks every weight
// once, as stack_forward would on a one-token input, and copies the weights into buffers of its own
// in the layout the products read (the gemm's panels in builds with the SIMD gemm, as is
// elsewhere); prepared_stack_forward then checks only the ids (or x) and runs the forward pass
// without a trace: one stream buffer, one norm buffer, one MLP buffer, reused block after block.
//
// The same arithmetic as stack_forward where both use the same kernels (the attention is
// attention.cpp's forward pass on its prepared path; norms and activations are layers.hpp's), but
// the MLP's and the unembedding's products run on the SIMD gemm where stack_forward runs Eigen, so
// the two agree to float32 rounding (a few ulps per product, not bit for bit); tests/core/
// test_transformer.cpp states the bound.
//
// Memory: every weight once. The tied unembedding keeps the token table only as its panels (tokensᵀ
// packed), and an embedding row is read back out of them; in builds without the SIMD gemm the
// weights are kept as given (Eigen reads them in place).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "attention/attention.hpp"
#include "attention/transformer.hpp"

namespace attn {

// A weight used as b in c = a · b: (inner, cols), packed into panels or kept row-major.
struct PreparedProduct {
  int inner = 0, cols = 0;
  bool packed = false;
  std::vector<float> values;
};

struct PreparedNorm {
  NormKind kind = NormKind::None;
  float eps = 1e-5f;
  std::vector<float> weight, bias;  // bias empty: none
};

struct PreparedBlock {
  Arrangement arrangement = Arrangement::PreNorm;
  Config attention;               // with the stack's d_model and rotary settings
  Shape shape{};                  // prepare_model's
  PackedWeights packed;           // the attention's weights as panels (SIMD build)
  std::vector<float> weights[8];  // wq wk wv wo (as given, builds without the SIMD gemm) bq bk bv bo
  bool present[8] = {};           // which of them the block has
  PreparedNorm norm1, norm2;
  MlpKind mlp = MlpKind::None;
  Activation activation = Activation::GeluTanh;
  int hidden = 0;
  PreparedProduct w1, w2, w_gate, w_up, w_down;
  std::vector<float> b1, b2;  // empty: none
};

struct PreparedStack {
  int vocab = 0, d_model = 0;
  PositionKind positions = PositionKind::None;
  int max_positions = 0;  // rows of the learned position table
  std::vector<float> position_table, type_table;
  int token_types = 0;
  std::vector<float> tokens;  // (V, d); empty when the tied unembedding's panels hold the table
  PreparedNorm embedding_norm, final_norm;
  std::vector<PreparedBlock> layers;
  Unembedding unembedding = Unembedding::None;
  PreparedProduct unembedding_weight;  // (d, V): the own weight, or tokensᵀ when tied
  std::vector<float> unembedding_bias;
};

struct PreparedRunOptions {
  bool logits = true;          // compute the logits (a stack with an unembedding)
  bool hidden_states = false;  // keep the stream into block 0 and out of every block (L + 1 arrays)
  // A padding mask: (n, n) flags, key j visible to query i when keep[i·n + j] != 0, for every block's
  // attention in place of its own mask (the caller folds in causality). Absent: each block's mask.
  View<std::uint8_t> keep;
};

struct PreparedStackResult {
  int n = 0;
  std::vector<float> output;                      // (n, d) after the final norm
  std::vector<float> logits;                      // (n, V) when asked and the stack has an unembedding
  std::vector<std::vector<float>> hidden_states;  // L + 1 of (n, d) when asked (Hugging Face's, bar the last)
};

// The buffers a run works in, kept between runs: once a size has been seen, a run allocates nothing
// but its result.
struct StackWorkspace {
  Workspace attention;
  Result attention_result;
  ProductScratch products;
  std::vector<float> stream, normed, pre, up, sub, mean, rstd, zeros;
};

// Checks the stack (every check of validate_stack that does not depend on n) and copies its weights
// into `prepared`. Refused, naming the field, when a block's mask is a keep-matrix (it depends on n).
// On a refusal `prepared` is left as it was. `layer_done(l)`, when given, is called once block l's
// weights are copied: from then on prepare_stack reads none of them, so their owner may free them (a
// model handed in tensor by tensor then never holds two full copies of its blocks).
// `token_storage`, when given, is the vector that holds stack.tokens (its data and size): prepare_stack
// then takes it over (its value afterwards is unspecified) in place of copying the table, and packs a
// tied unembedding's panels in it; staged with capacity for packed_size(d_model, vocab) floats, the
// table is never held twice.
// `block_storage`, when given, lists vectors that may hold the blocks' weights: a block's product
// weight (attention's wq … wo, the MLP's matrices) whose view is exactly one of them (its data and
// size), and the only view of the stack on those floats, is taken over likewise (its value afterwards
// is unspecified; on a refusal too), its panels made in it in place where they take exactly its
// floats (every width a multiple of 8), moved as it is where the build keeps weights unpacked. A
// model's blocks are then never held twice, not even the one being prepared.
Status prepare_stack(const Stack& stack, PreparedStack* prepared, const std::function<void(int)>& layer_done = {},
                     std::vector<float>* token_storage = nullptr,
                     const std::vector<std::vector<float>*>& block_storage = {});

// The floats a token table of vocab × d_model needs room for so that prepare_stack packs a tied
// unembedding in place (its last panel is padded to whole panels): at least vocab × d_model.
std::size_t token_table_room(int vocab, int d_model);

// The forward pass on ids (inputs.ids, inputs.type_ids; inputs.keep is not taken), or, with x
// present, on x (n, d) in place of the token rows (Hugging Face's inputs_embeds: positions and token
// types are still added). Checks n (1 … kMaxTokens, and the learned table's rows), every id and
// type id, x finite; refuses, naming the block, an activation that overflows float32.
Status prepared_stack_forward(const PreparedStack& stack, const StackInputs& inputs, View<float> x,
                              const PreparedRunOptions& options, PreparedStackResult* result,
                              StackWorkspace* workspace);

}  // namespace attn
