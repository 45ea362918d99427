// Every kernel of kernels::kGemmKernels and kSoftmaxKernels against a float64 reference at every
// awkward size, with strided and offset views. Outputs start as NaN so an unwritten element fails,
// and sentinels around them must survive, so a write past the end fails too. Natively only the
// scalar kernels exist; the WebAssembly test builds run the SIMD ones through the same lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"

namespace {

using namespace attn::kernels;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kSentinel = -12345.0f;

bool close(double got, double want, double atol, double rtol) {
  return std::fabs(got - want) <= std::max(atol, rtol * std::fabs(want));
}

// A micro-kernel's output c (height × ldc, one float in): NaN in the mr × nc tile, which the kernel
// must write over, the sentinel everywhere else (and at c[0], before the tile)
std::vector<float> nan_tile(int height, int mr, int nc, int ldc) {
  std::vector<float> c(static_cast<std::size_t>(height) * ldc + 1, kSentinel);
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nc; ++j) c[1 + r * ldc + j] = kNaN;
  }
  return c;
}

// c after the kernel: the tile within 1e-5 of want(r, j), nothing written outside it
template <typename Want>
void check_tile(const std::vector<float>& c, int height, int mr, int nc, int kc, int ldc, Want want) {
  CHECK(c[0] == kSentinel);
  for (int r = 0; r < height; ++r) {
    for (int j = 0; j < ldc; ++j) {
      const float got = c[1 + r * ldc + j];
      if (r >= mr || j >= nc) {
        CHECK_MESSAGE(got == kSentinel, "wrote outside the tile at [", r, "][", j, "] mr=", mr, " nc=", nc);
        continue;
      }
      const double w = want(r, j);
      CHECK_MESSAGE(close(got, w, 1e-5, 1e-5), "c[", r, "][", j, "] mr=", mr, " nc=", nc, " kc=", kc, ": ", got, " vs ",
                    w);
    }
  }
}

std::vector<float> random_values(std::mt19937& rng, std::size_t count) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = unit(rng);
  return v;
}

}  // namespace

TEST_CASE("gemm micro-kernels: every mr, nc and kc from 1 to 9, offset and strided") {
  std::mt19937 rng(1);
  for (const GemmEntry& kernel : kGemmKernels) {
    INFO(kernel.name);
    for (int kc : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 31}) {
      const int lda = kc + 3, ldc = 11;
      // a starts one float in (unaligned); the panel is exactly 8·kc floats with NaN beyond it
      std::vector<float> a_buffer = random_values(rng, 1 + kernel.mr * lda);
      // the panel is read with a row stride of 8 (packed) or 11 (in place inside a wider b)
      const int ldp = kc % 2 ? kGemmNr : kGemmNr + 3;
      std::vector<float> panel = random_values(rng, static_cast<std::size_t>(ldp) * (kc - 1) + kGemmNr);
      const float* a = a_buffer.data() + 1;
      for (int mr = 1; mr <= kernel.mr; ++mr) {
        for (int nc = 1; nc <= kGemmNr; ++nc) {
          std::vector<float> c = nan_tile(kernel.mr, mr, nc, ldc);
          kernel.fn(mr, nc, kc, a, lda, panel.data(), ldp, c.data() + 1, ldc);
          check_tile(c, kernel.mr, mr, nc, kc, ldc, [&](int r, int j) {
            double want = 0;
            for (int k = 0; k < kc; ++k) want += double(a[r * lda + k]) * panel[k * ldp + j];
            return want;
          });
        }
      }
    }
  }
}

TEST_CASE(
    "gemm driver: rows 1 to 13, 32 to 35 and 61 to 65, inner 1 to 9, cols 1 to 17, plain and transposed b, strided c") {
  std::mt19937 rng(2);
  for (const GemmEntry& kernel : kGemmKernels) {
    INFO(kernel.name);
    int failures = 0;
    // up to 32 rows a plain b is read in place; from 33 on it is packed: both paths, every remainder
    for (int rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 32, 33, 35, 61, 65}) {
      for (int inner = 1; inner <= 9; ++inner) {
        for (int cols = 1; cols <= 17; ++cols) {
          for (int transposed = 0; transposed <= 1; ++transposed) {
            const int lda = inner + 2, ldc = cols + 3;
            const int ldb = transposed ? inner + 1 : cols + 1;
            const int b_rows = transposed ? cols : inner;
            const std::vector<float> a = random_values(rng, static_cast<std::size_t>(rows) * lda);
            const std::vector<float> b = random_values(rng, static_cast<std::size_t>(b_rows) * ldb);
            std::vector<float> c(static_cast<std::size_t>(rows) * ldc, kSentinel);
            for (int i = 0; i < rows; ++i) {
              for (int j = 0; j < cols; ++j) c[i * ldc + j] = kNaN;
            }
            std::vector<float> panels(packed_size(inner, cols), kNaN);
            gemm_f32(kernel, rows, inner, cols, a.data(), lda, b.data(), ldb, transposed, c.data(), ldc, panels.data());
            for (int i = 0; i < rows; ++i) {
              for (int j = 0; j < ldc; ++j) {
                const float got = c[i * ldc + j];
                bool ok;
                if (j >= cols) {
                  ok = got == kSentinel;
                } else {
                  double want = 0;
                  for (int k = 0; k < inner; ++k) {
                    want += double(a[i * lda + k]) * (transposed ? b[j * ldb + k] : b[k * ldb + j]);
                  }
                  ok = close(got, want, 1e-5, 1e-5);
                }
                if (!ok && failures++ < 5) {
                  FAIL_CHECK("c[", i, "][", j, "] = ", got, " rows=", rows, " inner=", inner, " cols=", cols,
                             " transposed=", transposed);
                }
              }
            }
          }
        }
      }
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("softmax kernels: within 1e-6 of float64 at every length, with masked and fully masked rows") {
  std::mt19937 rng(3);
  const float inf = std::numeric_limits<float>::infinity();
  for (const SoftmaxEntry& kernel : kSoftmaxKernels) {
    INFO(kernel.name);
    for (int cols : {1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 64, 100}) {
      for (float spread : {1.0f, 10.0f, 100.0f}) {
        for (int masking = 0; masking <= 2; ++masking) {  // none, some, all
          std::vector<float> buffer(cols + 2, kSentinel);
          float* row = buffer.data() + 1;
          for (int j = 0; j < cols; ++j) {
            row[j] = std::uniform_real_distribution<float>(-spread, spread)(rng);
            if (masking == 2 || (masking == 1 && j % 3 == 1)) row[j] = -inf;
          }
          const std::vector<float> input(row, row + cols);
          double row_max = -inf, total = 0;
          for (float x : input) row_max = std::max<double>(row_max, x);
          kernel.fn(cols, row);
          CHECK(buffer.front() == kSentinel);
          CHECK(buffer.back() == kSentinel);
          for (float x : input) total += row_max == -inf ? 0.0 : std::exp(double(x) - row_max);
          for (int j = 0; j < cols; ++j) {
            const double want = row_max == -inf ? 0.0 : std::exp(double(input[j]) - row_max) / total;
            CHECK_MESSAGE(std::fabs(row[j] - want) <= 1e-6, "cols=", cols, " j=", j, " spread=", spread,
                          " masking=", masking, ": ", row[j], " vs ", want);
          }
        }
      }
    }
  }
}

TEST_CASE("softmax kernels: the exp is accurate across its whole range") {
  // softmax([0, x]) = [1 / (1 + e^x), e^x / (1 + e^x)] for x from -100 to 0 in steps of 1/64
  for (const SoftmaxEntry& kernel : kSoftmaxKernels) {
    INFO(kernel.name);
    int failures = 0;
    for (int step = 0; step <= 6400; ++step) {
      const float x = -step / 64.0f;
      float row[5] = {0.0f, x, x, x, x};  // a full vector and a tail
      kernel.fn(5, row);
      const double e = std::exp(double(x));
      const double first = 1.0 / (1.0 + 4 * e), rest = e / (1.0 + 4 * e);
      if ((std::fabs(row[0] - first) > 1e-6 || std::fabs(row[4] - rest) > 1e-6) && failures++ < 5) {
        FAIL_CHECK("x=", x, ": ", row[0], ", ", row[4], " vs ", first, ", ", rest);
      }
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("fused scaled softmax kernels: within 1e-6 of float64 at every length, visible count and mask") {
  // The reference scales in float (x · (1/scale), correctly rounded, the same in every build),
  // then does everything else in float64.
  std::mt19937 rng(4);
  const float inf = std::numeric_limits<float>::infinity();
  for (const ScaledSoftmaxEntry& kernel : kScaledSoftmaxKernels) {
    INFO(kernel.name);
    int failures = 0;
    for (int cols : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100}) {
      for (int visible : {0, 1, cols / 2, cols - 1, cols}) {
        if (visible < 0) continue;
        for (float scale : {1.0f, 0.5f, 8.0f}) {
          for (int masking = 0; masking <= 3; ++masking) {  // no keep; keep some; keep none; keep all
            std::vector<float> buffer(cols + 2, kSentinel);
            float* row = buffer.data() + 1;
            for (int j = 0; j < cols; ++j) row[j] = std::uniform_real_distribution<float>(-50.0f, 50.0f)(rng);
            // keep bytes only up to `visible`, NaN-free sentinels past it are never read
            std::vector<std::uint8_t> keep(cols);
            for (int j = 0; j < cols; ++j) keep[j] = masking == 1 ? (j % 3 != 1) : masking == 3 ? 1 : 0;
            const std::uint8_t* keep_ptr = masking == 0 ? nullptr : keep.data();
            const std::vector<float> input(row, row + cols);
            std::vector<double> scaled(cols, -inf);
            double row_max = -inf;
            for (int j = 0; j < visible; ++j) {
              if (keep_ptr && !keep_ptr[j]) continue;
              scaled[j] = double(input[j] * (1.0f / scale));
              row_max = std::max(row_max, scaled[j]);
            }
            double total = 0;
            for (int j = 0; j < visible; ++j) total += row_max == -inf ? 0.0 : std::exp(scaled[j] - row_max);
            kernel.fn(cols, visible, keep_ptr, scale, row);
            CHECK(buffer.front() == kSentinel);
            CHECK(buffer.back() == kSentinel);
            for (int j = 0; j < cols; ++j) {
              const double want = row_max == -inf || j >= visible ? 0.0 : std::exp(scaled[j] - row_max) / total;
              if (!(std::fabs(row[j] - want) <= 1e-6) && failures++ < 5) {
                FAIL_CHECK("cols=", cols, " visible=", visible, " scale=", scale, " masking=", masking, " j=", j, ": ",
                           row[j], " vs ", want);
              }
            }
          }
        }
      }
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("gemm driver on pre-packed panels: the bits of gemm_f32 at every remainder") {
  std::mt19937 rng(5);
  for (const GemmEntry& kernel : kGemmKernels) {
    INFO(kernel.name);
    for (int rows : {1, 3, 4, 5, 33, 65}) {
      for (int inner : {1, 2, 7, 9}) {
        for (int cols : {1, 7, 8, 9, 17}) {
          const int lda = inner + 1, ldb = cols + 2, ldc = cols + 3;
          const std::vector<float> a = random_values(rng, static_cast<std::size_t>(rows) * lda);
          const std::vector<float> b = random_values(rng, static_cast<std::size_t>(inner) * ldb);
          std::vector<float> want(static_cast<std::size_t>(rows) * ldc, kSentinel), got = want;
          for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) want[i * ldc + j] = got[i * ldc + j] = kNaN;
          }
          std::vector<float> scratch(packed_size(inner, cols), kNaN), panels(packed_size(inner, cols), kNaN);
          gemm_f32(kernel, rows, inner, cols, a.data(), lda, b.data(), ldb, false, want.data(), ldc, scratch.data());
          pack_panels(inner, cols, b.data(), ldb, panels.data());
          gemm_f32_prepacked(kernel, rows, inner, cols, a.data(), lda, panels.data(), got.data(), ldc);
          CHECK_MESSAGE(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0, "rows=", rows,
                        " inner=", inner, " cols=", cols);
        }
      }
    }
  }
}

TEST_CASE("panels packed in b's own floats: pack_panels' bits, every inner from 1 to 17 and 1 to 9 panels") {
  std::mt19937 rng(11);
  for (int inner = 1; inner <= 17; ++inner) {
    for (int panel_count = 1; panel_count <= 9; ++panel_count) {
      const int cols = panel_count * kGemmNr;
      const std::size_t size = static_cast<std::size_t>(inner) * cols;
      const std::vector<float> b = random_values(rng, size);
      std::vector<float> want(size, kNaN);
      pack_panels(inner, cols, b.data(), cols, want.data());
      // b between sentinels, so that a write outside its floats fails
      std::vector<float> got(size + 2, kSentinel);
      std::copy(b.begin(), b.end(), got.begin() + 1);
      pack_panels_in_place(inner, cols, got.data() + 1);
      CHECK_MESSAGE(std::memcmp(got.data() + 1, want.data(), size * sizeof(float)) == 0, "inner=", inner,
                    " cols=", cols);
      CHECK_MESSAGE((got.front() == kSentinel && got.back() == kSentinel), "inner=", inner, " cols=", cols);
    }
  }
}

TEST_CASE("ppmm micro-kernels: every mr, nc and kc from 1 to 9 on a pre-packed strip") {
  std::mt19937 rng(6);
  for (const PpmmEntry& kernel : kPpmmKernels) {
    INFO(kernel.name);
    for (int kc : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 31}) {
      const int ldc = 11;
      // the strip and panel are exactly 4·kc and 8·kc floats, one float into their buffers (unaligned)
      const std::vector<float> strip_buffer = random_values(rng, 1 + static_cast<std::size_t>(kernel.mr) * kc);
      const std::vector<float> panel_buffer = random_values(rng, 1 + static_cast<std::size_t>(kGemmNr) * kc);
      const float* panel = panel_buffer.data() + 1;
      for (int mr = 1; mr <= kernel.mr; ++mr) {
        // rows past mr are zero in a packed strip
        std::vector<float> strip(strip_buffer.begin() + 1, strip_buffer.end());
        for (int k = 0; k < kc; ++k) {
          for (int r = mr; r < kernel.mr; ++r) strip[k * kernel.mr + r] = 0.0f;
        }
        for (int nc = 1; nc <= kGemmNr; ++nc) {
          std::vector<float> c = nan_tile(kernel.mr, mr, nc, ldc);
          kernel.fn(mr, nc, kc, strip.data(), panel, c.data() + 1, ldc);
          check_tile(c, kernel.mr, mr, nc, kc, ldc, [&](int r, int j) {
            double want = 0;
            for (int k = 0; k < kc; ++k) want += double(strip[k * kernel.mr + r]) * panel[k * kGemmNr + j];
            return want;
          });
        }
      }
    }
  }
}

TEST_CASE(
    "gemm driver on strips: the bits of gemm_f32 at every remainder, plain and transposed b, pre-packed a and b") {
  std::mt19937 rng(7);
  // each strip kernel against the gemm kernel of its instruction set (the same order of operations)
  for (std::size_t i = 0; i < std::size(kPpmmKernels); ++i) {
    const PpmmEntry& kernel = kPpmmKernels[i];
    const GemmEntry& twin = kGemmKernels[i];
    INFO(kernel.name, " against ", twin.name);
    int failures = 0;
    for (int rows : {1, 3, 4, 5, 9, 16, 33, 65, 67}) {
      for (int inner : {1, 2, 7, 9}) {
        for (int cols : {1, 7, 8, 9, 17}) {
          for (int transposed = 0; transposed <= 1; ++transposed) {
            const int lda = inner + 1, ldc = cols + 3;
            const int ldb = transposed ? inner + 2 : cols + 2;
            const std::vector<float> a = random_values(rng, static_cast<std::size_t>(rows) * lda);
            const std::vector<float> b = random_values(rng, static_cast<std::size_t>(transposed ? cols : inner) * ldb);
            std::vector<float> want(static_cast<std::size_t>(rows) * ldc, kSentinel);
            for (int r = 0; r < rows; ++r) {
              for (int j = 0; j < cols; ++j) want[r * ldc + j] = kNaN;
            }
            std::vector<float> got = want, got_prepacked = want;
            std::vector<float> scratch(packed_size(inner, cols), kNaN), panels(packed_size(inner, cols), kNaN);
            std::vector<float> strips(strips_size(rows, inner, kernel.mr), kNaN);
            gemm_f32(twin, rows, inner, cols, a.data(), lda, b.data(), ldb, transposed, want.data(), ldc,
                     scratch.data());
            gemm_f32_strips(kernel, rows, inner, cols, a.data(), lda, b.data(), ldb, transposed, got.data(), ldc,
                            strips.data(), panels.data());
            bool same = std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0;
            if (!transposed) {
              // a and b packed by the caller, as a prepared model packs x and its weights
              std::vector<float> strips_2(strips.size(), kNaN), panels_2(panels.size(), kNaN);
              pack_strips(rows, inner, a.data(), lda, kernel.mr, strips_2.data());
              pack_panels(inner, cols, b.data(), ldb, panels_2.data());
              ppmm_f32(kernel, rows, inner, cols, strips_2.data(), panels_2.data(), got_prepacked.data(), ldc);
              same = same && std::memcmp(got_prepacked.data(), want.data(), want.size() * sizeof(float)) == 0;
            }
            if (!same && failures++ < 5) {
              FAIL_CHECK("rows=", rows, " inner=", inner, " cols=", cols, " transposed=", transposed);
            }
          }
        }
      }
    }
    CHECK(failures == 0);
  }
}

// ---- the kernels of the forward's fast path and checks, each against its scalar twin (and the
// scalar twin against float64), at every length from 1 to 2·8+1 (two chains of four lanes) and a few
// longer, inside sentinels so that a write past either end fails

namespace {

// A row of `cols` values from -spread to spread inside one sentinel on each side.
std::vector<float> row_in_sentinels(std::mt19937& rng, int cols, float spread) {
  std::vector<float> buffer(cols + 2, kSentinel);
  for (int j = 0; j < cols; ++j) buffer[1 + j] = std::uniform_real_distribution<float>(-spread, spread)(rng);
  return buffer;
}

const int kAwkwardLengths[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 64, 100};

}  // namespace

TEST_CASE("softmax_exp_scaled kernels: the scalar twin's values, and times 1 / sum float64's softmax") {
  std::mt19937 rng(8);
  for (const auto& kernel : kSoftmaxExpScaledKernels) {
    INFO(kernel.name);
    int failures = 0;
    for (int cols : kAwkwardLengths) {
      for (float scale : {1.0f, 0.5f, 8.0f}) {
        std::vector<float> got = row_in_sentinels(rng, cols, 50.0f);
        std::vector<float> twin = got;
        const std::vector<float> input(got.begin() + 1, got.end() - 1);
        const float raw_max = *std::max_element(input.begin(), input.end());
        // float64 softmax of x · (1 / scale), the product rounded in float as the kernels round it
        const float inv_scale = 1.0f / scale;
        double total = 0;
        for (float x : input) total += std::exp(double(x * inv_scale) - double(raw_max * inv_scale));
        const float inv_sum = kernel.fn(cols, got.data() + 1, scale, raw_max);
        const float twin_inv_sum = softmax_exp_scaled_f32__scalar(cols, twin.data() + 1, scale, raw_max);
        CHECK(got.front() == kSentinel);
        CHECK(got.back() == kSentinel);
        if (!close(inv_sum, twin_inv_sum, 0.0, 1e-5) && failures++ < 5) {
          FAIL_CHECK("1 / sum, cols=", cols, " scale=", scale, ": ", inv_sum, " vs ", twin_inv_sum);
        }
        for (int j = 0; j < cols; ++j) {
          const double softmax = std::exp(double(input[j] * inv_scale) - double(raw_max * inv_scale)) / total;
          if (!close(got[1 + j], twin[1 + j], 1e-7, 1e-5) && failures++ < 5) {
            FAIL_CHECK("row[", j, "] cols=", cols, " scale=", scale, ": ", got[1 + j], " vs the twin's ", twin[1 + j]);
          }
          if (!close(double(got[1 + j]) * inv_sum, softmax, 1e-7, 1e-5) && failures++ < 5) {
            FAIL_CHECK("row[", j, "] · 1/sum, cols=", cols, " scale=", scale, ": ", got[1 + j] * inv_sum, " vs ",
                       softmax);
          }
        }
      }
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("exp_minus_max kernels: the scalar twin's bits (the portable softmax's promise), float64 exp within 1e-6") {
  std::mt19937 rng(9);
  const float inf = std::numeric_limits<float>::infinity();
  for (const auto& kernel : kExpMinusMaxKernels) {
    INFO(kernel.name);
    int failures = 0;
    for (int cols : kAwkwardLengths) {
      for (float spread : {1.0f, 60.0f, 120.0f}) {  // 120: below the exp's underflow at -87.3
        std::vector<float> got = row_in_sentinels(rng, cols, spread);
        if (cols > 2) got[2] = -inf;  // a masked key
        std::vector<float> twin = got;
        const std::vector<float> input(got.begin() + 1, got.end() - 1);
        const float row_max = *std::max_element(input.begin(), input.end());
        kernel.fn(cols, got.data() + 1, row_max);
        exp_minus_max_f32__scalar(cols, twin.data() + 1, row_max);
        CHECK(got.front() == kSentinel);
        CHECK(got.back() == kSentinel);
        for (int j = 0; j < cols; ++j) {
          const double want = std::exp(double(input[j] - row_max));  // the difference rounded as the kernels round it
          const bool same_bits = std::memcmp(&got[1 + j], &twin[1 + j], sizeof(float)) == 0;
          if ((!same_bits || !close(got[1 + j], want, 1e-37, 1e-6)) && failures++ < 5) {
            FAIL_CHECK("row[", j, "] cols=", cols, " spread=", spread, ": ", got[1 + j], ", twin ", twin[1 + j],
                       ", float64 ", want);
          }
        }
      }
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("all_finite and max_magnitude kernels: every length, a special value at every position") {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {inf, -inf, kNaN, -kNaN};
  for (std::size_t k = 0; k < std::size(kAllFiniteKernels); ++k) {
    const auto& finite = kAllFiniteKernels[k];
    const auto& magnitude = kMaxMagnitudeKernels[k];
    INFO(finite.name, ", ", magnitude.name);
    for (int count = 0; count <= 19; ++count) {
      // one float in (unaligned), with a NaN just past the end that neither may read
      std::vector<float> buffer(count + 2, kNaN);
      float* values = buffer.data() + 1;
      double want = 0;
      for (int i = 0; i < count; ++i) {
        values[i] = (i % 3 - 1) * 0.5f * static_cast<float>(i + 1);  // negatives and zeros
        want = std::max(want, std::fabs(double(values[i])));
      }
      CHECK_MESSAGE(finite.fn(count, values), "count=", count);
      CHECK_MESSAGE(magnitude.fn(count, values) == want, "count=", count);
      if (count == 0) continue;
      values[count - 1] = -std::numeric_limits<float>::max();  // the largest finite float is finite
      CHECK_MESSAGE(finite.fn(count, values), "count=", count);
      CHECK_MESSAGE(magnitude.fn(count, values) == std::numeric_limits<float>::max(), "count=", count);
      for (int at = 0; at < count; ++at) {
        for (const float special : specials) {
          const float kept = values[at];
          values[at] = special;
          const float largest = magnitude.fn(count, values);
          CHECK_MESSAGE(!finite.fn(count, values), "count=", count, " at=", at, " value=", special);
          CHECK_MESSAGE((std::isnan(special) ? std::isnan(largest) : largest == inf), "count=", count, " at=", at,
                        " value=", special, ": ", largest);
          values[at] = kept;
        }
      }
    }
  }
}

TEST_CASE("row_maxima kernels: each row's max and the largest magnitude, at every rows × cols, with specials") {
  std::mt19937 rng(10);
  for (const auto& kernel : kRowMaximaKernels) {
    INFO(kernel.name);
    int failures = 0;
    for (int rows : {1, 2, 3, 5}) {
      for (int cols : kAwkwardLengths) {
        for (int special = 0; special <= 2; ++special) {  // none; +inf; NaN, at the last value
          std::vector<float> values = random_values(rng, static_cast<std::size_t>(rows) * cols);
          if (special) values.back() = special == 1 ? std::numeric_limits<float>::infinity() : kNaN;
          std::vector<float> row_max(rows + 2, kNaN);  // NaN inside, so an unwritten maximum fails
          row_max.front() = row_max.back() = kSentinel;
          const float largest = kernel.fn(rows, cols, values.data(), row_max.data() + 1);
          double want_largest = 0;
          for (float v : values) want_largest = std::max(want_largest, std::fabs(double(v)));
          const bool largest_ok = special == 2 ? std::isnan(largest) : largest == want_largest;
          bool rows_ok = row_max.front() == kSentinel && row_max.back() == kSentinel;
          for (int i = 0; i < rows && special == 0; ++i) {
            const float want = *std::max_element(values.begin() + i * cols, values.begin() + (i + 1) * cols);
            rows_ok = rows_ok && row_max[1 + i] == want;
          }
          if ((!largest_ok || !rows_ok) && failures++ < 5) {
            FAIL_CHECK("rows=", rows, " cols=", cols, " special=", special, ": largest ", largest, " vs ", want_largest,
                       std::string(rows_ok ? "" : "; a row max is wrong or a sentinel overwritten"));
          }
        }
      }
    }
    CHECK(failures == 0);
  }
}
