// The worked examples of the lecture notes (shared/seeds/), with their true values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "attention/attention.hpp"

namespace {

attn::Result run(const attn::Config& config, const attn::Inputs& inputs) {
  attn::Result result;
  const attn::Status status = attn::attention_forward(config, inputs, /*trace=*/true, &result);
  REQUIRE_MESSAGE(status.ok(), status.message);
  return result;
}

void check_row(const std::vector<float>& matrix, int cols, int row, const std::vector<double>& want, double atol) {
  for (int j = 0; j < cols; ++j) {
    CHECK_MESSAGE(std::fabs(matrix[row * cols + j] - want[j]) <= atol, "row ", row, " column ", j, ": got ",
                  matrix[row * cols + j], ", notes ", want[j]);
  }
}

}  // namespace

TEST_CASE("002: 'The cat sat' with W = I and d_k = 4") {
  // E_The = [1,0,1,0], E_cat = [0,1,0,1], E_sat = [1,1,1,1]; Wq = Wk = Wv = I (omitted)
  const std::vector<float> x = {1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1};
  attn::Config config;
  config.n = 3;
  config.d_model = 4;
  attn::Inputs inputs;
  inputs.x = x;
  const attn::Result r = run(config, inputs);
  const attn::HeadTrace& head = r.heads.at(0);

  SUBCASE("scores as in the notes: cat·(The, cat, sat) = 0, 2, 2 and sat·(...) = 2, 2, 4") {
    check_row(head.scores, 3, 1, {0, 2, 2}, 0);
    check_row(head.scores, 3, 2, {2, 2, 4}, 0);
    check_row(head.scaled, 3, 2, {1, 1, 2}, 0);  // divided by sqrt(d_k) = 2
  }
  SUBCASE("weights row 'The' = [0.4223, 0.1554, 0.4223]") {
    check_row(head.weights, 3, 0, {0.4223, 0.1554, 0.4223}, 5e-5);
  }
  SUBCASE("outputs: [0.8446, 0.5777, 0.8446, 0.5777], [0.5777, 0.8446, 0.5777, 0.8446], [0.7881 x4]") {
    check_row(r.output, 4, 0, {0.8446, 0.5777, 0.8446, 0.5777}, 5e-5);
    check_row(r.output, 4, 1, {0.5777, 0.8446, 0.5777, 0.8446}, 5e-5);
    check_row(r.output, 4, 2, {0.7881, 0.7881, 0.7881, 0.7881}, 5e-5);
  }
  SUBCASE("the notes' weights for 'sat' (0.21, 0.21, 0.53) are a slip: the true third weight is 0.5761") {
    check_row(head.weights, 3, 2, {0.2119, 0.2119, 0.5761}, 5e-5);
  }
  CHECK(r.output == r.concat);  // no W_O: the output is the concatenation of the one head
}

TEST_CASE("002: softmax([6, 4]) is [0.8808, 0.1192], not the notes' [0.38, 0.18], and softmax([3, 2]) = [0.73, 0.27]") {
  // One query [1] against keys [6] and [4] with identity projections: the scores are 6 and 4.
  const std::vector<float> query = {1}, keys = {6, 4};
  attn::Config config;
  config.n = 1;
  config.m = 2;
  config.d_model = 1;
  config.scale_mode = attn::ScaleMode::None;
  attn::Inputs inputs;
  inputs.x = query;
  inputs.context = keys;
  check_row(run(config, inputs).heads.at(0).weights, 2, 0, {0.880797, 0.119203}, 1e-6);

  config.scale_mode = attn::ScaleMode::Divisor;
  config.scale_divisor = 2;  // the notes' scaled row [3, 2]
  check_row(run(config, inputs).heads.at(0).weights, 2, 0, {0.731059, 0.268941}, 1e-6);
}

TEST_CASE("000: S21 = 10, S22 = 32 over sqrt(2) are 7.0711 and 22.6274 (the notes write 7.09 and 22.69)") {
  const std::vector<float> query = {1}, keys = {10, 32};
  attn::Config config;
  config.n = 1;
  config.m = 2;
  config.d_model = 1;
  config.scale_mode = attn::ScaleMode::Divisor;
  config.scale_divisor = std::sqrt(2.0);
  attn::Inputs inputs;
  inputs.x = query;
  inputs.context = keys;
  check_row(run(config, inputs).heads.at(0).scaled, 2, 0, {7.0711, 22.6274}, 5e-5);
}

TEST_CASE(
    "003: the scores of 'it' against every key of 'The animal didn't cross the street because it was too tired'") {
  // Queries and keys are given directly: q_it as x, the keys as the context, identity projections.
  const std::vector<float> q_it = {0.6f, 0.5f, 0.4f};
  const std::vector<float> keys = {
      0.2f, 0.1f, 0.0f,  // The
      0.6f, 0.5f, 0.4f,  // animal
      0.1f, 0.2f, 0.1f,  // didn't
      0.2f, 0.1f, 0.3f,  // cross
      0.5f, 0.4f, 0.3f,  // street
      0.7f, 0.6f, 0.5f,  // it
      0.1f, 0.0f, 0.2f,  // was
      0.9f, 0.8f, 0.7f,  // tired
  };
  attn::Config config;
  config.n = 1;
  config.m = 8;
  config.d_model = 3;
  config.scale_mode = attn::ScaleMode::None;
  attn::Inputs inputs;
  inputs.x = q_it;
  inputs.context = keys;
  const attn::Result r = run(config, inputs);
  const attn::HeadTrace& head = r.heads.at(0);
  check_row(head.scores, 8, 0, {0.17, 0.77, 0.20, 0.29, 0.62, 0.92, 0.14, 1.22}, 1e-6);

  // The notes' weights (animal 0.60 / 0.70) are illustrative: the true softmax favours "tired".
  const auto top = std::max_element(head.weights.begin(), head.weights.end()) - head.weights.begin();
  CHECK(top == 7);
  CHECK(head.weights[1] < 0.2f);
}
