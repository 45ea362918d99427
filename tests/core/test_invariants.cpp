// Properties every result must have, whatever the numbers.
#include <doctest/doctest.h>

#include <cmath>

#include "reference.hpp"

namespace {

attn::Result run(const ref::Problem& p) {
  attn::Result r;
  const attn::Status s = attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &r);
  REQUIRE_MESSAGE(s.ok(), s.message);
  return r;
}

// One query against keys given as a 1-wide context, with no scaling: the scores are the keys.
attn::Result one_query(float query, const std::vector<float>& keys) {
  ref::Problem p;
  p.n = 1;
  p.m = static_cast<int>(keys.size());
  p.d_model = p.d_k = p.d_v = 1;
  p.cross = true;
  p.scale = ref::Scale::None;
  p.x = {query};
  p.context = keys;
  return run(p);
}

}  // namespace

TEST_CASE("every weight row sums to 1 and no weight is negative") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const ref::Problem p = ref::random_problem(seed, 5 + seed % 11, 3 + seed % 13, 16, 2, 8, 8, seed % 2 == 0, true,
                                               ref::Scale::SqrtDk, ref::Mask::None);
    const attn::Result r = run(p);
    for (const attn::HeadTrace& head : r.heads) {
      for (int i = 0; i < p.n; ++i) {
        double sum = 0;
        for (int j = 0; j < p.m; ++j) {
          CHECK(head.weights[i * p.m + j] >= 0.0f);
          sum += head.weights[i * p.m + j];
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("softmax is shift invariant: adding t to every score of a row leaves the weights") {
  // With identity projections, an extra column that is 1 in the query and t in every key adds t to
  // each score of that query's row.
  const ref::Problem base = ref::random_problem(3, 6, 6, 5, 1, 5, 5, false, false, ref::Scale::None, ref::Mask::None);
  ref::Problem plain = base, shifted = base;
  plain.wq.clear();
  plain.wk.clear();
  plain.wv.clear();
  shifted.wq.clear();
  shifted.wk.clear();
  shifted.wv.clear();
  shifted.cross = true;
  shifted.d_model = shifted.d_k = shifted.d_v = 6;
  shifted.x.clear();
  for (int i = 0; i < 6; ++i) {
    for (int c = 0; c < 5; ++c) {
      shifted.x.push_back(base.x[i * 5 + c]);
      shifted.context.push_back(base.x[i * 5 + c]);
    }
    shifted.x.push_back(1.0f);
    shifted.context.push_back(37.5f);  // t
  }
  const attn::Result a = run(plain), b = run(shifted);
  for (std::size_t i = 0; i < a.heads[0].weights.size(); ++i) {
    CHECK(b.heads[0].scores[i] == doctest::Approx(a.heads[0].scores[i] + 37.5).epsilon(1e-5));
    CHECK(std::fabs(b.heads[0].weights[i] - a.heads[0].weights[i]) <= 1e-5);
  }
}

TEST_CASE("causal mask: -inf and zero weight above the diagonal, for self- and cross-attention") {
  for (int cross = 0; cross <= 1; ++cross) {
    const ref::Problem p =
        ref::random_problem(11, 7, 4, 12, 3, 4, 4, cross, true, ref::Scale::SqrtDk, ref::Mask::Causal);
    const attn::Result r = run(p);
    for (const attn::HeadTrace& head : r.heads) {
      for (int i = 0; i < p.n; ++i) {
        for (int j = 0; j < p.m; ++j) {
          if (j > i) {
            CHECK(std::isinf(head.scaled[i * p.m + j]));
            CHECK(head.scaled[i * p.m + j] < 0);
            CHECK(head.weights[i * p.m + j] == 0.0f);
          } else {
            CHECK(head.weights[i * p.m + j] > 0.0f);
          }
        }
      }
    }
  }
}

TEST_CASE("a fully masked row has zero weights and a zero output, never NaN") {
  ref::Problem p = ref::random_problem(5, 4, 4, 6, 2, 3, 3, false, true, ref::Scale::SqrtDk, ref::Mask::Keep);
  std::fill(p.keep.begin(), p.keep.end(), 1);
  std::fill(p.keep.begin() + 2 * 4, p.keep.begin() + 3 * 4, 0);  // row 2: every key masked
  const attn::Result r = run(p);
  for (const attn::HeadTrace& head : r.heads) {
    for (int j = 0; j < 4; ++j) CHECK(head.weights[2 * 4 + j] == 0.0f);
    for (int t = 0; t < 3; ++t) CHECK(head.z[2 * 3 + t] == 0.0f);
  }
  for (int c = 0; c < 6; ++c) CHECK(r.output[2 * 6 + c] == 0.0f);
  for (float value : r.output) CHECK(std::isfinite(value));
}

TEST_CASE("logits of +-1e4 give finite one-hot rows") {
  const attn::Result one_hot = one_query(1, {1e4f, -1e4f, 0});
  CHECK(one_hot.heads[0].weights == std::vector<float>{1, 0, 0});
  CHECK(one_hot.output == std::vector<float>{1e4f});

  const attn::Result tie = one_query(1, {1e4f, -1e4f, 1e4f});
  CHECK(tie.heads[0].weights == std::vector<float>{0.5f, 0, 0.5f});
}

TEST_CASE("scores beyond float32 are refused with a message, not returned as NaN") {
  ref::Problem p;
  p.n = p.m = 1;
  p.d_model = p.d_k = p.d_v = 1;
  p.scale = ref::Scale::None;
  p.x = {1e30f};
  attn::Result r;
  r.output = {42};
  const attn::Status s = attn::attention_forward(ref::config_of(p), ref::inputs_of(p), true, &r);
  CHECK_FALSE(s.ok());
  CHECK(s.message.find("scores") != std::string::npos);
  CHECK(s.message.find("overflow") != std::string::npos);
  CHECK(r.output == std::vector<float>{42});  // a failed call leaves the result untouched
}
