// Attention as real models have it: grouped-query attention (kv_heads), rotary positions (RoPE,
// rotate-half) and a sliding window on top of every mask mode. The forward against the float64
// reference (reference.cpp, which writes each of them from its definition), every gradient against
// central finite differences of that reference, the bits of plain multi-head attention kept, every
// refusal naming its field, and the attention layers of Hugging Face's Llama and Qwen2
// (../shared/models/) reproduced through attention_forward.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model_files.hpp"
#include "reference.hpp"

namespace {

// as test_against_reference.cpp: float32 storage and accumulation over a few hundred O(1) terms
constexpr double kAtol = 1e-4;
constexpr double kRtol = 1e-4;

using Vec = std::vector<double>;
using Floats = std::vector<float>;

std::string describe(const ref::Problem& p) {
  std::ostringstream label;
  label << "n=" << p.n << " m=" << p.m << " dModel=" << p.d_model << " heads=" << p.heads << " kvHeads=" << p.kv_heads
        << " dK=" << p.d_k << " dV=" << p.d_v << " mask=" << int(p.mask) << " scale=" << int(p.scale)
        << " cross=" << p.cross << " wo=" << !p.wo.empty() << " biases=" << !p.bq.empty()
        << " rotary.dims=" << p.rotary_dims << " theta=" << p.theta << " firstPosition=" << p.first_position
        << " window=" << p.window;
  return label.str();
}

// A random problem with every new option drawn: kv_heads a divisor of heads (1, heads, or between),
// rotary.dims from 0 to d_k (even), theta, first_position and the window.
ref::Problem random_modern(std::mt19937_64& rng, int max_n, int max_d_model, int max_heads, ref::Mask mask, bool cross,
                           int option) {
  auto pick = [&](int lo, int hi) { return static_cast<int>(lo + rng() % (hi - lo + 1)); };
  const int heads = pick(1, max_heads), n = pick(1, max_n), m = pick(1, max_n), d_model = pick(1, max_d_model);
  const int d_k = pick(1, 6) * 2 + (option % 2), d_v = pick(1, 7);
  const ref::Scale scales[] = {ref::Scale::SqrtDk, ref::Scale::None, ref::Scale::Divisor};
  ref::Problem p =
      ref::random_problem(rng(), n, m, d_model, heads, d_k, d_v, cross, option % 3 != 2, scales[rng() % 3], mask);
  if (option % 2 == 0) ref::add_biases(&p, rng());
  std::vector<int> divisors;
  for (int g = 1; g <= heads; ++g)
    if (heads % g == 0) divisors.push_back(g);
  const int kv_heads = option % 4 == 0 ? 1 : divisors[rng() % divisors.size()];
  ref::group_heads(&p, kv_heads, rng());
  const int rotary_choice = option % 3;  // none, all of d_k (even part), part of it
  p.rotary_dims = rotary_choice == 0 ? 0 : rotary_choice == 1 ? d_k / 2 * 2 : pick(0, d_k / 2) * 2;
  p.theta = rng() % 2 ? 10000.0 : 1.0 + pick(1, 500);
  // positions from 0, from a few thousand, and near the cap (the largest angles the rotation takes)
  p.first_position = rng() % 2 ? 0 : rng() % 3 ? pick(1, 3000) : attn::kMaxPosition - pick(0, 5);
  p.window = option % 5 == 0 ? 0 : pick(1, std::max(n, p.m) + 1);
  return p;
}

// ‖got − want‖ / ‖want‖
double normwise_error(const Floats& got, const Vec& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff) / std::sqrt(norm);
}

void compare_forward(const ref::Problem& p) {
  INFO(describe(p));
  const ref::Expected want = ref::forward(p);
  attn::Result traced, fast;
  const attn::Status s1 = attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &traced);
  REQUIRE_MESSAGE(s1.ok(), s1.message);
  const attn::Status s2 = attn::attention_forward(ref::config_of(p), ref::inputs_of(p), false, &fast);
  REQUIRE_MESSAGE(s2.ok(), s2.message);
  REQUIRE(traced.heads.size() == static_cast<std::size_t>(p.heads));
  for (int h = 0; h < p.heads; ++h) {
    const attn::HeadTrace& got = traced.heads[h];
    const ref::Head& w = want.heads[h];
    const std::string at = " of head " + std::to_string(h);
    ref::check_close("q" + at, got.q, w.q, p.d_k, kAtol, kRtol);
    ref::check_close("k" + at, got.k, w.k, p.d_k, kAtol, kRtol);
    ref::check_close("v" + at, got.v, w.v, p.d_v, kAtol, kRtol);
    if (p.rotary_dims > 0) {
      ref::check_close("q before rotation" + at, got.q_unrotated, w.q_unrotated, p.d_k, kAtol, kRtol);
      ref::check_close("k before rotation" + at, got.k_unrotated, w.k_unrotated, p.d_k, kAtol, kRtol);
    } else {
      CHECK(got.q_unrotated.empty());
      CHECK(got.k_unrotated.empty());
    }
    ref::check_close("scores" + at, got.scores, w.scores, p.m, kAtol, kRtol);
    ref::check_close("scaled" + at, got.scaled, w.scaled, p.m, kAtol, kRtol);
    ref::check_close("weights" + at, got.weights, w.weights, p.m, kAtol, kRtol);
    ref::check_close("z" + at, got.z, w.z, p.d_v, kAtol, kRtol);
  }
  ref::check_close("output", traced.output, want.output, traced.shape.d_out, kAtol, kRtol);
  CHECK(traced.shape.kv_heads == (p.kv_heads == 0 ? p.heads : p.kv_heads));
  CHECK(fast.output == traced.output);  // the trace-free path (by blocks without a mask): the same bits
}

}  // namespace

TEST_CASE("grouped heads, rotary positions and a sliding window against the float64 reference") {
  std::mt19937_64 rng(2026112701);
  const ref::Mask masks[] = {ref::Mask::None, ref::Mask::Causal, ref::Mask::Keep};
  int cases = 0;
  for (const ref::Mask mask : masks) {
    for (int cross = 0; cross <= 1; ++cross) {
      for (int option = 0; option < 30; ++option) {
        // every 6th problem large enough for the products' packed paths and the query blocks
        const bool large = option % 6 == 5;
        compare_forward(random_modern(rng, large ? 80 : 9, large ? 96 : 16, large ? 8 : 4, mask, cross, option));
        ++cases;
      }
    }
  }
  CHECK(cases == 180);
}

TEST_CASE("the sliding window keeps key j for query i exactly when i - j < window, on every mask mode") {
  // Mistral / Qwen2 in transformers: kv_idx > q_idx - sliding_window, and with causal kv_idx <= q_idx.
  std::mt19937_64 rng(7);
  const ref::Mask masks[] = {ref::Mask::None, ref::Mask::Causal, ref::Mask::Keep};
  for (const ref::Mask mask : masks) {
    ref::Problem p = ref::random_problem(rng(), 7, 7, 6, 2, 4, 3, false, true, ref::Scale::SqrtDk, mask);
    p.window = 3;
    attn::Result r;
    REQUIRE(attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &r).ok());
    for (int h = 0; h < 2; ++h) {
      for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) {
          const bool by_mask = mask == ref::Mask::None     ? true
                               : mask == ref::Mask::Causal ? j <= i
                                                           : p.keep[i * 7 + j] != 0;
          const bool visible = by_mask && i - j < 3;
          const float scaled = r.heads[h].scaled[i * 7 + j];
          INFO("mask " << int(mask) << " head " << h << " query " << i << " key " << j);
          CHECK((scaled != -std::numeric_limits<float>::infinity()) == visible);
          if (!visible) CHECK(r.heads[h].weights[i * 7 + j] == 0.0f);
        }
      }
    }
  }
}

TEST_CASE("kvHeads = heads, rotary.dims = 0 and window = 0 are plain multi-head attention, bit for bit") {
  std::mt19937_64 rng(99);
  const ref::Mask masks[] = {ref::Mask::None, ref::Mask::Causal, ref::Mask::Keep};
  for (const ref::Mask mask : masks) {
    for (int trial = 0; trial < 6; ++trial) {
      const int n = trial < 3 ? 5 : 70;
      ref::Problem p =
          ref::random_problem(rng(), n, n + 3, 24, 4, 6, 5, trial % 2 == 1, true, ref::Scale::SqrtDk, mask);
      ref::add_biases(&p, rng());
      INFO(describe(p));
      for (const bool trace : {true, false}) {
        attn::Result plain, explicit_mha;
        REQUIRE(attn::attention_forward(ref::config_of(p), ref::inputs_of(p), trace, &plain).ok());
        attn::Config config = ref::config_of(p);
        config.kv_heads = 4;
        config.rotary.theta = 500;  // unused without rotated dimensions
        config.rotary.first_position = 17;
        REQUIRE(attn::attention_forward(config, ref::inputs_of(p), trace, &explicit_mha).ok());
        CHECK(explicit_mha.output == plain.output);
        for (std::size_t h = 0; h < plain.heads.size(); ++h) {
          CHECK(explicit_mha.heads[h].weights == plain.heads[h].weights);
          CHECK(explicit_mha.heads[h].k == plain.heads[h].k);
        }
      }
    }
  }
}

TEST_CASE("grouped-query attention is multi-head attention with each key/value head repeated") {
  std::mt19937_64 rng(5150);
  for (const int kv_heads : {1, 2, 3}) {
    ref::Problem p = ref::random_problem(rng(), 9, 9, 16, 6, 4, 5, false, true, ref::Scale::SqrtDk, ref::Mask::Causal);
    ref::add_biases(&p, rng());
    ref::group_heads(&p, kv_heads, rng());
    p.rotary_dims = 4;
    p.window = 4;
    ref::Problem repeated = p;  // wk, wv, bk, bv: one block per query head, copied from its group's
    repeated.kv_heads = 0;
    const int group = 6 / kv_heads;
    auto repeat = [&](const std::vector<float>& blocks, std::size_t block) {
      std::vector<float> out;
      for (int h = 0; h < 6; ++h)
        out.insert(out.end(), blocks.begin() + (h / group) * block, blocks.begin() + (h / group + 1) * block);
      return out;
    };
    repeated.wk = repeat(p.wk, 16 * 4);
    repeated.wv = repeat(p.wv, 16 * 5);
    repeated.bk = repeat(p.bk, 4);
    repeated.bv = repeat(p.bv, 5);
    attn::Result grouped, mha;
    REQUIRE(attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &grouped).ok());
    REQUIRE(attn::attention_forward(ref::config_of(repeated), ref::inputs_of(repeated), true, &mha).ok());
    CHECK(grouped.output == mha.output);  // the same projections, in the same order: the same bits
    for (int h = 0; h < 6; ++h) {
      CHECK(grouped.heads[h].k == grouped.heads[(h / group) * group].k);  // one k per group, in every head
      CHECK(grouped.heads[h].k_unrotated == mha.heads[h].k_unrotated);
    }
    // gradients: a key/value head's is the sum of its repeated copies'
    std::vector<float> d_output(9 * 16);
    for (std::size_t i = 0; i < d_output.size(); ++i) d_output[i] = std::sin(0.7 * i);
    attn::Gradients g = attn::zero_gradients(grouped.shape, ref::inputs_of(p));
    attn::Gradients g_mha = attn::zero_gradients(mha.shape, ref::inputs_of(repeated));
    REQUIRE(attn::attention_backward(ref::config_of(p), ref::inputs_of(p), grouped, d_output, {}, &g).ok());
    REQUIRE(
        attn::attention_backward(ref::config_of(repeated), ref::inputs_of(repeated), mha, d_output, {}, &g_mha).ok());
    CHECK(g.wq == g_mha.wq);
    REQUIRE(g.wk.size() == p.wk.size());
    Vec summed(g.wk.size(), 0.0);
    const std::size_t block = 16 * 4;
    for (std::size_t i = 0; i < g.wk.size(); ++i) {
      for (int r = 0; r < group; ++r) summed[i] += g_mha.wk[((i / block) * group + r) * block + i % block];
    }
    // summed in another order (dk over the group's heads, then one projection): float32 rounding apart
    CHECK(normwise_error(g.wk, summed) <= 1e-5);
    CHECK(normwise_error(g.x, Vec(g_mha.x.begin(), g_mha.x.end())) <= 1e-5);
  }
}

// ---- Gradients -------------------------------------------------------------------------------------

namespace {

// L = Σ d_output ⊙ output + Σ d_weights ⊙ weights, in float64 through the reference.
double objective(const ref::Problem& p, const ref::Values& values, const Vec& d_output, const Vec& d_weights) {
  const ref::Expected e = ref::forward(p, values);
  double loss = 0;
  for (std::size_t i = 0; i < e.output.size(); ++i) loss += d_output[i] * e.output[i];
  const std::size_t nm = std::size_t(p.n) * p.m;
  for (std::size_t h = 0; h < e.heads.size() && !d_weights.empty(); ++h)
    for (std::size_t i = 0; i < nm; ++i) loss += d_weights[h * nm + i] * e.heads[h].weights[i];
  return loss;
}

// ‖got − want‖ / max(‖want‖, 0.01), as test_backward.cpp
double relative_error(const Floats& got, const Vec& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-2);
}

Floats random_floats(std::mt19937_64& rng, std::size_t count) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Floats v(count);
  for (float& x : v) x = unit(rng);
  return v;
}

void check_gradients(const ref::Problem& p, const Floats& d_output, const Floats& d_weights) {
  INFO(describe(p) << " dWeights=" << !d_weights.empty());
  const attn::Config config = ref::config_of(p);
  const attn::Inputs inputs = ref::inputs_of(p);
  attn::Result forward;
  REQUIRE(attn::attention_forward(config, inputs, true, &forward).ok());
  attn::Gradients g = attn::zero_gradients(forward.shape, inputs);
  attn::View<float> d_weights_view;
  if (!d_weights.empty()) d_weights_view = d_weights;
  const attn::Status s = attn::attention_backward(config, inputs, forward, d_output, d_weights_view, &g);
  REQUIRE_MESSAGE(s.ok(), s.message);
  ref::Values values = ref::values_of(p);
  const Vec d_out(d_output.begin(), d_output.end()), d_w(d_weights.begin(), d_weights.end());
  const struct {
    const char* name;
    Vec* value;
    const Floats* gradient;
  } checks[] = {{"x", &values.x, &g.x},    {"context", &values.context, &g.context},
                {"wq", &values.wq, &g.wq}, {"wk", &values.wk, &g.wk},
                {"wv", &values.wv, &g.wv}, {"wo", &values.wo, &g.wo},
                {"bq", &values.bq, &g.bq}, {"bk", &values.bk, &g.bk},
                {"bv", &values.bv, &g.bv}, {"bo", &values.bo, &g.bo}};
  constexpr double kStep = 1e-6;
  for (const auto& check : checks) {
    if (check.name == std::string("context") && !p.cross) continue;
    REQUIRE_MESSAGE(check.gradient->size() == check.value->size(),
                    check.name << ": " << check.gradient->size() << " values, expected " << check.value->size());
    Vec numeric(check.value->size());
    for (std::size_t i = 0; i < numeric.size(); ++i) {
      const double saved = (*check.value)[i];
      (*check.value)[i] = saved + kStep;
      const double up = objective(p, values, d_out, d_w);
      (*check.value)[i] = saved - kStep;
      const double down = objective(p, values, d_out, d_w);
      (*check.value)[i] = saved;
      numeric[i] = (up - down) / (2 * kStep);
    }
    const double error = relative_error(*check.gradient, numeric);
    CHECK_MESSAGE(error <= 1e-3, std::string(check.name) << ": norm-wise relative error " << error);
  }
}

}  // namespace

TEST_CASE("every gradient through grouped heads, the rotation and the window against finite differences") {
  std::mt19937_64 rng(31337);
  const ref::Mask masks[] = {ref::Mask::None, ref::Mask::Causal, ref::Mask::Keep};
  int cases = 0;
  for (const ref::Mask mask : masks) {
    for (int cross = 0; cross <= 1; ++cross) {
      for (int option = 0; option < 10; ++option) {
        const ref::Problem p = random_modern(rng, 7, 8, 4, mask, cross, option);
        const int d_out = p.wo.empty() ? p.heads * p.d_v : p.d_model;
        const Floats d_output = random_floats(rng, std::size_t(p.n) * d_out);
        const Floats d_weights = option % 3 == 1 ? random_floats(rng, std::size_t(p.heads) * p.n * p.m) : Floats();
        check_gradients(p, d_output, d_weights);
        ++cases;
      }
    }
  }
  CHECK(cases == 60);
}

// ---- Argument checks -------------------------------------------------------------------------------

namespace {

void check_refused(const ref::Problem& p, const char* field, const char* words) {
  INFO("field " << field);
  attn::Result result;
  result.output = {42.0f};
  const attn::Status s = attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &result);
  REQUIRE_FALSE(s.ok());
  CHECK(s.field == field);
  CHECK_MESSAGE(s.message.find(words) != std::string::npos, s.message);
  CHECK(result.output == std::vector<float>{42.0f});  // refused before any work: the result untouched
  // the prepared path refuses the same
  attn::Shape shape{};
  attn::PackedWeights packed;
  attn::Inputs weights = ref::inputs_of(p);
  const attn::Status prepared = attn::prepare_model(ref::config_of(p), weights, &shape, &packed);
  REQUIRE_FALSE(prepared.ok());
  CHECK(prepared.field == field);
}

}  // namespace

TEST_CASE("kvHeads, rotary.dims, rotary.theta, rotary.firstPosition and window: refusals name the field") {
  std::mt19937_64 rng(4);
  const ref::Problem good =
      ref::random_problem(rng(), 4, 4, 8, 4, 4, 4, false, true, ref::Scale::SqrtDk, ref::Mask::Causal);
  attn::Result accepted;
  REQUIRE(attn::attention_forward(ref::config_of(good), ref::inputs_of(good), true, &accepted).ok());
  struct Bad {
    const char* field;
    const char* words;
    void (*spoil)(ref::Problem*);
  };
  const Bad bad[] = {
      {"kvHeads", "kvHeads (3) must divide heads (4)", [](ref::Problem* p) { p->kv_heads = 3; }},
      {"kvHeads", "kvHeads (8) must divide heads (4)", [](ref::Problem* p) { p->kv_heads = 8; }},
      {"kvHeads", "kvHeads (-1) must divide heads (4)", [](ref::Problem* p) { p->kv_heads = -1; }},
      {"wk", "kvHeads × dModel × dK = 2 × 8 × 4 = 64", [](ref::Problem* p) { p->kv_heads = 2; }},
      {"rotary.dims", "rotary.dims is 3; it must be even", [](ref::Problem* p) { p->rotary_dims = 3; }},
      {"rotary.dims", "rotary.dims is 6; it must be even, from 0 (no rotation) to dK (4)",
       [](ref::Problem* p) { p->rotary_dims = 6; }},
      {"rotary.dims", "rotary.dims is -2", [](ref::Problem* p) { p->rotary_dims = -2; }},
      {"rotary.theta", "rotary.theta is 0; it must be a finite number above 1",
       [](ref::Problem* p) { p->rotary_dims = 2, p->theta = 0; }},
      {"rotary.theta", "rotary.theta is -5", [](ref::Problem* p) { p->theta = -5; }},
      {"rotary.theta", "rotary.theta is NaN", [](ref::Problem* p) { p->theta = std::nan(""); }},
      {"rotary.theta", "rotary.theta is Infinity", [](ref::Problem* p) { p->theta = HUGE_VAL; }},
      {"rotary.theta", "rotary.theta is 1; it must be a finite number above 1", [](ref::Problem* p) { p->theta = 1; }},
      {"rotary.firstPosition", "rotary.firstPosition is -1; it must be a whole number from 0 to 262144",
       [](ref::Problem* p) { p->first_position = -1; }},
      {"rotary.firstPosition", "rotary.firstPosition is 262145",
       [](ref::Problem* p) { p->first_position = (1 << 18) + 1; }},
      {"window", "window is -1; it must be 0 (no sliding window)", [](ref::Problem* p) { p->window = -1; }},
  };
  for (const Bad& b : bad) {
    ref::Problem p = good;
    b.spoil(&p);
    check_refused(p, b.field, b.words);
  }
  // bk of kvHeads blocks, as wk
  ref::Problem grouped = good;
  ref::add_biases(&grouped, 3);
  ref::group_heads(&grouped, 2, 5);
  grouped.bk.resize(4 * 4);
  check_refused(grouped, "bk", "kvHeads × dK = 2 × 4 = 8");
  grouped.bk.resize(2 * 4);
  attn::Result ok;
  CHECK(attn::attention_forward(ref::config_of(grouped), ref::inputs_of(grouped), true, &ok).ok());
}

TEST_CASE("the prepared path runs grouped heads, rotary positions and the window with attention_forward's bits") {
  std::mt19937_64 rng(8080);
  for (const ref::Mask mask : {ref::Mask::None, ref::Mask::Causal}) {
    for (int trial = 0; trial < 4; ++trial) {
      ref::Problem p =
          ref::random_problem(rng(), trial < 2 ? 6 : 70, 0, 32, 4, 8, 8, false, true, ref::Scale::SqrtDk, mask);
      ref::add_biases(&p, rng());
      ref::group_heads(&p, trial % 2 ? 1 : 2, rng());
      p.rotary_dims = trial % 2 ? 8 : 4;
      p.first_position = 3 * trial;
      p.window = trial == 3 ? 0 : 5;
      INFO(describe(p));
      attn::Shape shape{};
      attn::PackedWeights packed;
      attn::Inputs weights = ref::inputs_of(p);
      weights.x = attn::View<float>();
      REQUIRE(attn::prepare_model(ref::config_of(p), weights, &shape, &packed).ok());
      attn::Result prepared, direct;
      REQUIRE(attn::attention_forward_prepared(ref::config_of(p), ref::inputs_of(p), shape, packed, &prepared).ok());
      REQUIRE(attn::attention_forward(ref::config_of(p), ref::inputs_of(p), false, &direct).ok());
      CHECK(prepared.output == direct.output);
      ref::check_close("prepared output", prepared.output, ref::forward(p).output, p.d_model, kAtol, kRtol);
    }
  }
}

// ---- Against Hugging Face's Llama and Qwen2 --------------------------------------------------------

namespace {

struct Model {
  std::string path;
  model_files::Json config, reference;
  bool has_tensor(const std::string& name) const {
    try {
      model_files::read_f32_tensor(path + "/model.safetensors", name);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
  Floats tensor(const std::string& name) const {
    return model_files::read_f32_tensor(path + "/model.safetensors", name);
  }
  Vec layer(int l, const char* what) const { return reference["layers"][static_cast<std::size_t>(l)][what].numbers(); }
};

bool open(const char* name, Model* model) {
  model->path = std::string(ATTN_MODELS_DIR) + "/" + name;
  if (!model_files::file_exists(model->path + "/reference.json")) {
    MESSAGE("skipped: no model folder at " << model->path);
    return false;
  }
  model->config = model_files::read_json(model->path + "/config.json");
  model->reference = model_files::read_json(model->path + "/reference.json");
  return true;
}

// nn.Linear's weight (blocks · width, d) as the core's head-major (blocks, d, width)
Floats head_major(const Floats& weight, int blocks, int d, int width) {
  Floats out(weight.size());
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < d; ++t)
      for (int c = 0; c < width; ++c)
        out[(static_cast<std::size_t>(b) * d + t) * width + c] = weight[(b * width + c) * d + t];
  return out;
}

// Norm-wise relative error over the whole matrix and in every row, both at most 1e-4.
void check_against_model(const std::string& what, const Floats& got, const Vec& want, int rows, int cols) {
  REQUIRE(got.size() == want.size());
  auto error = [&](std::size_t begin, std::size_t end) {
    double diff = 0, norm = 0;
    for (std::size_t i = begin; i < end; ++i) {
      diff += (got[i] - want[i]) * (got[i] - want[i]);
      norm += want[i] * want[i];
    }
    return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-12);
  };
  double worst_row = 0;
  for (int r = 0; r < rows; ++r)
    worst_row = std::max(worst_row, error(std::size_t(r) * cols, std::size_t(r + 1) * cols));
  const double whole = error(0, got.size());
  CHECK(whole <= 1e-4);
  CHECK(worst_row <= 1e-4);
  MESSAGE(what << ": relative error " << whole << " over the matrix, at most " << worst_row << " in a row");
}

void check_model_layers(const char* name) {
  Model model;
  if (!open(name, &model)) return;
  const int d = static_cast<int>(model.config["hidden_size"].number);
  const int heads = static_cast<int>(model.config["num_attention_heads"].number);
  const int kv_heads = static_cast<int>(model.config["num_key_value_heads"].number);
  const int d_head = model.config.has("head_dim") ? static_cast<int>(model.config["head_dim"].number) : d / heads;
  // transformers 5 keeps theta in rope_parameters, transformers 4 at the top level
  const double theta = model.config.has("rope_parameters") ? model.config["rope_parameters"]["rope_theta"].number
                                                           : model.config["rope_theta"].number;
  const int layers = static_cast<int>(model.config["num_hidden_layers"].number);
  for (int l = 0; l < layers; ++l) {
    const std::string prefix = "model.layers." + std::to_string(l) + ".self_attn.";
    const Vec input = model.layer(l, "input");
    const int n = static_cast<int>(input.size() / d);
    const Floats x(input.begin(), input.end());
    const Floats wq = head_major(model.tensor(prefix + "q_proj.weight"), heads, d, d_head);
    const Floats wk = head_major(model.tensor(prefix + "k_proj.weight"), kv_heads, d, d_head);
    const Floats wv = head_major(model.tensor(prefix + "v_proj.weight"), kv_heads, d, d_head);
    const Floats wo = head_major(model.tensor(prefix + "o_proj.weight"), 1, heads * d_head, d);  // (h·d_v, d)
    Floats bq, bk, bv;
    attn::Config config;
    config.n = n;
    config.d_model = d;
    config.heads = heads;
    config.d_k = config.d_v = d_head;
    config.kv_heads = kv_heads;
    config.rotary.dims = d_head;
    config.rotary.theta = theta;
    config.mask_mode = attn::MaskMode::Causal;
    attn::Inputs inputs;
    inputs.x = x;
    inputs.wq = wq;
    inputs.wk = wk;
    inputs.wv = wv;
    inputs.wo = wo;
    if (model.has_tensor(prefix + "q_proj.bias")) {  // Qwen2
      bq = model.tensor(prefix + "q_proj.bias");
      bk = model.tensor(prefix + "k_proj.bias");
      bv = model.tensor(prefix + "v_proj.bias");
      inputs.bq = bq;
      inputs.bk = bk;
      inputs.bv = bv;
    }
    attn::Result result, fast;
    const attn::Status s = attn::attention_forward(config, inputs, true, &result);
    REQUIRE_MESSAGE(s.ok(), s.message);
    Floats probs;
    for (const attn::HeadTrace& head : result.heads)
      probs.insert(probs.end(), head.weights.begin(), head.weights.end());
    const std::string at = std::string(name) + " layers[" + std::to_string(l) + "]";
    check_against_model(at + ".probs", probs, model.layer(l, "probs"), heads * n, n);
    check_against_model(at + ".output", result.output, model.layer(l, "output"), n, d);
    REQUIRE(attn::attention_forward(config, inputs, false, &fast).ok());
    CHECK(fast.output == result.output);
  }
}

}  // namespace

TEST_CASE("Hugging Face Llama's attention layers through attention_forward: kvHeads 2, rotary, causal") {
  check_model_layers("llama");
}

TEST_CASE("Hugging Face Qwen2's attention layers through attention_forward: kvHeads 2, rotary, biases") {
  check_model_layers("qwen2");
}
