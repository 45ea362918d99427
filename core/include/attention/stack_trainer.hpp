// Training a transformer stack (transformer.hpp) in the core: the one-layer trainer's optimisers
// (trainer.hpp's OptimizerSettings: SGD with momentum or Adam, weight decay, clipping, a seeded
// batch) on a stack whose weights the trainer owns, with three losses:
//   next-token  the mean over positions first … n−2 of −log softmax(logits[i])[ids[i+1]] (causal LM)
//   classify    −log softmax(logits[query])[target]: a class (an id below the vocabulary) read from
//               the logits of one token
//   attend      −log p[target], p = the query row of the attention weights of one layer's head (or
//               their mean over heads, head −1)
//   regress     the mean over n · d of (output − target_output)², output the stack's last residual
//               stream (after the final norm)
// The gradient of each example comes from stack_backward (the attend loss's from attention_backward
// of its layer, then stack_backward of the blocks below); the batch's is their mean.
//
// Determinism: every block runs with Arithmetic::Portable (the attention's products and softmax, and
// the MLP's products and activations: transformer_portable.cpp, without libm's erf, tanh and exp), the
// norms are plain double loops, and the logits (output · unembedding) are the trainer's own loops, so
// a stack trains to the same bits natively and in both WebAssembly builds, with or without norms and MLPs.
//
// Parameters, in this order (names as a JavaScript API would spell them):
//   tokens (V, d)   positions (max_positions, d) with learned positions
//   layers.l.wq (h, d, d_k)  .wk (h, d, d_k)  .wv (h, d, d_k)  .wo (h·d_k, d)   [init_weights(seed + l)]
//   with an MLP: layers.l.norm1.weight/.bias (d)  .w1 (d, f)  .b1 (f)  .w2 (f, d)  .b2 (d)  .norm2.weight/.bias (d)
//                (RMSNorm: no .bias; SwiGLU: .wGate (d, f)  .wUp (d, f)  .wDown (f, d) in place of w1 … b2)
//   with an MLP, pre-LN: finalNorm.weight/.bias (d)  (post-LN blocks end in their own norm2, as BERT's)
//   unembedding (d, V) unless tied to the tokens
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attention/trainer.hpp"
#include "attention/transformer.hpp"

namespace attn {

enum class StackLossKind { NextToken, Classify, Attend, Regress };

struct StackModel {
  int vocab = 0, d_model = 0, layers = 1, heads = 1;
  int d_k = 0;       // 0: d_model / heads
  bool mlp = false;  // false: attention-only blocks; true: blocks with norms and an MLP (the three settings below)
  Arrangement arrangement = Arrangement::PreNorm;  // with mlp: PreNorm (and a final norm) or PostNorm
  NormKind norm = NormKind::LayerNorm;             // with mlp: LayerNorm or RmsNorm
  bool swiglu = false;                             // with mlp: SwiGLU in place of the plain MLP
  Activation activation = Activation::GeluTanh;    // with mlp, not SwiGLU: GeluTanh, GeluErf or Relu
  int mlp_hidden = 0;                              // 0: 4 · d_model
  PositionKind positions = PositionKind::None;     // None, Learned or Rotary (every rotated: dims = d_k)
  int max_positions = 0;                           // Learned: the table's rows (the longest example)
  bool causal = true;                              // the causal mask in every block; false: none
  bool tied = false;                               // logits from the token table; false: an own unembedding
};

struct StackLoss {
  StackLossKind kind = StackLossKind::NextToken;
  int layer = 0, head = -1;  // attend: the layer and head (−1: the mean over heads)
};

struct StackExample {
  std::vector<int> ids;              // n token ids
  int first = 0;                     // next-token: the first position scored (it predicts ids[first + 1])
  int query = 0;                     // classify: the token read out; attend: the query row
  int target = 0;                    // classify: the class; attend: the key it should look at
  std::vector<float> target_output;  // regress: (n, d_model)
};

struct StackTrainerSpec {
  StackModel model;
  StackLoss loss;
  OptimizerSettings optimizer;
  std::uint64_t seed = 0;          // the initial weights and the batches
  std::vector<std::string> train;  // the parameters that learn; empty: all of them
};

// A head switched off (its rows of layers.L.wo read as zero: the head adds nothing to the stream).
struct StackHead {
  int layer = 0, head = 0;
};

struct StackEvaluation {
  double loss = 0;
  double accuracy = 0;  // the share of scored predictions whose argmax is the target; regress: NaN
};

class StackTrainer {
 public:
  static Status create(const StackTrainerSpec& spec, std::unique_ptr<StackTrainer>* trainer);
  ~StackTrainer();

  Status set_data(std::vector<StackExample> examples);  // errors name "examples[i].field"
  // `steps` optimiser steps; a step whose loss or weights would not be finite is undone and refused.
  Status step(int steps, StepReport* report);
  // With `ablate`, those heads are switched off for this evaluation only (errors name "ablate[i]").
  Status evaluate(const std::vector<StackExample>& examples, StackEvaluation* evaluation,
                  const std::vector<StackHead>& ablate = {});
  // The mean loss over the examples and its gradient (one per parameter, in parameter_names' order),
  // at the current weights: what a step averages over its batch.
  Status loss_and_gradients(const std::vector<StackExample>& examples, double* loss,
                            std::vector<std::vector<float>>* gradients);
  // stack_forward's trace of one example at the current weights.
  Status trace(const StackExample& example, StackTrace* trace, const std::vector<StackHead>& ablate = {});

  std::vector<std::string> parameter_names() const;
  const std::vector<float>* parameter(const std::string& name) const;  // nullptr: no such parameter
  // Replaces a parameter's values (same size, finite) and resets the optimiser's state.
  Status set_parameter(const std::string& name, View<float> values);
  int steps_taken() const;

  struct State;

 private:
  explicit StackTrainer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace attn
