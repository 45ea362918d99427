// Issue 25's core, tested: FlashAttention's tiled online softmax against the float64 reference
// (reference.cpp) and against the core's exact pass; the sink logit against a float64 sink softmax
// written here; the KV cache's decoded rows against the full causal pass, bit for bit; RoPE's shift
// invariance of the scores.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention/modern.hpp"
#include "reference.hpp"

namespace {

using Floats = std::vector<float>;
constexpr float kInf = std::numeric_limits<float>::infinity();

// As test_against_reference.cpp: float32 storage and accumulation over a few hundred O(1) terms. The
// tiled pass adds the same terms in another order and rescales its partial sums by e^(m_old − m_new)
// (one more rounding per tile), which stays within the same bound.
constexpr double kAtol = 1e-4;
constexpr double kRtol = 1e-4;

ref::Problem modern_problem(std::uint64_t seed, int n, int heads, int kv_heads, int rotary_dims, int window,
                            ref::Mask mask, int first_position = 0) {
  ref::Problem p = ref::random_problem(seed, n, n, 8, heads, 4, 3, false, true, ref::Scale::SqrtDk, mask);
  ref::add_biases(&p, seed + 1);
  ref::group_heads(&p, kv_heads, seed + 2);
  p.rotary_dims = rotary_dims;
  p.first_position = first_position;
  p.window = window;
  return p;
}

double largest_difference(const Floats& a, const Floats& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::fabs(double(a[i]) - double(b[i])));
  return largest;
}

}  // namespace

TEST_CASE("flash: every tile size gives softmax(QKᵀ/√dK)·V within the stated bound of the float64 reference") {
  double worst_vs_exact = 0;
  for (int option = 0; option < 12; ++option) {
    const ref::Mask masks[] = {ref::Mask::None, ref::Mask::Causal};
    const ref::Problem p = modern_problem(100 + option, 3 + option, option % 2 ? 4 : 2, option % 2 ? 2 : 1,
                                          option % 3 == 0 ? 0 : 4, option % 4 == 3 ? 3 : 0, masks[option % 2]);
    const ref::Expected want = ref::forward(p);
    for (int tile : {1, 2, 3, 5, 64}) {
      INFO("option " << option << " tile " << tile);
      attn::FlashResult got;
      const attn::Status s = attn::flash_forward(ref::config_of(p), ref::inputs_of(p), tile, {}, &got);
      REQUIRE_MESSAGE(s.ok(), s.message);
      CHECK(got.tiles == (p.n + tile - 1) / tile);
      for (int h = 0; h < p.heads; ++h) {
        ref::check_close("z", got.heads[h].z, want.heads[h].z, p.d_v, kAtol, kRtol);
        ref::check_close("weights", got.heads[h].weights, want.heads[h].weights, p.n, kAtol, kRtol);
        worst_vs_exact = std::max(worst_vs_exact, largest_difference(got.heads[h].z, got.exact.heads[h].z));
        // the last tile's running output divided by the last running sum is z
        const auto& fh = got.heads[h];
        for (int i = 0; i < p.n; ++i) {
          const std::size_t last = static_cast<std::size_t>(i) * got.tiles + got.tiles - 1;
          if (fh.running_sum[last] == 0) continue;
          for (int c = 0; c < p.d_v; ++c) {
            CHECK(fh.z[i * p.d_v + c] == fh.running_output[last * p.d_v + c] * (1.0f / fh.running_sum[last]));
          }
        }
      }
    }
  }
  MESSAGE("flash: largest |z_tiled − z_exact| over 60 cases: " << worst_vs_exact);
  CHECK(worst_vs_exact < 1e-5);
}

TEST_CASE("flash: the per-tile trace follows m, ℓ and e^(m_old − m_new) as written by hand in float64") {
  // one head, identity projections, d_model = dK = dV = 2, four keys in tiles of 2
  const Floats x = {1, 0, 0, 2, 3, 1, -1, 0.5f};
  attn::Config config;
  config.n = 4;
  config.d_model = 2;
  attn::Inputs inputs;
  inputs.x = attn::View<float>(x);
  attn::FlashResult got;
  REQUIRE(attn::flash_forward(config, inputs, 2, {}, &got).ok());
  REQUIRE(got.tiles == 2);
  for (int i = 0; i < 4; ++i) {
    double m_old = -INFINITY, l = 0;
    for (int t = 0; t < 2; ++t) {
      double s[2], tile_max = -INFINITY;
      for (int j = 0; j < 2; ++j) {
        const int key = 2 * t + j;
        s[j] = (double(x[2 * i]) * x[2 * key] + double(x[2 * i + 1]) * x[2 * key + 1]) / std::sqrt(2.0);
        tile_max = std::max(tile_max, s[j]);
      }
      const double m_new = std::max(m_old, tile_max), r = std::exp(m_old - m_new);  // e^−∞ = 0 at tile 0
      l = l * r + std::exp(s[0] - m_new) + std::exp(s[1] - m_new);
      const std::size_t at = static_cast<std::size_t>(i) * 2 + t;
      CHECK(got.heads[0].running_max[at] == doctest::Approx(m_new).epsilon(1e-6));
      CHECK(got.heads[0].rescale[at] == doctest::Approx(r).epsilon(1e-6));
      CHECK(got.heads[0].running_sum[at] == doctest::Approx(l).epsilon(1e-6));
      m_old = m_new;
    }
  }
  CHECK(got.full_values == 16);
  CHECK(got.tiled_values == 4 * (2 + 2 + 2));
}

TEST_CASE("sinks: a sink of -inf is plain softmax; a finite sink matches a float64 sink softmax and rows sum below 1") {
  const ref::Problem p = modern_problem(7, 6, 2, 1, 4, 0, ref::Mask::Causal);
  attn::FlashResult plain, minus_inf, with_sink;
  const Floats none = {-kInf, -kInf}, sinks = {0.0f, 1.5f};  // head 0: "softmax + 1"
  REQUIRE(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), 2, {}, &plain).ok());
  REQUIRE(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), 2, attn::View<float>(none), &minus_inf).ok());
  REQUIRE(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), 2, attn::View<float>(sinks), &with_sink).ok());
  const ref::Expected want = ref::forward(p);
  for (int h = 0; h < 2; ++h) {
    CHECK(minus_inf.heads[h].z == plain.heads[h].z);  // bit for bit: the same start, m = −∞ and ℓ = 0
    ref::check_close("weights (sink -inf)", minus_inf.heads[h].weights, want.heads[h].weights, p.n, kAtol, kRtol);
    ref::check_close("z (sink -inf)", minus_inf.heads[h].z, want.heads[h].z, p.d_v, kAtol, kRtol);
    // the sink softmax in float64, from the reference's scaled scores (−∞ where masked)
    std::vector<double> weights(p.n * p.n), z(p.n * p.d_v, 0.0);
    for (int i = 0; i < p.n; ++i) {
      double big = sinks[h], sum = 0;
      for (int j = 0; j < p.n; ++j) big = std::max(big, want.heads[h].scaled[i * p.n + j]);
      for (int j = 0; j < p.n; ++j) sum += std::exp(want.heads[h].scaled[i * p.n + j] - big);
      sum += std::exp(sinks[h] - big);
      double row = 0;
      for (int j = 0; j < p.n; ++j) {
        weights[i * p.n + j] = std::exp(want.heads[h].scaled[i * p.n + j] - big) / sum;
        row += weights[i * p.n + j];
        for (int c = 0; c < p.d_v; ++c) z[i * p.d_v + c] += weights[i * p.n + j] * want.heads[h].v[j * p.d_v + c];
      }
      CHECK(row < 1.0);
      CHECK(with_sink.heads[h].sink_weight[i] == doctest::Approx(std::exp(sinks[h] - big) / sum).epsilon(1e-5));
      float got_row = 0;
      for (int j = 0; j < p.n; ++j) got_row += with_sink.heads[h].weights[i * p.n + j];
      CHECK(got_row < 1.0f);
      CHECK(got_row + with_sink.heads[h].sink_weight[i] == doctest::Approx(1.0).epsilon(1e-5));
    }
    ref::check_close("weights (sink)", with_sink.heads[h].weights, weights, p.n, kAtol, kRtol);
    ref::check_close("z (sink)", with_sink.heads[h].z, z, p.d_v, kAtol, kRtol);
  }
}

TEST_CASE("flash: bad arguments are refused naming the field") {
  const ref::Problem p = modern_problem(3, 4, 2, 2, 0, 0, ref::Mask::None);
  attn::FlashResult got;
  CHECK(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), 0, {}, &got).field == "tile");
  CHECK(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), attn::kMaxTile + 1, {}, &got).field == "tile");
  const Floats one = {0.0f}, nan = {0.0f, NAN}, plus = {kInf, 0.0f};
  CHECK(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), 2, attn::View<float>(one), &got).field == "sinks");
  CHECK(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), 2, attn::View<float>(nan), &got).field == "sinks");
  CHECK(attn::flash_forward(ref::config_of(p), ref::inputs_of(p), 2, attn::View<float>(plus), &got).field == "sinks");
  attn::Config bad = ref::config_of(p);
  bad.heads = 3;
  CHECK(attn::flash_forward(bad, ref::inputs_of(p), 2, {}, &got).field == "kvHeads");  // 2 does not divide 3
}

namespace {

// got == want bit for bit (`bits`), or within `tolerance` of each other; the largest difference kept.
struct RowCheck {
  bool bits;
  double tolerance, worst = 0;
  void operator()(const char* what, const Floats& want, const Floats& got) {
    INFO(what);
    REQUIRE(want.size() == got.size());
    if (bits) CHECK(want == got);
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double difference = std::fabs(double(want[i]) - double(got[i]));
      worst = std::max(worst, difference);
      CHECK(difference <= tolerance);
    }
  }
};

Floats slice(const Floats& values, std::size_t from, std::size_t to) {
  return Floats(values.begin() + from, values.begin() + to);
}

// Prefill `prefill` tokens of p, decode the rest one at a time, and compare every decoded row with the
// full causal pass over all of p's tokens.
void check_decode(const ref::Problem& p, int prefill, attn::Arithmetic arithmetic, RowCheck& same) {
  attn::Config config = ref::config_of(p);
  config.arithmetic = arithmetic;
  attn::Result full;
  REQUIRE(attn::attention_forward(config, ref::inputs_of(p), true, &full).ok());
  attn::Inputs weights = ref::inputs_of(p);
  weights.x = {};
  attn::KvCache cache;
  const attn::Status started = attn::kv_cache_start(config, weights, p.n, &cache);
  REQUIRE_MESSAGE(started.ok(), started.message);
  attn::Result first;
  REQUIRE(attn::kv_cache_prefill(&cache, attn::View<float>(p.x.data(), prefill * p.d_model), &first).ok());
  const std::size_t d_out = full.shape.d_out, concat = p.heads * p.d_v, d_k = p.d_k;
  same("prefill output", slice(full.output, 0, prefill * d_out), first.output);
  for (int i = prefill; i < p.n; ++i) {
    INFO("token " << i);
    attn::KvStep step;
    REQUIRE(attn::kv_cache_step(&cache, attn::View<float>(p.x.data() + i * p.d_model, p.d_model), &step).ok());
    CHECK(step.position == p.first_position + i);
    CHECK(step.first_key == (p.window > 0 ? std::max(0, i + 1 - p.window) : 0));
    same("output", slice(full.output, i * d_out, (i + 1) * d_out), step.output);
    same("z", slice(full.concat, i * concat, (i + 1) * concat), step.z);
    const std::size_t visible = i + 1 - step.first_key;
    for (int h = 0; h < p.heads; ++h) {
      const auto& head = full.heads[h];
      same("q", slice(head.q, i * d_k, (i + 1) * d_k), slice(step.q, h * d_k, (h + 1) * d_k));
      same("weights", slice(head.weights, i * p.n + step.first_key, i * p.n + i + 1),
           slice(step.weights, h * visible, (h + 1) * visible));
    }
    CHECK(step.cache_values == double(i + 1) * full.shape.kv_heads * (p.d_k + p.d_v));
  }
}

}  // namespace

// Bit for bit on the portable arithmetic: its products add k ascending with one rounding per multiply and
// per add whatever the number of rows, and its softmax sums left to right, so one row against the cache
// is the same arithmetic as that row of the full pass (the masked keys' weights are exact zeros). On the
// fast arithmetic the products are Eigen's (native, scalar build) or the SIMD kernels, whose order of
// additions depends on the product's shape (Eigen takes a matrix-vector product for one row): there the
// rows agree to float32 rounding, checked within 1e-5 (values here are O(1)).
TEST_CASE("kv cache: every decoded row equals the full causal pass's row (GQA, RoPE, window)") {
  RowCheck portable{true, 0.0}, fast{false, 1e-5};
  for (int option = 0; option < 8; ++option) {
    const int heads = option % 2 ? 4 : 2, kv_heads = option % 4 < 2 ? 1 : 2, window = option % 3 == 2 ? 3 : 0;
    const int first_position = option % 2 ? 1000 : 0;
    const ref::Problem p =
        modern_problem(40 + option, 9, heads, kv_heads, option % 3 ? 4 : 0, window, ref::Mask::Causal, first_position);
    INFO("option " << option);
    check_decode(p, 1 + option % 4, attn::Arithmetic::Portable, portable);
    check_decode(p, 1 + option % 4, attn::Arithmetic::Fast, fast);
  }
  CHECK(portable.worst == 0);
  MESSAGE("kv cache, fast arithmetic: largest |decoded − full| " << fast.worst);
}

TEST_CASE("kv cache: multiply-adds and cache size counted by hand") {
  const ref::Problem p = modern_problem(5, 6, 4, 2, 4, 0, ref::Mask::Causal);  // dModel 8, dK 4, dV 3
  attn::Inputs weights = ref::inputs_of(p);
  weights.x = {};
  attn::KvCache cache;
  REQUIRE(attn::kv_cache_start(ref::config_of(p), weights, 6, &cache).ok());
  attn::Result first;
  REQUIRE(attn::kv_cache_prefill(&cache, attn::View<float>(p.x.data(), 5 * 8), &first).ok());
  attn::KvStep step;
  REQUIRE(attn::kv_cache_step(&cache, attn::View<float>(p.x.data() + 5 * 8, 8), &step).ok());
  // projections: 8·(4·4 q + 2·4 k + 2·3 v + 4·3 wo) = 336; 4 heads · 6 keys · (4 + 3) = 168
  CHECK(step.multiply_adds == 336 + 168);
  CHECK(step.cache_values == 6 * 2 * (4 + 3));
  // without the cache: 6 tokens' projections, and 1 + 2 + … + 6 = 21 visible keys per head
  CHECK(attn::causal_multiply_adds(cache, 6) == 6 * 336 + 4 * 21 * 7);
  CHECK(attn::kv_cache_step(&cache, attn::View<float>(p.x.data(), 8), &step).field == "capacity");
}

TEST_CASE("kv cache: bad arguments are refused naming the field, and a refused step leaves the cache usable") {
  const ref::Problem p = modern_problem(6, 4, 2, 1, 4, 0, ref::Mask::Causal);
  attn::Inputs weights = ref::inputs_of(p);
  weights.x = {};
  attn::KvCache cache;
  attn::Config none = ref::config_of(p);
  none.mask_mode = attn::MaskMode::None;
  CHECK(attn::kv_cache_start(none, weights, 4, &cache).field == "mask");
  CHECK(attn::kv_cache_start(ref::config_of(p), weights, 0, &cache).field == "capacity");
  CHECK(attn::kv_cache_start(ref::config_of(p), ref::inputs_of(p), 4, &cache).field == "x");
  attn::Config bad = ref::config_of(p);
  bad.kv_heads = 3;
  CHECK(attn::kv_cache_start(bad, weights, 4, &cache).field == "kvHeads");
  REQUIRE(attn::kv_cache_start(ref::config_of(p), weights, 4, &cache).ok());
  attn::Result first;
  CHECK(attn::kv_cache_prefill(&cache, attn::View<float>(p.x.data(), 7), &first).field == "x");
  attn::KvStep step;
  const Floats wrong(3, 0.0f), infinite = {kInf, 0, 0, 0, 0, 0, 0, 0};
  CHECK(attn::kv_cache_step(&cache, attn::View<float>(wrong), &step).field == "x");
  CHECK(attn::kv_cache_step(&cache, attn::View<float>(infinite), &step).field == "x");
  CHECK(cache.length == 0);
  REQUIRE(attn::kv_cache_step(&cache, attn::View<float>(p.x.data(), 8), &step).ok());
  CHECK(cache.length == 1);
}

namespace {

// The positions StreamingLLM's cache reads for token i (0-based, itself included): every earlier one
// while they fit the budget, else the first `sinks` and the budget − sinks most recent.
std::vector<int> kept_keys(int i, int sinks, int budget, int first_position) {
  std::vector<int> keys;
  for (int j = 0; j <= i; ++j) {
    if (i + 1 <= budget || j < sinks || j > i - (budget - sinks)) keys.push_back(first_position + j);
  }
  return keys;
}

}  // namespace

// Each decoded row against the float64 reference (reference.cpp) run with a keep-mask that shows row i
// exactly the keys the test expects kept: the eviction changes which keys are read, nothing else.
TEST_CASE(
    "kv cache with eviction (StreamingLLM): the first sinks and the most recent kept; each row is attention over "
    "exactly those keys") {
  for (int option = 0; option < 4; ++option) {
    const int sinks = option % 2 ? 2 : 1, budget = option < 2 ? 4 : 5, prefill = option < 2 ? 2 : 7;
    const int first_position = option == 3 ? 100 : 0, n = 11;
    INFO("option " << option << ": sinks " << sinks << ", budget " << budget << ", prefill " << prefill);
    const ref::Problem p =
        modern_problem(60 + option, n, 2, 1, option % 2 ? 4 : 0, 0, ref::Mask::Causal, first_position);
    attn::Inputs weights = ref::inputs_of(p);
    weights.x = {};
    attn::KvCache cache;
    REQUIRE(attn::kv_cache_start(ref::config_of(p), weights, n, &cache, {sinks, budget}).ok());
    attn::Result first;
    REQUIRE(attn::kv_cache_prefill(&cache, attn::View<float>(p.x.data(), prefill * p.d_model), &first).ok());
    std::vector<int> after_prefill = kept_keys(prefill - 1, sinks, budget, first_position);
    CHECK(cache.positions == after_prefill);
    for (int i = prefill; i < n; ++i) {
      INFO("token " << i);
      attn::KvStep step;
      REQUIRE(attn::kv_cache_step(&cache, attn::View<float>(p.x.data() + i * p.d_model, p.d_model), &step).ok());
      const std::vector<int> keys = kept_keys(i, sinks, budget, first_position);
      CHECK(step.position == first_position + i);
      CHECK(step.key_positions == keys);
      CHECK(cache.positions == keys);  // what stays for the next token
      CHECK(cache.length == std::min(i + 1, budget));
      ref::Problem only = p;
      only.mask = ref::Mask::Keep;
      only.keep.assign(static_cast<std::size_t>(n) * n, 0);
      for (int j = 0; j < n; ++j) only.keep[static_cast<std::size_t>(j) * n + j] = 1;  // other rows: themselves
      for (int key : keys) only.keep[static_cast<std::size_t>(i) * n + (key - first_position)] = 1;
      const ref::Expected want = ref::forward(only);
      const std::size_t d_out = want.output.size() / n;
      ref::check_close("output", step.output,
                       std::vector<double>(want.output.begin() + i * d_out, want.output.begin() + (i + 1) * d_out),
                       int(d_out), kAtol, kRtol);
      const std::size_t visible = keys.size();
      for (int h = 0; h < p.heads; ++h) {
        std::vector<double> row;
        for (int key : keys)
          row.push_back(want.heads[h].weights[static_cast<std::size_t>(i) * n + (key - first_position)]);
        ref::check_close("weights", slice(step.weights, h * visible, (h + 1) * visible), row, int(visible), kAtol,
                         kRtol);
      }
    }
  }
}

TEST_CASE("kv cache with eviction: budget, sinks and window refused naming the field") {
  const ref::Problem p = modern_problem(7, 4, 2, 1, 0, 0, ref::Mask::Causal);
  attn::Inputs weights = ref::inputs_of(p);
  weights.x = {};
  attn::KvCache cache;
  CHECK(attn::kv_cache_start(ref::config_of(p), weights, 4, &cache, {1, 5}).field == "budget");
  CHECK(attn::kv_cache_start(ref::config_of(p), weights, 4, &cache, {0, -1}).field == "budget");
  CHECK(attn::kv_cache_start(ref::config_of(p), weights, 4, &cache, {3, 3}).field == "sinks");
  CHECK(attn::kv_cache_start(ref::config_of(p), weights, 4, &cache, {-1, 3}).field == "sinks");
  attn::Config windowed = ref::config_of(p);
  windowed.window = 2;
  CHECK(attn::kv_cache_start(windowed, weights, 4, &cache, {1, 3}).field == "window");
  // a budget the size of the capacity: the cache never fills, however many tokens come
  REQUIRE(attn::kv_cache_start(ref::config_of(p), weights, 2, &cache, {1, 2}).ok());
  attn::KvStep step;
  for (int i = 0; i < 6; ++i) REQUIRE(attn::kv_cache_step(&cache, attn::View<float>(p.x.data(), 8), &step).ok());
  CHECK(cache.length == 2);
  CHECK(step.position == 5);
  CHECK(step.key_positions == std::vector<int>{0, 5});
}

TEST_CASE("rope: shifting every position by s leaves every score unchanged, to rounding; reordering changes them") {
  const ref::Problem p = modern_problem(11, 6, 2, 2, 4, 0, ref::Mask::None);
  attn::Result at_zero;
  REQUIRE(attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &at_zero).ok());
  for (int shift : {1, 7, 1000, 100000}) {
    INFO("shift " << shift);
    attn::Config shifted = ref::config_of(p);
    shifted.rotary.first_position = shift;
    attn::Result got;
    REQUIRE(attn::attention_forward(shifted, ref::inputs_of(p), true, &got).ok());
    for (int h = 0; h < 2; ++h) {
      // q·k depends on the positions only through their difference; each rotated q and k carries a
      // float32 rounding of cos and sin at its own angle, so the scores agree to a few float32 ulps of |q||k|
      for (std::size_t i = 0; i < got.heads[h].scores.size(); ++i) {
        CHECK(got.heads[h].scores[i] == doctest::Approx(at_zero.heads[h].scores[i]).epsilon(1e-5).scale(1e-5));
      }
      CHECK(got.heads[h].q != at_zero.heads[h].q);  // the rotated vectors themselves do change
    }
  }
  // swapping tokens 0 and 5: without positions the scores would only be permuted; with RoPE they change
  ref::Problem swapped = p;
  for (int c = 0; c < p.d_model; ++c) std::swap(swapped.x[c], swapped.x[5 * p.d_model + c]);
  attn::Result after;
  REQUIRE(attn::attention_forward(ref::config_of(swapped), ref::inputs_of(swapped), true, &after).ok());
  const float before_05 = at_zero.heads[0].scores[0 * 6 + 5], after_50 = after.heads[0].scores[5 * 6 + 0];
  CHECK(std::fabs(before_05 - after_50) > 1e-3f);
}
