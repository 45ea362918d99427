// Every argument check: the call fails before any work, the status names the field, and the
// message quotes the values at fault.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "reference.hpp"
#include "validate.hpp"

namespace {

bool every_finite(const std::vector<float>& values) {
  for (float v : values) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

struct BadCase {
  const char* what;
  std::function<void(ref::Problem&, attn::Config&, attn::Inputs&)> spoil;
  const char* field;
  std::vector<const char*> message_parts;
};

ref::Problem good_problem() {
  return ref::random_problem(1, 3, 3, 4, 2, 2, 2, false, true, ref::Scale::SqrtDk, ref::Mask::None);
}

// One case a line or two: a table reads best as the table it is, so clang-format leaves it alone.
// clang-format off
std::vector<BadCase> bad_cases() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  return {
      {"n = 0", [](auto&, auto& c, auto&) { c.n = 0; }, "n", {"n must be at least 1, got 0"}},
      {"n above the cap", [](auto&, auto& c, auto&) { c.n = 5000; }, "n", {"n (5000)", "cap of 4096"}},
      {"negative dModel", [](auto&, auto& c, auto&) { c.d_model = -2; }, "dModel", {"dModel", "-2"}},
      {"heads = 0", [](auto&, auto& c, auto&) { c.heads = 0; }, "heads", {"heads must be at least 1, got 0"}},
      {"heads above the cap", [](auto&, auto& c, auto&) { c.heads = 65; }, "heads", {"heads (65)", "cap of 64"}},
      {"dModel not divisible by heads",
       [](auto&, auto& c, auto&) { c.d_model = 10; c.heads = 3; c.d_k = 0; c.d_v = 0; },
       "dModel", {"dModel (10) is not divisible by heads (3)"}},
      {"negative dK", [](auto&, auto& c, auto&) { c.d_k = -1; }, "dK", {"dK", "-1"}},
      {"dV above the cap", [](auto&, auto& c, auto&) { c.d_v = 5000; }, "dV", {"dV (5000)"}},
      {"projection too large", [](auto&, auto& c, auto&) { c.heads = 64; c.d_model = 4096; c.d_k = 4096; },
       "heads", {"64 × 4096 × 4096", "cap"}},
      {"x missing", [](auto&, auto&, auto& in) { in.x = {}; }, "x", {"x is required"}},
      {"x too short", [](auto& p, auto&, auto& in) { in.x = attn::View<float>(p.x.data(), 11); }, "x",
       {"x has 11 values", "n × dModel = 3 × 4 = 12"}},
      {"x holds NaN", [nan](auto& p, auto&, auto& in) { p.x[5] = nan; in.x = p.x; }, "x",
       {"x[5] (row 2, column 2, counting from 1) is NaN"}},
      {"context holds Infinity",
       [inf](auto& p, auto& c, auto& in) { p.context.assign(8, 0); p.context[7] = inf; in.context = p.context; c.m = 2; },
       "context", {"context[7] (row 2, column 4, counting from 1) is Infinity"}},
      {"m without a context", [](auto&, auto& c, auto&) { c.m = 5; }, "m", {"m (5) differs from n (3)"}},
      {"m = 0 with a context", [](auto& p, auto& c, auto& in) { in.context = p.x; c.m = 0; }, "m",
       {"m must be at least 1, got 0"}},
      {"wq of the wrong size", [](auto& p, auto&, auto& in) { p.wq.pop_back(); in.wq = p.wq; }, "wq",
       {"wq has 15 values", "heads × dModel × dK = 2 × 4 × 2 = 16"}},
      {"wk with -Infinity", [inf](auto& p, auto&, auto& in) { p.wk[9] = -inf; in.wk = p.wk; }, "wk",
       {"wk[9] (head 2, row 1, column 2, counting from 1) is -Infinity"}},
      {"wv omitted with two heads", [](auto&, auto&, auto& in) { in.wv = {}; }, "wv",
       {"wv is omitted", "heads is 2", "identity needs heads = 1 and dV = dModel"}},
      {"wq omitted with dK != dModel", [](auto&, auto& c, auto& in) { c.heads = 1; in.wq = {}; }, "wq",
       {"wq is omitted", "dK is 2 with dModel 4"}},
      {"wo of the wrong size", [](auto& p, auto&, auto& in) { p.wo.resize(3); in.wo = p.wo; }, "wo",
       {"wo has 3 values", "(heads·dV) × dModel = 4 × 4 = 16"}},
      {"negative divisor", [](auto&, auto& c, auto&) { c.scale_mode = attn::ScaleMode::Divisor; c.scale_divisor = -1; },
       "scale", {"scale must be", "got -1"}},
      {"NaN divisor", [nan](auto&, auto& c, auto&) { c.scale_mode = attn::ScaleMode::Divisor; c.scale_divisor = nan; },
       "scale", {"got NaN"}},
      {"divisor below the smallest normal float32",
       [](auto&, auto& c, auto&) { c.scale_mode = attn::ScaleMode::Divisor; c.scale_divisor = 1e-39; },
       "scale", {"float32", "got 1e-39"}},
      {"divisor that is 0 in float32",
       [](auto&, auto& c, auto&) { c.scale_mode = attn::ScaleMode::Divisor; c.scale_divisor = 5e-324; },
       "scale", {"e-324"}},
      {"divisor that is infinite in float32",
       [](auto&, auto& c, auto&) { c.scale_mode = attn::ScaleMode::Divisor; c.scale_divisor = 1e39; },
       "scale", {"got 1e+39"}},
      {"a scale mode out of the enum", [](auto&, auto& c, auto&) { c.scale_mode = static_cast<attn::ScaleMode>(7); },
       "scale", {"scale mode 7 is unknown"}},
      {"a negative scale mode", [](auto&, auto& c, auto&) { c.scale_mode = static_cast<attn::ScaleMode>(-1); },
       "scale", {"scale mode -1 is unknown"}},
      {"a mask mode out of the enum", [](auto&, auto& c, auto&) { c.mask_mode = static_cast<attn::MaskMode>(3); },
       "mask", {"mask mode 3 is unknown"}},
      {"keep-mask missing", [](auto&, auto& c, auto&) { c.mask_mode = attn::MaskMode::Keep; }, "mask",
       {"mask has 0 values", "n × m = 3 × 3 = 9"}},
      {"keep-mask with a 2",
       [](auto& p, auto& c, auto& in) { c.mask_mode = attn::MaskMode::Keep; p.keep.assign(9, 1); p.keep[4] = 2; in.keep = p.keep; },
       "mask", {"mask[4] is 2"}},
      {"keep-mask without the keep mode", [](auto& p, auto&, auto& in) { p.keep.assign(9, 1); in.keep = p.keep; },
       "mask", {"keep-mask was given"}},
  };
}
// clang-format on

}  // namespace

TEST_CASE("each invalid argument is refused with a message naming the field and the values") {
  for (const BadCase& bad : bad_cases()) {
    INFO(bad.what);
    ref::Problem p = good_problem();
    attn::Config config = ref::config_of(p);
    attn::Inputs inputs = ref::inputs_of(p);
    bad.spoil(p, config, inputs);
    attn::Result result;
    result.output = {7};
    const attn::Status status = attn::attention_forward(config, inputs, true, &result);
    REQUIRE_FALSE(status.ok());
    CHECK(status.field == bad.field);
    for (const char* part : bad.message_parts) {
      CHECK_MESSAGE(status.message.find(part) != std::string::npos, "message: ", status.message, "\nmissing: ", part);
    }
    CHECK(result.output == std::vector<float>{7});
  }
}

TEST_CASE("the trace is capped and the same problem runs without it") {
  ref::Problem p;
  p.n = 4096;
  p.d_model = p.d_k = p.d_v = 1;
  p.heads = 2;
  p.x.assign(4096, 0.5f);
  p.wq.assign(2, 1.0f);
  p.wk = p.wq;
  p.wv = p.wq;
  attn::Config config = ref::config_of(p);
  attn::Result result;
  const attn::Status traced = attn::attention_forward(config, ref::inputs_of(p), true, &result);
  CHECK(traced.field == "trace");
  CHECK(traced.message.find("2 × 4096 × 4096 = 33554432") != std::string::npos);
  const attn::Status fast = attn::attention_forward(config, ref::inputs_of(p), false, &result);
  REQUIRE_MESSAGE(fast.ok(), fast.message);
  CHECK(result.output.size() == 4096u * 2);
  CHECK(result.output[0] == doctest::Approx(0.5));
}

TEST_CASE("a valid problem passes validate() with the defaults applied") {
  attn::Config config;
  config.n = 2;
  config.d_model = 12;
  config.heads = 3;
  std::vector<float> x(24, 0.25f), w(3 * 12 * 4, 0.1f);
  attn::Inputs inputs;
  inputs.x = x;
  inputs.wq = inputs.wk = inputs.wv = w;
  attn::Shape shape{};
  REQUIRE(attn::validate(config, inputs, true, &shape).ok());
  CHECK(shape.d_k == 4);
  CHECK(shape.d_v == 4);
  CHECK(shape.m == 2);
  CHECK(shape.self);
  CHECK(shape.d_out == 12);
  CHECK(shape.scale == doctest::Approx(2.0));
}

TEST_CASE("a result that would not be finite fails the call, naming the cause") {
  // x = 1e19 with W = I: the score 1e38 is finite, but 1e38 / 0.01 overflows float32
  std::vector<float> x = {1e19f};
  attn::Config config;
  config.n = 1;
  config.d_model = 1;
  config.scale_mode = attn::ScaleMode::Divisor;
  config.scale_divisor = 0.01;
  attn::Inputs inputs;
  inputs.x = x;
  for (bool trace : {true, false}) {
    for (attn::MaskMode mask : {attn::MaskMode::None, attn::MaskMode::Causal}) {
      config.mask_mode = mask;
      attn::Result result;
      const attn::Status status = attn::attention_forward(config, inputs, trace, &result);
      CHECK(status.field == "scale");
      CHECK(status.message.find("the scores of head 1 of 1 divided by scale (0.01) overflow float32") !=
            std::string::npos);
      CHECK(result.output.empty());
    }
  }
  config.scale_divisor = 1e30;  // the same scores with a large divisor are fine
  config.mask_mode = attn::MaskMode::None;
  attn::Result result;
  REQUIRE(attn::attention_forward(config, inputs, true, &result).ok());
  CHECK(result.output[0] == 1e19f);

  // scores 0 (wq = wk = 0), so m equal weights 1/m whose float32 sum can round above 1; every v at
  // the float32 limit: z = Σ weights·v lands above the limit for some m. Either way nothing
  // infinite comes back: the call succeeds with finite values or fails naming z.
  const float big = std::numeric_limits<float>::max();
  std::vector<float> zero = {0}, one = {1};
  int failed = 0;
  for (int m = 2; m <= 40; ++m) {
    std::vector<float> values(m, big);
    attn::Config wide;
    wide.n = m;
    wide.d_model = 1;
    attn::Inputs in;
    in.x = values;
    in.wq = zero;
    in.wk = zero;
    in.wv = one;
    attn::Result wide_result;
    const attn::Status z_status = attn::attention_forward(wide, in, true, &wide_result);
    if (z_status.ok()) {
      CHECK(every_finite(wide_result.output));
      CHECK(every_finite(wide_result.concat));
    } else {
      CHECK(z_status.message.find("weighted values z") != std::string::npos);
      ++failed;
    }
  }
  MESSAGE(failed, " of 39 sizes overflow in z");
  CHECK(failed > 0);
}

TEST_CASE("validate() checks sizes from a view with no data, before anything is copied") {
  attn::Config config;
  config.n = 1;
  config.d_model = 1;
  attn::Inputs inputs;
  inputs.x = attn::View<float>(nullptr, 600000000);
  attn::Shape shape{};
  attn::Status status = attn::validate(config, inputs, true, &shape);
  CHECK(status.field == "x");
  CHECK(status.message.find("x has 600000000 values; expected n × dModel = 1 × 1 = 1") != std::string::npos);
  inputs.x = attn::View<float>(nullptr, 1);
  CHECK(attn::validate(config, inputs, true, &shape).ok());
  attn::Result result;
  const attn::Status run = attn::attention_forward(config, inputs, true, &result);  // the pass itself needs the data
  CHECK(run.field == "x");
  CHECK(run.message == "x has a size but no data");
}

TEST_CASE("format_number spells numbers as printf's %.9g does, without printf") {
  const auto printf_9g = [](double value) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return std::string(buffer);
  };
  CHECK(attn::format_number(std::nan("")) == "NaN");
  CHECK(attn::format_number(HUGE_VAL) == "Infinity");
  CHECK(attn::format_number(-HUGE_VAL) == "-Infinity");
  CHECK(attn::format_number(FLT_MIN) == "1.17549435e-38");
  CHECK(attn::format_number(FLT_MAX) == "3.40282347e+38");
  CHECK(attn::format_number(5e-324) == "4.94065646e-324");
  CHECK(attn::format_number(0.1) == "0.1");
  CHECK(attn::format_number(-2.5e-5) == "-2.5e-05");
  CHECK(attn::format_number(123456788.5) == "123456788");  // a tie rounds to the even digit
  CHECK(attn::format_number(123456789.5) == "123456790");
  CHECK(attn::format_number(999999999.5) == "1e+09");
  std::vector<double> values = {
      0.0,    -0.0,   1,       -1,          8,         1e-39,      1e39, 1.7e308, DBL_MAX,           DBL_MIN,
      5e-324, 0.0001, 0.00001, 99999.99995, 123456789, 1234567890, 0.3,  2.0 / 3, 1e-4 * (1 - 1e-16)};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bits = rng();
    double random_bits;
    std::memcpy(&random_bits, &bits, sizeof random_bits);
    if (std::isfinite(random_bits)) values.push_back(random_bits);  // every exponent, subnormals too
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 200) - 100));
    const double nine_digits = 100000000 + static_cast<double>(rng() % 900000000);
    values.push_back(nine_digits + 0.5);             // exact ties at the tenth digit
    values.push_back((nine_digits * 10 + 5) * 1e3);  // the same, in exponent notation
  }
  int mismatches = 0;
  for (double value : values) {
    if (attn::format_number(value) != printf_9g(value) && ++mismatches <= 5) {
      FAIL_CHECK(attn::format_number(value) << " != printf's " << printf_9g(value));
    }
  }
  CHECK(mismatches == 0);
}
