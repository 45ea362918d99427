// The trainer's state, shared by trainer.cpp (set-up, steps, the optimisers) and trainer_losses.cpp
// (the examples' checks and each loss with its gradient). Private to the core.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/trainer.hpp"
#include "splitmix64.hpp"
#include "trainer_layer.hpp"

namespace attn {

struct Parameter {
  std::string name;
  std::vector<float> value, gradient, moment1, moment2;  // moment1: SGD's velocity or Adam's m
  bool trained = false;
};

// A trainer's parameter called `name`, or nullptr; and every parameter's name, in order. Both trainers
// keep their parameters in such a list.
inline Parameter* find_parameter(std::vector<Parameter>& parameters, const std::string& name) {
  for (Parameter& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}
inline std::vector<std::string> parameter_names_of(const std::vector<Parameter>& parameters) {
  std::vector<std::string> names;
  for (const Parameter& p : parameters) names.push_back(p.name);
  return names;
}

// The optimiser settings' checks, each naming its field ("optimizer.beta1").
Status check_optimizer(const OptimizerSettings& o);

// One SGD or Adam update of the trained parameters from their gradients (scaled by clip_scale), as
// the one-layer trainer's step makes it; the stack trainer (stack_trainer.cpp) shares it.
void optimizer_update(const OptimizerSettings& o, double clip_scale, double* beta1_power, double* beta2_power,
                      std::vector<Parameter>* parameters);

// The optimiser's state before an update (every parameter's value and moments, Adam's beta powers),
// to return to when the update's weights are not usable. Both trainers keep one.
struct OptimizerSnapshot {
  std::vector<std::vector<float>> values, moment1, moment2;
  double beta1_power = 1, beta2_power = 1;

  void save(const std::vector<Parameter>& parameters, double beta1, double beta2) {
    values.resize(parameters.size());
    moment1.resize(parameters.size());
    moment2.resize(parameters.size());
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      values[i] = parameters[i].value;
      moment1[i] = parameters[i].moment1;
      moment2[i] = parameters[i].moment2;
    }
    beta1_power = beta1;
    beta2_power = beta2;
  }
  void restore(std::vector<Parameter>* parameters, double* beta1, double* beta2) const {
    for (std::size_t i = 0; i < parameters->size(); ++i) {
      (*parameters)[i].value = values[i];
      (*parameters)[i].moment1 = moment1[i];
      (*parameters)[i].moment2 = moment2[i];
    }
    *beta1 = beta1_power;
    *beta2 = beta2_power;
  }
};

// The examples of step `step`: all `count` of them, or `batch_size` drawn without replacement by a
// partial Fisher–Yates shuffle seeded by (seed, step), so a step's batch does not depend on earlier
// calls. Both trainers draw their batches so.
inline std::vector<int> batch_of_step(int count, int batch_size, std::uint64_t seed, int step) {
  std::vector<int> order(count);
  for (int i = 0; i < count; ++i) order[i] = i;
  if (batch_size == 0 || batch_size >= count) return order;
  std::uint64_t rng = seed ^ (0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(step) + 1));
  for (int i = 0; i < batch_size; ++i) {
    const int j = i + static_cast<int>(splitmix64(&rng) % static_cast<std::uint64_t>(count - i));
    std::swap(order[i], order[j]);
  }
  order.resize(batch_size);
  return order;
}

// The attention layer's parameters, in the order of Inputs and Gradients.
inline const char* const kAttentionParameters[] = {"wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo"};

struct Trainer::State {
  TrainerSpec spec;
  Shape shape{};  // d_model, heads, d_k, d_v, d_out (n and m vary by example)
  std::vector<Parameter> parameters;
  std::vector<Example> examples;
  int steps = 0;
  double beta1_power = 1, beta2_power = 1;  // beta^t for Adam's bias correction, by repeated products

  Parameter* find(const std::string& name) { return find_parameter(parameters, name); }
  const Parameter* find(const std::string& name) const { return const_cast<State*>(this)->find(name); }

  // The attention layer over a chunk of examples at once, and its buffers, reused from step to step.
  BatchedLayer layer;
  std::vector<float> dx;  // the chunk's rows' gradient, when the embedding table learns

  Status check_examples(const std::vector<Example>& examples) const;
  // The examples list[indices], through the layer a chunk at a time: each one's loss added to
  // *loss_sum in turn and its right answer counted in *right; with gradients, each one's gradient
  // times `weight` added to the parameters'.
  void run_examples(const std::vector<Example>& list, const std::vector<int>& indices, float weight, bool gradients,
                    double* loss_sum, int* right);
  // One example's loss from the layer's output and weights (it is `sentence` of the chunk); with
  // gradients, the layer's d_output and d_weights for it, and the read-out's gradient.
  void example_loss(const Example& e, int sentence, float weight, bool gradients, double* loss, bool* correct);
  void batch_loss(const std::vector<int>& batch, double* loss);
  std::vector<int> batch_for_step(int step) const;
  double gradient_norm() const;
  void update(double clip_scale);

  // The loss at the current weights on the next step's batch, with its gradients in the parameters'
  // `gradient`: worked out at the end of a step call to judge its last update, and used by the next.
  // Anything that changes the weights or the examples clears it.
  struct Ahead {
    bool valid = false;
    double loss = 0;
  } ahead;

  // The state before the last update, to return to when the weights it produced are not usable.
  OptimizerSnapshot before;
  bool have_before = false;

  void save() {
    before.save(parameters, beta1_power, beta2_power);
    have_before = true;
  }
  void restore() {
    before.restore(&parameters, &beta1_power, &beta2_power);
    have_before = false;
    ahead.valid = false;
  }
};

}  // namespace attn
