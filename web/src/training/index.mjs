// The Train section's controller: a task, its settings, a training run in the engine (the worker,
// or the page in chunks that yield), and pictures of it at least 10 times a second. "Use these
// weights" hands the learned parameters to the lab as its state.
//
// The controller's state is one `training` object (made here, below); settings.mjs, run.mjs,
// pictures.mjs and use.mjs are its functions, by concept.
import markup from './training.html';
import { TASKS, taskById } from './tasks.mjs';
import { fillTaskMenu, showTask } from './settings.mjs';
import { ablate, ablateInduction, pause, play, reset, stepOnce, showProbe, stop } from './run.mjs';
import { inductionHeadsFound } from './pictures.mjs';
import { fillProbes, draw } from './pictures.mjs';
import { useWeights } from './use.mjs';
import { wireCompare, relabelCompare } from './compare.mjs';
import { mountGradient } from './gradient.mjs';
import { applyTexts } from '../i18n/page.mjs';
import { whenNear } from '../shared/in-view.mjs';
import { staticMarkup } from '../shared/markup.mjs';

const DEFAULT_SPEED = 50;
let labs = 0;                  // each lab's runs have their own key in the engine

/**
 * The feature contract (tools/CONTRACT.md): the section after the example's pictures and the scaling lab.
 * Extras: start() prepares the first task (once the engine is ready), stop(), and for tests the
 * current `run` and whether it is `running`.
 */
export function mount(ctx) {
  const training = createTraining({
    container: ctx.container, after: ctx.section('lab') ?? ctx.section('output'), compute: ctx.compute, signal: ctx.signal, t: ctx.t,
    getState: () => ctx.store.state,
    useState: (state, status) => ctx.store.dispatch({ type: 'replace', state, status }),
  });
  let started = false;
  // the first task is prepared once the section is shown, after the tables, and once it also comes
  // near the screen: preparing it loads the learning engine (twice the forward engine's download),
  // which a reader who never scrolls there does not need
  training.afterViews = () => {
    const section = ctx.section('train');
    if (started || !ctx.store.view || section.hidden) return;
    started = true;
    whenNear(section, () => ctx.compute.ready.then(() => setTimeout(() => ctx.signal.aborted || training.start(), 0)), ctx.signal);
  };
  return training;
}

/**
 * Mounts the section after `after` in `container`.
 *   compute:   the engine connection (compute.mjs; its `training` calls)
 *   useState:  (state, status) => void, makes a state the lab's (for "Use these weights")
 *   getState:  () => the lab's state
 *   t:         (key, values) => the text in the lab's language
 */
export function createTraining({ after, compute, getState, useState, signal, t }) {
  const training = createSection({ after, compute, getState, useState, signal, t });
  fillTaskMenu(training);
  wire(training);
  wireCompare(training);  // "Compare before and after" (compare.mjs)
  training.$('train-speed').value = String(DEFAULT_SPEED);
  showTask(training);
  training.gradient = mountGradient(training);  // one weight's dLoss/dw (gradient.mjs)
  return handle(training);
}

// the section in the page, and the controller's state
function createSection({ after, compute, getState, useState, signal, t }) {
  const holder = staticMarkup(markup);
  const section = holder.querySelector('section');
  applyTexts(section, t);
  after.after(section);
  const key = `lab-${++labs}`;
  const training = {
    section, compute, getState, useState, t,
    $: (id) => section.querySelector(`#${id}`),
    engine: {
      start: (config) => compute.training.start(key, config),
      step: (k, quiet) => compute.training.step(key, k, quiet),
      probe: (index) => compute.training.probe(key, index),
      ablate: (heads) => compute.training.ablate(key, heads),
      weights: () => compute.training.weights(key),
      gradient: (request) => compute.training.gradient(key, request),
      dispose: () => compute.training.dispose(key),
    },
    task: TASKS[0],
    examples: null,            // { train, heldOut } of the current task
    vocabulary: null,          // the words of the run, when embeddings learn
    run: null,                 // { config, history: { train: [[step, loss]], heldOut: [[step, loss]] }, snapshot }
    running: false,
    busy: null,                // the promise of the call in flight
    whereEngine: 'worker',
    msPerStep: 20,             // until measured: the first slice on the page is one step
    generation: 0,             // bumps on every reset: answers for an older run are dropped
    ink: null,                 // the canvas labels' colour
  };
  // removed with its lab (signal): a listener on matchMedia would keep the whole lab alive
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { training.ink = null; }, { signal });
  return training;
}

function wire(training) {
  const { $ } = training;
  $('train-task').addEventListener('change', () => {
    training.task = taskById($('train-task').value) ?? TASKS[0];
    training.examples = null;
    showTask(training);
    reset(training);
  });
  $('train-run').addEventListener('click', () => (training.running ? pause(training) : play(training)));
  $('train-step').addEventListener('click', () => stepOnce(training));
  $('train-reset').addEventListener('click', () => reset(training));
  $('train-use').addEventListener('click', () => useWeights(training));
  // a new setting applies from a fresh start (the optimiser's state belongs to the old one)
  $('train-controls').addEventListener('change', (event) => {
    if (event.target.id === 'train-task' || event.target.id === 'train-speed') return;
    reset(training);
  });
  $('train-controls').addEventListener('submit', (event) => event.preventDefault());
  $('train-probe').addEventListener('change', () => showProbe(training));
  $('train-ablate').addEventListener('change', () => ablate(training));
  $('train-ablate-induction').addEventListener('click', () => training.run && ablateInduction(training, inductionHeadsFound(training.run.snapshot)));
}

/** Every text again in the lab's language now; the run goes on. */
function relabel(training) {
  const { $, t, section } = training;
  applyTexts(section, t);
  $('train-about').textContent = t(`train.about.${training.task.id}`);
  $('train-run').textContent = t(training.running ? 'train.pause' : 'train.start');
  if (training.examples) fillProbes(training);
  if (training.run?.snapshot) draw(training);
  training.gradient?.relabel();
  relabelCompare(training);
}

function handle(training) {
  return {
    relabel: () => relabel(training),
    /** Prepares the first task (called once the engine is ready); nothing trains until asked. */
    start: () => reset(training),
    /** For tests: the current run's last snapshot and settings. */
    get run() { return training.run; },
    get running() { return training.running; },
    /** For tests: the last ablation's heads and held-out accuracy. */
    get ablated() { return training.ablated ?? null; },
    /** For tests: the last gradient shown (gradient.mjs), with the engine's numbers. */
    get gradient() { return training.gradient.last; },
    stop: () => stop(training),
    destroy: () => stop(training),
  };
}
