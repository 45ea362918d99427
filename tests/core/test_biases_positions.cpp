// Biases and sinusoidal positions against the float64 reference; permutation equivariance with
// and without positions; the errors that name bq, bk, bv, bo.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

#include "reference.hpp"

namespace {

attn::Result run(const ref::Problem& p) {
  attn::Result r;
  const attn::Status s = attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &r);
  REQUIRE_MESSAGE(s.ok(), s.message);
  return r;
}

attn::Status run_status(const ref::Problem& p) {
  attn::Result r;
  return attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &r);
}

}  // namespace

TEST_CASE("biases and positions: random problems against the float64 reference") {
  std::mt19937_64 rng(14);
  auto pick = [&](int lo, int hi) { return static_cast<int>(lo + rng() % (hi - lo + 1)); };
  for (int trial = 0; trial < 48; ++trial) {
    const int n = pick(1, 20), m = pick(1, 20), d_model = pick(1, 40), heads = pick(1, 4);
    const int d_k = pick(1, 9) | 1, d_v = pick(1, 9) | 1;
    const bool cross = trial % 2 == 1, with_wo = trial % 4 < 2, positions = trial % 3 != 0;
    const ref::Mask mask = trial % 3 == 0 ? ref::Mask::None : trial % 3 == 1 ? ref::Mask::Causal : ref::Mask::Keep;
    ref::Problem p =
        ref::random_problem(rng(), n, m, d_model, heads, d_k, d_v, cross, with_wo, ref::Scale::SqrtDk, mask);
    if (trial % 5 != 4) ref::add_biases(&p, rng());
    p.positions = positions;
    std::ostringstream label;
    label << "n=" << n << " m=" << p.m << " dModel=" << d_model << " heads=" << heads << " cross=" << cross
          << " wo=" << with_wo << " positions=" << positions << " biases=" << !p.bq.empty();
    INFO(label.str());
    const ref::Expected want = ref::forward(p);
    const attn::Result got = run(p);
    for (int h = 0; h < heads; ++h) {
      ref::check_close("q", got.heads[h].q, want.heads[h].q, d_k, 1e-4, 1e-4);
      ref::check_close("k", got.heads[h].k, want.heads[h].k, d_k, 1e-4, 1e-4);
      ref::check_close("v", got.heads[h].v, want.heads[h].v, d_v, 1e-4, 1e-4);
      ref::check_close("weights", got.heads[h].weights, want.heads[h].weights, p.m, 1e-4, 1e-4);
    }
    ref::check_close("output", got.output, want.output, got.shape.d_out, 1e-4, 1e-4);
    // The trace returns what was added, and only with positions.
    if (positions) {
      std::vector<double> pe_x(std::size_t(n) * d_model);
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < d_model; ++c) pe_x[std::size_t(i) * d_model + c] = ref::sinusoid(i, c, d_model);
      ref::check_close("positions_x", got.positions_x, pe_x, d_model, 1e-7, 1e-6);
      CHECK(got.positions_context.size() == (cross ? std::size_t(p.m) * d_model : 0u));
    } else {
      CHECK(got.positions_x.empty());
    }
  }
}

TEST_CASE("the sinusoid's first values, from the paper's formula by hand") {
  const std::vector<float> pe = attn::sinusoidal_positions(3, 4);
  // pos 0: sin 0, cos 0, sin 0, cos 0; pos 1: sin 1, cos 1, sin 0.01, cos 0.01 (10000^(2/4) = 100)
  const double want[] = {0,
                         1,
                         0,
                         1,
                         std::sin(1.0),
                         std::cos(1.0),
                         std::sin(0.01),
                         std::cos(0.01),
                         std::sin(2.0),
                         std::cos(2.0),
                         std::sin(0.02),
                         std::cos(0.02)};
  for (int i = 0; i < 12; ++i) CHECK(pe[i] == doctest::Approx(want[i]).epsilon(1e-7));
}

TEST_CASE("the positions' own exp, sin and cos against libm over the whole table, up to kMaxTokens rows") {
  // libm's double sinusoid rounded to float32: the positions differ from it only where it lies
  // within about 1e-12 of a float32 rounding boundary, and then by one float32 ulp
  int compared = 0, off_by_one_ulp = 0;
  for (const int d_model : {1, 2, 6, 12, 64, 128, 512}) {
    const std::vector<float> pe = attn::sinusoidal_positions(attn::kMaxTokens, d_model);
    for (int pos = 0; pos < attn::kMaxTokens; ++pos) {
      for (int c = 0; c < d_model; ++c) {
        const double angle = pos / std::pow(10000.0, static_cast<double>(c - c % 2) / d_model);
        const double exact = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
        const float got = pe[static_cast<std::size_t>(pos) * d_model + c];
        ++compared;
        if (got == static_cast<float>(exact)) continue;
        ++off_by_one_ulp;
        INFO("pos " << pos << ", column " << c << ", d_model " << d_model);
        CHECK(std::nextafter(static_cast<float>(exact), got) == got);
        CHECK(std::fabs(std::fabs(exact - static_cast<float>(exact)) - std::fabs(exact - got)) < 1e-12);
      }
    }
  }
  MESSAGE(off_by_one_ulp << " of " << compared << " positions one float32 ulp from libm's");
  CHECK(off_by_one_ulp * 100000 < compared);
}

TEST_CASE("permutation equivariance: exact without positions, broken by sinusoidal positions") {
  const int n = 7, d_model = 6;
  for (bool positions : {false, true}) {
    ref::Problem p = ref::random_problem(5, n, n, d_model, 2, 3, 3, false, true, ref::Scale::SqrtDk, ref::Mask::None);
    ref::add_biases(&p, 6);
    p.positions = positions;
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::reverse(order.begin(), order.end());
    std::swap(order[1], order[4]);
    ref::Problem permuted = p;
    for (int i = 0; i < n; ++i)
      std::copy_n(p.x.begin() + order[i] * d_model, d_model, permuted.x.begin() + i * d_model);
    const attn::Result base = run(p), moved = run(permuted);
    double largest = 0;
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d_model; ++c)
        largest =
            std::max(largest, double(std::fabs(moved.output[i * d_model + c] - base.output[order[i] * d_model + c])));
    INFO("positions=" << positions << " largest difference " << largest);
    // Without positions only float rounding (the order of a sum) can differ; with them, row i of the
    // permuted input gets position i's encoding, not its original position's.
    if (positions)
      CHECK(largest > 0.05);
    else
      CHECK(largest < 1e-5);
  }
}

TEST_CASE("bias errors name the field") {
  ref::Problem p = ref::random_problem(8, 3, 3, 4, 2, 3, 5, false, true, ref::Scale::SqrtDk, ref::Mask::None);
  ref::add_biases(&p, 9);
  {
    ref::Problem q = p;
    q.bq.pop_back();
    const attn::Status s = run_status(q);
    CHECK(s.field == "bq");
    CHECK(s.message == "bq has 5 values; expected heads × dK = 2 × 3 = 6");
  }
  {
    ref::Problem q = p;
    q.bk[4] = NAN;
    const attn::Status s = run_status(q);
    CHECK(s.field == "bk");
    CHECK(s.message.find("bk[4]") != std::string::npos);
  }
  {
    ref::Problem q = p;
    q.bv.push_back(1);
    CHECK(run_status(q).field == "bv");
  }
  {
    ref::Problem q = p;
    q.wo.clear();
    const attn::Status s = run_status(q);
    CHECK(s.field == "bo");
    CHECK(s.message == "bo is given but wo is omitted; bo is the bias of the output projection wo");
  }
  {
    ref::Problem q = p;
    q.bo.resize(3);
    CHECK(run_status(q).field == "bo");
  }
}
