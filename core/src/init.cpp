// Seeded Xavier/Glorot uniform initialisation, the same bits on every IEEE-754 platform.
//   wq, wk: (h, d_model, d_k)  wv: (h, d_model, d_v)  wo: (h·d_v, d_model)
#include <cmath>
#include <cstdint>

#include "attention/attention.hpp"
#include "splitmix64.hpp"
#include "validate.hpp"

namespace attn {
namespace {

// Xavier/Glorot: uniform on [-limit, limit) with limit = sqrt(6 / (fan_in + fan_out)).
void fill_xavier(std::uint64_t* rng, int fan_in, int fan_out, std::size_t count, std::vector<float>* out) {
  out->resize(count);
  fill_uniform(rng, std::sqrt(6.0 / (static_cast<double>(fan_in) + fan_out)), out);
}

}  // namespace

Status init_weights(int d_model, int heads, int d_k_given, int d_v_given, std::uint64_t seed, Weights* weights) {
  int d_k = 0, d_v = 0;
  if (Status s = validate_model_sizes(d_model, heads, d_k_given, d_v_given, &d_k, &d_v); !s.ok()) return s;
  Weights out;
  std::uint64_t rng = seed;
  const std::size_t per_head_k = static_cast<std::size_t>(d_model) * d_k;
  const std::size_t per_head_v = static_cast<std::size_t>(d_model) * d_v;
  fill_xavier(&rng, d_model, d_k, heads * per_head_k, &out.wq);
  fill_xavier(&rng, d_model, d_k, heads * per_head_k, &out.wk);
  fill_xavier(&rng, d_model, d_v, heads * per_head_v, &out.wv);
  fill_xavier(&rng, heads * d_v, d_model, static_cast<std::size_t>(heads) * d_v * d_model, &out.wo);
  *weights = std::move(out);
  return Status::Ok();
}

}  // namespace attn
