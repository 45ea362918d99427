// The dense ops of ops.hpp, fast and portable, against float64 loops at awkward sizes with strided
// views: outputs pre-filled with NaN (an unwritten element fails) inside a wider buffer of sentinels
// (a write past a row fails). matmul_transa (aᵀ·b) serves the backward pass's weight gradients.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ops.hpp"

namespace {

constexpr float kSentinel = -12345.0f;

using Product = void (*)(const float*, int, const float*, int, float*, int, int, int, int, attn::ProductScratch*);

enum class Layout { Plain, TransposedB, TransposedA };

// c[i][j] = Σ_k a(i, k) · b(k, j), with a and b read in the layout's storage order
double reference(Layout layout, const std::vector<float>& a, int lda, const std::vector<float>& b, int ldb, int i,
                 int j, int inner) {
  double sum = 0;
  for (int k = 0; k < inner; ++k) {
    const double a_ik = layout == Layout::TransposedA ? a[k * lda + i] : a[i * lda + k];
    const double b_kj = layout == Layout::TransposedB ? b[j * ldb + k] : b[k * ldb + j];
    sum += a_ik * b_kj;
  }
  return sum;
}

void check_product(const char* name, Product product, Layout layout) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int rows = 1; rows <= 9; ++rows) {
    for (int inner : {1, 2, 3, 4, 5, 7, 8, 9, 13}) {
      for (int cols : {1, 2, 3, 7, 8, 9, 16, 17}) {
        // storage shapes, each row 2 wider than needed (a strided view)
        const int a_rows = layout == Layout::TransposedA ? inner : rows,
                  a_cols = layout == Layout::TransposedA ? rows : inner;
        const int b_rows = layout == Layout::TransposedB ? cols : inner,
                  b_cols = layout == Layout::TransposedB ? inner : cols;
        const int lda = a_cols + 2, ldb = b_cols + 2, ldc = cols + 3;
        std::vector<float> a(static_cast<std::size_t>(a_rows) * lda), b(static_cast<std::size_t>(b_rows) * ldb);
        for (float& v : a) v = unit(rng);
        for (float& v : b) v = unit(rng);
        std::vector<float> c(static_cast<std::size_t>(rows) * ldc, kSentinel);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j) c[i * ldc + j] = std::numeric_limits<float>::quiet_NaN();
        attn::ProductScratch scratch;
        product(a.data(), lda, b.data(), ldb, c.data(), ldc, rows, inner, cols, &scratch);
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < ldc; ++j) {
            const float got = c[i * ldc + j];
            if (j >= cols) {
              CHECK_MESSAGE(got == kSentinel, name << " wrote past row " << i << " at column " << j);
              continue;
            }
            const double want = reference(layout, a, lda, b, ldb, i, j, inner);
            CHECK_MESSAGE(std::fabs(got - want) <= std::max(1e-5, 1e-5 * std::fabs(want)),
                          name << " rows=" << rows << " inner=" << inner << " cols=" << cols << " at [" << i << "]["
                               << j << "]: got " << got << ", reference " << want);
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("matmul, matmul_transb and matmul_transa, fast and portable, against float64") {
  check_product("matmul", attn::ops::matmul, Layout::Plain);
  check_product("matmul_transb", attn::ops::matmul_transb, Layout::TransposedB);
  check_product("matmul_transa", attn::ops::matmul_transa, Layout::TransposedA);
  check_product("portable::matmul", attn::ops::portable::matmul, Layout::Plain);
  check_product("portable::matmul_transb", attn::ops::portable::matmul_transb, Layout::TransposedB);
  check_product("portable::matmul_transa", attn::ops::portable::matmul_transa, Layout::TransposedA);
}

TEST_CASE("portable softmax: float64 softmax within 1e-6, all -inf rows to zero, logits to -100") {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> spread(-100.0f, 20.0f);
  for (int cols = 1; cols <= 19; ++cols) {
    std::vector<float> row(cols);
    for (float& v : row) v = spread(rng);
    if (cols > 2) row[1] = -std::numeric_limits<float>::infinity();  // a masked key
    std::vector<float> got = row;
    attn::ops::portable::softmax_rows(got.data(), cols, 1, cols);
    const double top = *std::max_element(row.begin(), row.end());
    double total = 0;
    for (float v : row) total += std::exp(double(v) - top);
    for (int j = 0; j < cols; ++j) {
      const double want = std::exp(double(row[j]) - top) / total;
      CHECK_MESSAGE(std::fabs(got[j] - want) <= std::max(1e-9, 1e-6 * want),
                    "cols=" << cols << " j=" << j << ": got " << got[j] << ", want " << want);
    }
  }
  std::vector<float> masked(5, -std::numeric_limits<float>::infinity());
  attn::ops::portable::softmax_rows(masked.data(), 5, 1, 5);
  for (float v : masked) CHECK(v == 0.0f);
}

TEST_CASE("the forward's checks: all_finite and largest_magnitude at every length and position") {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float specials[] = {kInf, -kInf, std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN()};
  for (int count = 1; count <= 19; ++count) {
    std::vector<float> values(count);
    for (int i = 0; i < count; ++i) values[i] = (i % 3 - 1) * 0.5f * static_cast<float>(i + 1);  // negatives, zeros
    values[0] = -0.0f;
    double want = 0;
    for (const float v : values) want = std::max(want, std::fabs(static_cast<double>(v)));
    INFO("count=", count);
    CHECK(attn::ops::all_finite(values.data(), values.size()));
    CHECK(attn::ops::largest_magnitude(values.data(), values.size()) == want);
    // the largest finite float is still finite
    std::vector<float> largest = values;
    largest[count - 1] = -std::numeric_limits<float>::max();
    CHECK(attn::ops::all_finite(largest.data(), largest.size()));
    CHECK(attn::ops::largest_magnitude(largest.data(), largest.size()) == std::numeric_limits<float>::max());
    for (int at = 0; at < count; ++at) {
      for (const float special : specials) {
        std::vector<float> bad = values;
        bad[at] = special;
        INFO("at=", at, " value=", special);
        CHECK_FALSE(attn::ops::all_finite(bad.data(), bad.size()));
        const float got = attn::ops::largest_magnitude(bad.data(), bad.size());
        CHECK_FALSE(std::isfinite(got));
        CHECK((std::isnan(special) ? std::isnan(got) : got == kInf));
      }
    }
  }
}

// The packed products compute on every build (the scalar kernels where there is no SIMD), even where
// the forward pass prefers Eigen's: each against float64, and matmul_packed_row_scaled against
// matmul_packed of a scaled beforehand, bit for bit (the scaling rounds once, either way).
TEST_CASE("packed products on every build: matmul_packed, matmul_strips, matmul_packed_row_scaled") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  int failures = 0;
  // from 33 rows matmul_packed packs a into strips, and from 8 when inner is 256 or more
  for (int rows : {1, 2, 3, 4, 5, 8, 9, 16, 32, 33, 35}) {
    for (int inner : {1, 2, 3, 5, 8, 9, 13, 260}) {
      for (int cols : {1, 3, 7, 8, 9, 17}) {
        const int lda = inner + 2, ldb = cols + 1, ldc = cols + 3;
        std::vector<float> a(static_cast<std::size_t>(rows) * lda), b(static_cast<std::size_t>(inner) * ldb);
        std::vector<float> b_transposed(static_cast<std::size_t>(cols) * inner), row_scale(rows);
        for (float& v : a) v = unit(rng);
        for (float& v : b) v = unit(rng);
        for (float& v : row_scale) v = unit(rng) + 1.5f;
        for (int k = 0; k < inner; ++k) {
          for (int j = 0; j < cols; ++j) b_transposed[static_cast<std::size_t>(j) * inner + k] = b[k * ldb + j];
        }
        std::vector<float> scaled_a = a, strips, panels_t;
        for (int i = 0; i < rows; ++i) {
          for (int k = 0; k < inner; ++k) scaled_a[i * lda + k] *= row_scale[i];
        }
        const std::vector<float> panels = attn::ops::pack_panels(b.data(), ldb, inner, cols);
        attn::ops::pack_strips(a.data(), lda, rows, inner, &strips);
        attn::ops::pack_panels_into(b_transposed.data(), inner, inner, cols, /*b_transposed=*/true, &panels_t);
        const std::vector<float> empty = [&] {
          std::vector<float> c(static_cast<std::size_t>(rows) * ldc, kSentinel);
          for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) c[i * ldc + j] = std::numeric_limits<float>::quiet_NaN();
          return c;
        }();
        std::vector<float> packed = empty, from_strips = empty, transposed = empty, row_scaled = empty,
                           prescaled = empty;
        attn::ProductScratch scratch;
        attn::ops::matmul_packed(a.data(), lda, panels.data(), packed.data(), ldc, rows, inner, cols, &scratch);
        attn::ops::matmul_strips(strips.data(), panels.data(), from_strips.data(), ldc, rows, inner, cols);
        attn::ops::matmul_strips(strips.data(), panels_t.data(), transposed.data(), ldc, rows, inner, cols);
        attn::ops::matmul_packed(scaled_a.data(), lda, panels.data(), prescaled.data(), ldc, rows, inner, cols,
                                 &scratch);
        std::vector<float> a_copy = a;  // scaled in place below 33 rows
        attn::ops::matmul_packed_row_scaled(a_copy.data(), lda, row_scale.data(), panels.data(), row_scaled.data(), ldc,
                                            rows, inner, cols, &scratch);
        const bool ok = std::memcmp(row_scaled.data(), prescaled.data(), prescaled.size() * sizeof(float)) == 0;
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < ldc; ++j) {
            const std::size_t at = static_cast<std::size_t>(i) * ldc + j;
            const double want = j < cols ? reference(Layout::Plain, a, lda, b, ldb, i, j, inner) : kSentinel;
            const double tolerance = j < cols ? std::max(1e-5, 1e-5 * std::fabs(want)) : 0;
            for (const std::vector<float>* got : {&packed, &from_strips, &transposed}) {
              if (std::fabs((*got)[at] - want) <= tolerance || failures++ >= 5) continue;
              FAIL_CHECK("c[", i, "][", j, "] = ", (*got)[at], ", reference ", want, " rows=", rows, " inner=", inner,
                         " cols=", cols);
            }
          }
        }
        if (!ok && failures++ < 5) {
          FAIL_CHECK("matmul_packed_row_scaled differs from a scaled first, rows=", rows, " inner=", inner,
                     " cols=", cols);
        }
      }
    }
  }
  CHECK(failures == 0);
}
