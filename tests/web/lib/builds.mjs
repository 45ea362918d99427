// The set-up of the tests that run on both builds of the engine (dist/lib), in Node.
import { describe } from 'node:test';

import { loadAttention } from '../../../dist/lib/attention.node.mjs';

/**
 * One describe block per build, SIMD then scalar, titled `title('SIMD')` and `title('scalar')`:
 * `body({ engine, simd })` declares the block's tests on that build's engine, loaded once for the
 * block (`learning`: the learning build, with gradients() and the trainer).
 */
export function forEachBuild(title, { learning = false } = {}, body) {
  for (const simd of [true, false]) {
    describe(title(simd ? 'SIMD' : 'scalar'), async () => {
      body({ engine: await loadAttention({ simd, learning }), simd });
    });
  }
}
