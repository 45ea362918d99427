// Helpers shared by the core's argument checks.
#pragma once

#include <cstddef>
#include <string>

#include "attention/attention.hpp"

namespace attn {

// A number as printf's "%.9g" spells it (up to 9 significant digits), but NaN, Infinity and -Infinity
// as JavaScript does; without printf (format_number.cpp).
std::string format_number(double value);

// True when no value is NaN or ±Infinity: ops::all_finite, a bit test cheap enough for every intermediate.
bool all_finite(const float* values, std::size_t count);

// dModel, heads, dK and dV with their defaults applied (0 means "not given"): dK = dModel / heads, dV = dK.
Status validate_model_sizes(int d_model, int heads, int d_k_given, int d_v_given, int* d_k, int* d_v);

}  // namespace attn
