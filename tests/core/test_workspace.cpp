// The forward pass keeps no state of its own: calls on two workspaces, interleaved, each give the
// float64 reference's numbers and the bits of a call on a fresh workspace. Natively, two threads
// run forward passes at the same time, which shared buffers in the core would corrupt.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#if defined(ATTN_TEST_THREADS)
#include <thread>
#endif

#include "reference.hpp"

namespace {

// Two models that take different paths: 70 queries unmasked (by blocks in the SIMD build) with
// W_O, and cross-attention with a causal mask on the portable arithmetic, traced.
struct Case {
  ref::Problem problem;
  attn::Config config;
  bool trace;
};

Case case_a() {
  Case c{ref::random_problem(11, 70, 70, 48, 3, 16, 16, false, true, ref::Scale::SqrtDk, ref::Mask::None), {}, false};
  c.config = ref::config_of(c.problem);
  return c;
}

Case case_b() {
  Case c{ref::random_problem(12, 9, 37, 20, 2, 7, 5, true, false, ref::Scale::Divisor, ref::Mask::Causal), {}, true};
  c.config = ref::config_of(c.problem);
  c.config.arithmetic = attn::Arithmetic::Portable;
  return c;
}

attn::Result run(const Case& c, attn::Workspace* workspace) {
  attn::Result result;
  const attn::Status status = attn::attention_forward(c.config, ref::inputs_of(c.problem), c.trace, &result, workspace);
  REQUIRE_MESSAGE(status.ok(), status.message);
  return result;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("two forward passes interleaved on two workspaces: each the float64 reference's, each a fresh call's bits") {
  const Case a = case_a(), b = case_b();
  const ref::Expected want_a = ref::forward(a.problem), want_b = ref::forward(b.problem);
  const attn::Result fresh_a = run(a, nullptr), fresh_b = run(b, nullptr);
  attn::Workspace workspace_a, workspace_b;
  attn::Result result_a, result_b;  // reused, as the prepared model's binding reuses its result
  for (int round = 0; round < 3; ++round) {
    INFO("round ", round);
    result_a = run(a, &workspace_a);
    result_b = run(b, &workspace_b);
    ref::check_close("output of a", result_a.output, want_a.output, result_a.shape.d_out, 1e-4, 1e-4);
    ref::check_close("output of b", result_b.output, want_b.output, result_b.shape.d_out, 1e-4, 1e-4);
    ref::check_close("weights of b, head 2", result_b.heads[1].weights, want_b.heads[1].weights, b.problem.m, 1e-4,
                     1e-4);
    CHECK(same_bits(result_a.output, fresh_a.output));
    CHECK(same_bits(result_b.output, fresh_b.output));
  }
  // one workspace taking turns between the two models: what one call leaves is never read by the next
  attn::Workspace shared;
  for (int round = 0; round < 2; ++round) {
    CHECK(same_bits(run(b, &shared).output, fresh_b.output));
    CHECK(same_bits(run(a, &shared).output, fresh_a.output));
  }
}

#if defined(ATTN_TEST_THREADS)
TEST_CASE("two threads, each with its own workspace, run forward passes at the same time with a fresh call's bits") {
  const Case cases[2] = {case_a(), case_b()};
  const attn::Result fresh[2] = {run(cases[0], nullptr), run(cases[1], nullptr)};
  int wrong[2] = {0, 0};
  const auto loop = [&](int which) {
    attn::Workspace workspace;
    for (int call = 0; call < 200; ++call) {
      attn::Result result;
      const attn::Status status = attn::attention_forward(cases[which].config, ref::inputs_of(cases[which].problem),
                                                          cases[which].trace, &result, &workspace);
      if (!status.ok() || !same_bits(result.output, fresh[which].output)) ++wrong[which];
    }
  };
  std::thread first(loop, 0), second(loop, 1);
  first.join();
  second.join();
  CHECK(wrong[0] == 0);
  CHECK(wrong[1] == 0);
}
#endif
