// Issue 28, SCORM: scores that are not numbers are refused with a message and never sent, and the
// session time is rounded before it is split into fields (SCORM 1.2's CMITimespan, HHHH:MM:SS.SS,
// seconds below 60). web/scorm-api.js runs here in a VM context under a stand-in platform window.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const source = readFileSync(new URL('../../web/scorm-api.js', import.meta.url), 'utf8');

// The script launched under a platform whose API records every call; `clock` is Date.now().
function launch() {
  const calls = [];
  const values = {};
  const API = {
    LMSInitialize: () => 'true',
    LMSGetValue: (element) => values[element] ?? '',
    LMSSetValue: (element, value) => { calls.push([element, value]); values[element] = value; return 'true'; },
    LMSCommit: () => 'true',
    LMSFinish: () => 'true',
  };
  const platform = { API };
  platform.parent = platform;
  const clock = { now: 1_000_000 };
  const window = { parent: platform, opener: null, addEventListener() {} };
  const context = vm.createContext({ window, Date: { now: () => clock.now }, JSON, Math, String, isFinite, TypeError, RangeError, Array });
  vm.runInContext(source, context);
  return { scorm: window.attentionLabScorm, calls, clock };
}

describe('issue 28: SCORM reportScore', () => {
  it('NaN, ±Infinity, strings, null and objects are refused with a message and nothing is sent', () => {
    const { scorm, calls } = launch();
    const sent = calls.length;
    for (const raw of [NaN, Infinity, -Infinity, 'abc', '40', '', null, undefined, {}, [40]]) {
      assert.throws(() => scorm.reportScore(raw), (error) => error instanceof TypeError &&
        /reportScore: raw must be a finite number from 0 to 100, got /.test(error.message), String(raw));
    }
    for (const [raw, options, pattern] of [
      [101, undefined, /raw must be from 0 to 100, got 101/], [-1, undefined, /got -1/],
      [40, { min: NaN }, /min must be a finite number/], [40, { max: 'x' }, /max must be a finite number/],
      [40, { passingScore: Infinity }, /passingScore must be a finite number/], [90, { max: 80 }, /raw \(90\) must lie from min \(0\) to max \(80\)/],
    ]) {
      assert.throws(() => scorm.reportScore(raw, options), pattern);
    }
    assert.equal(calls.length, sent, 'nothing reached the platform');
  });

  it('a score from 0 to 100 is sent as a number (edges included), with passed or failed', () => {
    const { scorm, calls } = launch();
    for (const raw of [0, 40, 99.5, 100]) assert.equal(scorm.reportScore(raw), true);
    assert.deepEqual(calls.filter(([e]) => e === 'cmi.core.score.raw').map(([, v]) => v), ['0', '40', '99.5', '100']);
    scorm.reportScore(70, { passingScore: 70 });
    assert.deepEqual(calls.at(-1), ['cmi.core.lesson_status', 'passed']);
    scorm.reportScore(69.9, { passingScore: 70 });
    assert.deepEqual(calls.at(-1), ['cmi.core.lesson_status', 'failed']);
  });
});

describe('issue 28: SCORM session time', () => {
  // milliseconds → what SCORM 1.2 expects, worked out by hand
  const cases = [
    [59_996, '0000:01:00.00'], [59_994, '0000:00:59.99'], [59_995, '0000:01:00.00'], [0, '0000:00:00.00'],
    [4, '0000:00:00.00'], [5, '0000:00:00.01'], [3_599_995, '0001:00:00.00'], [3_599_994, '0000:59:59.99'],
    [3_723_456, '0001:02:03.46'], [36_000_000 * 1000, '9999:59:59.99'], [(9999 * 3600 + 3599) * 1000 + 996, '9999:59:59.99'],
    [-5000, '0000:00:00.00'],
  ];
  for (const [ms, expected] of cases) {
    it(`${ms} ms is written ${expected}`, () => {
      const { scorm, calls, clock } = launch();
      clock.now += ms;
      scorm.finish();
      const written = calls.find(([element]) => element === 'cmi.core.session_time')[1];
      assert.equal(written, expected);
      assert.match(written, /^\d{4}:[0-5]\d:[0-5]\d\.\d\d$/);
    });
  }
});
