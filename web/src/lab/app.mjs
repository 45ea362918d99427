// One lab: its store, the features it mounts (features.mjs), and the routing between them. An
// action goes into the store; each new state is computed by the engine (run.mjs) and drawn by
// every feature (draw.mjs). A bad input is marked and explained while the last good tables stay.
// The hosts (web/src/hosts/: the page, the embed, the component, the single file) mount labs.
import markup from '../../app.html';
import { createStore, defaultState, withSettingChange, SELECTION_ACTIONS } from '../state/index.mjs';
import { message, LANGUAGES } from '../i18n/index.mjs';
import { applyTexts } from '../i18n/page.mjs';
import { bindLifetime } from '../engine/lifetime.mjs';
import { staticMarkup } from '../shared/markup.mjs';
import { FEATURES } from './features.mjs';
import { showFeatureViews } from './views.mjs';
import { createProblems } from './problems.mjs';
import { createRunner } from './run.mjs';
import { createDrawer } from './draw.mjs';
import { listenToEdits } from './edits.mjs';
import { relabelLab, fillLanguageMenu } from './language.mjs';
import { labApi } from './api.mjs';
import { watchPrint } from '../shared/print.mjs';

export { VIEW_NAMES, parseViews } from './views.mjs';

// What each action does besides the new state: messages from outside answered (outside), the
// replaced-weights note cleared (example), typed-wrong cells forgotten (cells), the explanation
// closed (explain). Selections only redraw.
const EFFECTS = {
  replace: { explain: true },
  preset: { outside: true, example: true, cells: true, explain: true },
  note: { example: true, explain: true },
  settings: { outside: true },
  cell: { outside: true },
  weight: { outside: true },
  scaling: {},
};

// Why hand-set weights were replaced by a settings change, said until another example is chosen.
function replacement(previous, action, state) {
  const { replaced } = withSettingChange(previous, action.change);
  if (replaced === 'sizes') return { key: 'weights.replaced', values: { seed: state.seed } };
  if (replaced === 'wo') return { key: 'weights.replacedForWo', values: { seed: state.seed, rows: state.heads * state.dV, cols: state.dModel } };
  return undefined;
}

// What the lab does after each action: a selection redraws (practice's own, made before a draw,
// does not); anything else answers messages as EFFECTS says, shows the state in the controls, and
// computes it, then says the action's status.
function routeActions({ runner, problems, lab, features, redraw, renderStatus }) {
  return (state, previous, action) => {
    if (SELECTION_ACTIONS.has(action.type)) return action.quiet || (runner.view && redraw());
    const effects = { ...EFFECTS[action.type] };
    if (action.external) Object.assign(effects, { outside: true, cells: true });
    // a state a section made at the reader's click (it comes with its status line) answers old messages too
    if (action.type === 'replace' && action.status) effects.outside = true;
    if (action.external || action.given) runner.given = state;
    if (effects.outside) problems.clearOutside();
    if (effects.cells) problems.cells.clear();
    if (effects.example) lab.replaced = null;
    if (action.type === 'settings') lab.replaced = replacement(previous, action, state) ?? lab.replaced;
    features.tables.setReplacedWeights(lab.replaced);
    if (effects.explain) features.explain.reset();
    // a typed cell of X or C changes its edits only, nothing the settings form shows: the form is
    // not walked again on every edit (state/actions.mjs, withCellEdit)
    if (action.type !== 'cell') features.controls.follow(state, action);
    return runner.update().then(() => action.status && renderStatus(action.status));
  };
}

function mountAll(ctx) {
  return FEATURES.map(({ name, mount, section }) => {
    const feature = mount(ctx);
    Object.assign(ctx.services, feature.services);
    return Object.assign(feature, { name, section });
  });
}

// Keeps a section found (not a miss: a chapter may add its section later)
function found(sections, name, section) {
  if (section) sections.set(name, section);
  return section;
}

/**
 * Mounts a lab into `container` (in a document or a shadow root). Options: compute (the engine
 * connection, engine/compute.mjs), initialState, views (a Set of view names, or null for all),
 * onChange(state) after each draw (for links), links ({ page, embed, component }), embedded (inside
 * a host page: no timing line), lang ('en' | 'hi'), onLanguage(code) (the full page's menu).
 */
export function createApp(container, { compute, initialState = null, views = null, onChange = null, links = null, embedded = false, lang = 'en', onLanguage = null } = {}) {
  container.append(staticMarkup(markup));
  container.classList.add('lab');
  container.classList.toggle('embedded', embedded);
  const root = container.getRootNode();
  const sections = new Map();
  const lifetime = new AbortController();  // ends every listener outside the lab's own tree (destroy)
  watchPrint(container, lifetime.signal);  // wide tables split by columns while printing
  const lab = { language: LANGUAGES.includes(lang) ? lang : 'en', shown: views, replaced: null, viewsShown: undefined };
  const t = (key, values) => message(key, values, lab.language);
  container.lang = lab.language;
  applyTexts(container, t);
  const store = createStore(initialState ?? defaultState());
  const ctx = {
    root, container, t, links, embedded, signal: lifetime.signal, services: {},
    // a section by its view name, found once (the draw asks for each on every edit: a query of the
    // whole lab each time cost more than the tables in view took to draw)
    section: (name) => sections.get(name) ?? found(sections, name, container.querySelector(`[data-view="${name}"]`)),
    language: () => lab.language,
    // every feature drawn again, kept parts too (the lab's precision changed)
    redrawAll: () => {
      for (const part of container.querySelectorAll('[data-signature]')) delete part.dataset.signature;
      if (runner.view) redraw();
    },
    // the engine's answers let go of the lab when it is removed (engine/lifetime.mjs)
    compute: bindLifetime(compute, lifetime.signal),
    store: { get state() { return store.state; }, get view() { return runner.view; }, get aspects() { return store.aspects; }, dispatch: (action) => store.dispatch(action) },
  };
  const problems = createProblems({ container, t, render: (list) => ctx.services.renderMessages(list) });
  const features = mountAll(ctx);
  const byName = Object.fromEntries(features.map((feature) => [feature.name, feature]));
  // practice mode withholds what an explanation would give away
  byName.explain.setGuard((cell) => byName.practice.explainGuard(cell));
  const applyViews = () => {
    lab.viewsShown = showFeatureViews(container, features, { shown: lab.shown, state: store.state, last: lab.viewsShown });
    for (const feature of features) feature.afterViews?.();
  };
  const drawer = createDrawer({
    container, section: ctx.section, signal: lifetime.signal, getState: () => store.state, getView: () => runner.view,
    select: (selection) => store.dispatch({ type: 'select', ...selection, quiet: true }),
    features: [...features, { redraw: ({ late } = {}) => late && problems.cells.size && problems.show() }],
    onDrawn: (draws) => {
      onChange?.(store.state);
      // for tests and course authors: the state and result just drawn are readable on the lab
      container.dispatchEvent(new CustomEvent('attention-lab:change', { bubbles: true, composed: true, detail: { draws } }));
    },
  });
  const redraw = (options) => {
    applyViews();
    drawer.draw(options);
  };
  const showEngine = () => runner.engineLine && !embedded && ctx.services.renderEngine(t(runner.engineLine.key, runner.engineLine.values));
  const runner = createRunner({
    store, compute: ctx.compute, problems,
    onView: () => redraw({ offscreenLater: true }),
    onEngine: showEngine,
    // a refused state leaves the last good tables drawn: dimmed, and a message says whose numbers they are
    onStale: (stale) => container.classList.toggle('stale-result', stale),
    // nothing drawn yet and this state cannot be: say why, and show the first example instead of an empty lab
    fallBack(found) {
      problems.fallback = [{ field: 'link', key: 'problem.fallBack', values: { why: found.map((p) => (p.key ? { key: p.key, values: p.values } : p.message)) } }];
      problems.request = [];
      store.dispatch({ type: 'replace', state: defaultState(), given: true });
    },
  });
  store.subscribe(routeActions({ runner, problems, lab, features: byName, redraw, renderStatus: (text) => ctx.services.renderStatus(text) }));
  listenToEdits({ root, store, getView: () => runner.view, problems });
  const setLanguage = (code) => {
    if (!LANGUAGES.includes(code) || code === lab.language) return;
    lab.language = code;
    if (onLanguage) root.getElementById('language').value = code;
    relabelLab({ container, t, language: code, features, redraw: () => { showEngine(); if (runner.view) redraw(); }, after: () => problems.show() });
  };
  fillLanguageMenu(root, { current: lab.language, onLanguage, choose: setLanguage });
  applyViews();
  runner.update();
  return labApi({ lab, store, runner, drawer, problems, features: byName, applyViews, redraw, setLanguage, lifetime });
}
