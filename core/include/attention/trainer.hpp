// Training one attention layer in the core: a loss on where attention looks (attend), on a linear
// read-out of one token's output (classify), or on the outputs themselves (regress); SGD with
// momentum or Adam; seeded and bit-for-bit deterministic on every build (Arithmetic::Portable).
//
// Letters as in attention.hpp; B examples per step, C classes, V rows of the embedding table.
// Parameters (names as in the JavaScript API):
//   wq, wk: (h, d_model, d_k)  wv: (h, d_model, d_v)  wo: (h·d_v, d_model)  (wo only with an output projection)
//   bq, bk: (h, d_k)  bv: (h, d_v)  bo: (d_model)                         (only with biases)
//   embeddings: (V, d_model)                                               (only with a vocabulary)
//   readout: (d_out, C)  readoutBias: (C)                                  (only for classify)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.hpp"

namespace attn {

enum class LossKind { Attend, Classify, Regress };
enum class OptimizerKind { Sgd, Adam };

struct TrainerModel {
  int d_model = 0, heads = 1, d_k = 0, d_v = 0;  // 0: the defaults of attention_forward
  bool output_projection = true;                 // wo
  bool biases = false;                           // bq, bk, bv (and bo with wo)
  PositionMode positions = PositionMode::None;
  ScaleMode scale_mode = ScaleMode::SqrtDk;
  double scale_divisor = 1;
  MaskMode mask_mode = MaskMode::None;  // None or Causal; self-attention over each example
  int vocabulary = 0;                   // V > 0: an embedding table, and examples give token ids
};

struct TrainerLoss {
  LossKind kind = LossKind::Attend;
  // attend: -log p[target], p = the query row's weights in one head, or averaged over heads (-1)
  int head = -1;
  // classify: -log softmax(output[query] · readout + readoutBias)[target]
  int classes = 0;
  // regress: mean over n·d_out of (output − target_output)²
};

struct OptimizerSettings {
  OptimizerKind kind = OptimizerKind::Adam;
  double learning_rate = 0.01;
  double momentum = 0;                                // SGD: velocity = momentum·velocity + g; w −= lr·velocity
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // Adam (Kingma and Ba), bias-corrected
  double weight_decay = 0;                            // decoupled: w −= lr·weight_decay·w, before the update
  double clip_norm = 0;                               // > 0: gradients scaled so that their global norm ≤ clip_norm
  int batch_size = 0;                                 // 0: every example each step; else a seeded sample
};

struct TrainerSpec {
  TrainerModel model;
  TrainerLoss loss;
  OptimizerSettings optimizer;
  std::uint64_t seed = 0;          // initial weights (init_weights) and batch samples
  std::vector<std::string> train;  // names of the parameters that learn; empty: all but embeddings
};

// Example::head when the example takes the head its loss names.
constexpr int kLossHead = -2;

struct Example {
  int n = 0;
  std::vector<float> x;              // (n, d_model); without a vocabulary
  std::vector<int> tokens;           // n ids into the embedding table; with a vocabulary
  int query = 0;                     // attend: the query row; classify: the token read out
  int target = 0;                    // attend: the key it should look at; classify: the class
  int head = kLossHead;              // attend: this example's head (0…, or -1 for the mean); kLossHead: the loss's
  std::vector<float> target_output;  // regress: (n, d_out)
};

struct StepReport {
  std::vector<double> losses;          // one per step taken: the batch loss before its update
  std::vector<double> gradient_norms;  // the global norm of the trained parameters' gradients, before clipping
};

struct Evaluation {
  double loss = 0;
  double accuracy = 0;  // attend and classify: the share of examples whose argmax is the target; regress: NaN
};

class Trainer {
 public:
  static Status create(const TrainerSpec& spec, std::unique_ptr<Trainer>* trainer);
  ~Trainer();

  // The examples every step draws from (copied). Errors name "examples[i].field".
  Status set_data(std::vector<Example> examples);
  // `steps` optimiser steps. A step whose loss or weights would not be finite is refused: the
  // weights go back to the last step whose loss was finite, the report keeps the steps before, and
  // the Status says which step failed ("learning rate too large: the loss became ∞ at step 31").
  Status step(int steps, StepReport* report);
  Status evaluate(const std::vector<Example>& examples, Evaluation* evaluation);

  std::vector<std::string> parameter_names() const;
  // nullptr for a name the model does not have.
  const std::vector<float>* parameter(const std::string& name) const;
  // Replaces a parameter's values (same size, finite) and resets the optimiser's state.
  Status set_parameter(const std::string& name, View<float> values);
  // Several at once, all or none: every one is checked before any changes.
  Status set_parameters(const std::vector<std::pair<std::string, View<float>>>& values);
  int steps_taken() const;

  struct State;

 private:
  explicit Trainer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace attn
