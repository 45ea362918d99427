// Runs before the page's first paint (a classic script in <head>): a page asked for in another
// language than English (?lang=hi) hides its own few words (masthead and footer, data-text) until
// main.js has written them in that language (i18n.mjs showPageLanguage), so that they never show in
// English first. styles.css shows them after 3 s whatever happens, so a failed script hides nothing.
(function () {
  try {
    var asked = new URLSearchParams(location.search).get('lang');
    if (asked && asked !== 'en') document.documentElement.setAttribute('data-texts-pending', '');
  } catch (ignored) {
    // an old browser without URLSearchParams: the words show in English first, as before
  }
})();
