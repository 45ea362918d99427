// acc + a · b on four floats, the one inner operation the gemm and ppmm micro-kernels repeat.
// Unfused: a multiply and an add (two roundings, the scalar twins' bits; every SIMD build's kernels,
// and the relaxed build's mul + add ones, which ops::portable and so the trainers keep). Fused, in
// the relaxed build's *__wasmrelaxed_* kernels (-mrelaxed-simd -DATTN_RELAXED_SIMD=1): one fused
// multiply-add, f32x4.relaxed_madd (one rounding where the CPU has FMA, as every x86-64 with AVX2
// and every ARM64 has; two where it has not: the relaxed-SIMD proposal allows either), twice the
// flops per instruction.
//
// Clang 14 knows only the proposal's prototype, __builtin_wasm_fma_f32x4 → "f32x4.fma" (fd af 01),
// whose prototype semantics were a + b · c; the standard f32x4.relaxed_madd (fd 85 02) computes
// a · b + c on the same three stack operands. scripts/relax-wasm.mjs rewrites every prototype opcode
// of a linked relaxed build into the standard one (an instruction walk over the code section), so the
// operands are given here in relaxed_madd's order: (a, b, acc) → a · b + acc. A relaxed build that
// skipped the rewrite does not load (no engine accepts the prototype opcode any more).
#pragma once

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#if defined(ATTN_RELAXED_SIMD) && !defined(__wasm_relaxed_simd__)
#error "ATTN_RELAXED_SIMD needs -mrelaxed-simd"
#endif

namespace attn::kernels {

// a · b + acc: kFused, one fused multiply-add (the relaxed build only); else a multiply and an add
template <bool kFused>
inline v128_t madd_f32x4(v128_t a, v128_t b, v128_t acc) {
#if defined(ATTN_RELAXED_SIMD)
  if constexpr (kFused) return (v128_t)__builtin_wasm_fma_f32x4((__f32x4)a, (__f32x4)b, (__f32x4)acc);
#else
  static_assert(!kFused, "fused multiply-adds need the relaxed build (ATTN_RELAXED_SIMD)");
#endif
  return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b));
}

}  // namespace attn::kernels

#endif  // __wasm_simd128__
