// attention_backward against central finite differences of the float64 reference forward
// (reference.cpp, written independently of the core), over random shapes and every mode.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "reference.hpp"

namespace {

// L = Σ d_output ⊙ output + Σ d_weights ⊙ weights, in float64.
double objective(const ref::Problem& p, const ref::Values& values, const std::vector<double>& d_output,
                 const std::vector<double>& d_weights) {
  const ref::Expected e = ref::forward(p, values);
  double loss = 0;
  for (std::size_t i = 0; i < e.output.size(); ++i) loss += d_output[i] * e.output[i];
  if (!d_weights.empty()) {
    const std::size_t nm = std::size_t(p.n) * p.m;
    for (int h = 0; h < p.heads; ++h)
      for (std::size_t i = 0; i < nm; ++i) loss += d_weights[h * nm + i] * e.heads[h].weights[i];
  }
  return loss;
}

// ‖got − want‖ / ‖want‖, with ‖want‖ floored at 0.01: some gradients are zero in theory (bk, since a
// softmax ignores a constant added to every score of a row), and then float32 rounding is all that
// is left on both sides, compared absolutely.
double relative_error(const std::vector<float>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-2);
}

struct Case {
  ref::Problem problem;
  std::vector<float> d_output, d_weights;  // d_weights empty: not given
};

attn::Gradients core_gradients(const Case& c, attn::Result* forward) {
  const attn::Config config = ref::config_of(c.problem);
  const attn::Inputs inputs = ref::inputs_of(c.problem);
  const attn::Status s = attn::attention_forward(config, inputs, true, forward);
  REQUIRE_MESSAGE(s.ok(), s.message);
  attn::Gradients g = attn::zero_gradients(forward->shape, inputs);
  attn::View<float> d_weights;
  if (!c.d_weights.empty()) d_weights = c.d_weights;
  const attn::Status b = attn::attention_backward(config, inputs, *forward, c.d_output, d_weights, &g);
  REQUIRE_MESSAGE(b.ok(), b.message);
  return g;
}

// Every gradient the core returns against central differences, step 1e-6, of the reference.
void check_against_finite_differences(const Case& c, const std::string& label) {
  INFO(label);
  attn::Result forward;
  const attn::Gradients g = core_gradients(c, &forward);
  const ref::Problem& p = c.problem;
  const std::vector<double> d_output(c.d_output.begin(), c.d_output.end());
  const std::vector<double> d_weights(c.d_weights.begin(), c.d_weights.end());
  ref::Values values = ref::values_of(p);
  const struct {
    const char* name;
    std::vector<double>* value;
    const std::vector<float>* gradient;
  } checks[] = {{"x", &values.x, &g.x},    {"context", &values.context, &g.context},
                {"wq", &values.wq, &g.wq}, {"wk", &values.wk, &g.wk},
                {"wv", &values.wv, &g.wv}, {"wo", &values.wo, &g.wo},
                {"bq", &values.bq, &g.bq}, {"bk", &values.bk, &g.bk},
                {"bv", &values.bv, &g.bv}, {"bo", &values.bo, &g.bo}};
  constexpr double kStep = 1e-6;
  for (const auto& check : checks) {
    if (check.name == std::string("context") && !p.cross) {
      CHECK_MESSAGE(check.gradient->empty(), "self-attention returns no context gradient");
      continue;
    }
    REQUIRE_MESSAGE(check.gradient->size() == check.value->size(),
                    check.name << ": " << check.gradient->size() << " values, expected " << check.value->size());
    std::vector<double> numeric(check.value->size());
    for (std::size_t i = 0; i < numeric.size(); ++i) {
      const double saved = (*check.value)[i];
      (*check.value)[i] = saved + kStep;
      const double up = objective(p, values, d_output, d_weights);
      (*check.value)[i] = saved - kStep;
      const double down = objective(p, values, d_output, d_weights);
      (*check.value)[i] = saved;
      numeric[i] = (up - down) / (2 * kStep);
    }
    const double error = relative_error(*check.gradient, numeric);
    CHECK_MESSAGE(error <= 1e-3, std::string(check.name) << ": norm-wise relative error " << error);
  }
  // The output comes back too, and is the forward's.
  ref::check_close("output", forward.output, ref::forward(p).output, forward.shape.d_out, 1e-4, 1e-4);
}

std::vector<float> random_values(std::mt19937_64& rng, std::size_t count) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = unit(rng);
  return v;
}

}  // namespace

TEST_CASE("every gradient against finite differences: random shapes, every mask and scale mode") {
  std::mt19937_64 rng(1414);
  auto pick = [&](int lo, int hi) { return static_cast<int>(lo + rng() % (hi - lo + 1)); };
  const ref::Scale scales[] = {ref::Scale::SqrtDk, ref::Scale::None, ref::Scale::Divisor};
  const ref::Mask masks[] = {ref::Mask::None, ref::Mask::Causal, ref::Mask::Keep};
  int cases = 0;
  for (const ref::Scale scale : scales) {
    for (const ref::Mask mask : masks) {
      for (int cross = 0; cross <= 1; ++cross) {
        for (int trial = 0; trial < 4; ++trial) {
          const int n = pick(1, 9), m = pick(1, 9), d_model = pick(1, 12), heads = pick(1, 3);
          const int d_k = pick(0, 4) * 2 + 1, d_v = pick(0, 4) * 2 + 1;  // odd widths
          const bool with_wo = trial % 2 == 0, biases = trial / 2 == 1, positions = (trial + cross) % 2 == 1;
          Case c;
          c.problem = ref::random_problem(rng(), n, m, d_model, heads, d_k, d_v, cross, with_wo, scale, mask);
          if (biases) ref::add_biases(&c.problem, rng());
          c.problem.positions = positions;
          const int d_out = with_wo ? d_model : heads * d_v;
          c.d_output = random_values(rng, std::size_t(n) * d_out);
          if (trial % 3 == 1) c.d_weights = random_values(rng, std::size_t(heads) * n * c.problem.m);
          std::ostringstream label;
          label << "n=" << n << " m=" << c.problem.m << " dModel=" << d_model << " heads=" << heads << " dK=" << d_k
                << " dV=" << d_v << " scale=" << int(scale) << " mask=" << int(mask) << " cross=" << cross
                << " wo=" << with_wo << " biases=" << biases << " positions=" << positions
                << " dWeights=" << !c.d_weights.empty();
          check_against_finite_differences(c, label.str());
          ++cases;
        }
      }
    }
  }
  CHECK(cases == 72);
}

TEST_CASE("identity projections: the gradient reaches x through q, k and v at once") {
  std::mt19937_64 rng(7);
  for (int d_model : {1, 3, 8}) {
    Case c;
    c.problem = ref::random_problem(rng(), 5, 5, d_model, 1, d_model, d_model, false, false, ref::Scale::SqrtDk,
                                    ref::Mask::None);
    c.problem.wq.clear();
    c.problem.wk.clear();
    c.problem.wv.clear();
    c.d_output = random_values(rng, std::size_t(5) * d_model);
    check_against_finite_differences(c, "identity, dModel=" + std::to_string(d_model));
  }
}

TEST_CASE("dWeights alone: a loss on where attention looks") {
  std::mt19937_64 rng(8);
  for (int cross = 0; cross <= 1; ++cross) {
    Case c;
    c.problem = ref::random_problem(rng(), 6, 4, 7, 2, 3, 5, cross, true, ref::Scale::SqrtDk, ref::Mask::Causal);
    ref::add_biases(&c.problem, rng());
    c.d_output.assign(std::size_t(6) * 7, 0.0f);
    c.d_weights = random_values(rng, std::size_t(2) * 6 * c.problem.m);
    check_against_finite_differences(c, "dWeights only, cross=" + std::to_string(cross));
  }
}

TEST_CASE("masked entries carry no gradient; a fully masked row none either") {
  std::mt19937_64 rng(9);
  // random_problem's keep-mask masks every key of row 0.
  Case c;
  c.problem = ref::random_problem(rng(), 5, 6, 4, 2, 3, 3, true, true, ref::Scale::SqrtDk, ref::Mask::Keep);
  ref::add_biases(&c.problem, rng());
  const int n = 5, m = 6, d = 4;
  // dOutput only on the fully masked row 0, dWeights only on masked cells.
  c.d_output.assign(std::size_t(n) * d, 0.0f);
  for (int t = 0; t < d; ++t) c.d_output[t] = 1.0f;
  c.d_weights.assign(std::size_t(2) * n * m, 0.0f);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < n * m; ++i)
      if (!c.problem.keep[i]) c.d_weights[h * n * m + i] = 3.0f;
  attn::Result forward;
  const attn::Gradients g = core_gradients(c, &forward);
  for (const std::vector<float>* zero : {&g.x, &g.context, &g.wq, &g.wk, &g.wv, &g.bq, &g.bk, &g.bv, &g.wo}) {
    for (float value : *zero) CHECK(value == 0.0f);
  }
  // Only bo sees the masked row's dOutput: output row 0 = 0·wo + bo.
  for (int t = 0; t < d; ++t) CHECK(g.bo[t] == 1.0f);
}

TEST_CASE("gradients accumulate with += into the caller's buffers") {
  std::mt19937_64 rng(10);
  Case c;
  c.problem = ref::random_problem(rng(), 4, 4, 6, 2, 3, 3, false, true, ref::Scale::SqrtDk, ref::Mask::None);
  c.d_output = random_values(rng, std::size_t(4) * 6);
  attn::Result forward;
  const attn::Gradients once = core_gradients(c, &forward);
  attn::Gradients twice = once;
  const attn::Status s =
      attn::attention_backward(ref::config_of(c.problem), ref::inputs_of(c.problem), forward, c.d_output, {}, &twice);
  REQUIRE(s.ok());
  for (std::size_t i = 0; i < once.wq.size(); ++i) CHECK(twice.wq[i] == 2.0f * once.wq[i]);
  // x sums several paths, so the second pass rounds differently: close, not identical
  for (std::size_t i = 0; i < once.x.size(); ++i) CHECK(twice.x[i] == doctest::Approx(2.0f * once.x[i]).epsilon(1e-5));
}

TEST_CASE("a gradient left empty is skipped, and the others are the same bits") {
  std::mt19937_64 rng(12);
  for (int cross = 0; cross <= 1; ++cross) {
    Case c;
    c.problem = ref::random_problem(rng(), 5, 4, 6, 2, 3, 3, cross, true, ref::Scale::SqrtDk, ref::Mask::Causal);
    ref::add_biases(&c.problem, rng());
    c.d_output = random_values(rng, std::size_t(5) * 6);
    attn::Result forward;
    const attn::Gradients all = core_gradients(c, &forward);
    const attn::Config config = ref::config_of(c.problem);
    const attn::Inputs inputs = ref::inputs_of(c.problem);
    // Only wq and wk wanted (the attend task's choice), then only x and bo.
    attn::Gradients some;
    some.wq.assign(all.wq.size(), 0.0f);
    some.wk.assign(all.wk.size(), 0.0f);
    REQUIRE(attn::attention_backward(config, inputs, forward, c.d_output, {}, &some).ok());
    CHECK(some.wq == all.wq);
    CHECK(some.wk == all.wk);
    CHECK(some.x.empty());
    CHECK(some.wv.empty());
    attn::Gradients others;
    others.x.assign(all.x.size(), 0.0f);
    others.bo.assign(all.bo.size(), 0.0f);
    REQUIRE(attn::attention_backward(config, inputs, forward, c.d_output, {}, &others).ok());
    CHECK(others.x == all.x);  // the same paths, added in the same order
    CHECK(others.bo == all.bo);
  }
}

TEST_CASE("backward errors name the field") {
  std::mt19937_64 rng(11);
  const ref::Problem p = ref::random_problem(rng(), 3, 3, 4, 1, 3, 3, false, true, ref::Scale::SqrtDk, ref::Mask::None);
  const attn::Config config = ref::config_of(p);
  const attn::Inputs inputs = ref::inputs_of(p);
  attn::Result forward;
  REQUIRE(attn::attention_forward(config, inputs, true, &forward).ok());
  attn::Gradients g = attn::zero_gradients(forward.shape, inputs);
  std::vector<float> d_output(12, 0.5f);
  {
    const std::vector<float> short_d_output(11, 0.5f);
    const attn::Status s = attn::attention_backward(config, inputs, forward, short_d_output, {}, &g);
    CHECK(s.field == "dOutput");
    CHECK(s.message == "dOutput has 11 values; expected n × dOut = 3 × 4 = 12");
  }
  {
    std::vector<float> bad = d_output;
    bad[5] = INFINITY;
    CHECK(attn::attention_backward(config, inputs, forward, bad, {}, &g).field == "dOutput");
  }
  {
    const std::vector<float> d_weights(8, 0.0f);
    const attn::Status s = attn::attention_backward(config, inputs, forward, d_output, d_weights, &g);
    CHECK(s.field == "dWeights");
    CHECK(s.message == "dWeights has 8 values; expected heads × n × m = 1 × 3 × 3 = 9");
  }
  {
    attn::Result untraced;
    REQUIRE(attn::attention_forward(config, inputs, false, &untraced).ok());
    CHECK(attn::attention_backward(config, inputs, untraced, d_output, {}, &g).field == "trace");
  }
  {
    attn::Gradients wrong = attn::zero_gradients(forward.shape, inputs);
    wrong.wq.resize(5);
    CHECK(attn::attention_backward(config, inputs, forward, d_output, {}, &wrong).field == "gradients");
  }
}
