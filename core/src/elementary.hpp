// Elementary functions in plain double arithmetic, without libm (positions.cpp): libm's carry a
// reduction for any double and musl's come with tables (10 KB of the page's engine), and these give the
// same bits natively and in both WebAssembly builds. Each holds on the range it states.
#pragma once

namespace attn {

// e^t for -708 <= t <= 0
double exp_nonpositive(double t);
// sin a, or cos a with `cosine`, for 0 <= a <= 2^19
double sin_or_cos(double a, bool cosine);
// ln x for a normal x > 0
double log_positive(double x);

}  // namespace attn
