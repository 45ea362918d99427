// The sinusoidal position encoding, with its own exp, sin and cos: libm's carry a reduction for any
// double and musl's come with tables (__rem_pio2 and the pow and exp tables: 10 KB of the page's
// engine). Here the angles are at most kMaxTokens radians and the exponents at most 0, so
// Cody-Waite reductions and fdlibm's minimax polynomials (Sun Microsystems, 1993: "Permission to
// use, copy, modify, and distribute this software is freely granted, provided that this notice is
// preserved") are within a few ulps of double, and the float32 positions are the correctly rounded
// sinusoid's, but where a value lies within about 1e-12 of a float32 rounding boundary (tested
// against libm in tests/core/test_biases_positions.cpp). Plain double arithmetic, no libm: the same
// bits natively and in both WebAssembly builds.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attention/attention.hpp"
#include "elementary.hpp"

namespace attn {

// e^t for -708 <= t <= 0 (2^k stays a normal double): t = k·ln 2 + r with |r| <= ln 2 / 2, then
// fdlibm's e_exp.c on r.
double exp_nonpositive(double t) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  const double k = std::nearbyint(t * kInvLn2);
  const double hi = t - k * kLn2Hi, lo = k * kLn2Lo, r = hi - lo;
  const double r2 = r * r;
  const double c = r - r2 * (1.66666666666666019037e-01 +
                             r2 * (-2.77777777770155933842e-03 +
                                   r2 * (6.61375632143793436117e-05 +
                                         r2 * (-1.65339022054652515390e-06 + r2 * 4.13813679705723846039e-08))));
  const double e_r = 1 - ((lo - (r * c) / (2 - c)) - hi);
  const std::uint64_t two_to_k_bits = static_cast<std::uint64_t>(1023 + static_cast<int>(k)) << 52;
  double two_to_k;
  std::memcpy(&two_to_k, &two_to_k_bits, sizeof two_to_k);
  return e_r * two_to_k;
}

namespace {

// sin r and cos r for |r| <= π/4 (fdlibm's k_sin.c and k_cos.c, without the tail of r).
double sin_kernel(double r) {
  const double z = r * r;
  return r + z * r *
                 (-1.66666666666666324348e-01 +
                  z * (8.33333333332248946124e-03 +
                       z * (-1.98412698298579493134e-04 +
                            z * (2.75573137070700676789e-06 +
                                 z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)))));
}
double cos_kernel(double r) {
  const double z = r * r, w = z * z;
  const double poly =
      z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * 2.48015872894767294178e-05)) +
      w * w * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11));
  const double half_z = 0.5 * z, one_minus = 1 - half_z;
  return one_minus + (((1 - one_minus) - half_z) + z * poly);
}

}  // namespace

// sin a (or cos a, with `cosine`) for 0 <= a <= 2^19: a = k·π/2 + r, π/2 in three parts of which the
// first two have 33 bits, so that each k·part is exact and r keeps its digits when a is near k·π/2.
double sin_or_cos(double a, bool cosine) {
  constexpr double kInvPio2 = 6.36619772367581382433e-01;
  constexpr double kPio2Part1 = 1.57079632673412561417e+00, kPio2Part2 = 6.07710050630396597660e-11,
                   kPio2Part3 = 2.02226624879595063154e-21;
  const double k = std::nearbyint(a * kInvPio2);
  const double r = ((a - k * kPio2Part1) - k * kPio2Part2) - k * kPio2Part3;
  // quarter turns: sin(r + kπ/2) is sin r, cos r, -sin r, -cos r; cos is sin a quarter turn later
  switch ((static_cast<int>(k) + (cosine ? 1 : 0)) & 3) {
    case 0: return sin_kernel(r);
    case 1: return cos_kernel(r);
    case 2: return -sin_kernel(r);
    default: return -cos_kernel(r);
  }
}

// ln x for a normal x > 0: x = 2^e · f with √½ <= f < √2, then ln f = 2·atanh(s), s = (f − 1)/(f + 1),
// |s| <= 0.172, by its series s + s³/3 + … to s^23 (the next term is below 1e-19 of the sum).
double log_positive(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kSqrt2 = 1.41421356237309514547e+00;
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1023} << 52);
  double f;
  std::memcpy(&f, &bits, sizeof f);
  if (f > kSqrt2) {
    f *= 0.5;
    ++e;
  }
  const double s = (f - 1) / (f + 1), s2 = s * s;
  double series = 0;
  for (int k = 11; k >= 0; --k) series = series * s2 + 1.0 / (2 * k + 1);
  return e * kLn2Hi + (e * kLn2Lo + 2 * s * series);
}

// pe(pos, 2i) = sin(pos / 10000^(2i/d_model)), pe(pos, 2i+1) = cos(pos / 10000^(2i/d_model)), in
// double and rounded once to float.
std::vector<float> sinusoidal_positions(int rows, int d_model) {
  constexpr double kLn10000 = 9.21034037197618273607e+00;
  std::vector<float> pe(static_cast<std::size_t>(rows) * d_model);
  for (int c = 0; c < d_model; ++c) {
    const int even = c - c % 2;
    const double inverse_wavelength = exp_nonpositive(-static_cast<double>(even) / d_model * kLn10000);
    for (int pos = 0; pos < rows; ++pos) {
      pe[static_cast<std::size_t>(pos) * d_model + c] =
          static_cast<float>(sin_or_cos(pos * inverse_wavelength, c % 2 == 1));
    }
  }
  return pe;
}

}  // namespace attn
