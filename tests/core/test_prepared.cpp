// prepare_model and attention_forward_prepared against attention_forward: the same bits (natively
// and in both WebAssembly builds, where the SIMD one reads pre-packed weight panels), and errors
// that name the field.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "attention/attention.hpp"

namespace {

std::vector<float> random_values(std::mt19937& rng, std::size_t count, float scale) {
  std::uniform_real_distribution<float> unit(-scale, scale);
  std::vector<float> v(count);
  for (float& x : v) x = unit(rng);
  return v;
}

}  // namespace

TEST_CASE("a prepared model gives attention_forward's bits at every n, with and without W_O, both masks") {
  std::mt19937 rng(31);
  struct Sizes {
    int d_model, heads, d_k, d_v;
  };
  for (const Sizes& sizes : {Sizes{8, 2, 4, 4}, Sizes{24, 3, 5, 7}, Sizes{40, 2, 20, 16}}) {
    for (const bool with_wo : {false, true}) {
      for (const attn::MaskMode mask : {attn::MaskMode::None, attn::MaskMode::Causal}) {
        attn::Config config;
        config.d_model = sizes.d_model;
        config.heads = sizes.heads;
        config.d_k = sizes.d_k;
        config.d_v = sizes.d_v;
        config.mask_mode = mask;
        const std::size_t hdk = static_cast<std::size_t>(sizes.heads) * sizes.d_model * sizes.d_k;
        const std::size_t hdv = static_cast<std::size_t>(sizes.heads) * sizes.d_model * sizes.d_v;
        const std::vector<float> wq = random_values(rng, hdk, 0.4f), wk = random_values(rng, hdk, 0.4f),
                                 wv = random_values(rng, hdv, 0.4f), wo = random_values(rng, hdv, 0.3f);
        attn::Inputs weights;
        weights.wq = wq;
        weights.wk = wk;
        weights.wv = wv;
        if (with_wo) weights.wo = wo;
        attn::Shape shape{};
        attn::PackedWeights packed;
        REQUIRE(attn::prepare_model(config, weights, &shape, &packed).ok());
        for (int n : {1, 2, 5, 33, 40}) {
          const std::vector<float> x = random_values(rng, static_cast<std::size_t>(n) * sizes.d_model, 1.0f);
          attn::Inputs inputs = weights;
          inputs.x = x;
          attn::Config full = config;
          full.n = n;
          attn::Result want, got;
          REQUIRE(attn::attention_forward(full, inputs, false, &want).ok());
          REQUIRE(attn::attention_forward_prepared(config, inputs, shape, packed, &got).ok());
          INFO("d_model=", sizes.d_model, " heads=", sizes.heads, " wo=", with_wo, " n=", n);
          CHECK(got.shape.n == n);
          REQUIRE(got.output.size() == want.output.size());
          CHECK(std::memcmp(got.output.data(), want.output.data(), want.output.size() * sizeof(float)) == 0);
        }
      }
    }
  }
}

TEST_CASE("a prepared model: errors name the field") {
  attn::Config config;
  config.d_model = 4;
  const std::vector<float> w(16, 0.5f), bad_w(15, 0.5f);
  attn::Inputs weights;
  weights.wq = w;
  weights.wk = w;
  weights.wv = bad_w;
  attn::Shape shape{};
  attn::PackedWeights packed;
  attn::Status s = attn::prepare_model(config, weights, &shape, &packed);
  CHECK(s.field == "wv");
  weights.wv = w;
  attn::Config keep = config;
  keep.mask_mode = attn::MaskMode::Keep;
  CHECK(attn::prepare_model(keep, weights, &shape, &packed).field == "mask");
  REQUIRE(attn::prepare_model(config, weights, &shape, &packed).ok());
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7};  // not a whole number of tokens
  attn::Inputs inputs = weights;
  inputs.x = x;
  attn::Result result;
  s = attn::attention_forward_prepared(config, inputs, shape, packed, &result);
  CHECK(s.field == "x");
  CHECK(s.message.find("x has 7 values") != std::string::npos);
  const std::vector<float> infinite = {1, 2, INFINITY, 4};
  inputs.x = infinite;
  s = attn::attention_forward_prepared(config, inputs, shape, packed, &result);
  CHECK(s.field == "x");
  CHECK(s.message.find("finite") != std::string::npos);
}
