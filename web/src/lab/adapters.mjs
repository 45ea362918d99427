// TEMPORARY: the contract (mount(ctx)) over the features' factories, until each folder exports its own.
import { createPage } from '../tables/index.mjs';
import { createExplainPanel } from '../explain/index.mjs';
import { createViews } from '../pictures/index.mjs';
import { createLearn } from '../walk/index.mjs';
import { setupExports } from '../exports/index.mjs';
import { mountPractice as oldPractice } from '../practice/index.mjs';
import { createTraining } from '../training/index.mjs';
import { createLayers } from '../layers/index.mjs';
import { presetById } from '../state/presets.mjs';
import { whenNear } from '../shared/in-view.mjs';

const select = (ctx, token, head) => ctx.store.dispatch({ type: 'select', ...(token === undefined ? {} : { token }), ...(head === undefined ? {} : { head }) });

export function mountTables(ctx) {
  const { root } = ctx;
  const $ = (id) => root.getElementById(id);
  const page = createPage(root, ctx.t);
  const openWeightBlocks = new Set();
  Object.assign(ctx.services, { setOverlay: page.setOverlay, renderStatus: page.renderStatus, renderMessages: page.renderMessages, renderEngine: page.renderEngine, page });
  $('tokens').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-index]');
    if (!button || !ctx.store.view) return;
    select(ctx, Number(button.dataset.index));
    $('tokens').querySelector(`[data-index="${ctx.store.state.selectedToken}"]`)?.focus();
  });
  $('tokens').addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key] ?? 0;
    const jump = event.key === 'Home' ? -Infinity : event.key === 'End' ? Infinity : 0;
    const view = ctx.store.view;
    if (!view || (!step && !jump) || !event.target.closest('button[data-index]')) return;
    event.preventDefault();
    const last = view.tokens.length - 1;
    const next = jump ? (jump < 0 ? 0 : last) : Math.max(0, Math.min(last, ctx.store.state.selectedToken + step));
    $('tokens').querySelector(`[data-index="${next}"]`)?.click();
  });
  $('head-tabs').addEventListener('click', (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (!tab || !ctx.store.view) return;
    select(ctx, undefined, tab.dataset.head === 'all' ? 'all' : Number(tab.dataset.head));
    $(`tab-${ctx.store.state.selectedHead}`)?.focus();
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
    if (details.open && ctx.store.view) page.fillWeightBlock(details, ctx.store.view);
  }, true);
  $('notes').addEventListener('click', (event) => {
    const key = event.target.closest('button[data-action]')?.dataset.action;
    if (key) ctx.store.dispatch({ type: 'note', key });
  });
  $('steps-scale').addEventListener('change', (event) => ctx.store.dispatch({ type: 'scaling', on: event.target.checked }));
  const head = (state) => (state.selectedHead === 'all' ? 0 : state.selectedHead);
  return {
    ...page,
    prepare(state) {
      $('steps-scale').checked = state.scaleMode === 'sqrt_dk';
    },
    parts: () => [
      ['notes', (state) => page.renderNotes({ preset: presetById(state.preset), aspects: ctx.store.aspects, replacedWeights: ctx.notes.replacedWeights() })],
      ['tokens', (state, view) => page.renderTokens(view.tokens, state.selectedToken)],
      ['inputs', (state, view) => page.renderInputs(view)],
      ['parameters', (state, view) => page.renderWeights(view, openWeightBlocks)],
      ['steps', (state, view) => page.renderStepTable(view, state.selectedToken, head(state))],
      ['matrices', (state, view) => {
        page.renderHeadTabs(view.heads, state.selectedHead);
        page.renderHeadPanel(view, state.selectedHead);
      }],
      ['output', (state, view) => page.renderMultihead(view)],
    ],
  };
}

export function mountExplain(ctx) {
  const panel = createExplainPanel({ root: ctx.root, container: ctx.container, page: ctx.services.page, getView: () => ctx.store.view, t: ctx.t, guard: (cell) => ctx.guards.explain(cell) });
  return { reset: panel.reset, redraw: () => panel.redraw() };
}

export function mountPictures(ctx) {
  const views = createViews({ root: ctx.root, compute: ctx.compute, t: ctx.t, signal: ctx.signal, selectHead: (head) => select(ctx, undefined, head) });
  let started = false;
  return {
    section: 'pictures',
    draw: (state, view) => views.draw(view, state.selectedHead, state.selectedToken, presetById(state.preset)?.plot),
    afterViews() {
      if (started || ctx.section('lab').hidden) return;
      started = true;
      views.runLab();
    },
    restyle: views.restyle,
    relabel: views.relabel,
  };
}

export const mountScaling = () => ({});

export function mountWalk(ctx) {
  const learn = createLearn({ root: ctx.root, container: ctx.container, t: ctx.t, focus: (token, head) => select(ctx, token, head) });
  return { section: 'learn', draw: (state, view) => learn.draw(view, state), relabel: learn.relabel };
}

export function mountExports(ctx) {
  const exports = setupExports({ root: ctx.root, getView: () => ctx.store.view, getState: () => ctx.store.state, links: ctx.links, showStatus: ctx.services.renderStatus, t: ctx.t, getLanguage: ctx.language });
  return { ...exports, prepare: (state) => exports.practising(Boolean(state.practice)), api: exports };
}

export function mountPractice(ctx) {
  const practice = oldPractice({
    container: ctx.container, root: ctx.root, embedded: ctx.embedded, links: ctx.links, lang: ctx.language(),
    getState: () => ctx.store.state, setState: (next) => ctx.store.dispatch({ type: 'replace', state: next, external: true }),
    setOverlay: ctx.services.setOverlay, redraw: () => ctx.redraw(),
  });
  ctx.guards.explain = (cell) => practice.explainGuard(cell);
  return {
    section: 'practice',
    views: practice.views,
    prepare: (state, view) => practice.prepare(view, state),
    draw: (state, view) => practice.draw(view, state),
    relabel: () => practice.setLanguage(ctx.language()),
    api: practice,
  };
}

export function mountTraining(ctx) {
  const training = createTraining({ after: ctx.section('output'), compute: ctx.compute, getState: () => ctx.store.state, useState: (state, status) => ctx.store.dispatch({ type: 'replace', state, status }), signal: ctx.signal, t: ctx.t });
  let started = false;
  return {
    afterViews() {
      const section = ctx.section('train');
      if (started || !ctx.store.view || section.hidden) return;
      started = true;
      // once the Train section also comes near the screen: preparing the first task loads the learning engine
      whenNear(section, () => ctx.compute.ready.then(() => setTimeout(() => ctx.signal.aborted || training.start(), 0)), ctx.signal);
    },
    relabel: training.relabel,
    destroy: training.stop,
    api: training,
  };
}

export function mountLayers(ctx) {
  const layers = createLayers({ after: ctx.section('train'), getState: () => ctx.store.state, getView: () => ctx.store.view, useState: (state, status) => ctx.store.dispatch({ type: 'replace', state, status }), t: ctx.t });
  return { relabel: layers.relabel, api: layers };
}
