// The stack trainer (stack_trainer.hpp): its parameters and the Stack that views them, each example's
// loss with its gradient (stack_forward, the trainer's own logits, stack_backward), and the steps
// (the one-layer trainer's optimizer_update, trainer.cpp).
//   n tokens, d features (d_model), V the vocabulary, h heads, f the MLP's hidden features.
#include "attention/stack_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ops.hpp"
#include "splitmix64.hpp"
#include "trainer_state.hpp"
#include "transformer_common.hpp"
#include "validate.hpp"

namespace attn {
namespace {

std::string str(long long value) { return std::to_string(value); }

View<float> view(const Parameter* p) { return p ? View<float>(p->value) : View<float>(); }

}  // namespace

struct StackTrainer::State {
  StackTrainerSpec spec;
  int d_k = 0, hidden = 0;
  std::vector<Parameter> parameters;
  std::vector<StackExample> examples;
  int steps = 0;
  double beta1_power = 1, beta2_power = 1;
  bool have_before = false;  // `before` holds the state before the last update
  OptimizerSnapshot before;

  Parameter* find(const std::string& name) { return find_parameter(parameters, name); }
  const Parameter* find(const std::string& name) const { return const_cast<State*>(this)->find(name); }

  Stack build() const;
  Status check_examples(const std::vector<StackExample>& list) const;
  Status run(const std::vector<StackExample>& list, const std::vector<int>& indices, bool gradients, double* loss,
             int* right, int* scored);
  Status example(const Stack& stack, const StackExample& e, float weight, bool gradients, double* loss, int* right,
                 int* scored);
  void logits_loss(const StackExample& e, const StackTrace& trace, float weight, bool gradients,
                   std::vector<float>* d_output, double* loss, int* right, int* scored);
  Status attend_backward(const Stack& stack, const StackInputs& inputs, const StackTrace& trace, const StackExample& e,
                         float weight, StackGradients* g, double* loss, int* right);
  void accumulate(const Stack& stack, StackGradients& g);
  std::vector<int> batch_for_step(int step) const;
  template <typename Call>
  Status with_ablation(const std::vector<StackHead>& ablate, Call call);

  void save() { before.save(parameters, beta1_power, beta2_power); }
  void restore() { before.restore(&parameters, &beta1_power, &beta2_power); }
};

namespace {

std::string layer_name(int l, const char* what) { return "layers." + str(l) + "." + what; }

Status check_model(const StackTrainerSpec& spec, int* d_k) {
  const StackModel& m = spec.model;
  if (m.vocab < 2 || m.vocab > kMaxVocab) {
    return Status::Range("vocab", "vocab must be from 2 to " + str(kMaxVocab) + ", got " + str(m.vocab));
  }
  if (m.d_model < 1 || m.d_model > kMaxWidth) {
    return Status::Range("dModel", "dModel must be from 1 to " + str(kMaxWidth) + ", got " + str(m.d_model));
  }
  if (m.layers < 1 || m.layers > kMaxLayers) {
    return Status::Range("layers", "layers must be from 1 to " + str(kMaxLayers) + ", got " + str(m.layers));
  }
  if (m.heads < 1 || m.heads > m.d_model) {
    return Status::Range("heads", "heads must be from 1 to dModel (" + str(m.d_model) + "), got " + str(m.heads));
  }
  if (m.d_k == 0 && m.d_model % m.heads != 0) {
    return Status::Range(
        "heads", "heads (" + str(m.heads) + ") must divide dModel (" + str(m.d_model) + ") when dK is not given");
  }
  *d_k = m.d_k > 0 ? m.d_k : m.d_model / m.heads;
  if (*d_k < 1 || *d_k > kMaxWidth) return Status::Range("dK", "dK must be from 1 to " + str(kMaxWidth));
  if (m.positions != PositionKind::None && m.positions != PositionKind::Learned &&
      m.positions != PositionKind::Rotary) {
    return Status::Range("positions", "positions must be 'none', 'learned' or 'rotary'");
  }
  if (m.positions == PositionKind::Rotary && *d_k % 2 != 0) {
    return Status::Range("positions", "rotary positions need an even dK, got " + str(*d_k));
  }
  if (m.positions == PositionKind::Learned && (m.max_positions < 1 || m.max_positions > kMaxTokens)) {
    return Status::Range("maxPositions", "maxPositions must be from 1 to " + str(kMaxTokens) +
                                             " with learned "
                                             "positions, got " +
                                             str(m.max_positions));
  }
  if (m.mlp && m.arrangement != Arrangement::PreNorm && m.arrangement != Arrangement::PostNorm) {
    return Status::Range("arrangement", "arrangement must be 'pre' or 'post' in blocks with an MLP");
  }
  if (m.mlp && m.norm != NormKind::LayerNorm && m.norm != NormKind::RmsNorm) {
    return Status::Range("norm", "norm must be 'layernorm' or 'rmsnorm' in blocks with an MLP");
  }
  if (m.mlp && !m.swiglu && m.activation != Activation::GeluTanh && m.activation != Activation::GeluErf &&
      m.activation != Activation::Relu) {
    return Status::Range("mlp", "mlp must be 'gelu-tanh', 'gelu', 'relu' or 'swiglu'");
  }
  if (m.mlp_hidden < 0 || m.mlp_hidden > kMaxWidth) {
    return Status::Range("mlpHidden", "mlpHidden must be from 0 to " + str(kMaxWidth) + ", got " + str(m.mlp_hidden));
  }
  const StackLoss& loss = spec.loss;
  if (loss.kind == StackLossKind::Attend) {
    if (loss.layer < 0 || loss.layer >= m.layers) {
      return Status::Range("loss.layer",
                           "loss.layer must be from 0 to " + str(m.layers - 1) + ", got " + str(loss.layer));
    }
    if (loss.head < -1 || loss.head >= m.heads) {
      return Status::Range(
          "loss.head", "loss.head must be 'mean' or a head from 0 to " + str(m.heads - 1) + ", got " + str(loss.head));
    }
    if (m.mlp) {
      return Status::Range("loss.kind", "the attend loss needs attention-only blocks (mlp: false)");
    }
  }
  return check_optimizer(spec.optimizer);
}

// Every parameter, in the order of stack_trainer.hpp, from splitmix64(seed): init_weights for each
// layer's attention (seed + l), the seed's continuation for the rest; norms 1 and biases 0.
void add_parameters(const StackTrainerSpec& spec, int d_k, int hidden, std::vector<Parameter>* out) {
  const StackModel& m = spec.model;
  const std::size_t d = static_cast<std::size_t>(m.d_model), f = static_cast<std::size_t>(hidden);
  std::uint64_t rng = spec.seed ^ 0x57ac7a1b1e5ull;
  auto add = [&](std::string name, std::vector<float> value) {
    Parameter p;
    p.name = std::move(name);
    p.value = std::move(value);
    out->push_back(std::move(p));
  };
  auto uniform = [&](std::size_t count, double limit) {
    std::vector<float> v(count);
    fill_uniform(&rng, limit, &v);
    return v;
  };
  auto add_norm = [&](const std::string& name) {  // LayerNorm: weight and bias; RMSNorm: weight
    add(name + ".weight", std::vector<float>(d, 1.0f));
    if (m.norm == NormKind::LayerNorm) add(name + ".bias", std::vector<float>(d, 0.0f));
  };
  add("tokens", uniform(m.vocab * d, 1.0));
  if (m.positions == PositionKind::Learned) add("positions", uniform(m.max_positions * d, 1.0));
  for (int l = 0; l < m.layers; ++l) {
    Weights w;
    init_weights(m.d_model, m.heads, d_k, d_k, spec.seed + static_cast<std::uint64_t>(l), &w);
    add(layer_name(l, "wq"), std::move(w.wq));
    add(layer_name(l, "wk"), std::move(w.wk));
    add(layer_name(l, "wv"), std::move(w.wv));
    add(layer_name(l, "wo"), std::move(w.wo));
    if (!m.mlp) continue;
    const double xavier = std::sqrt(6.0 / static_cast<double>(d + f));
    add_norm(layer_name(l, "norm1"));
    if (m.swiglu) {
      add(layer_name(l, "wGate"), uniform(d * f, xavier));
      add(layer_name(l, "wUp"), uniform(d * f, xavier));
      add(layer_name(l, "wDown"), uniform(f * d, xavier));
    } else {
      add(layer_name(l, "w1"), uniform(d * f, xavier));
      add(layer_name(l, "b1"), std::vector<float>(f, 0.0f));
      add(layer_name(l, "w2"), uniform(f * d, xavier));
      add(layer_name(l, "b2"), std::vector<float>(d, 0.0f));
    }
    add_norm(layer_name(l, "norm2"));
  }
  if (m.mlp && m.arrangement == Arrangement::PreNorm) add_norm("finalNorm");
  if (!m.tied) add("unembedding", uniform(d * m.vocab, std::sqrt(6.0 / static_cast<double>(d + m.vocab))));
}

Norm make_norm(NormKind kind, const Parameter* weight, const Parameter* bias) {
  Norm norm;
  norm.kind = kind;
  norm.weight = view(weight);
  norm.bias = view(bias);
  return norm;
}

// The gradient buffers of `g` in the order of the parameters (the unembedding's is the trainer's own).
std::vector<std::vector<float>*> gradient_slots(const StackModel& m, StackGradients& g) {
  std::vector<std::vector<float>*> slots = {&g.tokens};
  auto add_norm = [&](NormGradients& n) {
    slots.push_back(&n.weight);
    if (m.norm == NormKind::LayerNorm) slots.push_back(&n.bias);
  };
  if (m.positions == PositionKind::Learned) slots.push_back(&g.position_table);
  for (BlockGradients& b : g.layers) {
    for (std::vector<float>* s : {&b.attention.wq, &b.attention.wk, &b.attention.wv, &b.attention.wo})
      slots.push_back(s);
    if (!m.mlp) continue;
    add_norm(b.norm1);
    if (m.swiglu) {
      for (std::vector<float>* s : {&b.w_gate, &b.w_up, &b.w_down}) slots.push_back(s);
    } else {
      for (std::vector<float>* s : {&b.w1, &b.b1, &b.w2, &b.b2}) slots.push_back(s);
    }
    add_norm(b.norm2);
  }
  if (m.mlp && m.arrangement == Arrangement::PreNorm) add_norm(g.final_norm);
  return slots;
}

}  // namespace

// The stack over the current parameters (views: rebuilt whenever the values may have moved).
Stack StackTrainer::State::build() const {
  const StackModel& m = spec.model;
  Stack stack;
  stack.vocab = m.vocab;
  stack.d_model = m.d_model;
  stack.tokens = view(find("tokens"));
  stack.positions = m.positions;
  stack.position_table = view(find("positions"));
  if (m.positions == PositionKind::Rotary) stack.rotary.dims = d_k;
  for (int l = 0; l < m.layers; ++l) {
    Block b;
    b.arrangement = m.mlp ? m.arrangement : Arrangement::AttentionOnly;
    b.attention.heads = m.heads;
    b.attention.d_k = d_k;
    b.attention.d_v = d_k;
    b.attention.mask_mode = m.causal ? MaskMode::Causal : MaskMode::None;
    b.attention.arithmetic = Arithmetic::Portable;
    b.weights.wq = view(find(layer_name(l, "wq")));
    b.weights.wk = view(find(layer_name(l, "wk")));
    b.weights.wv = view(find(layer_name(l, "wv")));
    b.weights.wo = view(find(layer_name(l, "wo")));
    if (m.mlp) {
      b.norm1 = make_norm(m.norm, find(layer_name(l, "norm1.weight")), find(layer_name(l, "norm1.bias")));
      b.norm2 = make_norm(m.norm, find(layer_name(l, "norm2.weight")), find(layer_name(l, "norm2.bias")));
      b.mlp.kind = m.swiglu ? MlpKind::SwiGlu : MlpKind::Plain;
      b.mlp.activation = m.activation;
      b.mlp.hidden = hidden;
      b.mlp.w1 = view(find(layer_name(l, "w1")));
      b.mlp.b1 = view(find(layer_name(l, "b1")));
      b.mlp.w2 = view(find(layer_name(l, "w2")));
      b.mlp.b2 = view(find(layer_name(l, "b2")));
      b.mlp.w_gate = view(find(layer_name(l, "wGate")));
      b.mlp.w_up = view(find(layer_name(l, "wUp")));
      b.mlp.w_down = view(find(layer_name(l, "wDown")));
    }
    stack.layers.push_back(b);
  }
  if (m.mlp && m.arrangement == Arrangement::PreNorm) {
    stack.final_norm = make_norm(m.norm, find("finalNorm.weight"), find("finalNorm.bias"));
  }
  return stack;
}

Status StackTrainer::State::check_examples(const std::vector<StackExample>& list) const {
  const StackModel& m = spec.model;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const StackExample& e = list[i];
    const std::string at = "examples[" + str(static_cast<long long>(i)) + "].";
    const int n = static_cast<int>(e.ids.size());
    const int longest = m.positions == PositionKind::Learned ? std::min(m.max_positions, kMaxTokens) : kMaxTokens;
    if (n < 1 || n > longest) {
      return Status::Range(at + "ids", at + "ids has " + str(n) + " tokens; it must have from 1 to " + str(longest));
    }
    for (int j = 0; j < n; ++j) {
      if (e.ids[j] < 0 || e.ids[j] >= m.vocab) {
        return Status::Range(
            at + "ids", at + "ids[" + str(j) + "] is " + str(e.ids[j]) + ", outside the vocabulary of " + str(m.vocab));
      }
    }
    switch (spec.loss.kind) {
      case StackLossKind::NextToken:
        if (e.first < 0 || e.first > n - 2) {
          return Status::Range(at + "first",
                               at + "first must be from 0 to n − 2 = " + str(n - 2) + ", got " + str(e.first));
        }
        break;
      case StackLossKind::Classify:
        if (e.query < 0 || e.query >= n) return Status::Range(at + "query", at + "query is outside the sentence");
        if (e.target < 0 || e.target >= m.vocab) {
          return Status::Range(at + "target", at + "target must be a class from 0 to " + str(m.vocab - 1));
        }
        break;
      case StackLossKind::Regress:
        if (e.target_output.size() != static_cast<std::size_t>(n) * m.d_model) {
          return Status::Range(at + "targetOutput",
                               at + "targetOutput has " + str(e.target_output.size()) +
                                   " values; expected n × dModel = " + str(static_cast<long long>(n) * m.d_model));
        }
        if (!all_finite(e.target_output.data(), e.target_output.size())) {
          return Status::Range(at + "targetOutput", at + "targetOutput holds a value that is not a finite number");
        }
        break;
      case StackLossKind::Attend:
        if (e.query < 0 || e.query >= n) return Status::Range(at + "query", at + "query is outside the sentence");
        if (e.target < 0 || e.target >= n) return Status::Range(at + "target", at + "target is outside the sentence");
        if (m.causal && e.target > e.query) {
          return Status::Range(at + "target", at + "target (" + str(e.target) + ") comes after query (" + str(e.query) +
                                                  "), which the causal mask hides from it");
        }
        break;
    }
  }
  return Status::Ok();
}

// The logits of the scored rows, their cross-entropy, and (with gradients) d_output and the
// unembedding's gradient. logits[v] = Σ_k output[k] · U[k][v], k ascending: the same bits everywhere.
void StackTrainer::State::logits_loss(const StackExample& e, const StackTrace& trace, float weight, bool gradients,
                                      std::vector<float>* d_output, double* loss, int* right, int* scored) {
  const int d = spec.model.d_model, vocab = spec.model.vocab, n = static_cast<int>(e.ids.size());
  const bool tied = spec.model.tied;
  Parameter& table = *find(tied ? "tokens" : "unembedding");
  auto at = [&](int k, int v) -> std::size_t {
    return tied ? static_cast<std::size_t>(v) * d + k : static_cast<std::size_t>(k) * vocab + v;
  };
  const bool next = spec.loss.kind == StackLossKind::NextToken;
  const int first = next ? e.first : e.query, last = next ? n - 2 : e.query;
  const int count = last - first + 1;
  std::vector<float> p(vocab);
  double total = 0;
  for (int i = first; i <= last; ++i) {
    const int target = next ? e.ids[i + 1] : e.target;
    const float* o = trace.output.data() + static_cast<std::size_t>(i) * d;
    for (int v = 0; v < vocab; ++v) {
      float sum = 0.0f;
      for (int k = 0; k < d; ++k) sum += o[k] * table.value[at(k, v)];
      p[v] = sum;
    }
    *right += std::max_element(p.begin(), p.end()) - p.begin() == target;
    double top = p[0], sum = 0;
    for (float logit : p) top = std::max(top, static_cast<double>(logit));
    for (float logit : p) sum += std::exp(logit - top);
    total += top + std::log(sum) - p[target];
    if (!gradients) continue;
    ops::portable::softmax_rows(p.data(), vocab, 1, vocab);
    p[target] -= 1.0f;
    const float scale = weight / static_cast<float>(count);
    for (float& g : p) g *= scale;  // d logits
    float* d_o = d_output->data() + static_cast<std::size_t>(i) * d;
    for (int k = 0; k < d; ++k) {
      for (int v = 0; v < vocab; ++v) {
        table.gradient[at(k, v)] += o[k] * p[v];
        d_o[k] += table.value[at(k, v)] * p[v];
      }
    }
  }
  *scored += count;
  *loss = total / count;
}

// The attend loss: its d_weights through layer l's attention (attention_backward), then the input's
// gradient through the blocks below (stack_backward of the stack cut at layer l).
Status StackTrainer::State::attend_backward(const Stack& stack, const StackInputs& inputs, const StackTrace& trace,
                                            const StackExample& e, float weight, StackGradients* g, double* loss,
                                            int* right) {
  const int n = trace.n, d = spec.model.d_model, heads = spec.model.heads, l = spec.loss.layer;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const BlockTrace& block = trace.layers[static_cast<std::size_t>(l)];
  const int first = spec.loss.head < 0 ? 0 : spec.loss.head, last = spec.loss.head < 0 ? heads : spec.loss.head + 1;
  const double share = 1.0 / (last - first);
  std::vector<double> p(n, 0.0);
  for (int h = first; h < last; ++h)
    for (int j = 0; j < n; ++j)
      p[j] += share * block.attention.heads[h].weights[static_cast<std::size_t>(e.query) * n + j];
  *loss = -std::log(p[e.target]);
  *right += std::max_element(p.begin(), p.end()) - p.begin() == e.target;
  if (g == nullptr) return Status::Ok();
  std::vector<float> d_weights(heads * nn, 0.0f);
  const float d_target = static_cast<float>(-share / std::max(p[e.target], 1e-30)) * weight;
  for (int h = first; h < last; ++h) d_weights[h * nn + static_cast<std::size_t>(e.query) * n + e.target] = d_target;
  const Block& b = stack.layers[static_cast<std::size_t>(l)];
  Gradients& ga = g->layers[static_cast<std::size_t>(l)].attention;
  ga.x.assign(static_cast<std::size_t>(n) * d, 0.0f);
  const std::vector<float> d_out(static_cast<std::size_t>(n) * d, 0.0f);
  if (Status s = attention_backward(block_config(stack, b, n), block_inputs(b, view_of(block.input), inputs),
                                    block.attention, view_of(d_out), view_of(d_weights), &ga);
      !s.ok()) {
    return s;
  }
  const std::vector<float> dx = std::move(ga.x);
  ga.x.clear();
  Stack below = stack;  // the blocks under layer l, whose output is layer l's input
  below.layers.resize(static_cast<std::size_t>(l));
  StackTrace cut = trace;
  cut.layers.resize(static_cast<std::size_t>(l));
  cut.output = block.input;
  StackGradients gb = zero_stack_gradients(below);
  if (Status s = stack_backward(below, inputs, cut, View<float>(), view_of(dx), &gb); !s.ok()) return s;
  for (std::size_t j = static_cast<std::size_t>(l); j < g->layers.size(); ++j)
    gb.layers.push_back(std::move(g->layers[j]));
  *g = std::move(gb);
  return Status::Ok();
}

void StackTrainer::State::accumulate(const Stack& stack, StackGradients& g) {
  (void)stack;
  const std::vector<std::vector<float>*> slots = gradient_slots(spec.model, g);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    std::vector<float>& into = parameters[i].gradient;
    const std::vector<float>& from = *slots[i];
    for (std::size_t j = 0; j < into.size(); ++j) into[j] += from[j];
  }
}

Status StackTrainer::State::example(const Stack& stack, const StackExample& e, float weight, bool gradients,
                                    double* loss, int* right, int* scored) {
  const std::vector<std::int32_t> ids(e.ids.begin(), e.ids.end());
  StackInputs inputs;
  inputs.ids = View<std::int32_t>(ids.data(), ids.size());
  StackTrace trace;
  if (Status s = stack_forward(stack, inputs, &trace); !s.ok()) return s;
  if (spec.loss.kind == StackLossKind::Attend) {
    *scored += 1;
    if (!gradients) return attend_backward(stack, inputs, trace, e, weight, nullptr, loss, right);
    StackGradients g = zero_stack_gradients(stack);
    if (Status s = attend_backward(stack, inputs, trace, e, weight, &g, loss, right); !s.ok()) return s;
    accumulate(stack, g);
    return Status::Ok();
  }
  std::vector<float> d_output(gradients ? trace.output.size() : 0, 0.0f);
  if (spec.loss.kind == StackLossKind::Regress) {
    const std::size_t count = trace.output.size();
    const float scale = 2.0f / static_cast<float>(count) * weight;
    double total = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const float error = trace.output[i] - e.target_output[i];
      total += static_cast<double>(error) * error;
      if (gradients) d_output[i] = scale * error;
    }
    *loss = total / static_cast<double>(count);
    *scored += 1;
  } else {
    logits_loss(e, trace, weight, gradients, &d_output, loss, right, scored);
  }
  if (!gradients || !std::isfinite(*loss)) return Status::Ok();
  StackGradients g = zero_stack_gradients(stack);
  if (Status s = stack_backward(stack, inputs, trace, View<float>(), view_of(d_output), &g); !s.ok()) return s;
  accumulate(stack, g);
  return Status::Ok();
}

// The examples `indices`, each weighted 1 / their count: the mean loss, and with `gradients` the mean
// gradient in every parameter's gradient (zeroed first).
Status StackTrainer::State::run(const std::vector<StackExample>& list, const std::vector<int>& indices, bool gradients,
                                double* loss, int* right, int* scored) {
  for (Parameter& p : parameters) std::fill(p.gradient.begin(), p.gradient.end(), 0.0f);
  const Stack stack = build();
  const float weight = 1.0f / static_cast<float>(indices.size());
  double total = 0;
  for (int index : indices) {
    double one = 0;
    if (Status s = example(stack, list[static_cast<std::size_t>(index)], weight, gradients, &one, right, scored);
        !s.ok()) {
      return s;
    }
    total += one;
  }
  *loss = total / static_cast<double>(indices.size());
  return Status::Ok();
}

// As the one-layer trainer's (trainer_state.hpp, batch_of_step).
std::vector<int> StackTrainer::State::batch_for_step(int step) const {
  return batch_of_step(static_cast<int>(examples.size()), spec.optimizer.batch_size, spec.seed, step);
}

StackTrainer::StackTrainer(std::unique_ptr<State> state) : state_(std::move(state)) {}
StackTrainer::~StackTrainer() = default;

Status StackTrainer::create(const StackTrainerSpec& spec, std::unique_ptr<StackTrainer>* trainer) {
  auto state = std::make_unique<State>();
  state->spec = spec;
  if (Status s = check_model(spec, &state->d_k); !s.ok()) return s;
  state->hidden = spec.model.mlp_hidden > 0 ? spec.model.mlp_hidden : 4 * spec.model.d_model;
  add_parameters(spec, state->d_k, state->hidden, &state->parameters);
  for (const std::string& name : spec.train) {
    Parameter* p = state->find(name);
    if (p == nullptr) return Status::Range("train", "train names '" + name + "', which this model does not have");
    p->trained = true;
  }
  for (Parameter& p : state->parameters) {
    if (spec.train.empty()) p.trained = true;
    p.gradient.assign(p.value.size(), 0.0f);
    p.moment1.assign(p.value.size(), 0.0f);
    if (spec.optimizer.kind == OptimizerKind::Adam) p.moment2.assign(p.value.size(), 0.0f);
  }
  trainer->reset(new StackTrainer(std::move(state)));
  return Status::Ok();
}

Status StackTrainer::set_data(std::vector<StackExample> examples) {
  if (examples.empty()) return Status::Range("examples", "examples is empty; give at least one");
  if (Status s = state_->check_examples(examples); !s.ok()) return s;
  state_->examples = std::move(examples);
  return Status::Ok();
}

// A step whose batch gives no finite loss or gradients (or whose forward pass overflows) is refused;
// when an update made those weights, it is undone first (the one-layer trainer's rule).
Status StackTrainer::step(int steps, StepReport* report) {
  State& s = *state_;
  report->losses.clear();
  report->gradient_norms.clear();
  if (steps < 1 || steps > 1000000) return Status::Range("steps", "steps must be from 1 to 1000000, got " + str(steps));
  if (s.examples.empty()) return Status::Range("examples", "no examples yet: call setData(examples) first");
  auto refuse = [&](const std::string& what) {
    if (s.have_before) {  // the last update made these weights: back to those before it
      s.restore();
      s.have_before = false;
      --s.steps;
      if (!report->losses.empty()) {
        report->losses.pop_back();
        report->gradient_norms.pop_back();
      }
    }
    return Status::Range("optimizer.learningRate", "learning rate too large: " + what + " at step " + str(s.steps + 1) +
                                                       "; the weights are those of step " + str(s.steps));
  };
  for (int k = 0; k < steps; ++k) {
    double loss = 0;
    int right = 0, scored = 0;
    if (Status st = s.run(s.examples, s.batch_for_step(s.steps), true, &loss, &right, &scored); !st.ok()) {
      return s.have_before ? refuse("the activations overflowed") : st;
    }
    double sum = 0;
    for (const Parameter& p : s.parameters)
      if (p.trained)
        for (float g : p.gradient) sum += static_cast<double>(g) * g;
    const double norm = std::sqrt(sum);
    if (!std::isfinite(loss) || !std::isfinite(norm)) return refuse("the loss or its gradients became ∞");
    report->losses.push_back(loss);
    report->gradient_norms.push_back(norm);
    const double clip = s.spec.optimizer.clip_norm;
    s.save();
    optimizer_update(s.spec.optimizer, clip > 0 && norm > clip ? clip / norm : 1.0, &s.beta1_power, &s.beta2_power,
                     &s.parameters);
    ++s.steps;
    s.have_before = true;
    bool finite = true;
    for (const Parameter& p : s.parameters) finite = finite && all_finite(p.value.data(), p.value.size());
    if (!finite) return refuse("a weight became ∞");
  }
  return Status::Ok();
}

// Switches the heads `ablate` off (their rows of layers.L.wo zeroed) for the length of `call`, then puts
// the weights back as they were.
template <typename Call>
Status StackTrainer::State::with_ablation(const std::vector<StackHead>& ablate, Call call) {
  for (std::size_t i = 0; i < ablate.size(); ++i) {
    const std::string at = "ablate[" + str(static_cast<long long>(i)) + "]";
    if (ablate[i].layer < 0 || ablate[i].layer >= spec.model.layers) {
      return Status::Range(at + ".layer", at + ".layer must be from 0 to " + str(spec.model.layers - 1) + ", got " +
                                              str(ablate[i].layer));
    }
    if (ablate[i].head < 0 || ablate[i].head >= spec.model.heads) {
      return Status::Range(
          at + ".head", at + ".head must be from 0 to " + str(spec.model.heads - 1) + ", got " + str(ablate[i].head));
    }
  }
  std::vector<std::vector<float>> kept;
  for (const StackHead& a : ablate) {
    std::vector<float>& wo = find(layer_name(a.layer, "wo"))->value;  // (h · d_k, d): the head's d_k rows
    kept.push_back(wo);
    const std::size_t row = static_cast<std::size_t>(spec.model.d_model);
    std::fill(wo.begin() + static_cast<std::ptrdiff_t>(a.head * d_k * row),
              wo.begin() + static_cast<std::ptrdiff_t>((a.head + 1) * d_k * row), 0.0f);
  }
  const Status status = call();
  for (std::size_t i = ablate.size(); i-- > 0;) find(layer_name(ablate[i].layer, "wo"))->value = kept[i];
  return status;
}

Status StackTrainer::evaluate(const std::vector<StackExample>& examples, StackEvaluation* evaluation,
                              const std::vector<StackHead>& ablate) {
  if (examples.empty()) return Status::Range("examples", "examples is empty; give at least one");
  if (Status s = state_->check_examples(examples); !s.ok()) return s;
  std::vector<int> all(examples.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  int right = 0, scored = 0;
  if (Status s = state_->with_ablation(
          ablate, [&] { return state_->run(examples, all, false, &evaluation->loss, &right, &scored); });
      !s.ok()) {
    return s;
  }
  evaluation->accuracy = state_->spec.loss.kind == StackLossKind::Regress ? std::numeric_limits<double>::quiet_NaN()
                                                                          : static_cast<double>(right) / scored;
  return Status::Ok();
}

Status StackTrainer::loss_and_gradients(const std::vector<StackExample>& examples, double* loss,
                                        std::vector<std::vector<float>>* gradients) {
  if (examples.empty()) return Status::Range("examples", "examples is empty; give at least one");
  if (Status s = state_->check_examples(examples); !s.ok()) return s;
  std::vector<int> all(examples.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  int right = 0, scored = 0;
  if (Status s = state_->run(examples, all, true, loss, &right, &scored); !s.ok()) return s;
  gradients->clear();
  for (const Parameter& p : state_->parameters) gradients->push_back(p.gradient);
  return Status::Ok();
}

Status StackTrainer::trace(const StackExample& example, StackTrace* trace, const std::vector<StackHead>& ablate) {
  if (Status s = state_->check_examples({example}); !s.ok()) return s;
  const std::vector<std::int32_t> ids(example.ids.begin(), example.ids.end());
  StackInputs inputs;
  inputs.ids = View<std::int32_t>(ids.data(), ids.size());
  return state_->with_ablation(ablate, [&] { return stack_forward(state_->build(), inputs, trace); });
}

std::vector<std::string> StackTrainer::parameter_names() const { return parameter_names_of(state_->parameters); }

const std::vector<float>* StackTrainer::parameter(const std::string& name) const {
  const Parameter* p = state_->find(name);
  return p ? &p->value : nullptr;
}

Status StackTrainer::set_parameter(const std::string& name, View<float> values) {
  Parameter* p = state_->find(name);
  if (p == nullptr) return Status::Range(name, name + " is not a parameter of this model");
  if (values.size != p->value.size()) {
    return Status::Range(name, name + " has " + str(values.size) + " values; expected " + str(p->value.size()));
  }
  if (!all_finite(values.data, values.size)) {
    return Status::Range(name, name + " holds a value that is not a finite number");
  }
  p->value.assign(values.data, values.data + values.size);
  for (Parameter& q : state_->parameters) {
    std::fill(q.moment1.begin(), q.moment1.end(), 0.0f);
    std::fill(q.moment2.begin(), q.moment2.end(), 0.0f);
  }
  state_->beta1_power = state_->beta2_power = 1;
  state_->have_before = false;
  return Status::Ok();
}

int StackTrainer::steps_taken() const { return state_->steps; }

}  // namespace attn
