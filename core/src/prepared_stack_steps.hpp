// The steps of a prepared stack's run (prepared_stack.cpp), shared with its traced run
// (prepared_trace.cpp): the same code, so the two agree bit for bit where they do the same work.
#pragma once

#include <unordered_map>
#include <vector>

#include "attention/prepared_stack.hpp"

namespace attn::stack_steps {

// The vectors prepare_stack may take over (its block_storage), by the address of their data: only
// those exactly one view of the stack starts at (two weights sharing floats are copied, not packed).
class HandedOver {
 public:
  HandedOver(const Stack& stack, const std::vector<std::vector<float>*>& storage);
  // the vector that holds exactly v's floats, or null
  std::vector<float>* find(const View<float>& v) const;

 private:
  std::unordered_map<const float*, std::vector<float>*> vectors_;
};

// c (rows, cols) = a (rows, inner) · b
void apply(const PreparedProduct& b, const float* a, int rows, float* c, ProductScratch* scratch);
void add_bias(const std::vector<float>& bias, int rows, float* c);
// The weights' views for attention on x (prepared_stack.cpp says what they point at).
Inputs attention_inputs(const PreparedBlock& b, View<float> x);
// n (1 … kMaxTokens, the learned table's rows), every id and type id, x finite.
Status check_run(const PreparedStack& s, const StackInputs& inputs, View<float> x, int* n_out);
// ws->stream = the embeddings (token rows or x, + types + positions, then the embedding norm)
void embed(const PreparedStack& s, const StackInputs& inputs, View<float> x, int n, StackWorkspace* ws);
// out = norm(x) over n rows
void norm_rows(const PreparedNorm& norm, const float* x, int n, int d, float* out, StackWorkspace* ws);
// Block l after attention: ws->stream += attention_output, then the norms and the MLP, in place.
Status block_after_attention(const PreparedBlock& b, int l, int n, int d, const float* attention_output,
                             StackWorkspace* ws);

}  // namespace attn::stack_steps
