// Helpers shared by the core's argument checks.
#pragma once

#include <string>

#include "attention/attention.hpp"

namespace attn {

// A number spelled as JavaScript prints it: NaN, Infinity, -Infinity, or up to 9 significant digits.
std::string format_number(double value);

// dModel, heads, dK and dV with their defaults applied (0 means "not given"): dK = dModel / heads, dV = dK.
Status validate_model_sizes(int d_model, int heads, int d_k_given, int d_v_given, int* d_k, int* d_v);

}  // namespace attn
