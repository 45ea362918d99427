// What a lab gives its host (the page, the embed, the component) and tests: the object createApp returns.

/** The public lab over its parts (app.mjs). */
export function labApi({ lab, store, runner, drawer, problems, features, applyViews, redraw, setLanguage, lifetime }) {
  return {
    /** A copy of the state (the object a link carries): changing it changes nothing. */
    get state() { return structuredClone(store.state); },
    /** The engine's last result as drawn (shape, heads[h].{q,k,v,scores,scaled,weights,z}, concat, output), or null. */
    get result() { return runner.view?.result ?? null; },
    get view() { return runner.view; },
    get draws() { return drawer.draws; },
    /** True when no input waits for its answer and the last draw is complete (tests wait on it). */
    get idle() { return runner.isAnswered() && !drawer.finishing; },
    /** Replaces the whole state (a preset, a link, an attribute change) and recomputes. */
    setState(next) {
      store.dispatch({ type: 'replace', state: next, external: true });
    },
    /** Shows only these views (a Set of names), or all for null; redraw: false when a setState() follows. */
    setViews(views, { redraw: again = true } = {}) {
      lab.shown = views;
      applyViews();
      if (runner.view && again) redraw();
    },
    /** Redraws what was drawn in colours read from the styles (after a change of theme). */
    restyle() {
      for (const feature of Object.values(features)) feature.restyle?.();
    },
    /** Shows messages above the tables (why a link could not be read) until the reader changes something. */
    notice(found) {
      problems.notices = found;
      problems.show();
    },
    /** This lab's language ('en', 'hi'). */
    get language() { return lab.language; },
    /** Shows every text in another language (i18n LANGUAGES; others are ignored), keeping the state, edits and scroll. */
    setLanguage,
    /** Ends the lab: listeners outside its tree removed, answers still on their way ignored. */
    destroy() {
      runner.stop();
      lifetime.abort();
      for (const feature of Object.values(features)) feature.destroy?.();
    },
    exports: features.exports,
    training: features.training,
    layers: features.layers,
    models: features.models,
    practice: features.practice,
  };
}
