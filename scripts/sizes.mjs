// Prints the raw and gzip (level 9) sizes of each engine build in dist/lib: wasm + glue, plus the API.
// attention-{simd,scalar}: the forward-only engine every page loads; attention-learn-*: with the
// backward pass and the trainer, loaded by loadAttention({ learning: true }).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const lib = new URL('../dist/lib/', import.meta.url);
const size = (name) => {
  const bytes = readFileSync(new URL(name, lib));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
};
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const api = size('attention.mjs');
console.log('build         wasm (gzip)          glue (gzip)          + attention.mjs   total gzip');
for (const build of ['simd', 'scalar', 'learn-simd', 'learn-scalar']) {
  const wasm = size(`attention-${build}.wasm`), glue = size(`attention-${build}.mjs`);
  console.log(`${build.padEnd(13)} ${kb(wasm.raw).padStart(8)} (${kb(wasm.gzip)})  ${kb(glue.raw).padStart(8)} (${kb(glue.gzip)})  ` +
    `${kb(api.gzip).padStart(8)}          ${kb(wasm.gzip + glue.gzip + api.gzip)}`);
}
