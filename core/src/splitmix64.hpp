// The one pseudo-random source of the core: weight initialisation (init.cpp) and the trainer's
// embeddings, read-out and batch order (trainer.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace attn {

// splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, exact integer arithmetic, so the same
// numbers on every platform.
inline std::uint64_t splitmix64(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform on [-limit, limit). The top 24 bits give u in [0, 1) exactly; the double product is
// rounded once to float, so no platform can differ.
inline void fill_uniform(std::uint64_t* state, double limit, std::vector<float>* out) {
  for (float& value : *out) {
    const double u = static_cast<double>(splitmix64(state) >> 40) * 0x1.0p-24;
    value = static_cast<float>((2.0 * u - 1.0) * limit);
  }
}

}  // namespace attn
