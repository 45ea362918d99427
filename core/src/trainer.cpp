// The trainer: per step, the batch's losses and gradient (trainer_losses.cpp, through the layer of
// trainer_layer.cpp: all the batch's sentences at once, with Arithmetic::Portable, so every build
// computes the same bits), then one SGD or Adam update of the parameters that learn; a step that
// diverges is undone.
#include "attention/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "splitmix64.hpp"
#include "trainer_state.hpp"
#include "validate.hpp"

namespace attn {

Status check_optimizer(const OptimizerSettings& o) {
  struct Check {
    const char* field;
    double value;
    bool ok;
    const char* rule;
  };
  const Check checks[] = {
      {"optimizer.learningRate", o.learning_rate, std::isfinite(o.learning_rate) && o.learning_rate > 0,
       "a number above 0"},
      {"optimizer.momentum", o.momentum, o.momentum >= 0 && o.momentum < 1, "from 0 up to (not including) 1"},
      {"optimizer.beta1", o.beta1, o.beta1 >= 0 && o.beta1 < 1, "from 0 up to (not including) 1"},
      {"optimizer.beta2", o.beta2, o.beta2 >= 0 && o.beta2 < 1, "from 0 up to (not including) 1"},
      {"optimizer.epsilon", o.epsilon, std::isfinite(o.epsilon) && o.epsilon > 0, "a number above 0"},
      {"optimizer.weightDecay", o.weight_decay, std::isfinite(o.weight_decay) && o.weight_decay >= 0,
       "a number from 0"},
      {"optimizer.clipNorm", o.clip_norm, std::isfinite(o.clip_norm) && o.clip_norm >= 0,
       "a number from 0 (0: no clipping)"},
      {"optimizer.batchSize", static_cast<double>(o.batch_size), o.batch_size >= 0,
       "a whole number from 0 (0: every example)"}};
  for (const Check& c : checks) {
    if (!c.ok)
      return Status::Range(c.field, std::string(c.field) + " must be " + c.rule + ", got " + format_number(c.value));
  }
  return Status::Ok();
}

namespace {

std::string str(long long value) { return std::to_string(value); }

bool finite(const std::vector<float>& values) { return all_finite(values.data(), values.size()); }

std::string loss_text(double loss) { return std::isnan(loss) ? "NaN" : "∞"; }

// The model's modes and vocabulary (its sizes are validate_model_sizes').
Status check_model(const TrainerModel& model) {
  if (model.scale_mode != ScaleMode::SqrtDk && model.scale_mode != ScaleMode::None &&
      model.scale_mode != ScaleMode::Divisor) {
    return Status::Range("scale", "scale must be 'sqrt_dk', 'none' or a number");
  }
  if (model.positions != PositionMode::None && model.positions != PositionMode::Sinusoidal) {
    return Status::Range("positions", "positions must be 'none' or 'sinusoidal'");
  }
  if (model.mask_mode != MaskMode::None && model.mask_mode != MaskMode::Causal) {
    return Status::Range("mask", "a trainer's mask is 'none' or 'causal'; a keep-mask belongs to one sentence");
  }
  if (model.scale_mode == ScaleMode::Divisor && !(std::isfinite(model.scale_divisor) && model.scale_divisor > 0)) {
    return Status::Range("scale", "scale must be 'sqrt_dk', 'none' or a finite number above 0, got " +
                                      format_number(model.scale_divisor));
  }
  if (model.vocabulary < 0 || model.vocabulary > kMaxTokens * 64) {
    return Status::Range("vocabulary",
                         "vocabulary must be from 0 to " + str(kMaxTokens * 64) + ", got " + str(model.vocabulary));
  }
  return Status::Ok();
}

Status check_loss_and_optimizer(const TrainerSpec& spec) {
  const TrainerModel& model = spec.model;
  const TrainerLoss& loss = spec.loss;
  if (loss.kind == LossKind::Attend && (loss.head < -1 || loss.head >= model.heads)) {
    return Status::Range("loss.head", "loss.head must be 'mean' or a head from 0 to " + str(model.heads - 1) +
                                          ", got " + str(loss.head));
  }
  if (loss.kind == LossKind::Classify && (loss.classes < 2 || loss.classes > kMaxWidth)) {
    return Status::Range("loss.classes",
                         "loss.classes must be from 2 to " + str(kMaxWidth) + ", got " + str(loss.classes));
  }
  return check_optimizer(spec.optimizer);
}

// The parameters, in a fixed order; weights from init_weights(seed), biases zero, the embedding
// table and the read-out from the same seed's continuation.
Status add_parameters(const TrainerSpec& spec, Trainer::State* state) {
  const TrainerModel& model = spec.model;
  const TrainerLoss& loss = spec.loss;
  const Shape& shape = state->shape;
  const int d_k = shape.d_k, d_v = shape.d_v;
  Weights initial;
  if (Status s = init_weights(model.d_model, model.heads, d_k, d_v, spec.seed, &initial); !s.ok()) return s;
  auto add = [&](const char* name, std::vector<float> value) {
    Parameter p;
    p.name = name;
    p.value = std::move(value);
    state->parameters.push_back(std::move(p));
  };
  add("wq", std::move(initial.wq));
  add("wk", std::move(initial.wk));
  add("wv", std::move(initial.wv));
  if (model.output_projection) add("wo", std::move(initial.wo));
  if (model.biases) {
    add("bq", std::vector<float>(static_cast<std::size_t>(model.heads) * d_k));
    add("bk", std::vector<float>(static_cast<std::size_t>(model.heads) * d_k));
    add("bv", std::vector<float>(static_cast<std::size_t>(model.heads) * d_v));
    if (model.output_projection) add("bo", std::vector<float>(model.d_model));
  }
  std::uint64_t rng = spec.seed ^ 0x5eed7a1b1e5ull;
  if (model.vocabulary > 0) {
    std::vector<float> table(static_cast<std::size_t>(model.vocabulary) * model.d_model);
    fill_uniform(&rng, 1.0, &table);
    add("embeddings", std::move(table));
  }
  if (loss.kind == LossKind::Classify) {
    std::vector<float> readout(static_cast<std::size_t>(shape.d_out) * loss.classes);
    fill_uniform(&rng, std::sqrt(6.0 / (shape.d_out + loss.classes)), &readout);
    add("readout", std::move(readout));
    add("readoutBias", std::vector<float>(loss.classes));
  }
  return Status::Ok();
}

// Which parameters learn: those named in spec.train, else all but the embeddings; each gets its
// gradient and the optimizer's moments.
Status mark_trained(const TrainerSpec& spec, Trainer::State* state) {
  for (const std::string& name : spec.train) {
    Parameter* p = state->find(name);
    if (p == nullptr) {
      std::string known;
      for (const Parameter& q : state->parameters) known += (known.empty() ? "" : ", ") + q.name;
      return Status::Range("train",
                           "train names '" + name + "', which this model does not have (it has " + known + ")");
    }
    p->trained = true;
  }
  if (spec.train.empty()) {
    for (Parameter& p : state->parameters) p.trained = p.name != "embeddings";
  }
  for (Parameter& p : state->parameters) {
    p.gradient.assign(p.value.size(), 0.0f);
    p.moment1.assign(p.value.size(), 0.0f);
    if (spec.optimizer.kind == OptimizerKind::Adam) p.moment2.assign(p.value.size(), 0.0f);
  }
  return Status::Ok();
}

}  // namespace

Trainer::Trainer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Trainer::~Trainer() = default;

Status Trainer::create(const TrainerSpec& spec, std::unique_ptr<Trainer>* trainer) {
  auto state = std::make_unique<State>();
  state->spec = spec;
  const TrainerModel& model = spec.model;
  Shape& shape = state->shape;
  int d_k = 0, d_v = 0;
  if (Status s = validate_model_sizes(model.d_model, model.heads, model.d_k, model.d_v, &d_k, &d_v); !s.ok()) return s;
  shape.d_model = model.d_model;
  shape.heads = model.heads;
  shape.kv_heads = model.heads;  // the trainer's layer has a key/value head per query head
  shape.d_k = d_k;
  shape.d_v = d_v;
  shape.d_out = model.output_projection ? model.d_model : model.heads * d_v;
  shape.self = true;
  shape.scale = model.scale_mode == ScaleMode::SqrtDk ? std::sqrt(static_cast<double>(d_k))
                : model.scale_mode == ScaleMode::None ? 1.0
                                                      : model.scale_divisor;
  state->layer.configure(shape, model);
  if (Status s = check_model(model); !s.ok()) return s;
  if (Status s = check_loss_and_optimizer(spec); !s.ok()) return s;
  if (Status s = add_parameters(spec, state.get()); !s.ok()) return s;
  if (Status s = mark_trained(spec, state.get()); !s.ok()) return s;
  trainer->reset(new Trainer(std::move(state)));
  return Status::Ok();
}
Status Trainer::set_data(std::vector<Example> examples) {
  if (examples.empty()) return Status::Range("examples", "examples is empty; give at least one");
  if (Status s = state_->check_examples(examples); !s.ok()) return s;
  state_->examples = std::move(examples);
  state_->ahead.valid = false;  // the next step's batch is drawn from these
  return Status::Ok();
}
// The examples of step `step` (trainer_state.hpp, batch_of_step).
std::vector<int> Trainer::State::batch_for_step(int step) const {
  return batch_of_step(static_cast<int>(examples.size()), spec.optimizer.batch_size, spec.seed, step);
}

void Trainer::State::batch_loss(const std::vector<int>& batch, double* loss) {
  for (Parameter& p : parameters) std::fill(p.gradient.begin(), p.gradient.end(), 0.0f);
  double total = 0;
  int right = 0;
  run_examples(examples, batch, 1.0f / static_cast<float>(batch.size()), true, &total, &right);
  *loss = total / batch.size();
}

double Trainer::State::gradient_norm() const {
  double sum = 0;
  for (const Parameter& p : parameters) {
    if (!p.trained) continue;
    for (float g : p.gradient) sum += static_cast<double>(g) * g;
  }
  return std::sqrt(sum);
}

void optimizer_update(const OptimizerSettings& o, double clip_scale, double* beta1_power, double* beta2_power,
                      std::vector<Parameter>* parameters) {
  const float lr = static_cast<float>(o.learning_rate);
  const float decay = static_cast<float>(o.learning_rate * o.weight_decay);
  const float clip = static_cast<float>(clip_scale);
  if (o.kind == OptimizerKind::Adam) {
    *beta1_power *= o.beta1;
    *beta2_power *= o.beta2;
  }
  const float beta1 = static_cast<float>(o.beta1), beta2 = static_cast<float>(o.beta2);
  const float correction1 = static_cast<float>(1.0 - *beta1_power),
              correction2 = static_cast<float>(1.0 - *beta2_power);
  const float epsilon = static_cast<float>(o.epsilon), momentum = static_cast<float>(o.momentum);
  for (Parameter& p : *parameters) {
    if (!p.trained) continue;
    for (std::size_t i = 0; i < p.value.size(); ++i) {
      const float g = p.gradient[i] * clip;
      float w = p.value[i];
      if (decay != 0.0f) w -= decay * w;
      if (o.kind == OptimizerKind::Adam) {
        float& m = p.moment1[i];
        float& v = p.moment2[i];
        m = beta1 * m + (1.0f - beta1) * g;
        v = beta2 * v + (1.0f - beta2) * (g * g);
        w -= lr * (m / correction1) / (std::sqrt(v / correction2) + epsilon);
      } else {
        float& velocity = p.moment1[i];
        velocity = momentum * velocity + g;
        w -= lr * velocity;
      }
      p.value[i] = w;
    }
  }
}

void Trainer::State::update(double clip_scale) {
  optimizer_update(spec.optimizer, clip_scale, &beta1_power, &beta2_power, &parameters);
}

// A step is judged by the weights it leaves: its update is undone when they are not finite, or when
// the loss or the gradients at them (on the next step's batch) are not. That forward and backward is
// the next step's own, so it is kept for the next call (State::ahead) and costs nothing more.
Status Trainer::step(int steps, StepReport* report) {
  State& s = *state_;
  report->losses.clear();
  report->gradient_norms.clear();
  if (steps < 1 || steps > 1000000) return Status::Range("steps", "steps must be from 1 to 1000000, got " + str(steps));
  if (s.examples.empty()) return Status::Range("examples", "no examples yet: call setData(examples) first");

  auto refuse = [&](const std::string& what) {
    return Status::Range("optimizer.learningRate", "learning rate too large: " + what + " at step " + str(s.steps + 1) +
                                                       "; the weights are those of step " + str(s.steps));
  };
  // The loss and gradients at the current weights on the next step's batch, or why they are not
  // usable (then nothing is kept for the next call).
  auto look_ahead = [&]() -> std::string {
    if (!s.ahead.valid) s.batch_loss(s.batch_for_step(s.steps), &s.ahead.loss);
    std::string bad;
    if (!std::isfinite(s.ahead.loss)) bad = "the loss became " + loss_text(s.ahead.loss);
    for (const Parameter& p : s.parameters)
      if (bad.empty() && !finite(p.gradient)) bad = "the gradients became ∞";
    s.ahead.valid = bad.empty();
    return bad;
  };
  // Undoes the last update (its weights gave `what`), and says so.
  auto undo = [&](const std::string& what) {
    s.restore();
    --s.steps;
    report->losses.pop_back();
    report->gradient_norms.pop_back();
    return refuse(what);
  };

  for (int k = 0; k < steps; ++k) {
    if (std::string bad = look_ahead(); !bad.empty()) {  // only at the call's first step: later ones were checked
      if (s.have_before) {  // an update of an earlier call produced these weights (the data changed since)
        s.restore();
        --s.steps;
        return refuse(bad);
      }
      return Status::Range("examples", "the loss is " + loss_text(s.ahead.loss) +
                                           " at the current weights (after step " + str(s.steps) +
                                           "); the examples' or the weights' values are too large in "
                                           "magnitude");
    }
    const double loss = s.ahead.loss;
    s.ahead.valid = false;
    const double norm = s.gradient_norm();
    report->losses.push_back(loss);
    report->gradient_norms.push_back(norm);
    const double clip = s.spec.optimizer.clip_norm;
    s.save();
    s.update(clip > 0 && norm > clip ? clip / norm : 1.0);
    ++s.steps;
    bool weights_finite = true;
    for (const Parameter& p : s.parameters) weights_finite = weights_finite && finite(p.value);
    if (!weights_finite) return undo("a weight became ∞");
    if (std::string bad = look_ahead(); !bad.empty()) return undo(bad);
  }
  return Status::Ok();
}

Status Trainer::evaluate(const std::vector<Example>& examples, Evaluation* evaluation) {
  State& s = *state_;
  if (examples.empty()) return Status::Range("examples", "examples is empty; give at least one");
  if (Status st = s.check_examples(examples); !st.ok()) return st;
  std::vector<int> all(examples.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  double total = 0;
  int right = 0;
  s.run_examples(examples, all, 1.0f, false, &total, &right);
  evaluation->loss = total / examples.size();
  evaluation->accuracy = s.spec.loss.kind == LossKind::Regress ? std::numeric_limits<double>::quiet_NaN()
                                                               : static_cast<double>(right) / examples.size();
  return Status::Ok();
}

std::vector<std::string> Trainer::parameter_names() const { return parameter_names_of(state_->parameters); }

const std::vector<float>* Trainer::parameter(const std::string& name) const {
  const Parameter* p = state_->find(name);
  return p ? &p->value : nullptr;
}

Status Trainer::set_parameter(const std::string& name, View<float> values) { return set_parameters({{name, values}}); }

Status Trainer::set_parameters(const std::vector<std::pair<std::string, View<float>>>& list) {
  for (const auto& [name, values] : list) {
    Parameter* p = state_->find(name);
    if (p == nullptr) return Status::Range(name, name + " is not a parameter of this model");
    if (values.size != p->value.size()) {
      return Status::Range(name, name + " has " + str(values.size) + " values; expected " + str(p->value.size()));
    }
    for (std::size_t i = 0; i < values.size; ++i) {
      if (!std::isfinite(values.data[i])) {
        return Status::Range(name, name + "[" + str(i) + "] is " + format_number(values.data[i]) +
                                       "; every value must be a finite number");
      }
    }
  }
  for (const auto& [name, values] : list) state_->find(name)->value.assign(values.data, values.data + values.size);
  for (Parameter& q : state_->parameters) {  // new weights: the optimiser starts over
    std::fill(q.moment1.begin(), q.moment1.end(), 0.0f);
    std::fill(q.moment2.begin(), q.moment2.end(), 0.0f);
  }
  state_->beta1_power = state_->beta2_power = 1;
  state_->have_before = false;
  state_->ahead.valid = false;
  return Status::Ok();
}

int Trainer::steps_taken() const { return state_->steps; }

}  // namespace attn
