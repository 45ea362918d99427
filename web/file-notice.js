// A classic script (it runs from disk, where module scripts do not): a page of the lab's folder
// opened from file:// — index.html, embed.html, or a page of yours with the component — cannot run
// its modules, so instead of a blank page it says so, in the page's language (?lang=hi or
// <html lang="hi">), with a link to attention-lab.html (the whole lab in one file, which works from
// disk). The sentences come from the lab's catalogues (page.needsServer), written in at build time
// by scripts/file-notice.mjs. Served over http(s) it does nothing.
(function () {
  'use strict';
  var MESSAGES = /* MESSAGES */ { en: 'This page needs a web server: {file}' };
  if (location.protocol !== 'file:') return;
  var script = document.currentScript;
  var single = new URL('attention-lab.html', script ? script.src : location.href).href;

  function language() {
    var asked = null;
    try { asked = new URLSearchParams(location.search).get('lang'); } catch (ignored) { /* an old browser */ }
    var code = asked || document.documentElement.lang || 'en';
    return Object.prototype.hasOwnProperty.call(MESSAGES, code) ? code : 'en';
  }

  // the sentence with its slots filled: {file} a link, the others text (never markup)
  function notice() {
    var p = document.createElement('p');
    p.className = 'needs-server';
    p.setAttribute('role', 'alert');
    p.style.cssText = 'max-width: 48rem; margin: 1rem auto; padding: 0.75rem 1rem; border: 2px solid #b45309; border-radius: 6px; background: #fffbeb; color: #1f2937; font: 1rem/1.5 system-ui, sans-serif;';
    var values = { scheme: 'file://', command: 'python3 -m http.server' };
    MESSAGES[language()].split(/(\{\w+\})/).forEach(function (part) {
      var slot = /^\{(\w+)\}$/.exec(part);
      if (slot && slot[1] === 'file') {
        var link = document.createElement('a');
        link.href = single;
        link.textContent = 'attention-lab.html';
        link.style.color = '#1d4ed8';  // on the notice's light background, whatever the page's theme
        p.appendChild(link);
      } else if (slot) {
        var code = document.createElement('code');
        code.textContent = values[slot[1]] || '';
        p.appendChild(code);
      } else {
        p.appendChild(document.createTextNode(part));
      }
    });
    return p;
  }

  function show() {
    // a page with components: the notice in each; the lab's own pages: above the lab
    var components = document.querySelectorAll('attention-lab');
    if (components.length) {
      for (var i = 0; i < components.length; i++) components[i].appendChild(notice());
      return;
    }
    var lab = document.getElementById('lab');
    var place = lab ? lab.parentNode : document.body;
    place.insertBefore(notice(), lab || place.firstChild);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show);
  else show();
})();
