// Prints the raw and gzip (level 9) sizes of each engine build in dist/lib: wasm + glue, plus the API
// (attention.mjs with its chunks; for a learning engine, with the trainer's chunk too).
// attention-{relaxed,simd,scalar}: the forward-only engine every page loads; attention-learn-*: with the
// backward pass and the trainer, loaded by loadAttention({ learning: true }).
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const lib = new URL('../dist/lib/', import.meta.url);
const size = (name) => {
  const bytes = readFileSync(new URL(name, lib));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
};
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
// the API: attention.mjs and the chunks it imports; a learning engine also fetches trainer-*.mjs
const imported = (name) => [...readFileSync(new URL(name, lib), 'utf8').matchAll(/from\s*"\.\/([\w-]+\.mjs)"/g)].map((m) => m[1]);
const gzipOf = (names) => names.reduce((sum, name) => sum + size(name).gzip, 0);
const trainer = readdirSync(lib).find((name) => /^trainer-\w+\.mjs$/.test(name));
const api = { forward: gzipOf(['attention.mjs', ...imported('attention.mjs')]) };
api.learning = api.forward + gzipOf([trainer]);
console.log('build         wasm (gzip)          glue (gzip)          + API (gzip)   total gzip');
for (const build of ['relaxed', 'simd', 'scalar', 'learn-relaxed', 'learn-simd', 'learn-scalar']) {
  const wasm = size(`attention-${build}.wasm`), glue = size(`attention-${build}.mjs`);
  const js = build.startsWith('learn-') ? api.learning : api.forward;
  console.log(`${build.padEnd(13)} ${kb(wasm.raw).padStart(8)} (${kb(wasm.gzip)})  ${kb(glue.raw).padStart(8)} (${kb(glue.gzip)})  ` +
    `${kb(js).padStart(8)}       ${kb(wasm.gzip + glue.gzip + js)}`);
}
