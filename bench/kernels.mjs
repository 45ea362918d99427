// The gemm micro-kernels on their own, in the module that measures the ceiling (bench/peak.cpp):
// GFLOP/s of the engine's gemm driver with each kernel on the shapes the forward pass runs, as a
// share of the mul+add ceiling. (bench/asm.mjs prints the kernels' machine code mix.)
//   letters: rows × inner times inner × cols, transposed when b is stored (cols, inner)

/** The products of one head at (1024, 512, 8) and (256, 512, 8): projections, scores, weighted sum. */
export const GEMM_SHAPES = [
  { what: 'projection x·W (1024 × 512 · 512 × 64)', rows: 1024, inner: 512, cols: 64, transposed: 0 },
  { what: 'scores q·kᵀ (1024 × 64 · 64 × 1024)', rows: 1024, inner: 64, cols: 1024, transposed: 1 },
  { what: 'weighted sum A·V (1024 × 1024 · 1024 × 64)', rows: 1024, inner: 1024, cols: 64, transposed: 0 },
  { what: 'projection x·W (256 × 512 · 512 × 64)', rows: 256, inner: 512, cols: 64, transposed: 0 },
];

export function kernelNames(peakModule) {
  const count = peakModule._gemm_kernel_count();
  return Array.from({ length: count }, (_, i) => peakModule.UTF8ToString(peakModule._gemm_kernel_name(i)));
}

/** Best-of-5 GFLOP/s of each SIMD kernel on each shape. */
export function measureKernels(peakModule, { simdOnly = true } = {}) {
  const names = kernelNames(peakModule);
  const rows = [];
  for (const shape of GEMM_SHAPES) {
    const flop = 2 * shape.rows * shape.inner * shape.cols;
    for (let kernel = 0; kernel < names.length; kernel++) {
      if (simdOnly && !names[kernel].includes('__wasmsimd')) continue;
      const repeats = Math.max(1, Math.round(2e8 / flop));
      peakModule._gemm_repeat(kernel, shape.rows, shape.inner, shape.cols, shape.transposed, repeats);  // tier up
      let best = 0;
      for (let r = 0; r < 5; r++) {
        const start = performance.now();
        peakModule._gemm_repeat(kernel, shape.rows, shape.inner, shape.cols, shape.transposed, repeats);
        best = Math.max(best, (flop * repeats) / (performance.now() - start) / 1e6);
      }
      rows.push({ shape: shape.what, kernel: names[kernel], gflops: best });
    }
  }
  return rows;
}
