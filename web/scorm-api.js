// The SCORM 1.2 side of the lab's SCORM package (attention-lab-scorm.zip, written by `npm run pack`).
// A plain script, not a module, so that it also runs from a page opened from disk. When the page is
// launched by a learning platform (Moodle, Canvas, …) it finds the platform's `API` object in a
// parent or opener window, opens the session, marks the lab completed, and closes the session with
// the time spent when the page goes away. Without a platform it does nothing, and the lab works
// the same.
//
// For a later practice mode, the hook to report a result:
//   window.attentionLabScorm.reportScore(raw, { min = 0, max = 100, passingScore })
// sets cmi.core.score.raw/min/max and, with passingScore, lesson_status "passed" or "failed".
(function () {
  'use strict';

  // The usual search (ADL's): up the parents, then up the opener's parents, a few levels at most.
  // A window of another origin cannot be read: that is the same as no API there.
  function findApiFrom(start) {
    var win = start;
    for (var depth = 0; win && depth < 8; depth++) {
      try {
        if (win.API && typeof win.API.LMSInitialize === 'function') return win.API;
      } catch (ignored) {
        // another origin
      }
      if (win.parent === win) break;
      win = win.parent;
    }
    return null;
  }
  function findApi() {
    return findApiFrom(window.parent !== window ? window.parent : null) ||
      findApiFrom(window.opener) || null;
  }

  var api = findApi();
  var started = Date.now();
  var open = false;
  var finished = false;

  // api.LMSInitialize(''), api.LMSGetValue(element), api.LMSSetValue(element, value), …: results are strings
  function call(name) {
    var args = Array.prototype.slice.call(arguments, 1);
    try {
      return String(api[name].apply(api, args.length ? args : ['']));
    } catch (ignored) {
      return 'false';
    }
  }
  function set(element, value) {
    return call('LMSSetValue', element, String(value)) === 'true';
  }

  // SCORM 1.2 CMITimespan: HHHH:MM:SS.SS, seconds below 60. Rounded to hundredths first and then
  // split, so that 59.996 s is 0000:01:00.00 (rounding the seconds field alone gave 0000:00:60.00).
  // At most 9999:59:59.99 (four digits of hours); a clock set back counts as no time.
  var MAX_CENTISECONDS = ((9999 * 60 + 59) * 60 + 59) * 100 + 99;
  function timespan(ms) {
    var centiseconds = Math.min(MAX_CENTISECONDS, Math.max(0, Math.round(ms / 10) || 0));
    var hours = Math.floor(centiseconds / 360000);
    var minutes = Math.floor((centiseconds % 360000) / 6000);
    var hundredths = centiseconds % 6000;
    var pad = function (text, width) { text = String(text); while (text.length < width) text = '0' + text; return text; };
    return pad(hours, 4) + ':' + pad(minutes, 2) + ':' + pad(Math.floor(hundredths / 100), 2) + '.' + pad(hundredths % 100, 2);
  }

  // A score as SCORM 1.2 takes it (a CMIDecimal from 0 to 100), or an Error saying what is wrong:
  // NaN, Infinity, a string such as "abc" or "40" are refused, never sent as text.
  function checkScore(name, value) {
    if (typeof value !== 'number' || !isFinite(value)) {
      var shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value);
      throw new TypeError('attentionLabScorm.reportScore: ' + name + ' must be a finite number from 0 to 100, got ' + shown);
    }
    if (value < 0 || value > 100) throw new RangeError('attentionLabScorm.reportScore: ' + name + ' must be from 0 to 100, got ' + value);
    return value;
  }

  function finish() {
    if (!open || finished) return;
    finished = true;
    set('cmi.core.session_time', timespan(Date.now() - started));
    set('cmi.core.exit', '');
    call('LMSCommit');
    call('LMSFinish');
  }

  if (api && call('LMSInitialize') === 'true') {
    open = true;
    // the lab has no test of its own (yet): opening it is doing it
    var status = call('LMSGetValue', 'cmi.core.lesson_status');
    if (status !== 'passed' && status !== 'failed') set('cmi.core.lesson_status', 'completed');
    call('LMSCommit');
    window.addEventListener('pagehide', finish);
    window.addEventListener('beforeunload', finish);
  }

  window.attentionLabScorm = {
    /** Whether a learning platform's SCORM API was found and the session opened. */
    available: open,
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
      var ok = set('cmi.core.score.min', min) && set('cmi.core.score.max', max) && set('cmi.core.score.raw', raw);
      if (options.passingScore !== undefined) ok = set('cmi.core.lesson_status', raw >= options.passingScore ? 'passed' : 'failed') && ok;
      return call('LMSCommit') === 'true' && ok;
    },
    /** Ends the session now (it also ends by itself when the page goes away). */
    finish: finish,
  };
})();
