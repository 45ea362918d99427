// The trainer: per step, attention_forward and attention_backward over a batch of examples (with
// Arithmetic::Portable, so every build computes the same bits), a loss's gradient, then one SGD or
// Adam update of the parameters that learn.
//   per example: x (n, d_model)  output (n, d_out)  weights (h, n, n)  d_output (n, d_out)
//   classify: logits, probabilities (C)  readout (d_out, C)
#include "attention/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attention_common.hpp"
#include "ops.hpp"
#include "validate.hpp"

namespace attn {
namespace {

std::string str(long long value) { return std::to_string(value); }

// splitmix64, as in init.cpp: exact integer arithmetic, the same numbers everywhere.
std::uint64_t splitmix64(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform on [-limit, limit), rounded once to float.
void fill_uniform(std::uint64_t* state, double limit, std::vector<float>* out) {
  for (float& value : *out) {
    const double u = static_cast<double>(splitmix64(state) >> 40) * 0x1.0p-24;
    value = static_cast<float>((2.0 * u - 1.0) * limit);
  }
}

struct Parameter {
  std::string name;
  std::vector<float> value, gradient, moment1, moment2;  // moment1: SGD's velocity or Adam's m
  bool trained = false;
};

const char* const kAttentionParameters[] = {"wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo"};

bool finite(const std::vector<float>& values) { return all_finite(values.data(), values.size()); }

std::string loss_text(double loss) { return std::isnan(loss) ? "NaN" : "∞"; }

}  // namespace

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
  shape.d_k = d_k;
  shape.d_v = d_v;
  shape.d_out = model.output_projection ? model.d_model : model.heads * d_v;
  if (model.mask_mode == MaskMode::Keep) {
    return Status::Range("mask", "a trainer's mask is 'none' or 'causal'; a keep-mask belongs to one sentence");
  }
  if (model.scale_mode == ScaleMode::Divisor && !(std::isfinite(model.scale_divisor) && model.scale_divisor > 0)) {
    return Status::Range("scale", "scale must be 'sqrt_dk', 'none' or a finite number above 0, got " +
                                      format_number(model.scale_divisor));
  }
  if (model.vocabulary < 0 || model.vocabulary > kMaxTokens * 64) {
    return Status::Range("vocabulary", "vocabulary must be from 0 to " + str(kMaxTokens * 64) + ", got " +
                                           str(model.vocabulary));
  }
  const TrainerLoss& loss = spec.loss;
  if (loss.kind == LossKind::Attend && (loss.head < -1 || loss.head >= model.heads)) {
    return Status::Range("loss.head", "loss.head must be 'mean' or a head from 0 to " + str(model.heads - 1) +
                                          ", got " + str(loss.head));
  }
  if (loss.kind == LossKind::Classify && (loss.classes < 2 || loss.classes > kMaxWidth)) {
    return Status::Range("loss.classes", "loss.classes must be from 2 to " + str(kMaxWidth) + ", got " +
                                             str(loss.classes));
  }
  const OptimizerSettings& o = spec.optimizer;
  struct Check { const char* field; double value; bool ok; const char* rule; };
  const Check checks[] = {
      {"optimizer.learningRate", o.learning_rate, std::isfinite(o.learning_rate) && o.learning_rate > 0, "a number above 0"},
      {"optimizer.momentum", o.momentum, o.momentum >= 0 && o.momentum < 1, "from 0 up to (not including) 1"},
      {"optimizer.beta1", o.beta1, o.beta1 >= 0 && o.beta1 < 1, "from 0 up to (not including) 1"},
      {"optimizer.beta2", o.beta2, o.beta2 >= 0 && o.beta2 < 1, "from 0 up to (not including) 1"},
      {"optimizer.epsilon", o.epsilon, std::isfinite(o.epsilon) && o.epsilon > 0, "a number above 0"},
      {"optimizer.weightDecay", o.weight_decay, std::isfinite(o.weight_decay) && o.weight_decay >= 0, "a number from 0"},
      {"optimizer.clipNorm", o.clip_norm, std::isfinite(o.clip_norm) && o.clip_norm >= 0, "a number from 0 (0: no clipping)"},
      {"optimizer.batchSize", static_cast<double>(o.batch_size), o.batch_size >= 0, "a whole number from 0 (0: every example)"}};
  for (const Check& c : checks) {
    if (!c.ok) return Status::Range(c.field, std::string(c.field) + " must be " + c.rule + ", got " + format_number(c.value));
  }

  // The parameters, in a fixed order; weights from init_weights(seed), biases zero, the embedding
  // table and the read-out from the same seed's continuation.
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

  for (const std::string& name : spec.train) {
    Parameter* p = state->find(name);
    if (p == nullptr) {
      std::string known;
      for (const Parameter& q : state->parameters) known += (known.empty() ? "" : ", ") + q.name;
      return Status::Range("train", "train names '" + name + "', which this model does not have (it has " + known + ")");
    }
    p->trained = true;
  }
  if (spec.train.empty()) {
    for (Parameter& p : state->parameters) p.trained = p.name != "embeddings";
  }
  for (Parameter& p : state->parameters) {
    p.gradient.assign(p.value.size(), 0.0f);
    p.moment1.assign(p.value.size(), 0.0f);
    if (o.kind == OptimizerKind::Adam) p.moment2.assign(p.value.size(), 0.0f);
  }
  trainer->reset(new Trainer(std::move(state)));
  return Status::Ok();
}

Status Trainer::State::check_examples(const std::vector<Example>& list) const {
  const int d = shape.d_model;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Example& e = list[i];
    const std::string at = "examples[" + str(static_cast<long long>(i)) + "].";
    if (e.n < 1 || e.n > kMaxTokens) {
      return Status::Range(at + "x", at + "x must hold 1 to " + str(kMaxTokens) + " tokens, got " + str(e.n));
    }
    if (spec.model.vocabulary == 0) {
      if (e.x.size() != static_cast<std::size_t>(e.n) * d) {
        return Status::Range(at + "x", at + "x has " + str(e.x.size()) + " values; expected n × dModel = " + str(e.n) +
                                           " × " + str(d) + " = " + str(1ll * e.n * d));
      }
      for (std::size_t j = 0; j < e.x.size(); ++j) {
        if (!std::isfinite(e.x[j])) {
          return Status::Range(at + "x", at + "x[" + str(j) + "] is " + format_number(e.x[j]) +
                                             "; every value must be a finite number");
        }
      }
    } else {
      if (e.tokens.size() != static_cast<std::size_t>(e.n)) {
        return Status::Range(at + "tokens", at + "tokens has " + str(e.tokens.size()) + " ids; expected " + str(e.n));
      }
      for (std::size_t j = 0; j < e.tokens.size(); ++j) {
        if (e.tokens[j] < 0 || e.tokens[j] >= spec.model.vocabulary) {
          return Status::Range(at + "tokens", at + "tokens[" + str(j) + "] is " + str(e.tokens[j]) +
                                                  ", outside the vocabulary of " + str(spec.model.vocabulary));
        }
      }
    }
    if (spec.loss.kind != LossKind::Regress && (e.query < 0 || e.query >= e.n)) {
      return Status::Range(at + "query", at + "query (" + str(e.query) + ") is outside the sentence of " + str(e.n) +
                                             " tokens");
    }
    if (spec.loss.kind == LossKind::Attend) {
      if (e.head != kLossHead && (e.head < -1 || e.head >= shape.heads)) {
        return Status::Range(at + "head", at + "head must be 'mean' or a head from 0 to " + str(shape.heads - 1) +
                                              ", got " + str(e.head));
      }
      if (e.target < 0 || e.target >= e.n) {
        return Status::Range(at + "target", at + "target (" + str(e.target) + ") is outside the sentence of " +
                                                str(e.n) + " tokens");
      }
      if (spec.model.mask_mode == MaskMode::Causal && e.target > e.query) {
        return Status::Range(at + "target", at + "target (" + str(e.target) + ") comes after query (" +
                                                str(e.query) + "), which the causal mask hides from it");
      }
    } else if (spec.loss.kind == LossKind::Classify) {
      if (e.target < 0 || e.target >= spec.loss.classes) {
        return Status::Range(at + "target", at + "target (" + str(e.target) + ") is not a class from 0 to " +
                                                str(spec.loss.classes - 1));
      }
    } else {
      const std::size_t expected = static_cast<std::size_t>(e.n) * shape.d_out;
      if (e.target_output.size() != expected) {
        return Status::Range(at + "target", at + "target has " + str(e.target_output.size()) +
                                                " values; expected n × dOut = " + str(e.n) + " × " + str(shape.d_out) +
                                                " = " + str(expected));
      }
      for (std::size_t j = 0; j < expected; ++j) {
        if (!std::isfinite(e.target_output[j])) {
          return Status::Range(at + "target", at + "target[" + str(j) + "] is " + format_number(e.target_output[j]) +
                                                  "; every value must be a finite number");
        }
      }
    }
  }
  return Status::Ok();
}

Status Trainer::set_data(std::vector<Example> examples) {
  if (examples.empty()) return Status::Range("examples", "examples is empty; give at least one");
  if (Status s = state_->check_examples(examples); !s.ok()) return s;
  state_->examples = std::move(examples);
  return Status::Ok();
}

Status Trainer::State::example_loss(const Example& e, float weight, bool gradients, double* loss, bool* correct) {
  const int n = e.n, d_out = shape.d_out, heads = shape.heads;
  const Config config = config_for(n);
  const Inputs inputs = inputs_for(x_of(e, &gathered_x));
  Result forward;
  if (Status s = attention_forward(config, inputs, true, &forward); !s.ok()) {
    *loss = std::numeric_limits<double>::infinity();  // the weights have grown past float32
    return Status::Ok();
  }
  d_output.assign(static_cast<std::size_t>(n) * d_out, 0.0f);
  d_weights.clear();
  const std::size_t nn = static_cast<std::size_t>(n) * n;

  switch (spec.loss.kind) {
    case LossKind::Attend: {
      // p = the query row's weights in one head, or their mean over heads; loss = -log p[target]
      const int head = e.head == kLossHead ? spec.loss.head : e.head;
      const int first = head < 0 ? 0 : head;
      const int last = head < 0 ? heads : head + 1;
      const double share = 1.0 / (last - first);
      std::vector<double> p(n, 0.0);
      for (int h = first; h < last; ++h)
        for (int j = 0; j < n; ++j) p[j] += share * forward.heads[h].weights[static_cast<std::size_t>(e.query) * n + j];
      *loss = -std::log(p[e.target]);
      *correct = std::max_element(p.begin(), p.end()) - p.begin() == e.target;
      if (gradients) {
        // dL/dA_h[query][target] = -share / p[target]; nothing else in the row.
        d_weights.assign(heads * nn, 0.0f);
        const float d_target = static_cast<float>(-share / std::max(p[e.target], 1e-30)) * weight;
        for (int h = first; h < last; ++h) d_weights[h * nn + static_cast<std::size_t>(e.query) * n + e.target] = d_target;
      }
      break;
    }
    case LossKind::Classify: {
      const int classes = spec.loss.classes;
      const std::vector<float>& readout = find("readout")->value;
      const std::vector<float>& bias = find("readoutBias")->value;
      const float* o = forward.output.data() + static_cast<std::size_t>(e.query) * d_out;
      std::vector<float> probabilities(bias);  // logits first
      for (int k = 0; k < d_out; ++k)
        for (int c = 0; c < classes; ++c) probabilities[c] += o[k] * readout[static_cast<std::size_t>(k) * classes + c];
      *correct = std::max_element(probabilities.begin(), probabilities.end()) - probabilities.begin() == e.target;
      double top = probabilities[0], sum = 0;  // -log softmax[target] from the logits, in double
      for (float logit : probabilities) top = std::max(top, static_cast<double>(logit));
      for (float logit : probabilities) sum += std::exp(logit - top);
      *loss = top + std::log(sum) - probabilities[e.target];
      ops::portable::softmax_rows(probabilities.data(), classes, 1, classes);
      if (gradients) {
        // d logits = softmax − onehot(target)
        std::vector<float> d_logits(probabilities);
        d_logits[e.target] -= 1.0f;
        for (float& g : d_logits) g *= weight;
        Parameter& r = *find("readout");
        Parameter& rb = *find("readoutBias");
        float* d_o = d_output.data() + static_cast<std::size_t>(e.query) * d_out;
        for (int k = 0; k < d_out; ++k) {
          for (int c = 0; c < classes; ++c) {
            r.gradient[static_cast<std::size_t>(k) * classes + c] += o[k] * d_logits[c];
            d_o[k] += r.value[static_cast<std::size_t>(k) * classes + c] * d_logits[c];
          }
        }
        for (int c = 0; c < classes; ++c) rb.gradient[c] += d_logits[c];
      }
      break;
    }
    case LossKind::Regress: {
      const std::size_t count = forward.output.size();
      double total = 0;
      const float scale = 2.0f / static_cast<float>(count) * weight;
      for (std::size_t i = 0; i < count; ++i) {
        const float error = forward.output[i] - e.target_output[i];
        total += static_cast<double>(error) * error;
        d_output[i] = scale * error;
      }
      *loss = total / count;
      *correct = false;
      break;
    }
  }
  if (!gradients || !std::isfinite(*loss)) return Status::Ok();

  // The attention layer's gradients go straight into the parameters' (+= in attention_backward).
  // Only the parameters that learn get a buffer: attention_backward skips the rest (and dx when the
  // embedding table does not learn).
  Gradients g;
  std::vector<float>* slots[] = {&g.wq, &g.wk, &g.wv, &g.wo, &g.bq, &g.bk, &g.bv, &g.bo};
  for (int i = 0; i < 8; ++i)
    if (Parameter* p = find(kAttentionParameters[i]); p != nullptr && p->trained) slots[i]->swap(p->gradient);
  Parameter* table = find("embeddings");
  if (table != nullptr && table->trained) g.x.assign(static_cast<std::size_t>(n) * shape.d_model, 0.0f);
  View<float> d_weights_view;
  if (!d_weights.empty()) d_weights_view = d_weights;
  const Status s = attention_backward_checked(config, inputs, forward.shape, forward, d_output, d_weights_view, &g);
  for (int i = 0; i < 8; ++i)
    if (Parameter* p = find(kAttentionParameters[i]); p != nullptr && p->trained) slots[i]->swap(p->gradient);
  if (!s.ok()) {
    *loss = std::numeric_limits<double>::infinity();
    return Status::Ok();
  }
  if (!g.x.empty()) {
    const int d = shape.d_model;
    for (int i = 0; i < n; ++i) {
      float* row = table->gradient.data() + static_cast<std::size_t>(e.tokens[i]) * d;
      for (int c = 0; c < d; ++c) row[c] += g.x[static_cast<std::size_t>(i) * d + c];
    }
  }
  return Status::Ok();
}

// The examples of step `step`: all of them, or batch_size drawn without replacement by a partial
// Fisher–Yates shuffle seeded by (seed, step), so a step's batch does not depend on earlier calls.
std::vector<int> Trainer::State::batch_for_step(int step) const {
  const int count = static_cast<int>(examples.size());
  std::vector<int> order(count);
  for (int i = 0; i < count; ++i) order[i] = i;
  const int size = spec.optimizer.batch_size;
  if (size == 0 || size >= count) return order;
  std::uint64_t rng = spec.seed ^ (0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(step) + 1));
  for (int i = 0; i < size; ++i) {
    const int j = i + static_cast<int>(splitmix64(&rng) % static_cast<std::uint64_t>(count - i));
    std::swap(order[i], order[j]);
  }
  order.resize(size);
  return order;
}

Status Trainer::State::batch_loss(const std::vector<int>& batch, double* loss) {
  for (Parameter& p : parameters) std::fill(p.gradient.begin(), p.gradient.end(), 0.0f);
  const float weight = 1.0f / static_cast<float>(batch.size());
  double total = 0;
  for (int index : batch) {
    double example = 0;
    bool correct = false;
    if (Status s = example_loss(examples[index], weight, true, &example, &correct); !s.ok()) return s;
    total += example;
  }
  *loss = total / batch.size();
  return Status::Ok();
}

double Trainer::State::gradient_norm() const {
  double sum = 0;
  for (const Parameter& p : parameters) {
    if (!p.trained) continue;
    for (float g : p.gradient) sum += static_cast<double>(g) * g;
  }
  return std::sqrt(sum);
}

void Trainer::State::update(double clip_scale) {
  const OptimizerSettings& o = spec.optimizer;
  const float lr = static_cast<float>(o.learning_rate);
  const float decay = static_cast<float>(o.learning_rate * o.weight_decay);
  const float clip = static_cast<float>(clip_scale);
  if (o.kind == OptimizerKind::Adam) {
    beta1_power *= o.beta1;
    beta2_power *= o.beta2;
  }
  const float beta1 = static_cast<float>(o.beta1), beta2 = static_cast<float>(o.beta2);
  const float correction1 = static_cast<float>(1.0 - beta1_power), correction2 = static_cast<float>(1.0 - beta2_power);
  const float epsilon = static_cast<float>(o.epsilon), momentum = static_cast<float>(o.momentum);
  for (Parameter& p : parameters) {
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

Status Trainer::step(int steps, StepReport* report) {
  State& s = *state_;
  report->losses.clear();
  report->gradient_norms.clear();
  if (steps < 1 || steps > 1000000) return Status::Range("steps", "steps must be from 1 to 1000000, got " + str(steps));
  if (s.examples.empty()) return Status::Range("examples", "no examples yet: call setData(examples) first");

  auto refuse = [&](int failed_step, double loss) {
    return Status::Range("optimizer.learningRate", "learning rate too large: the loss became " + loss_text(loss) +
                                                       " at step " + str(failed_step) + "; the weights are those of step " +
                                                       str(failed_step - 1));
  };

  for (int k = 0; k < steps; ++k) {
    double loss = 0;
    if (Status st = s.batch_loss(s.batch_for_step(s.steps), &loss); !st.ok()) return st;
    bool gradients_finite = true;
    for (const Parameter& p : s.parameters) gradients_finite = gradients_finite && finite(p.gradient);
    if (!std::isfinite(loss) || !gradients_finite) {
      if (s.have_before) {  // the last update produced these weights: undo it
        s.restore();
        --s.steps;
        if (!report->losses.empty()) {  // that update's loss was finite, but its weights are not usable
          report->losses.pop_back();
          report->gradient_norms.pop_back();
        }
        return refuse(s.steps + 1, std::isfinite(loss) ? std::numeric_limits<double>::infinity() : loss);
      }
      return Status::Range("examples", "the loss is " + loss_text(loss) + " at the current weights (after step " +
                                           str(s.steps) + "); the examples' or the weights' values are too large in "
                                           "magnitude");
    }
    const double norm = s.gradient_norm();
    report->losses.push_back(loss);
    report->gradient_norms.push_back(norm);
    const double clip = s.spec.optimizer.clip_norm;
    s.save();
    s.update(clip > 0 && norm > clip ? clip / norm : 1.0);
    bool weights_finite = true;
    for (const Parameter& p : s.parameters) weights_finite = weights_finite && finite(p.value);
    if (!weights_finite) {
      s.restore();
      report->losses.pop_back();
      report->gradient_norms.pop_back();
      return refuse(s.steps + 1, std::numeric_limits<double>::infinity());
    }
    ++s.steps;
  }
  return Status::Ok();
}

Status Trainer::evaluate(const std::vector<Example>& examples, Evaluation* evaluation) {
  State& s = *state_;
  if (examples.empty()) return Status::Range("examples", "examples is empty; give at least one");
  if (Status st = s.check_examples(examples); !st.ok()) return st;
  double total = 0;
  int right = 0;
  for (const Example& e : examples) {
    double loss = 0;
    bool correct = false;
    if (Status st = s.example_loss(e, 1.0f, false, &loss, &correct); !st.ok()) return st;
    total += loss;
    right += correct;
  }
  evaluation->loss = total / examples.size();
  evaluation->accuracy = s.spec.loss.kind == LossKind::Regress ? std::numeric_limits<double>::quiet_NaN()
                                                               : static_cast<double>(right) / examples.size();
  return Status::Ok();
}

std::vector<std::string> Trainer::parameter_names() const {
  std::vector<std::string> names;
  for (const Parameter& p : state_->parameters) names.push_back(p.name);
  return names;
}

const std::vector<float>* Trainer::parameter(const std::string& name) const {
  const Parameter* p = state_->find(name);
  return p ? &p->value : nullptr;
}

Status Trainer::set_parameter(const std::string& name, View<float> values) {
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
  p->value.assign(values.data, values.data + values.size);
  for (Parameter& q : state_->parameters) {  // new weights: the optimiser starts over
    std::fill(q.moment1.begin(), q.moment1.end(), 0.0f);
    std::fill(q.moment2.begin(), q.moment2.end(), 0.0f);
  }
  state_->beta1_power = state_->beta2_power = 1;
  state_->have_before = false;
  return Status::Ok();
}

int Trainer::steps_taken() const { return state_->steps; }

}  // namespace attn
