// The platform side of the lab's SCORM package (SCORM 1.2 or 2004 4th edition; `npm run pack`, or
// the page's "Download SCORM package"). A plain script, not a module, so that it also runs from a
// page opened from disk. exercise.js, loaded before it, sets window.attentionLabScormSettings (the
// teacher's choices: scorm-package.mjs). When the page is launched by a learning platform it finds
// the platform's API (SCORM 2004's API_1484_11, SCORM 1.2's API) in a parent or opener window and
// opens the session; the lab's host page (hosts/single.mjs) then calls record(work) after each
// answer, hint or reveal:
//   - the status is incomplete until every exercise is answered, then passed or failed against the
//     mastery score: the platform's (1.2 cmi.student_data.mastery_score, 2004
//     cmi.scaled_passing_score) when it gives one, else the teacher's;
//   - the score (0–100) is the best or the last finished set of exercises, as the teacher chose,
//     never lowered by a new set or by exploring; an exercise answered right counts 1, less
//     hintCost for each hint taken on it (never below 0); shown or unanswered counts 0;
//   - cmi.suspend_data keeps the state, the answers, the hints and the scores, so a relaunch resumes;
//   - on leaving: the session time, exit "suspend", commit and finish.
// Without a platform it does nothing, and the lab works the same.
(function () {
  'use strict';

  var DEFAULTS = { version: '1.2', mastery: 80, scoring: 'best', hintCost: 0.25, exam: true, allow: [], start: null };
  var given = window.attentionLabScormSettings || {};
  var settings = {};
  for (var key in DEFAULTS) settings[key] = Object.prototype.hasOwnProperty.call(given, key) ? given[key] : DEFAULTS[key];

  var NAMES = {
    '1.2': {
      api: 'API', init: 'LMSInitialize', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit', finish: 'LMSFinish',
      time: 'cmi.core.session_time', exit: 'cmi.core.exit', raw: 'cmi.core.score.raw', min: 'cmi.core.score.min', max: 'cmi.core.score.max',
      suspend: 'cmi.suspend_data', suspendMax: 4096,
    },
    '2004': {
      api: 'API_1484_11', init: 'Initialize', get: 'GetValue', set: 'SetValue', commit: 'Commit', finish: 'Terminate',
      time: 'cmi.session_time', exit: 'cmi.exit', raw: 'cmi.score.raw', min: 'cmi.score.min', max: 'cmi.score.max',
      suspend: 'cmi.suspend_data', suspendMax: 64000,
    },
  };

  // The usual search (ADL's): up the parents, then up the opener's parents, a few levels at most.
  // A window of another origin cannot be read: that is the same as no API there.
  function findApiFrom(start, names) {
    var win = start;
    for (var depth = 0; win && depth < 8; depth++) {
      try {
        if (win[names.api] && typeof win[names.api][names.init] === 'function') return win[names.api];
      } catch (ignored) {
        // another origin
      }
      if (win.parent === win) break;
      win = win.parent;
    }
    return null;
  }
  // the package's version first, then the other (a platform offers the one its manifest asked for)
  function findApi() {
    var order = settings.version === '2004' ? ['2004', '1.2'] : ['1.2', '2004'];
    for (var i = 0; i < order.length; i++) {
      var found = findApiFrom(window.parent !== window ? window.parent : null, NAMES[order[i]]) || findApiFrom(window.opener, NAMES[order[i]]);
      if (found) return { api: found, version: order[i] };
    }
    return null;
  }

  var found = findApi();
  var api = found && found.api;
  var version = found ? found.version : null;
  var names = found ? NAMES[version] : NAMES['1.2'];
  var started = Date.now();
  var open = false;
  var finished = false;

  // api.LMSInitialize(''), api.GetValue(element), …: results are strings
  function call(name) {
    var args = Array.prototype.slice.call(arguments, 1);
    try {
      return String(api[names[name]].apply(api, args.length ? args : ['']));
    } catch (ignored) {
      return 'false';
    }
  }
  function get(element) {
    return call('get', element);
  }
  function set(element, value) {
    return call('set', element, String(value)) === 'true';
  }

  var pad = function (text, width) { text = String(text); while (text.length < width) text = '0' + text; return text; };
  // SCORM 1.2 CMITimespan: HHHH:MM:SS.SS, seconds below 60. Rounded to hundredths first and then
  // split, so that 59.996 s is 0000:01:00.00 (rounding the seconds field alone gave 0000:00:60.00).
  // At most 9999:59:59.99 (four digits of hours); a clock set back counts as no time.
  // SCORM 2004: an ISO 8601 duration, PT1H2M3.46S, the same hundredths.
  var MAX_CENTISECONDS = ((9999 * 60 + 59) * 60 + 59) * 100 + 99;
  function timespan(ms) {
    var centiseconds = Math.min(MAX_CENTISECONDS, Math.max(0, Math.round(ms / 10) || 0));
    var hours = Math.floor(centiseconds / 360000);
    var minutes = Math.floor((centiseconds % 360000) / 6000);
    var hundredths = centiseconds % 6000;
    var seconds = Math.floor(hundredths / 100) + '.' + pad(hundredths % 100, 2);
    if (version === '2004') return 'PT' + hours + 'H' + minutes + 'M' + seconds + 'S';
    return pad(hours, 4) + ':' + pad(minutes, 2) + ':' + pad(seconds, 5);
  }

  // A score as SCORM takes it here (a number from 0 to 100), or an Error saying what is wrong:
  // NaN, Infinity, a string such as "abc" or "40" are refused, never sent as text.
  function checkScore(name, value) {
    if (typeof value !== 'number' || !isFinite(value)) {
      var shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value);
      throw new TypeError('attentionLabScorm.reportScore: ' + name + ' must be a finite number from 0 to 100, got ' + shown);
    }
    if (value < 0 || value > 100) throw new RangeError('attentionLabScorm.reportScore: ' + name + ' must be from 0 to 100, got ' + value);
    return value;
  }

  // The platform's mastery score (0–100) when it gives one, else the teacher's.
  function masteryScore() {
    var text = version === '2004' ? get('cmi.scaled_passing_score') : get('cmi.student_data.mastery_score');
    var value = text === '' ? NaN : Number(text);
    if (version === '2004') value *= 100;
    return isFinite(value) && value >= 0 && value <= 100 ? value : settings.mastery;
  }

  // What the last session kept (cmi.suspend_data), or null.
  function readSuspended() {
    try {
      var kept = JSON.parse(get(names.suspend));
      return kept && kept.v === 1 ? kept : null;
    } catch (ignored) {
      return null;
    }
  }

  var scores = { best: null, last: null, finished: false };
  var resumed = null;
  var mastery = settings.mastery;

  function setStatus(passed) {
    if (version === '2004') {
      set('cmi.completion_status', scores.finished ? 'completed' : 'incomplete');
      set('cmi.success_status', scores.finished ? (passed ? 'passed' : 'failed') : 'unknown');
    } else {
      set('cmi.core.lesson_status', scores.finished ? (passed ? 'passed' : 'failed') : 'incomplete');
    }
  }

  function setScore(raw) {
    var ok = set(names.min, 0) && set(names.max, 100) && set(names.raw, raw);
    if (version === '2004') ok = set('cmi.score.scaled', raw / 100) && ok;
    return ok;
  }

  function start() {
    open = true;
    mastery = masteryScore();
    resumed = readSuspended();
    if (resumed && resumed.scores) {
      scores.best = typeof resumed.scores.best === 'number' ? resumed.scores.best : null;
      scores.last = typeof resumed.scores.last === 'number' ? resumed.scores.last : null;
      scores.finished = resumed.scores.finished === true;
    }
    // a score the platform holds from before (no suspend data): never lowered either
    var stored = Number(get(names.raw));
    if (get(names.raw) !== '' && isFinite(stored)) scores.best = Math.max(scores.best === null ? 0 : scores.best, stored);
    if (!scores.finished) setStatus(false);
    call('commit');
    window.addEventListener('pagehide', finish);
    window.addEventListener('beforeunload', finish);
  }

  function finish() {
    if (!open || finished) return;
    if (typeof window.attentionLabScorm.beforeFinish === 'function') {
      try { window.attentionLabScorm.beforeFinish(); } catch (ignored) { /* the session still ends */ }
    }
    finished = true;
    set(names.time, timespan(Date.now() - started));
    set(names.exit, 'suspend');
    call('commit');
    call('finish');
  }

  var round = function (value) { return Math.round(value * 100) / 100; };

  // the suspend data within the version's limit: without the answers typed, then without the state
  function suspendText(work) {
    var kept = { v: 1, state: work.state || null, exercises: work.exercises, scores: scores };
    var text = JSON.stringify(kept);
    if (text.length > names.suspendMax) {
      kept.exercises = work.exercises.map(function (e) { return { id: e.id, status: e.status, hints: e.hints, attempts: e.attempts, answers: [] }; });
      text = JSON.stringify(kept);
    }
    if (text.length > names.suspendMax) {
      kept.state = null;
      text = JSON.stringify(kept);
    }
    return text.length > names.suspendMax ? JSON.stringify({ v: 1, state: null, exercises: [], scores: scores }) : text;
  }

  /** What a set of exercises earns: 0–100, hints taking `hintCost` of an exercise each. */
  function creditOf(exercises) {
    if (!exercises.length) return 0;
    var credit = 0;
    for (var i = 0; i < exercises.length; i++) {
      if (exercises[i].status === 'correct') credit += Math.max(0, 1 - settings.hintCost * (exercises[i].hints || 0));
    }
    return round((100 * credit) / exercises.length);
  }

  // work: { state: '#lab=…', exercises: [{ id, status: 'open' | 'correct' | 'revealed', hints, attempts, answers: [text] }] }
  function record(work) {
    var exercises = (work && work.exercises) || [];
    if (!exercises.length) return null;
    var current = creditOf(exercises);
    var done = exercises.every(function (e) { return e.status !== 'open'; });
    scores.best = Math.max(scores.best === null ? 0 : scores.best, current);
    if (done) {
      scores.last = current;
      scores.finished = true;
    }
    var raw = settings.scoring === 'last' && scores.last !== null ? scores.last : scores.best;
    var passed = raw >= mastery;
    var status = scores.finished ? (passed ? 'passed' : 'failed') : 'incomplete';
    if (!open || finished) return { raw: raw, current: current, status: status, mastery: mastery, sent: false };
    var ok = setScore(raw);
    setStatus(passed);
    ok = set(names.suspend, suspendText(work)) && ok;
    ok = call('commit') === 'true' && ok;
    return { raw: raw, current: current, status: status, mastery: mastery, sent: ok };
  }

  if (api && call('init') === 'true') start();

  window.attentionLabScorm = {
    /** Whether a learning platform's SCORM API was found and the session opened. */
    available: open,
    /** '1.2' or '2004' (the platform's API found), or null. */
    version: version,
    /** The teacher's settings (exercise.js), defaults filled in. */
    settings: settings,
    /** Exam mode: a graded launch (a platform found) with the teacher's exam setting on. */
    exam: open && settings.exam === true,
    /** What the last session kept: { state, exercises: [{ id, status, hints, attempts, answers }], scores }, or null. */
    resumed: resumed,
    /** The mastery score in use (0–100): the platform's, else the teacher's. */
    get mastery() { return mastery; },
    record: record,
    creditOf: creditOf,
    /**
     * Reports a score; returns whether the platform took it. A score that is not a number from 0 to
     * 100 (NaN, Infinity, "abc"), or min > raw or raw > max, throws an Error saying so and sends nothing.
     */
    reportScore: function (raw, options) {
      options = options || {};
      checkScore('raw', raw);
      var min = options.min === undefined ? 0 : checkScore('min', options.min);
      var max = options.max === undefined ? 100 : checkScore('max', options.max);
      if (options.passingScore !== undefined) checkScore('passingScore', options.passingScore);
      if (raw < min || raw > max) throw new RangeError('attentionLabScorm.reportScore: raw (' + raw + ') must lie from min (' + min + ') to max (' + max + ')');
      if (!open || finished) return false;
      var ok = set(names.min, min) && set(names.max, max) && set(names.raw, raw);
      if (options.passingScore !== undefined) {
        var passed = raw >= options.passingScore;
        if (version === '2004') ok = set('cmi.success_status', passed ? 'passed' : 'failed') && ok;
        else ok = set('cmi.core.lesson_status', passed ? 'passed' : 'failed') && ok;
      }
      return call('commit') === 'true' && ok;
    },
    /** Ends the session now (it also ends by itself when the page goes away). */
    finish: finish,
    /** Called just before the session ends (the host records the answers typed so far). */
    beforeFinish: null,
  };
})();
