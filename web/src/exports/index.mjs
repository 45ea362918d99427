// The toolbar of a lab: copy a link to this exact state, embed snippets, and exports of every table
// (CSV, JSON, Markdown, LaTeX) and of the heatmap and token lines (SVG, PNG).
//
// The toolbar's hooks and elements are one `toolbar` object (made here); links.mjs, tables.mjs and
// pictures.mjs wire its parts, toolbar.mjs holds what they share.
import { wireLinks } from './links.mjs';
import { wireTables, fillTableChoices, currentExport } from './tables.mjs';
import { wirePictures, pictureSvg } from './pictures.mjs';

export { heatmapSvg } from './pictures.mjs';

/**
 * The feature contract (tools/CONTRACT.md). The toolbar is in the lab's markup already.
 * draw(state) says whether the lab is practising (as practising() does); extras: practising(on),
 * currentExport(), pictureSvg().
 */
export function mount(ctx) {
  const exports = setupExports({
    root: ctx.root, links: ctx.links, t: ctx.t, getLanguage: () => ctx.language(),
    getView: () => ctx.store.view,
    getState: () => ctx.store.state,
    // the tables feature's status line, looked up when there is something to say (it may mount later)
    showStatus: (text) => ctx.services.renderStatus(text),
  });
  return { ...exports, draw: (state) => exports.practising(Boolean(state.practice)) };
}

/** t(key, values): the lab's language; getLanguage(): its code, which the page's link and the snippets carry. */
export function setupExports({ root, getView, getState, links, showStatus, t, getLanguage }) {
  const $ = (id) => root.getElementById(id);
  const toolbar = { root, $, preview: $('export-preview'), getView, getState, links, showStatus, t, getLanguage };
  wireLinks(toolbar);
  wireTables(toolbar);
  wirePictures(toolbar);
  return {
    currentExport: () => currentExport(toolbar),
    pictureSvg: () => pictureSvg(toolbar),
    /**
     * Practice mode: the tables, pictures and preview would show the answers, so the panel says
     * so and offers nothing to export until the reader is back in Explore.
     */
    practising: (on) => practising(toolbar, on),
    /** The table menu and the preview again, in the lab's language now (when the panel is open). */
    relabel() {
      if (!$('export-panel').hidden && getView()) fillTableChoices(toolbar);
    },
  };
}

function practising(toolbar, on) {
  const { $, preview, getView } = toolbar;
  if (on === !$('export-practising').hidden) return;
  $('export-practising').hidden = !on;
  for (const part of $('export-panel').querySelectorAll('.export-row, #export-preview')) part.hidden = on;
  if (on) preview.textContent = '';
  else if (!$('export-panel').hidden && getView()) fillTableChoices(toolbar);
}
