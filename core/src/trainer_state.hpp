// The trainer's state, shared by trainer.cpp (set-up, steps, the optimisers) and trainer_losses.cpp
// (the examples' checks and each loss with its gradient). Private to the core.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/trainer.hpp"

namespace attn {

struct Parameter {
  std::string name;
  std::vector<float> value, gradient, moment1, moment2;  // moment1: SGD's velocity or Adam's m
  bool trained = false;
};

// The attention layer's parameters, in the order of Inputs and Gradients.
inline const char* const kAttentionParameters[] = {"wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo"};

struct Trainer::State {
  TrainerSpec spec;
  Shape shape{};  // d_model, heads, d_k, d_v, d_out (n and m vary by example)
  std::vector<Parameter> parameters;
  std::vector<Example> examples;
  int steps = 0;
  double beta1_power = 1, beta2_power = 1;  // beta^t for Adam's bias correction, by repeated products

  Parameter* find(const std::string& name) {
    for (Parameter& p : parameters)
      if (p.name == name) return &p;
    return nullptr;
  }
  const Parameter* find(const std::string& name) const { return const_cast<State*>(this)->find(name); }

  Config config_for(int n) const {
    Config c;
    c.n = n;
    c.d_model = shape.d_model;
    c.heads = shape.heads;
    c.d_k = shape.d_k;
    c.d_v = shape.d_v;
    c.scale_mode = spec.model.scale_mode;
    c.scale_divisor = spec.model.scale_divisor;
    c.mask_mode = spec.model.mask_mode;
    c.positions = spec.model.positions;
    c.arithmetic = Arithmetic::Portable;
    return c;
  }

  Inputs inputs_for(View<float> x) const {
    Inputs in;
    in.x = x;
    View<float>* views[] = {&in.wq, &in.wk, &in.wv, &in.wo, &in.bq, &in.bk, &in.bv, &in.bo};
    for (int i = 0; i < 8; ++i) {
      if (const Parameter* p = find(kAttentionParameters[i])) *views[i] = p->value;
    }
    return in;
  }

  // The example's x: its own, or its tokens' rows of the embedding table (gathered into `rows`).
  View<float> x_of(const Example& e, std::vector<float>* rows) const {
    if (spec.model.vocabulary == 0) return e.x;
    const std::vector<float>& table = find("embeddings")->value;
    const int d = shape.d_model;
    rows->resize(static_cast<std::size_t>(e.n) * d);
    for (int i = 0; i < e.n; ++i) {
      std::copy_n(table.begin() + static_cast<std::size_t>(e.tokens[i]) * d, d, rows->begin() + static_cast<std::size_t>(i) * d);
    }
    return *rows;
  }

  // Buffers reused from example to example.
  std::vector<float> gathered_x, d_output, d_weights;

  Status check_examples(const std::vector<Example>& examples) const;
  // One example's loss; with gradients, its gradient scaled by `weight` added to the parameters'.
  Status example_loss(const Example& e, float weight, bool gradients, double* loss, bool* correct);
  Status batch_loss(const std::vector<int>& batch, double* loss);
  std::vector<int> batch_for_step(int step) const;
  double gradient_norm() const;
  void update(double clip_scale);

  // The state before the last update, to return to when the weights it produced are not usable.
  struct Snapshot {
    std::vector<std::vector<float>> values, moment1, moment2;
    double beta1_power = 1, beta2_power = 1;
  } before;
  bool have_before = false;

  void save() {
    before.values.resize(parameters.size());
    before.moment1.resize(parameters.size());
    before.moment2.resize(parameters.size());
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      before.values[i] = parameters[i].value;
      before.moment1[i] = parameters[i].moment1;
      before.moment2[i] = parameters[i].moment2;
    }
    before.beta1_power = beta1_power;
    before.beta2_power = beta2_power;
    have_before = true;
  }
  void restore() {
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      parameters[i].value = before.values[i];
      parameters[i].moment1 = before.moment1[i];
      parameters[i].moment2 = before.moment2[i];
    }
    beta1_power = before.beta1_power;
    beta2_power = before.beta2_power;
    have_before = false;
  }
};


}  // namespace attn
