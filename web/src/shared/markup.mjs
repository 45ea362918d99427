// The lab's own markup (app.html, training/training.html, layers/layers.html), bundled as text at
// build time and parsed here, the one place HTML is parsed from a string. Never user text: that is
// set with textContent everywhere.
export function staticMarkup(html) {
  return document.createRange().createContextualFragment(html);  // eslint-disable-line no-restricted-syntax -- the lab's own .html files only
}
