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

// Issue 27: the grades a platform can trust, with scorm-again (a real SCORM 1.2 and 2004 runtime) as
// the platform's API. Expected scores are worked out here from the rules in docs/embedding.md: an
// exercise right counts 1 less hintCost per hint, shown or open counts 0; score = 100 × Σ / count.
const { Scorm12API, Scorm2004API } = await import('scorm-again');

// scorm-api.js launched under a platform window holding `api` (as API or API_1484_11), with exercise.js's settings
function launchUnder(version, api, settings = {}) {
  const platform = version === '2004' ? { API_1484_11: api } : { API: api };
  platform.parent = platform;
  const listeners = {};
  const window = { parent: platform, opener: null, attentionLabScormSettings: { version, ...settings }, addEventListener: (name, f) => { listeners[name] = f; } };
  vm.runInContext(source, vm.createContext({ window, Date, JSON, Math, String, Number, isFinite, TypeError, RangeError, Array, Object }));
  return { scorm: window.attentionLabScorm, leave: () => listeners.pagehide() };
}
const runtime = (version, stored) => {
  const api = version === '2004' ? new Scorm2004API({ logLevel: 5 }) : new Scorm12API({ logLevel: 5 });
  if (stored) api.loadFromJSON(stored);
  return api;
};
const work = (...records) => ({ state: '#lab=%7B%22preset%22%3A%22cat-sat%22%7D', exercises: records.map(([status, hints = 0], i) => ({ id: `e${i}`, status, hints, attempts: 0, answers: [] })) });
const status12 = (api) => api.cmi.core.lesson_status;

describe('issue 27: SCORM 1.2 status, score and mastery (scorm-again)', () => {
  it('incomplete from launch until every exercise is answered, then passed or failed against the teacher\'s mastery score', () => {
    const api = runtime('1.2');
    const { scorm } = launchUnder('1.2', api, { mastery: 60, hintCost: 0.25 });
    assert.equal(scorm.available, true);
    assert.equal(status12(api), 'incomplete', 'not completed on launch');
    scorm.record(work(['correct'], ['open'], ['open']));
    assert.equal(status12(api), 'incomplete');
    assert.equal(Number(api.cmi.core.score.raw), 33.33);  // 100 × 1/3
    scorm.record(work(['correct'], ['correct', 1], ['revealed']));
    assert.equal(Number(api.cmi.core.score.raw), 58.33);  // 100 × (1 + 0.75 + 0)/3
    assert.equal(status12(api), 'failed', '58.33 < 60');
    assert.equal(api.cmi.core.score.min, '0');
    assert.equal(api.cmi.core.score.max, '100');
  });

  it('the platform\'s cmi.student_data.mastery_score wins over the teacher\'s', () => {
    const api = runtime('1.2', { student_data: { mastery_score: '50' } });
    const { scorm } = launchUnder('1.2', api, { mastery: 60 });
    assert.equal(scorm.mastery, 50);
    scorm.record(work(['correct'], ['correct', 1], ['revealed']));
    assert.equal(status12(api), 'passed', '58.33 ≥ 50');
  });

  it('a hint costs what the teacher chose, never below 0 for the exercise', () => {
    for (const [hintCost, hints, expected] of [[0, 3, 100], [0.25, 2, 50], [0.5, 3, 0], [1, 1, 0]]) {
      const api = runtime('1.2');
      launchUnder('1.2', api, { hintCost }).scorm.record(work(['correct', hints]));
      assert.equal(Number(api.cmi.core.score.raw), expected, `hintCost ${hintCost}, ${hints} hints`);
    }
  });

  it('best: a stored 80 is not overwritten by 25 after one answer, nor a finished 60 by a new set\'s 20', () => {
    const api = runtime('1.2', { core: { score: { raw: '80' } } });
    const { scorm } = launchUnder('1.2', api, { mastery: 70, scoring: 'best' });
    scorm.record(work(['correct'], ['open'], ['open'], ['open']));
    assert.equal(api.cmi.core.score.raw, '80');
    const api2 = runtime('1.2');
    const second = launchUnder('1.2', api2, { scoring: 'best' }).scorm;
    second.record(work(['correct'], ['correct'], ['correct'], ['revealed'], ['revealed']));
    assert.equal(api2.cmi.core.score.raw, '60');
    second.record(work(['correct'], ['open'], ['open'], ['open'], ['open']));  // Try another
    assert.equal(api2.cmi.core.score.raw, '60');
  });

  it('last: the last finished set counts, even lower; a set in progress changes nothing', () => {
    const api = runtime('1.2');
    const { scorm } = launchUnder('1.2', api, { scoring: 'last', mastery: 50 });
    scorm.record(work(['correct'], ['correct']));
    assert.equal(api.cmi.core.score.raw, '100');
    scorm.record(work(['correct'], ['open']));     // a new set, half done
    assert.equal(api.cmi.core.score.raw, '100');
    scorm.record(work(['revealed'], ['correct'])); // finished lower
    assert.equal(api.cmi.core.score.raw, '50');
    assert.equal(status12(api), 'passed');
  });

});

describe('issue 27: SCORM 1.2 suspend data (scorm-again)', () => {
  it('suspend data keeps the state, answers, hints and scores; a relaunch reads them back; exit is suspend', () => {
    const api = runtime('1.2');
    const first = launchUnder('1.2', api, { mastery: 60 });
    const typed = work(['correct'], ['open', 2]);
    typed.exercises[1].answers = ['3.9'];
    first.scorm.record(typed);
    first.leave();
    const kept = JSON.parse(JSON.stringify(api.cmi));  // write-only elements are read here, as a platform stores them
    assert.equal(kept.core.exit, 'suspend');
    assert.match(kept.core.session_time, /^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/);
    const again = runtime('1.2', { suspend_data: kept.suspend_data, core: { score: kept.core.score, lesson_status: kept.core.lesson_status, entry: 'resume' } });
    const { scorm } = launchUnder('1.2', again, { mastery: 60 });
    assert.deepEqual(scorm.resumed.exercises.map(({ id, status, hints, answers }) => ({ id, status, hints, answers })),
      [{ id: 'e0', status: 'correct', hints: 0, answers: [] }, { id: 'e1', status: 'open', hints: 2, answers: ['3.9'] }]);
    assert.equal(scorm.resumed.state, typed.state);
    assert.equal(again.cmi.core.score.raw, '50');
    assert.equal(status12(again), 'incomplete');
  });

  it('suspend data stays within SCORM 1.2\'s 4,096 characters (a long state is dropped first)', () => {
    const api = runtime('1.2');
    const { scorm } = launchUnder('1.2', api);
    const big = work(['correct'], ['open']);
    big.state = `#lab=${'x'.repeat(5000)}`;
    scorm.record(big);
    assert.ok(api.cmi.suspend_data.length <= 4096);
    assert.equal(JSON.parse(api.cmi.suspend_data).state, null);
    assert.equal(JSON.parse(api.cmi.suspend_data).exercises.length, 2);
  });
});

describe('issue 27: SCORM 2004 4th edition (scorm-again)', () => {
  it('completion incomplete then completed; success unknown then passed or failed; scaled score', () => {
    const api = runtime('2004');
    const { scorm } = launchUnder('2004', api, { mastery: 60 });
    assert.equal(scorm.version, '2004');
    assert.equal(api.cmi.completion_status, 'incomplete');
    scorm.record(work(['correct'], ['open']));
    assert.equal(api.cmi.success_status, 'unknown');
    assert.equal(api.cmi.score.scaled, '0.5');
    scorm.record(work(['correct'], ['correct', 1]));
    assert.equal(api.cmi.completion_status, 'completed');
    assert.equal(api.cmi.success_status, 'passed');  // 87.5 ≥ 60
    assert.equal(api.cmi.score.raw, '87.5');
  });

  it('cmi.scaled_passing_score from the platform wins; session time is an ISO 8601 duration', () => {
    const api = runtime('2004', { scaled_passing_score: '0.9' });
    const { scorm, leave } = launchUnder('2004', api, { mastery: 60 });
    assert.equal(scorm.mastery, 90);
    scorm.record(work(['correct'], ['correct', 1]));
    assert.equal(api.cmi.success_status, 'failed');  // 87.5 < 90
    leave();
    const kept = JSON.parse(JSON.stringify(api.cmi));
    assert.equal(kept.exit, 'suspend');
    assert.match(kept.session_time, /^PT(\d+H)?(\d+M)?(\d+(\.\d+)?S)?$/);
  });
});
