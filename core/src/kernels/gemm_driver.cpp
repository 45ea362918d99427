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

// A row block of at most this many rows reads each panel only a few times (4 strips at 16 rows): the first
// kernel on a panel then waits for it to come from memory, 2 loads per k behind 16 mul and add, and with
// a prepared model's weights (not in cache: GPT-2 small's block is 28 MB) that wait was a third of the
// products' time at n = 16. touch() reads the next panel ahead of its kernels instead, one load per
// 64-byte line, all independent, so the lines arrive many at a time (bench/block-products.mjs).
constexpr int kTouchBelowRows = 32;

// One float of each 64-byte line of values[0..count-1], summed in four chains: the lines are then in cache.
float touch(const float* values, std::size_t count) {
  constexpr std::size_t kLine = 16;  // floats per 64-byte line
  float sum[4] = {};
  std::size_t i = 0;
  for (; i + 4 * kLine <= count; i += 4 * kLine) {
    for (int c = 0; c < 4; ++c) sum[c] += values[i + c * kLine];
  }
  for (; i < count; i += kLine) sum[0] += values[i];
  return sum[0] + sum[1] + sum[2] + sum[3];
}

// Keeps touch()'s sums alive (a result nobody reads would let the compiler drop the loads).
volatile float touch_sink = 0.0f;

// c in tiles, row blocks outermost so a block of a stays in cache across the panels
// (with `packed`, the panels all packed and contiguous: a few rows' block reads the next one ahead, as ppmm_f32)
template <typename PanelAt, typename PanelStride>
void compute(const GemmEntry& kernel, int rows, int inner, int cols, const float* a, int lda, float* c, int ldc,
             PanelAt panel_at, PanelStride panel_stride, bool packed = false) {
  const int row_block = kRowBlock / kernel.mr * kernel.mr;
  const std::size_t panel_size = static_cast<std::size_t>(kGemmNr) * inner;
  float touched = 0.0f;
  for (int block = 0; block < rows; block += row_block) {
    const int block_end = std::min(rows, block + row_block);
    const bool ahead = packed && block_end - block <= kTouchBelowRows;
    if (ahead) touched += touch(panel_at(0), panel_size);
    for (int p = 0; p < panel_count(cols); ++p) {
      const int first = p * kGemmNr;
      const int nc = std::min(kGemmNr, cols - first);
      if (ahead && p + 1 < panel_count(cols)) touched += touch(panel_at(p + 1), panel_size);
      for (int r = block; r < block_end; r += kernel.mr) {
        const int mr = std::min(kernel.mr, block_end - r);
        kernel.fn(mr, nc, inner, a + static_cast<std::size_t>(r) * lda, lda, panel_at(p), panel_stride(p),
                  c + static_cast<std::size_t>(r) * ldc + first, ldc);
      }
    }
  }
  touch_sink = touched;
}

// A few rows' block reads the panel after this one (`next`, or null) while it computes: the kernel of its
// strip s < 4 reads quarter s of next as it runs (PpmmEntry::ahead: one line every 8 k, the loads spread
// between the kernel's own, where touch() read a whole panel ahead of the kernels and waited for it), so
// four strips (16 rows) read all of it. At n = 16 (GPT-2 small's block) that took the products from
// 8.23 to 7.31 ms of CPU time in the relaxed build (bench/peak.cpp's block_products, docs/performance.md).
void ppmm_tile(const PpmmEntry& kernel, int strip_in_block, const float* next, int mr, int nc, int kc,
               const float* strip, const float* panel, float* c, int ldc, bool accumulate) {
  if (next != nullptr && strip_in_block < 4) {
    kernel.ahead(mr, nc, kc, strip, panel, c, ldc, accumulate,
                 next + static_cast<std::size_t>(strip_in_block) * 2 * kc);
    return;
  }
  kernel.fn(mr, nc, kc, strip, panel, c, ldc, accumulate);
}

// What the kernels of a block of `strips` strips leave of next (8 · kc floats) unread, read before them.
float touch_rest(const float* next, int strips, int kc) {
  if (next == nullptr || strips >= 4) return 0.0f;
  return touch(next + static_cast<std::size_t>(strips) * 2 * kc, static_cast<std::size_t>(4 - strips) * 2 * kc);
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

// c in tiles as compute() walks them: a block of strips stays in cache across the panels; a block of
// at most kTouchBelowRows rows reads the first panel ahead, and each next one as it computes (ppmm_tile)
void ppmm_f32(const PpmmEntry& kernel, int rows, int inner, int cols, const float* strips, const float* panels,
              float* c, int ldc) {
  assert(rows >= 1 && inner >= 1 && cols >= 1);
  const int row_block = kRowBlock / kernel.mr * kernel.mr;
  const std::size_t panel_size = static_cast<std::size_t>(kGemmNr) * inner;
  float touched = 0.0f;
  for (int block = 0; block < rows; block += row_block) {
    const int block_end = std::min(rows, block + row_block);
    const bool ahead = block_end - block <= kTouchBelowRows;
    const int block_strips = (block_end - block + kernel.mr - 1) / kernel.mr;
    if (ahead) touched += touch(panels, panel_size);
    for (int p = 0; p < panel_count(cols); ++p) {
      const int first = p * kGemmNr;
      const int nc = std::min(kGemmNr, cols - first);
      const float* panel = panels + static_cast<std::size_t>(p) * panel_size;
      const float* next = ahead && p + 1 < panel_count(cols) ? panel + panel_size : nullptr;
      touched += touch_rest(next, block_strips, inner);
      for (int r = block; r < block_end; r += kernel.mr) {
        ppmm_tile(kernel, (r - block) / kernel.mr, next, std::min(kernel.mr, block_end - r), nc, inner,
                  strips + static_cast<std::size_t>(r) * inner, panel, c + static_cast<std::size_t>(r) * ldc + first,
                  ldc, false);
      }
    }
  }
  touch_sink = touched;
}

// ppmm_f32 with the shared dimension walked in chunks of k_block: a's strips are packed a chunk at a
// time (into `strips`, strips_size(rows, k_block, mr) floats) and each chunk of a panel is read where it
// lies in the whole panel (its rows k0… are contiguous), so that a block of strips and a panel's chunk
// stay in cache when inner is long (the MLP's 3072). The first chunk writes c; the kernel adds each later
// one into c: the sum of a value is then chunk by chunk, not the same bits as ppmm_f32.
void ppmm_f32_kblocked(const PpmmEntry& kernel, int rows, int inner, int cols, const float* a, int lda,
                       const float* panels, int k_block, float* strips, float* c, int ldc) {
  assert(rows >= 1 && inner >= 1 && cols >= 1 && k_block >= 1);
  const int row_block = kRowBlock / kernel.mr * kernel.mr;
  const std::size_t panel_size = static_cast<std::size_t>(kGemmNr) * inner;
  const bool one_block = rows <= row_block;
  float touched = 0.0f;
  for (int k0 = 0; k0 < inner; k0 += k_block) {
    const int kb = std::min(k_block, inner - k0);
    const std::size_t chunk = static_cast<std::size_t>(kGemmNr) * kb;
    // the next chunk of the first panel, read while the last panel's chunk computes when there is one block
    // and that chunk is as long as this one (k0 + 2·kb ≤ inner: what the kernels read is inside the panel)
    const bool chain = one_block && k0 + 2 * kb <= inner;
    pack_strips(rows, kb, a + k0, lda, kernel.mr, strips);
    for (int block = 0; block < rows; block += row_block) {
      const int block_end = std::min(rows, block + row_block);
      const bool ahead = block_end - block <= kTouchBelowRows;
      const int block_strips = (block_end - block + kernel.mr - 1) / kernel.mr;
      const float* chunk_0 = panels + static_cast<std::size_t>(k0) * kGemmNr;
      const bool chained = one_block && k0 > 0 && k0 + k_block <= inner;  // the chunk before read this one's start
      if (ahead && !chained) touched += touch(chunk_0, chunk);
      for (int p = 0; p < panel_count(cols); ++p) {
        const int first = p * kGemmNr;
        const int nc = std::min(kGemmNr, cols - first);
        const float* panel = chunk_0 + static_cast<std::size_t>(p) * panel_size;
        const bool last = p + 1 == panel_count(cols);
        const float* next = !ahead ? nullptr : !last ? panel + panel_size : chain ? chunk_0 + chunk : nullptr;
        touched += touch_rest(next, block_strips, kb);
        for (int r = block; r < block_end; r += kernel.mr) {
          const int mr = std::min(kernel.mr, block_end - r);
          float* c_tile = c + static_cast<std::size_t>(r) * ldc + first;
          ppmm_tile(kernel, (r - block) / kernel.mr, next, mr, nc, kb, strips + static_cast<std::size_t>(r) * kb, panel,
                    c_tile, ldc, k0 > 0);
        }
      }
    }
  }
  touch_sink = touched;
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
      [&](int p) { return panels + static_cast<std::size_t>(p) * kGemmNr * inner; }, [](int) { return kGemmNr; },
      /*packed=*/true);
}

}  // namespace attn::kernels
