// The dense building blocks of the forward pass; ops.cpp picks their implementation for the build.
// Every op computes on every build; packed_is_fastest() says which products a build prefers.
// All matrices are row-major with a leading dimension (ld) in elements, so a head's columns inside
// a wider matrix are addressed without copies. The products work in the caller's `scratch`
// (ProductScratch, attention.hpp): no op keeps state of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/attention.hpp"

namespace attn::ops {

// c (rows, cols) = a (rows, inner) · b (inner, cols)
void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
            ProductScratch* scratch);

// c (rows, cols) = a (rows, inner) · bᵀ, with b stored as (cols, inner)
void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch);

// c (rows, cols) = aᵀ · b, with a stored as (inner, rows) and b as (inner, cols): the weight
// gradients xᵀ·dq and the value gradient weightsᵀ·dz.
void matmul_transa(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch);

// The packed products run on the build's best gemm kernels: the SIMD ones, or the scalar ones, which
// are slower than Eigen's products. packed_is_fastest() is true where packing pays (the SIMD build),
// and only there does the forward pass use them (the scalar and native builds keep Eigen's bits).
bool packed_is_fastest();

// b (inner, cols) in the gemm's panel layout, for a b used many times (a prepared model's weights).
// matmul_packed takes such panels.
std::vector<float> pack_panels(const float* b, int ldb, int inner, int cols);
void matmul_packed(const float* a, int lda, const float* panels, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch);

// a (rows, inner) in the gemm's strip layout, for an a used against many packed b (x against every
// head's weights): `strips` is resized to fit (it keeps its capacity between calls). matmul_strips
// takes such strips and panels.
void pack_strips(const float* a, int lda, int rows, int inner, std::vector<float>* strips);
// b (inner, cols), or with b_transposed b stored as (cols, inner), in the panel layout, into
// `panels` (resized; it keeps its capacity): for a b used by several products of one call (k and v
// against each block of queries).
void pack_panels_into(const float* b, int ldb, int inner, int cols, bool b_transposed, std::vector<float>* panels);
void matmul_strips(const float* strips, const float* panels, float* c, int ldc, int rows, int inner, int cols);

// The forward's checks of what each pass wrote (kernels::kAllFiniteKernels, kMaxMagnitudeKernels).
// all_finite: no value is ±inf or NaN. largest_magnitude: the largest |value|, NaN when some value is
// NaN, so that one pass answers both "all finite?" (the result is finite) and "how large?".
bool all_finite(const float* values, std::size_t count);
float largest_magnitude(const float* values, std::size_t count);

// The unmasked attention rows of a block of queries without a trace, in two passes over the scores
// where the plain way makes four (check, scale and max, exp, normalise), with the same bits (SIMD
// build; the by-blocks path of attention.cpp):
//   row_maxima: largest_magnitude of the (rows, cols) values, and each row's max into row_max
//   (kernels::kRowMaximaKernels);
//   softmax_exp_rows: row i = exp(row_i / scale − max_i / scale), its 1 / sum into inv_sum[i]
//   (kernels::kSoftmaxExpScaledKernels);
//   matmul_packed_row_scaled: matmul_packed of (a with row i multiplied by row_scale[i]), the
//   multiplication made while a is packed into strips (in place on a for fewer than 33 rows).
float row_maxima(const float* values, int rows, int cols, float* row_max);
void softmax_exp_rows(float* x, int rows, int cols, float scale, const float* row_max, float* inv_sum);
void matmul_packed_row_scaled(float* a, int lda, const float* row_scale, const float* panels, float* c, int ldc,
                              int rows, int inner, int cols, ProductScratch* scratch);

// In place over (rows, cols): each row becomes its softmax. A row that is all -inf (every key masked)
// becomes all zero instead of NaN.
void softmax_rows(float* x, int ld, int rows, int cols);

// In place over the raw scores (rows, cols), packed (ld = cols): row i becomes the softmax of
// scores_i / scale over its visible keys, 0 elsewhere. Key j is visible to row i when, with
// `causal`, j <= i, and, with `keep` (rows × cols bytes), keep_ij != 0. One fused pass per row.
void softmax_scaled_rows(float* x, int rows, int cols, float scale, bool causal, const std::uint8_t* keep);

// The same operations with the same bits on every build: the panel gemm driver on the build's best
// micro-kernel (scalar and SIMD add each product in the same order: k ascending, one rounding per
// multiply and per add) and a softmax whose exp is one polynomial written with + and × only.
// Slower natively than Eigen; used where results must match across builds (the trainer).
namespace portable {
void matmul(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
            ProductScratch* scratch);
void matmul_transb(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch);
void matmul_transa(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int rows, int inner, int cols,
                   ProductScratch* scratch);
void softmax_rows(float* x, int ld, int rows, int cols);
void softmax_scaled_rows(float* x, int rows, int cols, float scale, bool causal, const std::uint8_t* keep);
}  // namespace portable

}  // namespace attn::ops
