// `npm run bench:asm [-- --kernels=ppmm]` (or `node bench/asm.mjs` after `cmake --build build/wasm --target
// bench_peak`): the instruction mix of each gemm and ppmm kernel's main loop in V8's machine code (Node
// only: it runs Node itself with --print-wasm-code), for the kernels whose name contains --kernels= when
// given. A few seconds. (`npm run bench -- --asm` hands --asm to the last command of that script only.)
// --relaxed: the relaxed build's kernels (build/wasm/peak-relaxed.mjs, fused multiply-adds: the fma
// column), Node run with --experimental-wasm-relaxed-simd.
/**
 * The instruction mix of each gemm kernel's main loop in V8's machine code: runs this file under
 * `node --no-liftoff --print-wasm-code` (TurboFan only, the optimised code) and, in each kernel's
 * listing, takes the innermost loop that does the multiplies: the instructions from a backward
 * conditional jump's target to the jump, the loop with the most multiplies (the smallest on a tie). Spills are SIMD moves to or
 * from the stack frame (rbp/rsp-relative).
 */
export async function asmReport({ relaxed = false } = {}) {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const flags = relaxed ? ['--experimental-wasm-relaxed-simd'] : [];
  const listing = execFileSync(process.execPath, [...flags, '--no-liftoff', '--print-wasm-code', fileURLToPath(import.meta.url), '--tier-up',
    ...(relaxed ? ['--relaxed'] : [])], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const functions = listing.split(/\n(?=--- WebAssembly code ---|name: )/);
  const report = [];
  for (const text of functions) {
    const name = /^name: attn::kernels::((?:gemm|ppmm)_f32_\w+)/m.exec(text)?.[1];
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
        fma: count(/^vfn?madd\d+ps/),
        shuffles: count(/^v?(pshufd|shufps|vpermilps|vbroadcastss\s+xmm\d+,xmm|pshufb|vpshufb|movddup|punpck|vpunpck|unpck|vunpck)/),
        broadcastLoads: count(/^vbroadcastss\s+xmm\d+,\[/),
        vectorLoads: count(/^v?mov(dqu|ups|aps|apd|dqa)\s+xmm\d+,\[(?!rbp|rsp)/),
        spills: count(/^v?mov(dqu|ups|aps|apd|dqa|sd|ss)\s+\[(rbp|rsp)[^\]]*\],xmm/) + count(/^v?mov(dqu|ups|aps|apd|dqa|sd|ss)\s+xmm\d+,\[(rbp|rsp)/),
      };
      const products = (mix) => mix.mul + mix.fma;
      if (!best || products(mix) > products(best) || (products(mix) === products(best) && mix.instructions < best.instructions)) best = mix;
    }
    if (best) report.push({ kernel: name, ...best });
  }
  return report;
}

// Run as a script: print the table (the lines bench/run.mjs --asm prints), for the kernels named by
// --kernels= when given.
const isScript = process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href;
if (isScript && !process.argv.includes('--tier-up')) {
  const only = process.argv.find((a) => a.startsWith('--kernels='))?.slice(10) ?? '';
  const relaxed = process.argv.includes('--relaxed');
  const report = (await asmReport({ relaxed })).filter((k) => k.kernel.includes(only));
  if (relaxed) console.log('relaxed build (build/wasm/peak-relaxed.mjs, node --experimental-wasm-relaxed-simd)');
  console.log('| kernel | instructions | mulps | addps | vfmadd…ps | shuffles | broadcast loads | vector loads | stack spills and reloads |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const k of report) console.log(`| ${k.kernel} | ${k.instructions} | ${k.mul} | ${k.add} | ${k.fma} | ${k.shuffles} | ${k.broadcastLoads} | ${k.vectorLoads} | ${k.spills} |`);
}

// Run as a script with --tier-up: call every kernel once so V8 compiles it (under --no-liftoff,
// straight to TurboFan) and prints its code.
if (process.argv.includes('--tier-up')) {
  const path = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const relaxed = process.argv.includes('--relaxed');
  const { default: createPeakModule } = await import(path.join(root, `build/wasm/${relaxed ? 'peak-relaxed' : 'peak'}.mjs`));
  const { readFileSync } = await import('node:fs');
  const peakModule = await createPeakModule(relaxed ? { wasmBinary: readFileSync(path.join(root, 'build/wasm/peak-relaxed.wasm')) } : {});
  for (let kernel = 0; kernel < peakModule._gemm_kernel_count(); kernel++) peakModule._gemm_repeat(kernel, 36, 64, 64, 0, 1);
  for (let kernel = 0; kernel < peakModule._ppmm_kernel_count(); kernel++) peakModule._ppmm_repeat(kernel, 36, 64, 64, 0, 1);
}
