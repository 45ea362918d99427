// A training run of the Train section: started in the engine (the worker, or the page in chunks that
// yield), stepped a frame's worth at a time while playing, paused, reset. Every function takes the
// controller's `training` object and changes its run fields; `generation` bumps on every reset, and
// answers for an older run are dropped.
import { vocabularyOf } from './tasks.mjs';
import { readSettings, showProblems } from './settings.mjs';
import { fillProbes, draw, drawProbe } from './pictures.mjs';
import { embed } from '../state/vocabulary.mjs';

const FRAME_MS = 100;          // pictures at 10 per second while training
const PAGE_CHUNK_MS = 12;      // on the page (no worker), steps run in slices this long, then yield
// a reader can watch (issue 26): the first steps one at a time, slowly; and a stop once the held-out
// accuracy has held its best this many steps
const SLOW_STEPS = 20;
const SLOW_MS = 300;
export const PATIENCE = 200;

// the run's embedding table when embeddings learn (the words of its sentences), or null
function embeddingsOf(training, config) {
  const { task, examples } = training;
  const withEmbeddings = config.train.includes('embeddings');
  training.vocabulary = withEmbeddings ? vocabularyOf([...examples.train, ...examples.heldOut]) : null;
  const { vocabulary } = training;
  return vocabulary ? {
    words: vocabulary.words,
    table: Float32Array.from(vocabulary.words.flatMap((w) => Array.from(embed(w, task.model.dModel)))),
  } : null;
}

// a stack task's fixed token table: each word's vector as the page's vocabulary gives it, or null
function tokensOf({ task, examples }) {
  if (!task.fixedTokens) return null;
  const { words } = vocabularyOf([...examples.train, ...examples.heldOut]);
  return { words, table: Float32Array.from(words.flatMap((w) => Array.from(embed(w, task.model.dModel)))) };
}

/** A new run from the controls' settings; false when they have problems or the engine refused. */
export async function start(training) {
  pause(training);
  const id = ++training.generation;
  const { problems, config } = readSettings(training);
  showProblems(training, problems);
  if (problems.length) return false;
  training.examples ??= training.task.build(training.task.model.dModel);
  const embeddings = embeddingsOf(training, config);
  const tokens = tokensOf(training);
  const probe = Math.max(0, Number(training.$('train-probe').value) || 0);
  fillProbes(training);
  const info = await training.compute.ready;
  training.whereEngine = info.where;
  const answer = await (training.busy = training.engine.start({ ...config, examples: training.examples, probe, embeddings, tokens }));
  training.busy = null;
  if (id !== training.generation) return false;
  if (answer.error) {
    showProblems(training, [{ field: answer.error.field, message: answer.error.message }]);
    training.run = null;
    return false;
  }
  // the starting weights, for "Compare before and after" (compare.mjs)
  const initial = await training.engine.weights();
  if (id !== training.generation) return false;
  training.run = { config, history: { train: [], heldOut: [[0, answer.heldOut.loss]] }, snapshot: answer, best: { accuracy: answer.heldOut.accuracy, step: 0 }, initial };
  training.$('train-stopped').textContent = '';
  // heads switched off belong to the run before
  for (const box of training.section.querySelectorAll('input[name="train-ablate-head"]')) box.checked = false;
  training.$('train-ablated').textContent = '';
  training.ablated = null;
  draw(training);
  return true;
}

// k steps in slices (on the page, slices that let it answer between them): the last answer and the
// losses of the slices before it, or null when the run was reset meanwhile
async function slices(training, k) {
  const id = training.generation;
  let answer = null;
  let left = k;
  const losses = [];
  while (left > 0) {
    const slice = training.whereEngine === 'page' ? Math.max(1, Math.min(left, Math.floor(PAGE_CHUNK_MS / training.msPerStep))) : left;
    const started = performance.now();
    // only the frame's last slice brings the pictures' numbers back
    answer = await (training.busy = training.engine.step(slice, slice < left));
    training.busy = null;
    // in the performance timeline, for measuring how long the page is held
    performance.measure('attention-lab:train-steps', { start: started });
    if (id !== training.generation) return null;
    if (answer.stepMs) training.msPerStep = Math.max(0.01, answer.stepMs);
    left -= slice;
    if (answer.error) break;
    if (left > 0) losses.push(...answer.losses);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve));
    if (id !== training.generation) return null;
  }
  return { answer, losses };
}

/** k steps, then the pictures; a diverged step pauses the run and says so. */
export async function steps(training, k) {
  const done = await slices(training, k);
  if (!done) return null;
  const { answer, losses } = done;
  const { run } = training;
  const snapshot = answer.error ? answer.snapshot : answer;
  snapshot.losses = [...losses, ...snapshot.losses];
  const first = run.snapshot.steps;
  snapshot.losses.forEach((loss, i) => run.history.train.push([first + i + 1, loss]));
  run.history.heldOut.push([snapshot.steps, snapshot.heldOut.loss]);
  run.snapshot = snapshot;
  if (snapshot.heldOut.accuracy > run.best.accuracy) run.best = { accuracy: snapshot.heldOut.accuracy, step: snapshot.steps };
  draw(training);
  if (answer.error) {
    pause(training);
    showProblems(training, [{ field: 'train-rate', message: training.t('train.diverged', { message: answer.error.message }) }]);
  }
  return answer;
}

// the held-out accuracy has held its best PATIENCE steps: the run pauses and says so
function heldItsBest(training) {
  const { run, $, t } = training;
  if (!$('train-autostop').checked || run.snapshot.steps - run.best.step < PATIENCE) return false;
  pause(training);
  $('train-stopped').textContent = t('train.stopped', { percent: Math.round(run.best.accuracy * 100), step: run.best.step, patience: PATIENCE });
  return true;
}

// one loop per play(): a pause and a play in quick succession must not leave the old loop stepping
// beside the new one (both would ask for the steps left before the stop, and overshoot it)
async function loop(training, id) {
  while (training.running && training.loop === id) {
    const started = performance.now();
    const speed = Number(training.$('train-speed').value);
    const slow = training.$('train-slow').checked && training.run.snapshot.steps < SLOW_STEPS;
    // slow motion first; then a frame's share of the steps per second; "as fast as it goes": about a frame of work
    const fast = speed > 0 ? Math.max(1, Math.round((speed * FRAME_MS) / 1000)) : Math.max(1, Math.floor((FRAME_MS * 0.8) / training.msPerStep));
    const k = slow ? 1 : Math.min(fast, Math.max(1, PATIENCE - (training.run.snapshot.steps - training.run.best.step)));
    const answer = await steps(training, k);
    if (training.loop !== id) return;
    if (!answer || heldItsBest(training)) return;
    const rest = (slow ? SLOW_MS : FRAME_MS) - (performance.now() - started);
    if (training.running && (speed > 0 || slow) && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    else await new Promise((resolve) => setTimeout(resolve));
  }
}

export function pause(training) {
  const { $, t } = training;
  training.running = false;
  $('train-run').textContent = t('train.start');
  $('train-run').setAttribute('aria-pressed', 'false');
}

export async function play(training) {
  const { $, t } = training;
  if (!training.run && !(await start(training))) return;
  training.running = true;
  $('train-run').textContent = t('train.pause');
  $('train-run').setAttribute('aria-pressed', 'true');
  const id = (training.loop = (training.loop ?? 0) + 1);
  await training.busy;  // the paused loop's last steps land first, so this loop counts from them
  loop(training, id);
}

/** One step (the Step button): a run first if there is none. */
export async function stepOnce(training) {
  pause(training);
  if (!training.run && !(await start(training))) return;
  await training.busy;
  steps(training, 1);
}

/** A fresh run of the current task (its optimiser state belongs to the old one). */
export async function reset(training) {
  pause(training);
  training.generation++;
  training.run = null;
  await training.busy;
  training.examples ??= training.task.build(training.task.model.dModel);
  fillProbes(training);
  start(training);
}

/** Another held-out sentence in the heatmaps, from the run's current weights. */
export async function showProbe(training) {
  if (!training.run) return;
  await training.busy;
  const snapshot = await training.engine.probe(Number(training.$('train-probe').value));
  const { run } = training;
  if (snapshot && run) {
    run.snapshot = { ...run.snapshot, probe: snapshot.probe, twin: snapshot.twin };
    drawProbe(training, run.snapshot, run.config);
  }
}

/** Ticks exactly the induction heads the run has found (the button "Switch off the induction heads found"), then ablates. */
export function ablateInduction(training, found) {
  const wanted = new Set(found.map(([layer, head]) => `${layer},${head}`));
  for (const box of training.section.querySelectorAll('input[name="train-ablate-head"]')) box.checked = wanted.has(box.value);
  return ablate(training);
}

/** Held-out accuracy with the heads ticked under "Switch heads off", at the run's current weights. */
export async function ablate(training) {
  const { $, t, section } = training;
  if (!training.run) return;
  const heads = [...section.querySelectorAll('input[name="train-ablate-head"]:checked')].map((box) => box.value.split(',').map(Number));
  if (heads.length === 0) {
    $('train-ablated').textContent = '';
    return;
  }
  await training.busy;
  const answer = await training.engine.ablate(heads);
  if (!answer || !training.run) return;
  const { snapshot } = training.run;
  $('train-ablated').textContent = answer.error ? answer.error.message : t('train.ablated', {
    heads: heads.map(([layer, head]) => t('train.layerHead', { layer: layer + 1, head: head + 1 })).join(', '),
    percent: Math.round(answer.accuracy * 100), all: Math.round(snapshot.heldOut.accuracy * 100), step: snapshot.steps,
  });
  training.ablated = answer.error ? null : { heads, accuracy: answer.accuracy };
}

/** Ends the run: nothing more is drawn, and the engine frees it. */
export function stop(training) {
  pause(training);
  training.generation++;
  training.engine.dispose().catch(() => {});  // nothing to free when no run was started
}
