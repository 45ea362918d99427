// The sections a host may show (data-view names in app.html) and their aliases.
export const VIEW_NAMES = ['controls', 'learn', 'notes', 'tokens', 'inputs', 'parameters', 'steps', 'summary', 'matrices', 'pictures', 'heatmap', 'lines', 'embedding', 'lab', 'flash', 'kv-cache', 'output', 'train', 'layers', 'models', 'blocks'];
// issue 25's RoPE and GQA chapters (web/src/rope/, web/src/gqa/), after the other chapters
VIEW_NAMES.push('rope', 'gqa');
VIEW_NAMES.push('window');
VIEW_NAMES.push('sinks');
VIEW_NAMES.push('contents');  // the contents bar (web/src/contents/)  // issue 25's chapters, each on a line of its own
const VIEW_ALIASES = new Map([['weights', ['heatmap', 'matrices']], ['tables', ['inputs', 'steps', 'summary', 'matrices', 'output']], ['all', VIEW_NAMES]]);

/** The views a comma-separated list names, or null for all; unknown names are reported. */
export function parseViews(text) {
  if (!text) return { views: null, unknown: [] };
  const views = new Set();
  const unknown = [];
  for (const name of text.split(',').map((v) => v.trim().toLowerCase()).filter(Boolean)) {
    if (VIEW_ALIASES.has(name)) VIEW_ALIASES.get(name).forEach((v) => views.add(v));
    else if (VIEW_NAMES.includes(name)) views.add(name);
    else unknown.push(name);
  }
  if (views.has('heatmap') || views.has('lines') || views.has('embedding')) views.add('pictures');
  return { views: views.size ? views : null, unknown };
}

/** Hides every section not in `views` (a Set), or none for null; a part already as asked is left alone. */
export function showViews(container, views) {
  for (const part of container.querySelectorAll('[data-view]')) {
    const hidden = views !== null && !views.has(part.dataset.view);
    if (part.hidden !== hidden) part.hidden = hidden;
  }
}

/**
 * The views the features leave shown (each feature's views(shown, state) in turn, from `shown`),
 * applied only when they differ from the ones last applied (`last`, a key; undefined: none yet):
 * an edit's draw does not walk every section again. Every section is made as its feature mounts, so
 * none comes later. Returns the key of the views now shown.
 */
export function showFeatureViews(container, features, { shown, state, last }) {
  const views = features.reduce((asked, feature) => (feature.views ? feature.views(asked, state) : asked), shown);
  const key = views === null ? null : [...views].sort().join(',');
  if (key !== last) showViews(container, views);
  return key;
}
