// Hand-written kernels, each a scalar twin and a WebAssembly SIMD version with one signature.
// Names follow operation_type_tile__isa. The lists at the bottom are the only way kernels reach
// dispatch (ops.cpp), tests and benchmarks, so none escapes testing.
//
// Letters: mr rows of a tile (≤ the kernel's height), nc valid columns of a tile (≤ 8), kc the shared dimension.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn::kernels {

// c (mr, nc) = a (mr, kc) · b, with b given as one panel: kc rows of 8 floats, ldp apart (8 when
// packed; b's own row stride when b's columns are used in place), zero-padded past nc when packed.
// Rows of a are lda apart, rows of c ldc apart. Reads exactly a[r·lda + 0..kc-1] and
// panel[k·ldp + 0..7], writes exactly c[r·ldc + 0..nc-1] for r < mr: no buffer needs padding.
using GemmMicroKernel = void (*)(int mr, int nc, int kc, const float* a, int lda, const float* panel, int ldp, float* c,
                                 int ldc);
constexpr int kGemmNr = 8;

#define ATTN_GEMM_KERNEL(name) \
  void name(int mr, int nc, int kc, const float* a, int lda, const float* panel, int ldp, float* c, int ldc)
ATTN_GEMM_KERNEL(gemm_f32_4x8__scalar);
#if defined(__wasm_simd128__)
ATTN_GEMM_KERNEL(gemm_f32_4x8__wasmsimd_loadsplat);  // one k per step, a_rk broadcast from memory
#endif
#if defined(ATTN_RELAXED_SIMD)
ATTN_GEMM_KERNEL(gemm_f32_4x8__wasmrelaxed_loadsplat);  // the same with fused multiply-adds (madd_f32x4.hpp)
#endif
#undef ATTN_GEMM_KERNEL

// c (mr, nc) = strip · panel on a pre-packed a ("ppmm"): the strip holds kc groups of the kernel's
// height (4) floats, k-major (strip[k·4 + r] = a_rk), zero in the rows past mr; the panel is packed
// (kc rows of 8 floats). Reads exactly strip[0..4·kc-1] and panel[0..8·kc-1], writes exactly
// c[r·ldc + 0..nc-1] for r < mr.
using PpmmMicroKernel = void (*)(int mr, int nc, int kc, const float* strip, const float* panel, float* c, int ldc);
void ppmm_f32_4x8__scalar(int mr, int nc, int kc, const float* strip, const float* panel, float* c, int ldc);
#if defined(__wasm_simd128__)
void ppmm_f32_4x8__wasmsimd_splat(int mr, int nc, int kc, const float* strip, const float* panel, float* c, int ldc);
#endif
#if defined(ATTN_RELAXED_SIMD)
void ppmm_f32_4x8__wasmrelaxed_splat(int mr, int nc, int kc, const float* strip, const float* panel, float* c, int ldc);
#endif

struct PpmmEntry {
  const char* name;
  PpmmMicroKernel fn;
  int mr;  // the strip's height: rows of c per call
};

struct GemmEntry {
  const char* name;
  GemmMicroKernel fn;
  int mr;  // the tile height: rows of c per call
};

// In place over one row of `cols` scores: row = softmax(row). A row that is all -inf (every key
// masked) becomes all zero. Reads and writes exactly row[0..cols-1].
using SoftmaxKernel = void (*)(int cols, float* row);

void softmax_f32__scalar(int cols, float* row);
#if defined(__wasm_simd128__)
void softmax_f32__wasmsimd(int cols, float* row);
#endif

// The attention row in one fused pass, in place over `cols` raw scores:
//   row_j = softmax over the visible keys of (row_j · (1 / scale)), 0 for a hidden key,
// where key j is visible when j < visible and (keep is null or keep[j] != 0). A row with no visible
// key becomes all zero. Reads exactly row[0..cols-1] and keep[0..visible-1]; writes row[0..cols-1].
using ScaledSoftmaxKernel = void (*)(int cols, int visible, const std::uint8_t* keep, float scale, float* row);

void softmax_scaled_f32__scalar(int cols, int visible, const std::uint8_t* keep, float scale, float* row);
#if defined(__wasm_simd128__)
void softmax_scaled_f32__wasmsimd(int cols, int visible, const std::uint8_t* keep, float scale, float* row);
#endif

// The same row with every key visible, its normalisation left to the caller, in one pass over the raw
// scores whose max (raw_max) is known and finite: row_j = exp(row_j · (1 / scale) − max), and returns
// 1 / Σ row_j. row_j · (the result) is then, bit for bit, the fused kernel's row_j of the same
// instruction set. Reads and writes exactly row[0..cols-1].
using SoftmaxExpScaledKernel = float (*)(int cols, float* row, float scale, float raw_max);

float softmax_exp_scaled_f32__scalar(int cols, float* row, float scale, float raw_max);
#if defined(__wasm_simd128__)
float softmax_exp_scaled_f32__wasmsimd(int cols, float* row, float scale, float raw_max);
#endif

// The portable softmax's exp (ops::portable): row_j = exp(row_j − row_max) for row_j ≤ row_max, the
// same bits from both versions (one polynomial written with + and ×). Reads and writes exactly
// row[0..cols-1].
using ExpMinusMaxKernel = void (*)(int cols, float* row, float row_max);

void exp_minus_max_f32__scalar(int cols, float* row, float row_max);
#if defined(__wasm_simd128__)
void exp_minus_max_f32__wasmsimd(int cols, float* row, float row_max);
#endif

// The forward's checks of what a pass wrote (reduce_f32.cpp), the same answers from both versions:
//   all_finite: no value of values[0..count-1] is ±inf or NaN;
//   max_magnitude: the largest |value|, NaN when some value is NaN (so that one pass answers both
//   "all finite?" and "how large?");
//   row_maxima: max_magnitude of the (rows, cols) values (packed), and each row's max into row_max.
// Read exactly the values given; row_maxima writes exactly row_max[0..rows-1].
using AllFiniteKernel = bool (*)(std::size_t count, const float* values);
using MaxMagnitudeKernel = float (*)(std::size_t count, const float* values);
using RowMaximaKernel = float (*)(int rows, int cols, const float* values, float* row_max);

bool all_finite_f32__scalar(std::size_t count, const float* values);
float max_magnitude_f32__scalar(std::size_t count, const float* values);
float row_maxima_f32__scalar(int rows, int cols, const float* values, float* row_max);
#if defined(__wasm_simd128__)
bool all_finite_f32__wasmsimd(std::size_t count, const float* values);
float max_magnitude_f32__wasmsimd(std::size_t count, const float* values);
float row_maxima_f32__wasmsimd(int rows, int cols, const float* values, float* row_max);
#endif

// The panel gemm driver around a micro-kernel:
//   c (rows, cols) = a (rows, inner) · b, where b is (inner, cols) with row stride ldb, or, when
//   b_transposed, b is stored as (cols, inner) and used as its transpose (the scores q·kᵀ).
// Full 8-column panels of a plain b are read in place when a has few rows; otherwise b, and always
// a transposed b or a last partial panel, is packed into `panels` (packed_size(inner, cols) floats).
std::size_t packed_size(int inner, int cols);
// The panels of a plain b (inner, cols), all packed, for a b used many times (a prepared model's
// weights): packed_size(inner, cols) floats. gemm_f32_prepacked then reads them as they are.
void pack_panels(int inner, int cols, const float* b, int ldb, float* panels);
// The same for b stored as (cols, inner) and used as its transpose (k in the scores q·kᵀ).
void pack_panels_transposed(int inner, int cols, const float* b, int ldb, float* panels);
// pack_panels made in b's own storage (b (inner, cols), row-major, ldb = cols, cols a multiple of
// kGemmNr, so that the panels take exactly its inner · cols floats): no second copy of b.
void pack_panels_in_place(int inner, int cols, float* b);
void gemm_f32_prepacked(const GemmEntry& kernel, int rows, int inner, int cols, const float* a, int lda,
                        const float* panels, float* c, int ldc);
void gemm_f32(const GemmEntry& kernel, int rows, int inner, int cols, const float* a, int lda, const float* b, int ldb,
              bool b_transposed, float* c, int ldc, float* panels);

// The driver on a pre-packed a as well: a (rows, inner) packed into strips of the kernel's height
// (strips_size(rows, inner, mr) floats; strip s, rows s·mr.., at s·mr·inner), then
//   c (rows, cols) = a · b from the strips and b's packed panels.
// gemm_f32_strips packs both (b plain or transposed, as gemm_f32) into the scratch it is given and
// gives the same bits as gemm_f32; ppmm_f32 takes both packed (a used against many b, such as x
// against every head's weights).
std::size_t strips_size(int rows, int inner, int mr);
// With row_scale, row r of a is packed multiplied by row_scale[r] (one rounding, as a pass over a would).
void pack_strips(int rows, int inner, const float* a, int lda, int mr, float* strips, const float* row_scale = nullptr);
void ppmm_f32(const PpmmEntry& kernel, int rows, int inner, int cols, const float* strips, const float* panels,
              float* c, int ldc);
void gemm_f32_strips(const PpmmEntry& kernel, int rows, int inner, int cols, const float* a, int lda, const float* b,
                     int ldb, bool b_transposed, float* c, int ldc, float* strips, float* panels);

// A list's entry for the kernels that have no tile height.
template <typename Kernel>
struct Entry {
  const char* name;
  Kernel fn;
};
using SoftmaxEntry = Entry<SoftmaxKernel>;
using ScaledSoftmaxEntry = Entry<ScaledSoftmaxKernel>;

// Best last: dispatch takes the last entry the build has. The relaxed build's fused kernels come
// last (the forward pass); ops::portable keeps the mul + add one before them (the scalar twin's bits).
inline constexpr GemmEntry kGemmKernels[] = {
    {"gemm_f32_4x8__scalar", gemm_f32_4x8__scalar, 4},
#if defined(__wasm_simd128__)
    {"gemm_f32_4x8__wasmsimd_loadsplat", gemm_f32_4x8__wasmsimd_loadsplat, 4},
#endif
#if defined(ATTN_RELAXED_SIMD)
    {"gemm_f32_4x8__wasmrelaxed_loadsplat", gemm_f32_4x8__wasmrelaxed_loadsplat, 4},
#endif
};
inline constexpr PpmmEntry kPpmmKernels[] = {
    {"ppmm_f32_4x8__scalar", ppmm_f32_4x8__scalar, 4},
#if defined(__wasm_simd128__)
    {"ppmm_f32_4x8__wasmsimd_splat", ppmm_f32_4x8__wasmsimd_splat, 4},
#endif
#if defined(ATTN_RELAXED_SIMD)
    {"ppmm_f32_4x8__wasmrelaxed_splat", ppmm_f32_4x8__wasmrelaxed_splat, 4},
#endif
};
inline constexpr SoftmaxEntry kSoftmaxKernels[] = {
    {"softmax_f32__scalar", softmax_f32__scalar},
#if defined(__wasm_simd128__)
    {"softmax_f32__wasmsimd", softmax_f32__wasmsimd},
#endif
};
inline constexpr ScaledSoftmaxEntry kScaledSoftmaxKernels[] = {
    {"softmax_scaled_f32__scalar", softmax_scaled_f32__scalar},
#if defined(__wasm_simd128__)
    {"softmax_scaled_f32__wasmsimd", softmax_scaled_f32__wasmsimd},
#endif
};
inline constexpr Entry<SoftmaxExpScaledKernel> kSoftmaxExpScaledKernels[] = {
    {"softmax_exp_scaled_f32__scalar", softmax_exp_scaled_f32__scalar},
#if defined(__wasm_simd128__)
    {"softmax_exp_scaled_f32__wasmsimd", softmax_exp_scaled_f32__wasmsimd},
#endif
};
inline constexpr Entry<ExpMinusMaxKernel> kExpMinusMaxKernels[] = {
    {"exp_minus_max_f32__scalar", exp_minus_max_f32__scalar},
#if defined(__wasm_simd128__)
    {"exp_minus_max_f32__wasmsimd", exp_minus_max_f32__wasmsimd},
#endif
};
inline constexpr Entry<AllFiniteKernel> kAllFiniteKernels[] = {
    {"all_finite_f32__scalar", all_finite_f32__scalar},
#if defined(__wasm_simd128__)
    {"all_finite_f32__wasmsimd", all_finite_f32__wasmsimd},
#endif
};
inline constexpr Entry<MaxMagnitudeKernel> kMaxMagnitudeKernels[] = {
    {"max_magnitude_f32__scalar", max_magnitude_f32__scalar},
#if defined(__wasm_simd128__)
    {"max_magnitude_f32__wasmsimd", max_magnitude_f32__wasmsimd},
#endif
};
inline constexpr Entry<RowMaximaKernel> kRowMaximaKernels[] = {
    {"row_maxima_f32__scalar", row_maxima_f32__scalar},
#if defined(__wasm_simd128__)
    {"row_maxima_f32__wasmsimd", row_maxima_f32__wasmsimd},
#endif
};

}  // namespace attn::kernels
