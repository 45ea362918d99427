// The gemm micro-kernels on their own, in the module that measures the ceiling (bench/peak.cpp):
// GFLOP/s of the engine's gemm driver with each kernel on the shapes the forward pass runs, as a
// share of the mul+add ceiling. (bench/asm.mjs prints the kernels' machine code mix.)
//   letters: rows × inner times inner × cols, transposed when b is stored (cols, inner)
// The gemm kernels (gemm_f32_*) read a in place; the ppmm kernels (ppmm_f32_*) read a packed into
// strips, and their timing includes that packing (and b's), as in the forward pass.

/** The products of one head at (1024, 512, 8) and (256, 512, 8): projections, scores, weighted sum. */
export const GEMM_SHAPES = [
  { what: 'projection x·W (1024 × 512 · 512 × 64)', rows: 1024, inner: 512, cols: 64, transposed: 0 },
  { what: 'scores q·kᵀ (1024 × 64 · 64 × 1024)', rows: 1024, inner: 64, cols: 1024, transposed: 1 },
  { what: 'weighted sum A·V (1024 × 1024 · 1024 × 64)', rows: 1024, inner: 1024, cols: 64, transposed: 0 },
  { what: 'projection x·W (256 × 512 · 512 × 64)', rows: 256, inner: 512, cols: 64, transposed: 0 },
];

/** Each kernel list of the module: [{ name, repeat(rows, inner, cols, transposed, repeats) }]. */
export function kernelList(peakModule) {
  const list = (count, name, repeat) => Array.from({ length: count() }, (_, i) => ({
    name: peakModule.UTF8ToString(name(i)),
    repeat: (...args) => repeat(i, ...args),
  }));
  return [...list(peakModule._gemm_kernel_count, peakModule._gemm_kernel_name, peakModule._gemm_repeat),
    ...list(peakModule._ppmm_kernel_count, peakModule._ppmm_kernel_name, peakModule._ppmm_repeat)];
}

export function kernelNames(peakModule) {
  return kernelList(peakModule).map((k) => k.name);
}

/** Best-of-5 GFLOP/s of each SIMD kernel on each shape. */
export function measureKernels(peakModule, { simdOnly = true } = {}) {
  const kernels = kernelList(peakModule);
  const rows = [];
  for (const shape of GEMM_SHAPES) {
    const flop = 2 * shape.rows * shape.inner * shape.cols;
    for (const kernel of kernels) {
      if (simdOnly && !kernel.name.includes('__wasmsimd')) continue;
      const repeats = Math.max(1, Math.round(2e8 / flop));
      kernel.repeat(shape.rows, shape.inner, shape.cols, shape.transposed, repeats);  // tier up
      let best = 0;
      for (let r = 0; r < 5; r++) {
        const start = performance.now();
        kernel.repeat(shape.rows, shape.inner, shape.cols, shape.transposed, repeats);
        best = Math.max(best, (flop * repeats) / (performance.now() - start) / 1e6);
      }
      rows.push({ shape: shape.what, kernel: kernel.name, gflops: best });
    }
  }
  return rows;
}
