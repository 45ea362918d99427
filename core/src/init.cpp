// Seeded Xavier/Glorot uniform initialisation, the same bits on every IEEE-754 platform.
//   wq, wk: (h, d_model, d_k)  wv: (h, d_model, d_v)  wo: (h·d_v, d_model)
#include <cmath>
#include <cstdint>

#include "attention/attention.hpp"
#include "validate.hpp"

namespace attn {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, exact integer arithmetic everywhere.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Uniform on [-limit, limit) with limit = sqrt(6 / (fan_in + fan_out)). The top 24 bits give u in
// [0, 1) exactly; the double product is rounded once to float, so no platform can differ.
void fill_xavier(SplitMix64& rng, int fan_in, int fan_out, std::size_t count, std::vector<float>* out) {
  const double limit = std::sqrt(6.0 / (static_cast<double>(fan_in) + fan_out));
  out->resize(count);
  for (float& value : *out) {
    const double u = static_cast<double>(rng.next() >> 40) * 0x1.0p-24;
    value = static_cast<float>((2.0 * u - 1.0) * limit);
  }
}

}  // namespace

Status init_weights(int d_model, int heads, int d_k_given, int d_v_given, std::uint64_t seed, Weights* weights) {
  int d_k = 0, d_v = 0;
  if (Status s = validate_model_sizes(d_model, heads, d_k_given, d_v_given, &d_k, &d_v); !s.ok()) return s;
  Weights out;
  SplitMix64 rng{seed};
  const std::size_t per_head_k = static_cast<std::size_t>(d_model) * d_k;
  const std::size_t per_head_v = static_cast<std::size_t>(d_model) * d_v;
  fill_xavier(rng, d_model, d_k, heads * per_head_k, &out.wq);
  fill_xavier(rng, d_model, d_k, heads * per_head_k, &out.wk);
  fill_xavier(rng, d_model, d_v, heads * per_head_v, &out.wv);
  fill_xavier(rng, heads * d_v, d_model, static_cast<std::size_t>(heads) * d_v * d_model, &out.wo);
  *weights = std::move(out);
  return Status::Ok();
}

}  // namespace attn
