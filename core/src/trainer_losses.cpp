// The trainer's examples and losses: each example's checks, the examples' run through the layer
// (trainer_layer.cpp, a chunk of them at once), and each one's loss with the gradient that goes into
// the parameters (the layer's backward pass adds the attention layer's part).
//   per example: x (n, d_model)  output (n, d_out)  weights (h, n, n)  d_output (n, d_out)
//   classify: logits, probabilities (C)  readout (d_out, C)
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

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
          return Status::Range(
              at + "x", at + "x[" + str(j) + "] is " + format_number(e.x[j]) + "; every value must be a finite number");
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
      return Status::Range(at + "query",
                           at + "query (" + str(e.query) + ") is outside the sentence of " + str(e.n) + " tokens");
    }
    if (spec.loss.kind == LossKind::Attend) {
      if (e.head != kLossHead && (e.head < -1 || e.head >= shape.heads)) {
        return Status::Range(at + "head", at + "head must be 'mean' or a head from 0 to " + str(shape.heads - 1) +
                                              ", got " + str(e.head));
      }
      if (e.target < 0 || e.target >= e.n) {
        return Status::Range(at + "target",
                             at + "target (" + str(e.target) + ") is outside the sentence of " + str(e.n) + " tokens");
      }
      if (spec.model.mask_mode == MaskMode::Causal && e.target > e.query) {
        return Status::Range(at + "target", at + "target (" + str(e.target) + ") comes after query (" + str(e.query) +
                                                "), which the causal mask hides from it");
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

namespace {

// Chunks of the examples run through the layer together hold at most this many floats of
// attention weights and row buffers (16 MiB), so that a large batch of long sentences does not
// need all of its intermediates at once.
constexpr std::size_t kChunkValues = std::size_t{1} << 22;

}  // namespace

void Trainer::State::run_examples(const std::vector<Example>& list, const std::vector<int>& indices, float weight,
                                  bool gradients, double* loss_sum, int* right) {
  const int d = shape.d_model;
  const bool attend = spec.loss.kind == LossKind::Attend;
  LayerParameters p;
  const float** values[] = {&p.wq, &p.wk, &p.wv, &p.wo, &p.bq, &p.bk, &p.bv, &p.bo};
  LayerGradients g;
  float** slots[] = {&g.wq, &g.wk, &g.wv, &g.wo, &g.bq, &g.bk, &g.bv, &g.bo};
  for (int i = 0; i < 8; ++i) {
    if (Parameter* parameter = find(kAttentionParameters[i])) {
      *values[i] = parameter->value.data();
      if (gradients && parameter->trained) *slots[i] = parameter->gradient.data();
    }
  }
  Parameter* table = find("embeddings");
  const bool want_dx = gradients && table != nullptr && table->trained;
  // floats per token and per attention weight that a chunk holds (x, qkv, concat, output and their gradients)
  const std::size_t per_row = 2 * (static_cast<std::size_t>(d) + 2 * shape.heads * shape.d_k +
                                   2 * static_cast<std::size_t>(shape.heads) * shape.d_v + shape.d_out);
  std::vector<int> lengths;
  for (std::size_t first = 0; first < indices.size();) {
    // the chunk: examples first … last − 1, at least one
    std::size_t last = first, values_held = 0;
    lengths.clear();
    while (last < indices.size()) {
      const std::size_t n = list[indices[last]].n;
      const std::size_t cost = n * per_row + 2 * shape.heads * n * n;
      if (last > first && values_held + cost > kChunkValues) break;
      values_held += cost;
      lengths.push_back(static_cast<int>(n));
      ++last;
    }
    layer.begin(lengths, gradients && attend);
    for (std::size_t s = 0; s < lengths.size(); ++s) {  // x: the example's own, or its tokens' rows of the table
      const Example& e = list[indices[first + s]];
      float* x_s = layer.x() + static_cast<std::size_t>(layer.first_row(static_cast<int>(s))) * d;
      if (table == nullptr) {
        std::copy(e.x.begin(), e.x.end(), x_s);
      } else {
        for (int t = 0; t < e.n; ++t)
          std::copy_n(table->value.begin() + static_cast<std::size_t>(e.tokens[t]) * d, d, x_s + t * d);
      }
    }
    if (!layer.forward(p)) {  // the weights have grown past float32
      *loss_sum = std::numeric_limits<double>::infinity();
      return;
    }
    for (std::size_t s = 0; s < lengths.size(); ++s) {
      double loss = 0;
      bool correct = false;
      example_loss(list[indices[first + s]], static_cast<int>(s), weight, gradients, &loss, &correct);
      *loss_sum += loss;
      *right += correct;
    }
    if (gradients && std::isfinite(*loss_sum)) {
      if (want_dx) {
        dx.resize(static_cast<std::size_t>(layer.rows()) * d);
        g.dx = dx.data();
      }
      layer.backward(p, g);
      if (want_dx) {  // each row's gradient into its token's row of the table
        for (std::size_t s = 0; s < lengths.size(); ++s) {
          const Example& e = list[indices[first + s]];
          const float* dx_s = dx.data() + static_cast<std::size_t>(layer.first_row(static_cast<int>(s))) * d;
          for (int t = 0; t < e.n; ++t) {
            float* row = table->gradient.data() + static_cast<std::size_t>(e.tokens[t]) * d;
            for (int c = 0; c < d; ++c) row[c] += dx_s[t * d + c];
          }
        }
      }
    }
    first = last;
  }
}

void Trainer::State::example_loss(const Example& e, int sentence, float weight, bool gradients, double* loss,
                                  bool* correct) {
  const int n = e.n, d_out = shape.d_out, heads = shape.heads;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const float* output = layer.output() + static_cast<std::size_t>(layer.first_row(sentence)) * d_out;
  float* d_output = layer.d_output() + static_cast<std::size_t>(layer.first_row(sentence)) * d_out;
  *correct = false;

  switch (spec.loss.kind) {
    case LossKind::Attend: {
      // p = the query row's weights in one head, or their mean over heads; loss = -log p[target]
      const float* weights = layer.weights_of(sentence);
      const int head = e.head == kLossHead ? spec.loss.head : e.head;
      const int first = head < 0 ? 0 : head;
      const int last = head < 0 ? heads : head + 1;
      const double share = 1.0 / (last - first);
      std::vector<double> p(n, 0.0);
      for (int h = first; h < last; ++h)
        for (int j = 0; j < n; ++j) p[j] += share * weights[h * nn + static_cast<std::size_t>(e.query) * n + j];
      *loss = -std::log(p[e.target]);
      *correct = std::max_element(p.begin(), p.end()) - p.begin() == e.target;
      if (gradients) {
        // dL/dA_h[query][target] = -share / p[target]; nothing else in the row.
        float* d_weights = layer.d_weights_of(sentence);
        const float d_target = static_cast<float>(-share / std::max(p[e.target], 1e-30)) * weight;
        for (int h = first; h < last; ++h)
          d_weights[h * nn + static_cast<std::size_t>(e.query) * n + e.target] = d_target;
      }
      break;
    }
    case LossKind::Classify: {
      const int classes = spec.loss.classes;
      const std::vector<float>& readout = find("readout")->value;
      const std::vector<float>& bias = find("readoutBias")->value;
      const float* o = output + static_cast<std::size_t>(e.query) * d_out;
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
        float* d_o = d_output + static_cast<std::size_t>(e.query) * d_out;
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
      const std::size_t count = static_cast<std::size_t>(n) * d_out;
      double total = 0;
      const float scale = 2.0f / static_cast<float>(count) * weight;
      for (std::size_t i = 0; i < count; ++i) {
        const float error = output[i] - e.target_output[i];
        total += static_cast<double>(error) * error;
        d_output[i] = scale * error;
      }
      *loss = total / count;
      break;
    }
  }
}
}  // namespace attn
