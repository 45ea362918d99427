// The page's engine stays under its budget (issue 11: "keep the engine under 40 KB gzipped"): what
// every page downloads to compute, the API (attention.mjs and the chunks it imports), the Emscripten
// glue and the .wasm of the forward-only build, each gzipped at level 9 (as `npm run sizes` measures).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const lib = new URL('../../../dist/lib/', import.meta.url);
const bytes = (name) => readFileSync(new URL(name, lib));
const gzipped = (name) => gzipSync(bytes(name), { level: 9 }).length;
const BUDGET = 40 * 1024;

function engineBytes(build) {
  const api = ['attention.mjs', ...[...bytes('attention.mjs').toString().matchAll(/from\s*"\.\/([\w-]+\.mjs)"/g)].map((m) => m[1])];
  return [...api, `attention-${build}.mjs`, `attention-${build}.wasm`].reduce((sum, name) => sum + gzipped(name), 0);
}

for (const build of ['relaxed', 'simd', 'scalar']) {
  it(`the page's ${build} engine (API, glue, wasm) is under 40 KB gzipped`, () => {
    const total = engineBytes(build);
    assert.ok(total < BUDGET, `attention-${build} with its API: ${(total / 1024).toFixed(1)} KB gzipped`);
  });
}

it('the page\'s engine carries no embind (its glue would be three times the size)', () => {
  for (const build of ['relaxed', 'simd', 'scalar']) {
    assert.doesNotMatch(bytes(`attention-${build}.mjs`).toString(), /embind|emval/, `attention-${build}.mjs`);
  }
  // the learning engines do: the trainer's class and gradients() go through embind
  assert.match(bytes('attention-learn-simd.mjs').toString(), /embind/);
});
