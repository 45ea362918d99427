// Numbers in messages, spelled as printf's "%.9g" spells them (NaN and ±Infinity as JavaScript
// does), without printf: musl's printf formats through long double and was 7 KB of the page's
// engine. Exact: the nine digits come from the double's value in integer arithmetic and are rounded
// half to even, as printf rounds (tests/core/test_validation.cpp compares the two).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "validate.hpp"

namespace attn {
namespace {

// A non-negative integer of up to 1,280 bits: a double's significand times 2^971 (the largest
// double), or 2^1074 times 10 (the smallest one's denominator as the digits are drawn), fit in it.
class BigInt {
 public:
  explicit BigInt(std::uint64_t value)
      : limbs_{static_cast<std::uint32_t>(value), static_cast<std::uint32_t>(value >> 32)} {}

  void multiply(std::uint32_t factor) {
    std::uint64_t carry = 0;
    for (std::uint32_t& limb : limbs_) {
      carry += static_cast<std::uint64_t>(limb) * factor;
      limb = static_cast<std::uint32_t>(carry);
      carry >>= 32;
    }
  }
  void shift_left(int bits) {
    for (; bits > 16; bits -= 16) multiply(1u << 16);
    multiply(1u << bits);
  }
  bool less_than(const BigInt& other) const {
    for (int i = kLimbs - 1; i >= 0; --i) {
      if (limbs_[i] != other.limbs_[i]) return limbs_[i] < other.limbs_[i];
    }
    return false;
  }
  void subtract(const BigInt& other) {  // *this >= other
    std::int64_t borrow = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const std::int64_t difference = static_cast<std::int64_t>(limbs_[i]) - other.limbs_[i] - borrow;
      limbs_[i] = static_cast<std::uint32_t>(difference);
      borrow = difference < 0;
    }
  }

 private:
  static constexpr int kLimbs = 40;
  std::uint32_t limbs_[kLimbs] = {};
};

constexpr int kDigits = 9;

}  // namespace

std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  std::string out = std::signbit(value) ? "-" : "";
  if (value == 0) return out + "0";

  // |value| = significand · 2^exponent, as numerator / denominator
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const int biased = static_cast<int>(bits >> 52 & 0x7ff);
  std::uint64_t significand = bits & ((1ull << 52) - 1);
  if (biased != 0) significand |= 1ull << 52;
  const int exponent = (biased != 0 ? biased : 1) - 1075;
  BigInt numerator(significand), denominator(1);
  if (exponent > 0) numerator.shift_left(exponent);
  if (exponent < 0) denominator.shift_left(-exponent);

  // the decimal exponent: numerator / denominator scaled into [1, 10)
  int decimal = 0;
  BigInt ten_denominators = denominator;
  ten_denominators.multiply(10);
  while (!numerator.less_than(ten_denominators)) {
    denominator = ten_denominators;
    ten_denominators.multiply(10);
    ++decimal;
  }
  while (numerator.less_than(denominator)) {
    numerator.multiply(10);
    --decimal;
  }

  // nine digits by long division, then the remainder rounds the last one half to even
  char digits[kDigits];
  for (int i = 0; i < kDigits; ++i) {
    if (i > 0) numerator.multiply(10);
    int digit = 0;
    for (; !numerator.less_than(denominator); ++digit) numerator.subtract(denominator);
    digits[i] = static_cast<char>('0' + digit);
  }
  numerator.multiply(2);
  const bool above_half = denominator.less_than(numerator);
  const bool half = !above_half && !numerator.less_than(denominator);
  if (above_half || (half && (digits[kDigits - 1] - '0') % 2 == 1)) {
    int i = kDigits - 1;
    for (; i >= 0 && digits[i] == '9'; --i) digits[i] = '0';
    if (i >= 0) {
      ++digits[i];
    } else {  // 999999999 rounded up
      digits[0] = '1';
      ++decimal;
    }
  }

  // %g: exponent notation below 1e-4 and from 1e9 on, and no trailing zeros after the point
  int length = kDigits;
  while (length > 1 && digits[length - 1] == '0') --length;
  if (decimal < -4 || decimal >= kDigits) {
    out += digits[0];
    if (length > 1) out.append(".").append(digits + 1, length - 1);
    const int magnitude = decimal < 0 ? -decimal : decimal;
    return out.append(decimal < 0 ? "e-" : "e+").append(magnitude < 10 ? "0" : "") + std::to_string(magnitude);
  }
  if (decimal < 0) return out.append("0.").append(-decimal - 1, '0').append(digits, length);
  out.append(digits, decimal + 1);
  if (length > decimal + 1) out.append(".").append(digits + decimal + 1, length - decimal - 1);
  return out;
}

}  // namespace attn
