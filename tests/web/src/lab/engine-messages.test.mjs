// The engine's overflow refusals said in the lab's language (web/src/lab/engine-messages.mjs): the real
// engine is made to say each one, and the English catalogue must give back its words exactly, the
// Hindi catalogue a Devanagari sentence with the same numbers; a message the lab does not know stays
// the engine's own, inside 'engine.problem'.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { loadAttention } from '../../../../dist/lib/attention.node.mjs';
import { engineMessage } from '../../../../web/src/lab/engine-messages.mjs';
import { message } from '../../../../web/src/i18n/index.mjs';

const DEVANAGARI = /[\u0900-\u097F]/;
const two = (a, b) => [a, 0, 0, b];  // a 2 × 2 diagonal
// two tokens of two features; each case a call the engine refuses, and the key it must map to
const CASES = [
  ['the projections', { x: [1e20, 1, 1, 1e20], wq: two(1e20, 1e20), wk: two(1, 1), wv: two(1, 1) }, 'engine.overflow.projections'],
  ['the scores', { x: [1e20, 1, 1, 1e20] }, 'engine.overflow.scores'],
  ['the scores over a small divisor', { x: [1e19, 0, 0, 1e19], scale: 0.01 }, 'engine.overflow.scaled'],
  ['the output', { x: [1, 2, 3, 4], wq: two(1, 1), wk: two(1, 1), wv: two(1e30, 1e30), wo: two(1e30, 1e30) }, 'engine.overflow.output'],
];

describe("the engine's overflow messages in the lab's languages", () => {
  let engine;
  before(async () => { engine = await loadAttention(); });

  for (const [what, options, key] of CASES) {
    it(what, () => {
      let said = null;
      try {
        engine.attention({ n: 2, dModel: 2, heads: 1, ...options });
      } catch (error) {
        said = error.message;
      }
      assert.ok(said, 'the engine refuses');
      const found = engineMessage(said);
      assert.equal(found.key, key, said);
      assert.equal(message(found.key, found.values, 'en'), said, 'English: the engine\'s own words');
      const hindi = message(found.key, found.values, 'hi');
      assert.match(hindi, DEVANAGARI);
      for (const value of Object.values(found.values)) assert.ok(hindi.includes(value), `${value} in "${hindi}"`);
    });
  }

  it('the weighted values z: the template as core/src/attention.cpp writes it', () => {
    const source = readFileSync(new URL('../../../../core/src/attention.cpp', import.meta.url), 'utf8');
    const tail = /what \+ " (overflow float32; [^"]+)"/.exec(source)[1];
    assert.ok(source.includes('overflow("the weighted values z (weights·v)")'));
    const said = `the weighted values z (weights·v) ${tail}`;
    const found = engineMessage(said);
    assert.equal(found.key, 'engine.overflow.z');
    assert.equal(message(found.key, found.values, 'en'), said);
  });

  it('a message the lab does not know stays the engine\'s, inside engine.problem', () => {
    const said = 'the scores q·kᵀ of head 1 of 2 overflow float32; and something new';
    assert.deepEqual(engineMessage(said), { key: 'engine.problem', values: { message: said } });
  });
});
