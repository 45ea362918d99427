// shared/chapter-practice.mjs's verdicts: right to a reader's rounding (4 significant digits), whole
// numbers exactly, the typical mistake named when the typed number is what it gives, and a mistake
// that gives the right number never named.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { judge, close } from '../../../../web/src/shared/chapter-practice.mjs';

describe('chapter practice: judge()', () => {
  const rotation = { want: 0.245515, mistakes: [{ key: 'ropePosition', value: -1.2113 }, { key: 'ropeNone', value: -1.211 }] };

  it('takes an answer rounded as the tables show it, and refuses one off in the third digit', () => {
    assert.deepEqual(judge('0.2455', rotation), { verdict: 'right', typed: 0.2455 });
    assert.equal(judge('0,2455', rotation).verdict, 'right', 'a comma as the decimal point');
    assert.equal(judge('0.247', rotation).verdict, 'wrong');
    assert.equal(close(1e-5, 0), true, 'near zero: an absolute tolerance');
  });

  it('names the first mistake that gives the typed number', () => {
    assert.deepEqual(judge('-1.211', rotation), { verdict: 'mistake', typed: -1.211, mistake: 'ropePosition' });
  });

  it('never names a mistake that gives the right number too', () => {
    const same = { want: 3, mistakes: [{ key: 'flashRescale', value: 3 }, { key: 'flashOldMax', value: 5 }] };
    assert.equal(judge('3', same).verdict, 'right');
    assert.equal(judge('5', same).mistake, 'flashOldMax');
  });

  it('compares whole numbers exactly', () => {
    const bytes = { want: 131072, exact: true, mistakes: [{ key: 'cacheKOnly', value: 65536 }, { key: 'cacheLayers', value: 4096 }] };
    assert.equal(judge('131072', bytes).verdict, 'right');
    assert.equal(judge('131073', bytes).verdict, 'wrong');
    assert.equal(judge('65536', bytes).mistake, 'cacheKOnly');
    assert.equal(judge('4096', bytes).mistake, 'cacheLayers');
  });

  it('says so when the answer is not a number', () => {
    for (const text of ['', 'abc', '1/2', '<b>1</b>']) assert.deepEqual(judge(text, rotation), { verdict: 'unreadable' });
  });
});
