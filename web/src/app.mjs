// One lab's controller: holds the state, turns the reader's actions into new states, asks the
// engine (in a worker) for each, and draws the answer. A bad input is marked and explained while
// the last good tables stay on screen. The page (main.mjs), the iframe embed (embed.mjs) and the
// web component (component.mjs) each mount one or more of these.
import { bindLifetime } from './compute-lifetime.mjs';
import { presetById } from './presets.mjs';
import { defaultState, presetState, buildRequest, withCellEdit, withWeightEdit, withSettingChange, columnsOf, modifiedAspects } from './state.mjs';
import { createControls } from './controls.mjs';
import markup from '../app.html';
import { parseNumber } from './format.mjs';
import { createExplainPanel, cellOf } from './explain-panel.mjs';
import { createViews } from './views.mjs';
import { createPage } from './render/page.mjs';
import { setupExports } from './exports.mjs';
import { message, LANGUAGES } from './messages.mjs';
import { applyTexts } from './i18n.mjs';
import { createLearn } from './learn/index.mjs';
import { createTraining } from './training/index.mjs';
import { createLayers } from './layers/index.mjs';
import { watchInView, afterNextFrame } from './render/in-view.mjs';
import { mountPractice } from './practice/index.mjs';
import { practiceAfterPresetChange } from './practice/spec.mjs';
import { own } from './own.mjs';

// Sections that can be shown or hidden: data-view names in app.html, and aliases.
export const VIEW_NAMES = ['controls', 'learn', 'notes', 'tokens', 'inputs', 'parameters', 'steps', 'matrices', 'pictures', 'heatmap', 'lines', 'embedding', 'lab', 'output', 'train', 'layers'];
const VIEW_ALIASES = new Map([['weights', ['heatmap', 'matrices']], ['tables', ['inputs', 'steps', 'matrices', 'output']], ['all', VIEW_NAMES]]);
// The engine names its arguments; the page's controls that set them.
const CONTROL_OF_ENGINE_FIELD = new Map([['wq', 'weightsMode'], ['wk', 'weightsMode'], ['wv', 'weightsMode'], ['wo', 'weightsMode'], ['dModel', 'dModel'], ['heads', 'heads'], ['dK', 'dK'], ['dV', 'dV'], ['n', 'sentence'], ['m', 'contextSentence']]);
const FLOAT32_MAX = 3.4028234663852886e38;

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

/**
 * Mounts a lab into `container` (in a document or a shadow root).
 *   compute:       the engine connection (compute.mjs)
 *   initialState:  where to start (default: the first preset)
 *   views:         a Set of view names to show, or null for all
 *   onChange:      called with the state after each successful computation (for links)
 *   links:         { page, embed, component } base URLs for share and embed snippets
 *   embedded:      true inside a host page: the explanation sits in the lab, not on the window,
 *                  and no timing line (a course page has no use for it)
 *   lang:          'en' or 'hi' (messages.mjs LANGUAGES): this lab's language, practice mode's too, so
 *                  two labs may differ
 *   onLanguage:    called with the code when the reader picks one in the language menu (shown only
 *                  when this is given: the full page, which keeps the choice in its link)
 */
export function createApp(container, { compute, initialState = null, views: shown = null, onChange = null, links = null, embedded = false, lang: initialLanguage = 'en', onLanguage = null } = {}) {
  container.append(document.createRange().createContextualFragment(markup));
  container.classList.add('lab');
  container.classList.toggle('embedded', embedded);
  // every text this lab shows is looked up in its language, at the time it is drawn
  let language = LANGUAGES.includes(initialLanguage) ? initialLanguage : 'en';
  const t = (key, values) => message(key, values, language);
  container.lang = language;
  applyTexts(container, t);
  const root = container.getRootNode();
  const $ = (id) => root.getElementById(id);
  const page = createPage(root, t);
  const controls = createControls({ root, container, t });
  const section = (name) => container.querySelector(`[data-view="${name}"]`);
  // then() once, when `element` first comes within a screen of the viewport (at once without
  // IntersectionObserver); not after the lab is removed
  const whenNear = (element, then) => {
    // an observer made after destroy() would never be disconnected, and an observer with a target
    // keeps its callback, and so the lab, alive
    if (lifetime.signal.aborted) return undefined;
    if (typeof IntersectionObserver !== 'function') return then();
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      then();
    }, { rootMargin: '100% 0px' });
    observer.observe(element);
    lifetime.signal.addEventListener('abort', () => observer.disconnect());
  };
  // features with their own folder, mounted after the output: they talk to the lab through these hooks
  const useState = (next, status) => {
    state = next;
    explanation.reset();
    controls.sync(state);
    update().then(() => status && page.renderStatus(status));
  };
  const lifetime = new AbortController();  // ends every listener outside the lab's own tree (destroy)
  // the engine's answers let go of the lab when it is removed (compute-lifetime.mjs)
  compute = bindLifetime(compute, lifetime.signal);
  const training = createTraining({ after: section('output'), compute, getState: () => state, useState, signal: lifetime.signal, t });
  const layers = createLayers({ after: section('train'), getState: () => state, getView: () => view, useState, t });
  function showViews(views) {
    for (const part of container.querySelectorAll('[data-view]')) part.hidden = views !== null && !views.has(part.dataset.view);
  }
  let state = initialState ?? defaultState();
  let labStarted = false;
  let trainingStarted = false;
  // the views the host chose, less what practice mode hides; the scaling lab and the training
  // start once they are shown
  function applyViews() {
    showViews(practice.views(shown, state));
    if (!labStarted && !section('lab').hidden) {
      labStarted = true;
      views.runLab();
    }
    if (view) startTraining();
  }
  // the first training task is prepared once the engine is up, after the tables
  function startTraining() {
    if (trainingStarted || section('train').hidden) return;
    trainingStarted = true;
    // once the Train section also comes near the screen: preparing the first task loads the learning
    // engine (twice the forward engine's download), which a reader who never scrolls there does not need
    // (a lab removed meanwhile starts nothing: a run started after destroy() would hold the lab, and its
    // session in the shared worker, until the learning engine had loaded)
    whenNear(section('train'), () => compute.ready.then(() => setTimeout(() => lifetime.signal.aborted || training.start(), 0)));
  }
  let view = null;            // the last good computation, as drawn
  let draws = 0;              // how many times the tables were drawn (tests wait on it)
  let latestRequest = 0;
  let answeredRequest = 0;    // the latest request whose answer was drawn, refused or overtaken
  let finishing = false;      // a draw's sections out of view are still to come (afterNextFrame)
  let destroyed = false;
  let givenState = state;     // the last state set from outside (a link, attributes): the one that may fall back
  let notices = [];           // messages from outside (a broken link), kept until the reader acts
  let fallbackNotices = [];   // why the first example is shown instead of the state given (see fallBack)
  let replacedWeights = null; // why hand-set parameters were replaced ({ key, values }), said until the example is chosen again
  let engineLine = null;      // how the last computation ran ({ key, values }), under "About the engine"
  const openWeightBlocks = new Set();
  const cellProblems = new Map();  // "matrix:head:row:col" → { key, values }, for cells typed wrong
  let requestProblems = [];
  const learn = createLearn({
    root,
    container,
    t,
    // the walk shows one head's tables: it chooses the head and token, the lab redraws
    focus(token, head) {
      if (state.selectedToken === token && state.selectedHead === head) return;
      state.selectedToken = token;
      state.selectedHead = head;
      draw();
    },
  });
  let practiceGuard = () => null;  // practice mode's, once it is mounted
  const explanation = createExplainPanel({ root, container, page, getView: () => view, t, guard: (cell) => practiceGuard(cell) });
  const views = createViews({
    root,
    compute,
    t,
    signal: lifetime.signal,
    selectHead(head) {
      state.selectedHead = head;
      draw();
    },
  });

  // ---- controls ⇄ state

  function onControlChange(event) {
    const target = event.target;
    notices = [];
    fallbackNotices = [];
    if (target.id === 'preset') {
      if (target.value) state = { ...presetState(target.value), practice: practiceAfterPresetChange(state.practice) };
      else state = { ...state, preset: null };
      replacedWeights = null;
      cellProblems.clear();
      explanation.reset();
      controls.sync(state);
      update();
      return;
    }
    const change = controls.read(target);
    if (target.id === 'sentence') change.inputs = null;  // typed words replace given rows of X
    const changed = withSettingChange(state, change);
    state = changed.state;
    if (changed.replaced === 'sizes') replacedWeights = { key: 'weights.replaced', values: { seed: state.seed } };
    if (changed.replaced === 'wo') replacedWeights = { key: 'weights.replacedForWo', values: { seed: state.seed, rows: state.heads * state.dV, cols: state.dModel } };
    // the field being typed in keeps its text; the others follow the state (d_k after d_model, …)
    for (const field of ['dK', 'dV', 'weightsMode']) if (field !== target.id) $(field).value = String(state[field]);
    controls.showDependent(state);
    update();
  }

  // ---- editable cells

  function cellKey({ matrix, head, row, col }) {
    return `${matrix}:${head ?? ''}:${row}:${col}`;
  }

  function onCellInput(event) {
    const input = event.target;
    notices = [];
    fallbackNotices = [];
    const td = input.closest('td[data-matrix]');
    if (!td || !view) return;
    const cell = cellOf(td);
    const value = parseNumber(input.value);
    if (value === null || Math.abs(value) > FLOAT32_MAX) {
      input.setAttribute('aria-invalid', 'true');
      const table = cell.matrix === 'x' ? 'X' : cell.matrix === 'context' ? 'C' : cell.matrix.toUpperCase();
      cellProblems.set(cellKey(cell), {
        key: value === null ? 'problem.cellNotNumber' : 'problem.cellTooLarge',
        values: { table, row: cell.row + 1, col: cell.col + 1, value: input.value.slice(0, 40) },
      });
      showProblems();
      return;
    }
    input.removeAttribute('aria-invalid');
    cellProblems.delete(cellKey(cell));
    if (cell.matrix === 'x' || cell.matrix === 'context') {
      const tokens = cell.matrix === 'x' ? view.tokens : view.keyTokens;
      state = withCellEdit(state, cell.matrix, cell.row, tokens[cell.row], cell.col, value);
    } else {
      state = withWeightEdit(state, view.weights, cell, value);
      $('weightsMode').value = state.weightsMode;
      controls.showDependent(state);
    }
    update();
  }

  // ---- compute and draw

  // Messages about what is on screen only: a control that is hidden now, or a cell no longer in its
  // table (self-attention instead of cross, another example), takes its message with it.
  function showProblems() {
    const shown = (problem) => {
      const field = container.querySelector(`#controls .field[data-field="${CSS.escape(problem.field ?? '')}"]`);
      return !field?.hidden;
    };
    for (const [key] of cellProblems) {
      const [matrix, head, row, col] = key.split(':');
      const td = container.querySelector(`td[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]${head === '' ? '' : `[data-head="${head}"]`}`);
      // gone, typed right, or in a table no longer shown (the context in self-attention)
      if (!td?.querySelector('input[aria-invalid="true"]') || !td.getClientRects().length) cellProblems.delete(key);
    }
    const problems = [...fallbackNotices, ...notices, ...requestProblems.filter(shown), ...[...cellProblems.values()].map((problem) => ({ field: 'cell', ...problem }))];
    // a problem with a key is said in this lab's language; an engine's own message comes in English
    page.renderMessages(problems.map((problem) => ({ field: problem.field, message: problem.key ? t(problem.key, problem.values) : problem.message })));
  }

  // The engine names its own arguments; mark the control that sets each.
  // Its text stays English, inside a sentence of the lab's language ('engine.problem').
  function pageProblem({ field, message: text }, asked) {
    const control = field === 'scale' ? (asked.scaleMode === 'custom' ? 'scaleDivisor' : 'scaleMode') : CONTROL_OF_ENGINE_FIELD.get(field) ?? field;
    return { field: control, key: 'engine.problem', values: { message: text }, message: text };
  }

  // Nothing drawn yet and this state cannot be: say why, and show the first example instead of an empty lab.
  function fallBack(problems) {
    const why = problems.map((p) => (p.key ? { key: p.key, values: p.values } : p.message));
    fallbackNotices = [{ field: 'link', key: 'problem.fallBack', values: { why } }];
    requestProblems = [];
    state = defaultState();
    givenState = state;
    controls.sync(state);
    update();
  }

  async function update() {
    // every input gets a number, so no answer to an older one can land on top of it
    const id = ++latestRequest;
    const asked = state;
    const built = buildRequest(asked);
    if (built.problems) {
      answeredRequest = id;
      if (!view && asked === givenState) return fallBack(built.problems);
      requestProblems = built.problems;
      showProblems();
      return;
    }
    const started = performance.now();
    const reply = await compute.run(built.request);
    if (id !== latestRequest || destroyed) return;  // a newer input came in meanwhile: this answer is stale
    answeredRequest = id;
    if (reply.error) {
      const problem = pageProblem(reply.error, asked);
      if (!view && asked === givenState) return fallBack([problem]);
      requestProblems = [problem];
      showProblems();
      return;
    }
    requestProblems = [];
    const { tokens, keyTokens } = built;
    view = {
      tokens, keyTokens, columns: columnsOf(asked), x: built.request.x, context: built.request.context ?? null,
      dModel: asked.dModel, heads: asked.heads, dK: reply.result.shape.dK, dV: reply.result.shape.dV,
      m: keyTokens.length, self: asked.attention === 'self', scaleMode: asked.scaleMode,
      identity: asked.weightsMode === 'identity',
      result: reply.result, weights: reply.weights,
    };
    draw({ offscreenLater: true });
    showProblems();
    if (embedded) return;
    const info = await compute.ready;
    // the opening example's numbers may come with the page (first-result.mjs): computed in advance;
    // beside a worker, small examples are computed on the page (compute.mjs)
    const key = reply.shipped ? 'engine.shipped' : 'engine.computed';
    const where = info.where === 'page' ? 'OnPage' : reply.where === 'page' ? 'Here' : '';
    engineLine = { key: `${key}${where}`, values: { ms: (performance.now() - started).toFixed(1), build: info.simd ? 'SIMD' : 'scalar' } };
    page.renderEngine(t(engineLine.key, engineLine.values));
  }

  // A new computation draws the sections in view first and the others after the next frame
  // (offscreenLater), so that an edit reaches the screen in one frame; `draws` counts a draw when
  // every section has it. Other redraws (a head or token chosen) draw everything at once.
  const inView = watchInView([...container.querySelectorAll('section[data-view]')], { signal: lifetime.signal });
  let drawToken = 0;

  function draw({ offscreenLater = false } = {}) {
    const token = ++drawToken;
    applyViews();
    const started = performance.now();
    state.selectedToken = Math.min(state.selectedToken, view.tokens.length - 1);
    if (state.selectedHead !== 'all' && state.selectedHead >= view.heads) state.selectedHead = 0;
    practice.prepare(view, state);  // its blanks are drawn into the tables below
    exports.practising(Boolean(state.practice));
    const stepHead = state.selectedHead === 'all' ? 0 : state.selectedHead;
    $('steps-scale').checked = state.scaleMode === 'sqrt_dk';
    const preset = presetById(state.preset);
    const parts = [
      ['notes', () => page.renderNotes({ preset, aspects: modifiedAspects(state), replacedWeights: replacedWeights && t(replacedWeights.key, replacedWeights.values) })],
      ['tokens', () => page.renderTokens(view.tokens, state.selectedToken)],
      ['inputs', () => page.renderInputs(view)],
      ['parameters', () => page.renderWeights(view, openWeightBlocks)],
      ['steps', () => page.renderStepTable(view, state.selectedToken, stepHead)],
      ['matrices', () => {
        page.renderHeadTabs(view.heads, state.selectedHead);
        page.renderHeadPanel(view, state.selectedHead);
      }],
      ['output', () => page.renderMultihead(view)],
      ['pictures', () => views.draw(view, state.selectedHead, state.selectedToken, preset?.plot)],
      ['learn', () => learn.draw(view, state)],
      ['practice', () => practice.draw(view, state)],
    ];
    const later = offscreenLater ? parts.filter(([name]) => section(name) && !inView.has(section(name))) : [];
    // practice mode places its cards beside the tables: after every table is drawn
    if (later.length && !later.includes(parts.at(-1))) later.push(parts.at(-1));
    for (const part of parts) if (!later.includes(part)) part[1]();
    explanation.redraw();
    // for the page benchmark: the tables in view are drawn (the screen has them in the next frame)
    performance.measure('attention-lab:visible', { start: started });
    const finish = () => {
      if (token !== drawToken) return;  // a newer draw replaced this one
      finishing = false;
      for (const [, render] of later) render();
      if (later.length) {
        explanation.redraw();
        if (cellProblems.size) showProblems();  // a cell's message goes with its table (the context's, in self-attention)
      }
      draws++;
      // one entry per complete draw in the performance timeline, for the page benchmark
      performance.measure('attention-lab:draw', { start: started });
      onChange?.(state);
      // for tests and course authors: the state and result just drawn are readable on the lab
      container.dispatchEvent(new CustomEvent('attention-lab:change', { bubbles: true, composed: true, detail: { draws } }));
    };
    finishing = later.length > 0;
    if (later.length) afterNextFrame(finish);
    else finish();
  }

  // ---- wiring

  // The language menu, on the full page only: each language named in its own script.
  function fillLanguageMenu() {
    const menu = $('language');
    menu.closest('.language-menu').hidden = !onLanguage;
    if (!onLanguage) return;
    menu.replaceChildren(...LANGUAGES.map((code) => {
      const option = document.createElement('option');
      option.value = code;
      option.lang = code;
      option.textContent = message('language.name', {}, code);
      return option;
    }));
    menu.value = language;
    menu.addEventListener('change', () => {
      lab.setLanguage(menu.value);
      onLanguage(menu.value);
    });
  }

  function start() {
    fillLanguageMenu();
    controls.fillPresetMenu();
    controls.addHints();
    controls.sync(state);
    const form = $('controls');
    form.addEventListener('input', onControlChange);
    form.addEventListener('submit', (event) => event.preventDefault());

    $('tokens').addEventListener('click', (event) => {
      const button = event.target.closest('button[data-index]');
      if (!button || !view) return;
      state.selectedToken = Number(button.dataset.index);
      draw();
      $('tokens').querySelector(`[data-index="${state.selectedToken}"]`)?.focus();
    });

    // arrow keys move between the token buttons (one Tab stop: the chosen token)
    $('tokens').addEventListener('keydown', (event) => {
      const step = own({ ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }, event.key, 0);
      const jump = event.key === 'Home' ? -Infinity : event.key === 'End' ? Infinity : 0;
      if (!view || (!step && !jump) || !event.target.closest('button[data-index]')) return;
      event.preventDefault();
      const last = view.tokens.length - 1;
      const next = jump ? (jump < 0 ? 0 : last) : Math.max(0, Math.min(last, state.selectedToken + step));
      $('tokens').querySelector(`[data-index="${next}"]`)?.click();
    });

    $('head-tabs').addEventListener('click', (event) => {
      const tab = event.target.closest('[role="tab"]');
      if (!tab || !view) return;
      state.selectedHead = tab.dataset.head === 'all' ? 'all' : Number(tab.dataset.head);
      draw();
      $(`tab-${state.selectedHead}`)?.focus();
    });
    $('head-tabs').addEventListener('keydown', (event) => {
      const tabs = [...$('head-tabs').querySelectorAll('[role="tab"]')];
      const at = tabs.indexOf(root.activeElement);
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (at < 0 || !step) return;
      tabs[(at + step + tabs.length) % tabs.length].click();
    });

    $('weights').addEventListener('toggle', (event) => {
      const details = event.target;
      if (details.open) openWeightBlocks.add(details.dataset.block);
      else openWeightBlocks.delete(details.dataset.block);
      if (details.open && view) page.fillWeightBlock(details, view);
    }, true);

    for (const id of ['x-table', 'context-table', 'weights']) $(id).addEventListener('input', onCellInput);

    $('notes').addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action]');
      const action = presetById(state.preset)?.actions?.find((a) => a.key === button?.dataset.action);
      if (button?.dataset.action === 'restore') state = presetState(state.preset);
      else if (action) state = action.apply(state);
      else return;
      replacedWeights = null;
      explanation.reset();
      controls.sync(state);
      update();
    });
    $('steps-scale').addEventListener('change', (event) => {
      state = { ...state, scaleMode: event.target.checked ? 'sqrt_dk' : 'none' };
      controls.sync(state);
      update();
    });

    update();
    startTraining();
  }

  const practice = mountPractice({
    container, root, embedded, links, lang: language, getState: () => state, setState: (next) => lab.setState(next),
    setOverlay: page.setOverlay, redraw: () => view && draw(),
  });
  practiceGuard = (cell) => practice.explainGuard(cell);
  applyViews();
  start();
  const exports = setupExports({ root, getView: () => view, getState: () => state, links, showStatus: page.renderStatus, t, getLanguage: () => language });

  const lab = {
    /** A copy of the state (the object a link carries): changing it changes nothing. */
    get state() { return structuredClone(state); },
    /** The engine's last result as drawn (shape, heads[h].{q,k,v,scores,scaled,weights,z}, concat, output), or null. */
    get result() { return view?.result ?? null; },
    get view() { return view; },
    get draws() { return draws; },
    /** True when no input waits for its answer and the last draw is complete (tests wait on it). */
    get idle() { return answeredRequest === latestRequest && !finishing; },
    /** Replaces the whole state (a preset, a link, an attribute change) and recomputes. */
    setState(next) {
      state = next;
      givenState = next;
      notices = [];
      fallbackNotices = [];
      cellProblems.clear();
      explanation.reset();
      controls.sync(state);
      update();
    },
    /** Shows only these views (a Set of names), or all for null; redraw: false when a setState() follows. */
    setViews(views, { redraw = true } = {}) {
      shown = views;
      applyViews();
      if (view && redraw) draw();
    },
    /** Redraws what was drawn in colours read from the styles (after a change of theme). */
    restyle() {
      views.restyle();
    },
    /** Shows messages above the tables (why a link could not be read) until the reader changes something. */
    notice(problems) {
      notices = problems;
      showProblems();
    },
    /** This lab's language ('en', 'hi'). */
    get language() { return language; },
    /**
     * Shows every text in another language (a code of messages.mjs LANGUAGES; others are ignored),
     * keeping the state, the reader's edits, the chosen token and head, and the scroll.
     */
    setLanguage(code) {
      if (!LANGUAGES.includes(code) || code === language) return;
      language = code;
      container.lang = code;
      if (onLanguage) $('language').value = code;
      applyTexts(container, t);
      controls.relabel();
      // drawn parts that keep what they drew while it is unchanged: draw them again, and give the
      // cells typed wrong back their text (the tables still show the last good value beneath)
      const typedWrong = [...container.querySelectorAll('td[data-matrix] input[aria-invalid="true"]')]
        .map((input) => ({ cell: input.closest('td').dataset, text: input.value }));
      for (const part of container.querySelectorAll('[data-signature]')) delete part.dataset.signature;
      learn.relabel();
      training.relabel();
      layers.relabel();
      views.relabel();
      exports.relabel();
      // practice mode writes its panel and cards again (with the answers typed); the draw below places them
      practice.setLanguage(code);
      if (engineLine) page.renderEngine(t(engineLine.key, engineLine.values));
      if (view) draw();
      for (const { cell, text } of typedWrong) {
        const input = container.querySelector(`td[data-matrix="${cell.matrix}"][data-row="${cell.row}"][data-col="${cell.col}"]${cell.head === undefined ? '' : `[data-head="${cell.head}"]`} input`);
        if (!input) continue;
        input.value = text;
        input.setAttribute('aria-invalid', 'true');
      }
      showProblems();
    },
    /** Ends the lab: listeners outside its tree removed, answers still on their way ignored. */
    destroy() {
      destroyed = true;
      latestRequest++;
      lifetime.abort();
      training.stop();
    },
    exports,
    training,
    layers,
    practice,
  };
  return lab;
}
