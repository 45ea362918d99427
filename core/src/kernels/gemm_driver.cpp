// The panel gemm driver: reads full 8-column panels of a plain b in place, packs the rest (a
// transposed b, a last partial panel), and walks c in tiles of the micro-kernel's height × 8.
//   a: (rows, inner)  b: (inner, cols) or, transposed, (cols, inner)  c: (rows, cols)
#include <algorithm>
#include <cassert>
#include <vector>

#include "kernels/kernels.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn::kernels {
namespace {

constexpr int kRowBlock = 64;  // rounded down to a multiple of the tile height
constexpr int kPackAboveRows = 32;

int panel_count(int cols) { return (cols + kGemmNr - 1) / kGemmNr; }

// Panel p holds columns 8p..8p+7 of b, k-major, zero past cols. Panels for which `skip(p)` holds
// are left alone.
template <typename Skip>
void pack(int inner, int cols, const float* b, int ldb, bool b_transposed, float* panels, Skip skip) {
  for (int p = 0; p < panel_count(cols); ++p) {
    if (skip(p)) continue;
    float* panel = panels + static_cast<std::size_t>(p) * kGemmNr * inner;
    const int first = p * kGemmNr;
    const int width = std::min(kGemmNr, cols - first);
    for (int k = 0; k < inner; ++k) {
      float* panel_k = panel + static_cast<std::size_t>(k) * kGemmNr;
      for (int j = 0; j < width; ++j) {
        panel_k[j] = b_transposed ? b[static_cast<std::size_t>(first + j) * ldb + k]
                                  : b[static_cast<std::size_t>(k) * ldb + first + j];
      }
      for (int j = width; j < kGemmNr; ++j) panel_k[j] = 0.0f;
    }
  }
}

// Every panel packed (one instantiation of pack for all the callers that pack everything)
void pack_all(int inner, int cols, const float* b, int ldb, bool b_transposed, float* panels) {
  pack(inner, cols, b, ldb, b_transposed, panels, [](int) { return false; });
}

// c in tiles, row blocks outermost so a block of a stays in cache across the panels
template <typename PanelAt, typename PanelStride>
void compute(const GemmEntry& kernel, int rows, int inner, int cols, const float* a, int lda, float* c, int ldc,
             PanelAt panel_at, PanelStride panel_stride) {
  const int row_block = kRowBlock / kernel.mr * kernel.mr;
  for (int block = 0; block < rows; block += row_block) {
    const int block_end = std::min(rows, block + row_block);
    for (int p = 0; p < panel_count(cols); ++p) {
      const int first = p * kGemmNr;
      const int nc = std::min(kGemmNr, cols - first);
      for (int r = block; r < block_end; r += kernel.mr) {
        const int mr = std::min(kernel.mr, block_end - r);
        kernel.fn(mr, nc, inner, a + static_cast<std::size_t>(r) * lda, lda, panel_at(p), panel_stride(p),
                  c + static_cast<std::size_t>(r) * ldc + first, ldc);
      }
    }
  }
}

}  // namespace

std::size_t strips_size(int rows, int inner, int mr) {
  return static_cast<std::size_t>((rows + mr - 1) / mr) * mr * inner;
}

// With row_scale, each row of a is multiplied by its scale as it is packed; without, by 1 (x · 1 is
// x exactly: the same code for both, which keeps the engine small).
void pack_strips(int rows, int inner, const float* a, int lda, int mr, float* strips, const float* row_scale) {
  const auto scale_of = [&](int row) { return row_scale ? row_scale[row] : 1.0f; };
  for (int first = 0; first < rows; first += mr) {
    float* strip = strips + static_cast<std::size_t>(first) * inner;
    const int height = std::min(mr, rows - first);
#if defined(__wasm_simd128__)
    if (height == 4 && mr == 4) {  // 4 × 4 blocks transposed in registers (the weights of A·V: n × m)
      const float* a_0 = a + static_cast<std::size_t>(first) * lda;
      const float* a_1 = a_0 + lda;
      const float* a_2 = a_1 + lda;
      const float* a_3 = a_2 + lda;
      const float s_0 = scale_of(first), s_1 = scale_of(first + 1), s_2 = scale_of(first + 2),
                  s_3 = scale_of(first + 3);
      const v128_t s0 = wasm_f32x4_splat(s_0), s1 = wasm_f32x4_splat(s_1);
      const v128_t s2 = wasm_f32x4_splat(s_2), s3 = wasm_f32x4_splat(s_3);
      int k = 0;
      for (; k + 4 <= inner; k += 4) {
        const v128_t r0 = wasm_f32x4_mul(wasm_v128_load(a_0 + k), s0), r1 = wasm_f32x4_mul(wasm_v128_load(a_1 + k), s1);
        const v128_t r2 = wasm_f32x4_mul(wasm_v128_load(a_2 + k), s2), r3 = wasm_f32x4_mul(wasm_v128_load(a_3 + k), s3);
        const v128_t r01_lo = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), r01_hi = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
        const v128_t r23_lo = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), r23_hi = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
        float* strip_k = strip + static_cast<std::size_t>(k) * 4;
        wasm_v128_store(strip_k, wasm_i64x2_shuffle(r01_lo, r23_lo, 0, 2));
        wasm_v128_store(strip_k + 4, wasm_i64x2_shuffle(r01_lo, r23_lo, 1, 3));
        wasm_v128_store(strip_k + 8, wasm_i64x2_shuffle(r01_hi, r23_hi, 0, 2));
        wasm_v128_store(strip_k + 12, wasm_i64x2_shuffle(r01_hi, r23_hi, 1, 3));
      }
      for (; k < inner; ++k) {
        float* strip_k = strip + static_cast<std::size_t>(k) * 4;
        strip_k[0] = a_0[k] * s_0, strip_k[1] = a_1[k] * s_1, strip_k[2] = a_2[k] * s_2, strip_k[3] = a_3[k] * s_3;
      }
      continue;
    }
#endif
    for (int r = 0; r < height; ++r) {
      const float* a_r = a + static_cast<std::size_t>(first + r) * lda;
      const float scale = scale_of(first + r);
      for (int k = 0; k < inner; ++k) strip[static_cast<std::size_t>(k) * mr + r] = a_r[k] * scale;
    }
    for (int r = height; r < mr; ++r) {
      for (int k = 0; k < inner; ++k) strip[static_cast<std::size_t>(k) * mr + r] = 0.0f;
    }
  }
}

// c in tiles as compute() walks them: a block of strips stays in cache across the panels. No panel is
// read ahead of its kernels: the hardware's prefetcher follows a panel's sequential reads, and the
// kernels that also read the next panel as they computed (one line every 8 k), with a first panel read
// before them, made GPT-2 small's prepared block 3 % slower at n = 16 in the relaxed build and 11 % in the
// SIMD one (bench/block.mjs --before, 2026-11-29, docs/performance.md).
void ppmm_f32(const PpmmEntry& kernel, int rows, int inner, int cols, const float* strips, const float* panels,
              float* c, int ldc) {
  assert(rows >= 1 && inner >= 1 && cols >= 1);
  const int row_block = kRowBlock / kernel.mr * kernel.mr;
  const std::size_t panel_size = static_cast<std::size_t>(kGemmNr) * inner;
  for (int block = 0; block < rows; block += row_block) {
    const int block_end = std::min(rows, block + row_block);
    for (int p = 0; p < panel_count(cols); ++p) {
      const int first = p * kGemmNr;
      const int nc = std::min(kGemmNr, cols - first);
      const float* panel = panels + static_cast<std::size_t>(p) * panel_size;
      for (int r = block; r < block_end; r += kernel.mr) {
        kernel.fn(std::min(kernel.mr, block_end - r), nc, inner, strips + static_cast<std::size_t>(r) * inner, panel,
                  c + static_cast<std::size_t>(r) * ldc + first, ldc);
      }
    }
  }
}

void gemm_f32_strips(const PpmmEntry& kernel, int rows, int inner, int cols, const float* a, int lda, const float* b,
                     int ldb, bool b_transposed, float* c, int ldc, float* strips, float* panels) {
  assert(rows >= 1 && inner >= 1 && cols >= 1);
  pack_strips(rows, inner, a, lda, kernel.mr, strips);
  pack_all(inner, cols, b, ldb, b_transposed, panels);
  ppmm_f32(kernel, rows, inner, cols, strips, panels, c, ldc);
}

std::size_t packed_size(int inner, int cols) { return static_cast<std::size_t>(panel_count(cols)) * kGemmNr * inner; }

void pack_panels(int inner, int cols, const float* b, int ldb, float* panels) {
  pack_all(inner, cols, b, ldb, false, panels);
}

void pack_panels_transposed(int inner, int cols, const float* b, int ldb, float* panels) {
  pack_all(inner, cols, b, ldb, true, panels);
}

// b seen as an (inner, P) matrix of 8-float units (P = cols / 8), each unit 8 neighbouring columns of a
// row: the panels are its transpose, (P, inner) units, so unit s = k·P + p moves to p·inner + k. Each
// cycle of that permutation is followed once, one unit carried along (`moved` marks the units in place).
void pack_panels_in_place(int inner, int cols, float* b) {
  assert(inner >= 1 && cols >= kGemmNr && cols % kGemmNr == 0);
  const std::size_t panels = static_cast<std::size_t>(cols / kGemmNr), units = panels * inner;
  const auto destination = [&](std::size_t s) { return (s % panels) * inner + s / panels; };
  std::vector<bool> moved(units, false);
  float carried[kGemmNr], swap[kGemmNr];
  for (std::size_t start = 0; start < units; ++start) {
    if (moved[start]) continue;
    std::copy(b + start * kGemmNr, b + (start + 1) * kGemmNr, carried);
    std::size_t at = start;
    do {
      at = destination(at);
      float* unit = b + at * kGemmNr;
      std::copy(unit, unit + kGemmNr, swap);
      std::copy(carried, carried + kGemmNr, unit);
      std::copy(swap, swap + kGemmNr, carried);
      moved[at] = true;
    } while (at != start);
  }
}

void gemm_f32(const GemmEntry& kernel, int rows, int inner, int cols, const float* a, int lda, const float* b, int ldb,
              bool b_transposed, float* c, int ldc, float* panels) {
  assert(rows >= 1 && inner >= 1 && cols >= 1);
  // Where panel p is read from, and its row stride: in place (a plain b, 8 full columns) when a is
  // only a few rows, so packing would cost as much as it saves; packed otherwise, so that the panel
  // is one contiguous run that stays in L1 while every row block of a streams past it.
  const bool few_rows = rows <= kPackAboveRows;
  const auto in_place = [&](int p) { return few_rows && !b_transposed && (p + 1) * kGemmNr <= cols; };
  const auto panel_at = [&](int p) {
    return in_place(p) ? b + p * kGemmNr : panels + static_cast<std::size_t>(p) * kGemmNr * inner;
  };
  const auto panel_stride = [&](int p) { return in_place(p) ? ldb : kGemmNr; };
  pack(inner, cols, b, ldb, b_transposed, panels, in_place);
  compute(kernel, rows, inner, cols, a, lda, c, ldc, panel_at, panel_stride);
}

void gemm_f32_prepacked(const GemmEntry& kernel, int rows, int inner, int cols, const float* a, int lda,
                        const float* panels, float* c, int ldc) {
  assert(rows >= 1 && inner >= 1 && cols >= 1);
  compute(
      kernel, rows, inner, cols, a, lda, c, ldc,
      [&](int p) { return panels + static_cast<std::size_t>(p) * kGemmNr * inner; }, [](int) { return kGemmNr; });
}

}  // namespace attn::kernels
