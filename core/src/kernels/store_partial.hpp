// The store at the end of a SIMD gemm tile, shared by the kernels that keep a row of c as two f32x4.
#pragma once

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

namespace attn::kernels {

// Stores the first nc (1..8) lanes of lo:hi to c.
inline void store_partial(float* c, int nc, v128_t lo, v128_t hi) {
  if (nc == 8) {
    wasm_v128_store(c, lo);
    wasm_v128_store(c + 4, hi);
    return;
  }
  if (nc & 4) {
    wasm_v128_store(c, lo);
    lo = hi;
    c += 4;
  }
  if (nc & 2) {
    wasm_v128_store64_lane(c, lo, 0);
    lo = wasm_i64x2_shuffle(lo, lo, 1, 1);
    c += 2;
  }
  if (nc & 1) wasm_v128_store32_lane(c, lo, 0);
}

}  // namespace attn::kernels

#endif  // __wasm_simd128__
