// One lab's controller: holds the state, turns the reader's actions into new states, asks the
// engine (in a worker) for each, and draws the answer. A bad input is marked and explained while
// the last good tables stay on screen. The page (main.mjs), the iframe embed (embed.mjs) and the
// web component (component.mjs) each mount one or more of these.
import { PRESETS, presetById } from './presets.mjs';
import { defaultState, presetState, buildRequest, withCellEdit, columnsOf } from './state.mjs';
import markup from '../app.html';
import { parseNumber } from './format.mjs';
import { explainCell } from './explain.mjs';
import { VOCABULARY_NOTE } from './vocabulary.mjs';
import { createViews } from './views.mjs';
import { createPage } from './render/page.mjs';
import { setupExports } from './exports.mjs';
import { mountPractice } from './practice/index.mjs';
import { practiceAfterPresetChange } from './practice/spec.mjs';

const SIZE_FIELDS = ['dModel', 'heads', 'dK', 'dV'];
// Sections that can be shown or hidden: data-view names in app.html, and aliases.
export const VIEW_NAMES = ['controls', 'notes', 'tokens', 'inputs', 'parameters', 'steps', 'matrices', 'pictures', 'heatmap', 'lines', 'embedding', 'lab', 'output'];
const VIEW_ALIASES = { weights: ['heatmap', 'matrices'], tables: ['inputs', 'steps', 'matrices', 'output'], all: VIEW_NAMES };

/** The views a comma-separated list names, or null for all; unknown names are reported. */
export function parseViews(text) {
  if (!text) return { views: null, unknown: [] };
  const views = new Set();
  const unknown = [];
  for (const name of text.split(',').map((v) => v.trim().toLowerCase()).filter(Boolean)) {
    if (VIEW_ALIASES[name]) VIEW_ALIASES[name].forEach((v) => views.add(v));
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
 */
export function createApp(container, { compute, initialState = null, views: shown = null, onChange = null, links = null, embedded = false } = {}) {
  container.append(document.createRange().createContextualFragment(markup));
  container.classList.add('lab');
  container.classList.toggle('embedded', embedded);
  const root = container.getRootNode();
  const $ = (id) => root.getElementById(id);
  const page = createPage(root);
  const section = (name) => container.querySelector(`[data-view="${name}"]`);
  function showViews(views) {
    for (const part of container.querySelectorAll('[data-view]')) part.hidden = views !== null && !views.has(part.dataset.view);
  }
  let state = initialState ?? defaultState();
  let labStarted = false;
  // the views the host chose, less what practice mode hides; the scaling lab runs once it is shown
  function applyViews() {
    showViews(practice.views(shown, state));
    if (!labStarted && !section('lab').hidden) {
      labStarted = true;
      views.runLab();
    }
  }
  let view = null;            // the last good computation, as drawn
  let selectedCell = null;    // { matrix, head, row, col } being explained
  let draws = 0;              // how many times the tables were drawn (tests wait on it)
  let latestRequest = 0;
  let notices = [];           // messages from outside (a broken link), kept until the reader acts
  const openWeightBlocks = new Set();
  const cellProblems = new Map();  // "matrix:head:row:col" → message, for cells typed wrong
  let requestProblems = [];
  const views = createViews({
    root,
    compute,
    selectHead(head) {
      state.selectedHead = head;
      draw();
    },
  });

  // ---- controls ⇄ state

  function fillPresetMenu() {
    const select = $('preset');
    const custom = document.createElement('option');
    custom.value = '';
    custom.textContent = 'Your own sentence';
    select.append(...PRESETS.map((preset) => {
      const option = document.createElement('option');
      option.value = preset.id;
      option.textContent = preset.title;
      return option;
    }), custom);
  }

  function syncControls() {
    $('preset').value = state.preset ?? '';
    $('sentence').value = state.sentence;
    $('contextSentence').value = state.contextSentence;
    for (const radio of container.querySelectorAll('input[name="attention"]')) radio.checked = radio.value === state.attention;
    for (const field of [...SIZE_FIELDS, 'padTo', 'seed']) $(field).value = String(state[field]);
    $('scaleMode').value = state.scaleMode;
    $('scaleDivisor').value = String(state.scaleDivisor);
    $('maskMode').value = state.maskMode;
    $('weightsMode').value = state.weightsMode;
    $('useWo').checked = state.useWo;
    showDependentFields();
  }

  function showDependentFields() {
    const show = (field, visible) => { container.querySelector(`.field[data-field="${field}"]`).hidden = !visible; };
    show('contextSentence', state.attention === 'cross');
    show('scaleDivisor', state.scaleMode === 'custom');
    show('padTo', state.maskMode === 'padding');
    show('seed', state.weightsMode === 'random');
  }

  function readControl(target) {
    const id = target.id || target.name;
    if (SIZE_FIELDS.includes(id) || id === 'padTo' || id === 'seed') {
      const text = target.value.trim();
      return { [id]: text === '' ? text : Number(text) };
    }
    if (id === 'scaleDivisor') return { scaleDivisor: parseNumber(target.value) ?? target.value };
    if (id === 'useWo') return { useWo: target.checked };
    if (id === 'attention') return { attention: target.value };
    return { [id]: target.value };
  }

  function onControlChange(event) {
    const target = event.target;
    notices = [];
    if (target.id === 'preset') {
      if (target.value) state = { ...presetState(target.value), practice: practiceAfterPresetChange(state.practice) };
      else state = { ...state, preset: null };
      selectedCell = null;
      syncControls();
      update();
      return;
    }
    const change = readControl(target);
    if (target.id === 'sentence' || target.id === 'contextSentence') change.preset = null;
    const sizesChanged = SIZE_FIELDS.some((field) => field in change);
    state = { ...state, ...change };
    if (sizesChanged && state.weightsMode === 'custom') {
      // hand-set matrices of the old shape cannot be stretched: draw fresh ones, and say so
      state = { ...state, weightsMode: 'random', custom: null };
      $('weightsMode').value = 'random';
      page.renderStatus(`The sizes changed, so the hand-set weights were replaced by seeded random ones (seed ${state.seed}).`);
    }
    if (target.id === 'useWo' && state.useWo && state.weightsMode === 'custom' && !state.custom?.wo && view) {
      state = { ...state, custom: { ...state.custom, wo: squareOrNull() } };
    }
    showDependentFields();
    update();
  }

  // An identity W_O when the concatenation is as wide as d_model, else nothing (a seeded one is drawn).
  function squareOrNull() {
    const width = state.heads * state.dV;
    if (width !== state.dModel) {
      state = { ...state, weightsMode: 'random', custom: null };
      $('weightsMode').value = 'random';
      return null;
    }
    const wo = new Array(width * width).fill(0);
    for (let i = 0; i < width; i++) wo[i * width + i] = 1;
    return wo;
  }

  // ---- editable cells

  function cellKey({ matrix, head, row, col }) {
    return `${matrix}:${head ?? ''}:${row}:${col}`;
  }

  function cellOf(td) {
    return {
      matrix: td.dataset.matrix,
      head: td.dataset.head === undefined ? undefined : Number(td.dataset.head),
      row: Number(td.dataset.row),
      col: Number(td.dataset.col),
    };
  }

  function onCellInput(event) {
    const input = event.target;
    notices = [];
    const td = input.closest('td[data-matrix]');
    if (!td || !view) return;
    const cell = cellOf(td);
    const value = parseNumber(input.value);
    const where = `${cell.matrix === 'x' ? 'X' : cell.matrix === 'context' ? 'C' : cell.matrix.toUpperCase()} row ${cell.row + 1}, column ${cell.col + 1}`;
    if (value === null) {
      input.setAttribute('aria-invalid', 'true');
      cellProblems.set(cellKey(cell), `${where}: '${input.value.slice(0, 40)}' is not a number; the tables show the last good value`);
      showProblems();
      return;
    }
    input.removeAttribute('aria-invalid');
    cellProblems.delete(cellKey(cell));
    if (cell.matrix === 'x' || cell.matrix === 'context') {
      const tokens = cell.matrix === 'x' ? view.tokens : view.keyTokens;
      state = withCellEdit(state, cell.matrix, cell.row, tokens[cell.row], cell.col, value);
    } else {
      editWeight(cell, value);
    }
    update();
  }

  // Editing any weight makes the current matrices the reader's own, then changes the one cell.
  function editWeight({ matrix, head, row, col }, value) {
    if (state.weightsMode !== 'custom') {
      const own = {};
      for (const name of ['wq', 'wk', 'wv', 'wo']) own[name] = view.weights[name] ? Array.from(view.weights[name]) : null;
      state = { ...state, weightsMode: 'custom', custom: own };
      $('weightsMode').value = 'custom';
      showDependentFields();
    }
    const width = { wq: state.dK, wk: state.dK, wv: state.dV, wo: state.dModel }[matrix];
    const index = matrix === 'wo' ? row * width + col : (head * state.dModel + row) * width + col;
    const values = [...state.custom[matrix]];
    values[index] = value;
    state = { ...state, custom: { ...state.custom, [matrix]: values } };
  }

  // ---- selection and explanation

  function selectCell(td) {
    if (!view) return;
    for (const old of container.querySelectorAll('td.selected')) old.classList.remove('selected');
    selectedCell = cellOf(td);
    td.classList.add('selected');
    showExplanation();
  }

  function showExplanation() {
    if (!selectedCell || !view) return page.renderExplanation(null);
    const { row, col, head = 0, matrix } = selectedCell;
    const rows = matrix === 'k' || matrix === 'v' || matrix === 'context' ? view.keyTokens.length : view.tokens.length;
    if (row >= rows || head >= view.heads) return page.renderExplanation(null);
    page.renderExplanation(explainCell(view, { ...selectedCell, col }));
  }

  // ---- compute and draw

  function showProblems() {
    page.renderMessages([...notices, ...requestProblems, ...[...cellProblems.values()].map((message) => ({ field: 'cell', message }))]);
  }

  async function update() {
    const built = buildRequest(state);
    if (built.problems) {
      requestProblems = built.problems;
      showProblems();
      return;
    }
    const started = performance.now();
    const id = ++latestRequest;
    const reply = await compute.run(built.request);
    if (id !== latestRequest) return;  // a newer request is on its way: this answer is stale
    if (reply.error) {
      requestProblems = [{ field: reply.error.field, message: reply.error.message }];
      showProblems();
      return;
    }
    requestProblems = [];
    showProblems();
    const { tokens, keyTokens } = built;
    view = {
      tokens, keyTokens, columns: columnsOf(state), x: built.request.x, context: built.request.context ?? null,
      dModel: state.dModel, heads: state.heads, dK: reply.result.shape.dK, dV: reply.result.shape.dV,
      m: keyTokens.length, self: state.attention === 'self', scaleMode: state.scaleMode,
      identity: state.weightsMode === 'identity',
      result: reply.result, weights: reply.weights,
    };
    draw();
    if (embedded) return;
    const info = await compute.ready;
    page.renderStatus(`Computed in ${(performance.now() - started).toFixed(1)} ms by the ${info.simd ? 'SIMD' : 'scalar'} WebAssembly engine${info.where === 'page' ? ' (on the page: no worker here)' : ''}.`);
  }

  function draw() {
    draws++;
    applyViews();
    const started = performance.now();
    state.selectedToken = Math.min(state.selectedToken, view.tokens.length - 1);
    if (state.selectedHead !== 'all' && state.selectedHead >= view.heads) state.selectedHead = 0;
    const stepHead = state.selectedHead === 'all' ? 0 : state.selectedHead;
    page.renderNotes(presetById(state.preset), VOCABULARY_NOTE);
    page.renderTokens(view.tokens, state.selectedToken);
    page.renderInputs(view);
    page.renderWeights(view, openWeightBlocks);
    page.renderStepTable(view, state.selectedToken, stepHead);
    page.renderHeadTabs(view.heads, state.selectedHead);
    page.renderHeadPanel(view, state.selectedHead);
    page.renderMultihead(view);
    views.draw(view, state.selectedHead, state.selectedToken);
    practice.draw(view, state);
    if (selectedCell) {
      const td = container.querySelector(`td[data-matrix="${selectedCell.matrix}"][data-row="${selectedCell.row}"][data-col="${selectedCell.col}"]` +
        (selectedCell.head === undefined ? '' : `[data-head="${selectedCell.head}"]`));
      td?.classList.add('selected');
    }
    showExplanation();
    // one entry per draw in the performance timeline, for the page benchmark
    performance.measure('attention-lab:draw', { start: started });
    onChange?.(state);
  }

  // ---- wiring

  function start() {
    fillPresetMenu();
    syncControls();
    const controls = $('controls');
    controls.addEventListener('input', onControlChange);
    controls.addEventListener('submit', (event) => event.preventDefault());

    $('tokens').addEventListener('click', (event) => {
      const button = event.target.closest('button[data-index]');
      if (!button || !view) return;
      state.selectedToken = Number(button.dataset.index);
      draw();
      $('tokens').querySelector(`[data-index="${state.selectedToken}"]`)?.focus();
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

    // selecting a computed number explains it: click, or Enter / Space on a focused cell
    container.addEventListener('click', (event) => {
      const td = event.target.closest('td[data-matrix]');
      if (td && !td.querySelector('input')) selectCell(td);
    });
    container.addEventListener('focusin', (event) => {
      const td = event.target.closest('td[data-matrix]');
      if (td) selectCell(td);
    });
    $('explain-close').addEventListener('click', () => {
      selectedCell = null;
      for (const old of container.querySelectorAll('td.selected')) old.classList.remove('selected');
      showExplanation();
    });

    update();
  }

  const practice = mountPractice({ container, root, embedded, links, getState: () => state, setState: (next) => lab.setState(next) });
  applyViews();
  start();
  const exports = setupExports({ root, getView: () => view, getState: () => state, links, showStatus: page.renderStatus });

  const lab = {
    get state() { return state; },
    get view() { return view; },
    get draws() { return draws; },
    /** Replaces the whole state (a preset, a link, an attribute change) and recomputes. */
    setState(next) {
      state = next;
      selectedCell = null;
      syncControls();
      update();
    },
    /** Shows only these views (a Set of names), or all for null. */
    setViews(views) {
      shown = views;
      applyViews();
      if (view) draw();
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
    exports,
    practice,
  };
  return lab;
}
