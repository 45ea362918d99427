// The gemm micro-kernels on their own, in the module that measures the ceiling (bench/peak.cpp):
// GFLOP/s of the engine's gemm driver with each kernel on the shapes the forward pass runs, as a
// share of the mul+add ceiling; and, for `npm run bench -- --asm`, the instruction mix of each
// kernel's main loop in V8's machine code.
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

/**
 * The instruction mix of each gemm kernel's main loop in V8's machine code: runs this file under
 * `node --no-liftoff --print-wasm-code` (TurboFan only, the optimised code) and, in each kernel's
 * listing, takes the innermost loop that does the multiplies: the instructions from a backward
 * conditional jump's target to the jump, the loop with the most multiplies (the smallest on a tie). Spills are SIMD moves to or
 * from the stack frame (rbp/rsp-relative).
 */
export async function asmReport() {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const listing = execFileSync(process.execPath, ['--no-liftoff', '--print-wasm-code', fileURLToPath(import.meta.url), '--tier-up'],
    { encoding: 'utf8', maxBuffer: 256 << 20 });
  const functions = listing.split(/\n(?=--- WebAssembly code ---|name: )/);
  const report = [];
  for (const text of functions) {
    const name = /^name: attn::kernels::(gemm_f32_\w+)/m.exec(text)?.[1];
    if (!name) continue;
    const lines = [...text.matchAll(/^0x([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+(.*)$/gm)].map((m) => ({ address: BigInt(`0x${m[1]}`), text: m[2].trim() }));
    // backward jumps: (target, jump) pairs; the main loop is the one with the most multiplies
    let best = null;
    for (let j = 0; j < lines.length; j++) {
      const jump = /^j(?!mp)\w+\s+0x([0-9a-f]+)/.exec(lines[j].text);  // a loop's conditional back edge
      if (!jump) continue;
      const target = BigInt(`0x${jump[1]}`);
      if (target >= lines[j].address) continue;
      const body = lines.filter((l) => l.address >= target && l.address <= lines[j].address);
      const count = (re) => body.filter((l) => re.test(l.text)).length;
      const mix = {
        instructions: body.length,
        mul: count(/^v?mulps/),
        add: count(/^v?addps/),
        shuffles: count(/^v?(pshufd|shufps|vpermilps|vbroadcastss\s+xmm\d+,xmm|pshufb|vpshufb|movddup|punpck|vpunpck|unpck|vunpck)/),
        broadcastLoads: count(/^vbroadcastss\s+xmm\d+,\[/),
        vectorLoads: count(/^v?mov(dqu|ups|aps|apd|dqa)\s+xmm\d+,\[(?!rbp|rsp)/),
        spills: count(/^v?mov(dqu|ups|aps|apd|dqa|sd|ss)\s+\[(rbp|rsp)[^\]]*\],xmm/) + count(/^v?mov(dqu|ups|aps|apd|dqa|sd|ss)\s+xmm\d+,\[(rbp|rsp)/),
      };
      if (!best || mix.mul > best.mul || (mix.mul === best.mul && mix.instructions < best.instructions)) best = mix;
    }
    if (best) report.push({ kernel: name, ...best });
  }
  return report;
}

// Run as a script with --tier-up: call every kernel once so V8 compiles it (under --no-liftoff,
// straight to TurboFan) and prints its code.
if (process.argv.includes('--tier-up')) {
  const path = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { default: createPeakModule } = await import(path.join(root, 'build/wasm/peak.mjs'));
  const peakModule = await createPeakModule();
  for (let kernel = 0; kernel < peakModule._gemm_kernel_count(); kernel++) peakModule._gemm_repeat(kernel, 36, 64, 64, 0, 1);
}
