// The machine's WebAssembly SIMD ceiling: independent chains of f32x4 multiply-then-add held in
// registers, no memory traffic. Each chain step is 8 flops (4 lanes × mul + add). The benchmark
// tries 8 to 16 chains and reports the best: too few leave the pipelines idle, too many spill.
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

namespace {

template <int kChains>
float run_chains(int iterations) {
  v128_t acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = wasm_f32x4_splat(0.001f * (i + 1));
  const v128_t scale = wasm_f32x4_splat(0.9999999f);
  const v128_t shift = wasm_f32x4_splat(1e-7f);
  for (int it = 0; it < iterations; ++it) {
#pragma clang loop unroll(full)
    for (int i = 0; i < kChains; ++i) acc[i] = wasm_f32x4_add(wasm_f32x4_mul(acc[i], scale), shift);
  }
  v128_t total = acc[0];
  for (int i = 1; i < kChains; ++i) total = wasm_f32x4_add(total, acc[i]);
  return wasm_f32x4_extract_lane(total, 0);  // returned, so the loop cannot be dropped
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE float peak_chains(int chains, int iterations) {
  switch (chains) {
    case 8: return run_chains<8>(iterations);
    case 10: return run_chains<10>(iterations);
    case 12: return run_chains<12>(iterations);
    case 14: return run_chains<14>(iterations);
    case 16: return run_chains<16>(iterations);
    default: return -1.0f;
  }
}
