// The trainer's examples and losses: each example's checks, and its loss with the gradient that
// goes into the parameters (attention_backward adds the attention layer's part).
//   per example: x (n, d_model)  output (n, d_out)  weights (h, n, n)  d_output (n, d_out)
//   classify: logits, probabilities (C)  readout (d_out, C)
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attention_common.hpp"
#include "forward.hpp"
#include "ops.hpp"
#include "trainer_state.hpp"
#include "validate.hpp"

namespace attn {
namespace {

std::string str(long long value) { return std::to_string(value); }

}  // namespace

Status Trainer::State::check_examples(const std::vector<Example>& list) const {
  const int d = shape.d_model;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Example& e = list[i];
    const std::string at = "examples[" + str(static_cast<long long>(i)) + "].";
    if (e.n < 1 || e.n > kMaxTokens) {
      return Status::Range(at + "x", at + "x must hold 1 to " + str(kMaxTokens) + " tokens, got " + str(e.n));
    }
    if (1ull * shape.heads * e.n * e.n > kMaxMatrixValues) {
      return Status::Range(at + "x", at + "x has " + str(e.n) + " tokens: heads × n × n = " + str(shape.heads) + " × " +
                                         str(e.n) + " × " + str(e.n) + " attention weights, above the cap of " +
                                         str(kMaxMatrixValues));
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

Status Trainer::State::example_loss(const Example& e, float weight, bool gradients, double* loss, bool* correct) {
  const int n = e.n, d_out = shape.d_out, heads = shape.heads;
  const Config config = config_for(n);
  const Inputs inputs = inputs_for(x_of(e, &gathered_x));
  Result forward;
  // The weights are checked when they change and the example when it is set: the forward pass
  // without validate() (forward.hpp), on the model's shape at this n.
  Shape example_shape = shape;
  example_shape.n = example_shape.m = n;
  if (Status s = forward_checked(config, inputs, example_shape, nullptr, true, &forward); !s.ok()) {
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
}  // namespace attn
