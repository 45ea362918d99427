// Helpers shared by the core's argument checks.
#pragma once

#include <cstddef>
#include <string>

#include "attention/attention.hpp"

namespace attn {

// A number spelled as JavaScript prints it: NaN, Infinity, -Infinity, or up to 9 significant digits.
std::string format_number(double value);

// True when no value is NaN or ±Infinity (a bit test, cheap enough for every intermediate).
bool all_finite(const float* values, std::size_t count);

// dModel, heads, dK and dV with their defaults applied (0 means "not given"): dK = dModel / heads, dV = dK.
Status validate_model_sizes(int d_model, int heads, int d_k_given, int d_v_given, int* d_k, int* d_v);

}  // namespace attn
