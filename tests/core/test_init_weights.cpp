// Seeded Xavier/Glorot uniform initialisation.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "attention/attention.hpp"

TEST_CASE("the first weight follows the published splitmix64 sequence") {
  // splitmix64 from state 0 yields 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, ... (Vigna's reference code).
  attn::Weights w;
  REQUIRE(attn::init_weights(4, 1, 0, 0, 0, &w).ok());
  const double limit = std::sqrt(6.0 / (4 + 4));
  auto expected = [&](std::uint64_t draw) {
    return static_cast<float>((2.0 * std::ldexp(static_cast<double>(draw >> 40), -24) - 1.0) * limit);
  };
  CHECK(w.wq[0] == expected(0xe220a8397b1dcdafull));
  CHECK(w.wq[1] == expected(0x6e789e6aa1b965f4ull));
}

TEST_CASE("shapes, ranges and spread follow Xavier/Glorot uniform") {
  attn::Weights w;
  REQUIRE(attn::init_weights(64, 4, 0, 8, 42, &w).ok());  // dK = 16 by default, dV = 8
  CHECK(w.wq.size() == 4u * 64 * 16);
  CHECK(w.wk.size() == 4u * 64 * 16);
  CHECK(w.wv.size() == 4u * 64 * 8);
  CHECK(w.wo.size() == 4u * 8 * 64);
  struct Tensor {
    const std::vector<float>& values;
    double limit;
  };
  const Tensor tensors[] = {{w.wq, std::sqrt(6.0 / (64 + 16))},
                            {w.wk, std::sqrt(6.0 / (64 + 16))},
                            {w.wv, std::sqrt(6.0 / (64 + 8))},
                            {w.wo, std::sqrt(6.0 / (32 + 64))}};
  for (const Tensor& t : tensors) {
    double sum = 0, squares = 0;
    for (float value : t.values) {
      CHECK(std::fabs(value) <= t.limit);
      sum += value;
      squares += double(value) * value;
    }
    const double count = static_cast<double>(t.values.size());
    const double variance = squares / count - (sum / count) * (sum / count);
    // U(-a, a) has variance a²/3; with thousands of draws the estimate is within a few percent.
    CHECK(variance == doctest::Approx(t.limit * t.limit / 3).epsilon(0.08));
    CHECK(std::fabs(sum / count) < 0.05 * t.limit);
  }
}

TEST_CASE("same seed gives the same bits and another seed other weights") {
  attn::Weights a, b, c;
  REQUIRE(attn::init_weights(12, 3, 0, 0, 7, &a).ok());
  REQUIRE(attn::init_weights(12, 3, 0, 0, 7, &b).ok());
  REQUIRE(attn::init_weights(12, 3, 0, 0, 8, &c).ok());
  CHECK(a.wq == b.wq);
  CHECK(a.wo == b.wo);
  CHECK(a.wq != c.wq);
  CHECK(a.wq != a.wk);  // one stream, not one restart per tensor
}

TEST_CASE("init_weights refuses bad sizes with the field named") {
  attn::Weights w;
  const attn::Status s = attn::init_weights(10, 3, 0, 0, 1, &w);
  CHECK(s.field == "dModel");
  CHECK(s.message == "dModel (10) is not divisible by heads (3); give dK explicitly");
  CHECK(attn::init_weights(0, 1, 0, 0, 1, &w).field == "dModel");
  CHECK(w.wq.empty());
}
