// The Train section's controller: a task, its settings, a training run in the engine (the worker,
// or the page in chunks that yield), and pictures of it at least 10 times a second. "Use these
// weights" hands the learned parameters to the lab as its state.
import markup from './training.html';
import { TASKS, taskById, vocabularyOf } from './tasks.mjs';
import { renderLossCurve, renderWeightMap, sideBySide } from './render.mjs';
import { renderHeatmap } from '../shared/heatmap.mjs';
import { embed } from '../state/vocabulary.mjs';
import { applyTexts } from '../i18n/page.mjs';

const FRAME_MS = 100;          // pictures at 10 per second while training
const PAGE_CHUNK_MS = 12;      // on the page (no worker), steps run in slices this long, then yield
const DEFAULT_SPEED = 50;
let labs = 0;                  // each lab's runs have their own key in the engine

/**
 * Mounts the section after `after` in `container`.
 *   compute:   the engine connection (compute.mjs; its `training` calls)
 *   useState:  (state) => void, makes a state the lab's (for "Use these weights")
 *   getState:  () => the lab's state
 *   t:         (key, values) => the text in the lab's language
 */
export function createTraining({ container, after, compute, getState, useState, signal, t }) {
  const holder = document.createRange().createContextualFragment(markup);
  const section = holder.querySelector('section');
  applyTexts(section, t);
  after.after(section);
  const $ = (id) => section.querySelector(`#${id}`);
  const key = `lab-${++labs}`;
  const engine = {
    start: (config) => compute.training.start(key, config),
    step: (k, quiet) => compute.training.step(key, k, quiet),
    probe: (index) => compute.training.probe(key, index),
    weights: () => compute.training.weights(key),
    dispose: () => compute.training.dispose(key),
  };

  let task = TASKS[0];
  let examples = null;         // { train, heldOut } of the current task
  let vocabulary = null;       // the words of the run, when embeddings learn
  let run = null;              // { config, history: { train: [[step, loss]], heldOut: [[step, loss]] }, snapshot }
  let running = false;
  let busy = null;             // the promise of the call in flight
  let whereEngine = 'worker';
  let msPerStep = 20;          // until measured: the first slice on the page is one step
  let generation = 0;          // bumps on every reset: answers for an older run are dropped
  let ink = null;              // the canvas labels' colour
  // removed with its lab (signal): a listener on matchMedia would keep the whole lab alive
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { ink = null; }, { signal });

  // ---- settings ⇄ controls

  $('train-task').append(...TASKS.map((each) => {
    const option = document.createElement('option');
    option.value = each.id;
    option.dataset.text = `train.task.${each.id}`;
    return option;
  }));
  applyTexts($('train-task'), t);

  function showTask() {
    $('train-task').value = task.id;
    $('train-about').textContent = t(`train.about.${task.id}`);
    $('train-rate').value = String(task.optimizer.learningRate);
    $('train-optimizer').value = task.optimizer.kind;
    $('train-seed').value = String(task.seed);
    // "look one word back" starts without positions, so the reader sees it fail first
    $('train-positions').value = task.positionsMatter ? 'none' : task.model.positions ?? 'none';
    for (const box of section.querySelectorAll('input[name="train-parameter"]')) box.checked = task.train.includes(box.value);
  }

  function settings() {
    const problems = [];
    const rateText = $('train-rate').value.trim();
    const learningRate = Number(rateText);
    if (!(learningRate > 0 && Number.isFinite(learningRate))) problems.push({ field: 'train-rate', message: t('train.badNumber', { field: t('train.learningRate'), value: rateText.slice(0, 20) }) });
    const seedText = $('train-seed').value.trim();
    const seed = Number(seedText);
    if (!(Number.isSafeInteger(seed) && seed >= 0) || seedText === '') problems.push({ field: 'train-seed', message: t('train.badSeed', { value: seedText.slice(0, 20) }) });
    const chosen = [...section.querySelectorAll('input[name="train-parameter"]:checked')].map((b) => b.value);
    if (chosen.length === 0) problems.push({ field: 'train-parameter', message: t('train.needParameter') });
    // each step draws a batch of the task's size from the training sentences, with the seed
    const { batchSize } = task.optimizer;
    const optimizer = $('train-optimizer').value === 'sgd' ? { kind: 'sgd', learningRate, momentum: 0.9, batchSize } : { kind: 'adam', learningRate, batchSize };
    const readout = task.loss.kind === 'classify' ? ['readout', 'readoutBias'] : [];
    return {
      problems,
      config: {
        model: { ...task.model, positions: $('train-positions').value },
        loss: task.loss, optimizer, seed,
        train: [...chosen, ...readout],
      },
    };
  }

  function showProblems(problems) {
    for (const node of section.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
    $('train-messages').replaceChildren(...problems.map((p) => {
      section.querySelector(`#${p.field}`)?.setAttribute('aria-invalid', 'true');
      const line = document.createElement('p');
      line.textContent = p.message;
      return line;
    }));
  }

  // ---- a run

  async function start() {
    pause();
    const id = ++generation;
    const { problems, config } = settings();
    showProblems(problems);
    if (problems.length) return false;
    examples ??= task.build(task.model.dModel);
    const withEmbeddings = config.train.includes('embeddings');
    vocabulary = withEmbeddings ? vocabularyOf([...examples.train, ...examples.heldOut]) : null;
    const embeddings = vocabulary ? {
      words: vocabulary.words,
      table: Float32Array.from(vocabulary.words.flatMap((w) => Array.from(embed(w, task.model.dModel)))),
    } : null;
    const probe = Math.max(0, Number($('train-probe').value) || 0);
    fillProbes();
    const info = await compute.ready;
    whereEngine = info.where;
    const answer = await (busy = engine.start({ ...config, examples, probe, embeddings }));
    busy = null;
    if (id !== generation) return false;
    if (answer.error) {
      showProblems([{ field: answer.error.field, message: answer.error.message }]);
      run = null;
      return false;
    }
    run = { config, history: { train: [], heldOut: [[0, answer.heldOut.loss]] }, snapshot: answer };
    draw();
    return true;
  }

  // k steps; on the page (no worker) in slices that let the page answer between them
  async function steps(k) {
    const id = generation;
    let answer = null;
    let left = k;
    const losses = [];
    while (left > 0) {
      const slice = whereEngine === 'page' ? Math.max(1, Math.min(left, Math.floor(PAGE_CHUNK_MS / msPerStep))) : left;
      const started = performance.now();
      // only the frame's last slice brings the pictures' numbers back
      answer = await (busy = engine.step(slice, slice < left));
      busy = null;
      // in the performance timeline, for measuring how long the page is held
      performance.measure('attention-lab:train-steps', { start: started });
      if (id !== generation) return null;
      if (answer.stepMs) msPerStep = Math.max(0.01, answer.stepMs);
      left -= slice;
      if (answer.error) break;
      if (left > 0) losses.push(...answer.losses);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve));
      if (id !== generation) return null;
    }
    const snapshot = answer.error ? answer.snapshot : answer;
    snapshot.losses = [...losses, ...snapshot.losses];
    const first = run.snapshot.steps;
    snapshot.losses.forEach((loss, i) => run.history.train.push([first + i + 1, loss]));
    run.history.heldOut.push([snapshot.steps, snapshot.heldOut.loss]);
    run.snapshot = snapshot;
    draw();
    if (answer.error) {
      pause();
      showProblems([{ field: 'train-rate', message: t('train.diverged', { message: answer.error.message }) }]);
    }
    return answer;
  }

  async function loop() {
    while (running) {
      const started = performance.now();
      const speed = Number($('train-speed').value);
      // a frame's share of the steps per second; "as fast as it goes": about a frame of work
      const k = speed > 0 ? Math.max(1, Math.round((speed * FRAME_MS) / 1000)) : Math.max(1, Math.floor((FRAME_MS * 0.8) / msPerStep));
      const answer = await steps(k);
      if (!answer) return;
      const rest = FRAME_MS - (performance.now() - started);
      if (running && speed > 0 && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
      else await new Promise((resolve) => setTimeout(resolve));
    }
  }

  function pause() {
    running = false;
    $('train-run').textContent = t('train.start');
    $('train-run').setAttribute('aria-pressed', 'false');
  }

  async function play() {
    if (!run && !(await start())) return;
    running = true;
    $('train-run').textContent = t('train.pause');
    $('train-run').setAttribute('aria-pressed', 'true');
    loop();
  }

  // ---- pictures

  function fillProbes() {
    const select = $('train-probe');
    const keep = select.value;
    select.replaceChildren(...examples.heldOut.map((e, i) => {
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = e.sentence;
      return option;
    }).filter((_, i, all) => !task.perHead || i % 2 === 0 || all.length < 2));
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
    $('train-counts').textContent = t('train.heldOutCount', { train: examples.train.length, heldOut: examples.heldOut.length });
  }

  function draw() {
    const started = performance.now();
    drawRun();
    performance.measure('attention-lab:train-draw', { start: started });
  }

  function drawRun() {
    const { snapshot, config, history } = run;
    const format = (v) => (Number.isFinite(v) ? v.toFixed(3) : '—');
    $('train-accuracy').textContent = t('train.accuracy', { percent: Math.round(snapshot.heldOut.accuracy * 100) });
    $('train-progress').textContent = t('train.progress', { steps: snapshot.steps, train: format(history.train.at(-1)?.[1]), heldOut: format(snapshot.heldOut.loss) });
    renderLossCurve($('train-loss'), history, {
      stepLabel: (steps) => t('train.stepTick', { steps }),
      label: t('train.lossCurveLabel', { steps: snapshot.steps, train: format(history.train.at(-1)?.[1]), heldOut: format(snapshot.heldOut.loss) }),
    });
    drawProbe(snapshot, config);
    drawWeights(snapshot, config);
  }

  function drawProbe(snapshot, config) {
    const e = examples.heldOut[Number($('train-probe').value) || 0];
    const n = e.tokens.length;
    const box = $('train-heatmaps');
    const heads = config.model.heads;
    if (box.childElementCount !== heads) {
      box.replaceChildren(...Array.from({ length: heads }, (_, h) => {
        const figure = document.createElement('div');
        figure.className = 'train-heatmap';
        const label = document.createElement('span');
        label.textContent = t('train.head', { head: h + 1 });
        const canvas = document.createElement('canvas');
        canvas.setAttribute('role', 'img');
        figure.append(label, canvas);
        return figure;
      }));
    }
    if (!snapshot.probe) return;
    // read once per colour scheme: reading a computed style makes the browser restyle there and then
    ink ??= getComputedStyle(section).color;
    snapshot.probe.forEach((weights, h) => {
      const canvas = box.children[h].querySelector('canvas');
      // the target's column label is marked, so the reader sees where the row should look
      const target = task.perHead ? examples.heldOut.find((x) => x.sentence === e.sentence && x.head === h)?.target : e.target;
      const columns = e.tokens.map((t, j) => (j === target && task.loss.kind === 'attend' ? `${t} ◂` : t));
      renderHeatmap(canvas, weights, n, n, { cell: 18, rowLabels: e.tokens, columnLabels: columns, ink });
      canvas.setAttribute('aria-label', t('train.probeHeatmap', { head: h + 1, query: e.tokens[e.query] }));
    });
  }

  function drawWeights(snapshot, config) {
    const box = $('train-weights');
    const { dModel, heads } = config.model;
    const d = dModel / heads;
    if (box.childElementCount !== 3) {
      box.replaceChildren(...['W_q', 'W_k', 'W_v'].map((name) => {
        const figure = document.createElement('div');
        figure.className = 'train-weight';
        const label = document.createElement('span');
        label.textContent = name;
        const canvas = document.createElement('canvas');
        canvas.setAttribute('role', 'img');
        figure.append(label, canvas);
        return figure;
      }));
    }
    ['wq', 'wk', 'wv'].forEach((name, i) => {
      const canvas = box.children[i].querySelector('canvas');
      const max = renderWeightMap(canvas, sideBySide(snapshot.weights[name], heads, dModel, d), dModel, heads * d, { cell: 7 });
      canvas.setAttribute('aria-label', t('train.weightLabel', { name: ['W_q', 'W_k', 'W_v'][i], rows: dModel, cols: heads * d, max: max.toFixed(2) }));
    });
  }

  // ---- "Use these weights"

  async function useWeights() {
    if (!run) return;
    pause();
    await busy;
    const weights = await engine.weights();
    if (!weights) return;
    const { model } = run.config;
    const e = examples.heldOut[Number($('train-probe').value) || 0];
    const d = model.dModel / model.heads;
    const learnedEmbeddings = run.config.train.includes('embeddings') && vocabulary
      ? Object.fromEntries(vocabulary.words.map((w, i) => [w, Array.from(weights.embeddings.subarray(i * model.dModel, (i + 1) * model.dModel))]))
      : null;
    const state = getState();
    useState({
      ...state,
      preset: null, sentence: e.sentence, attention: 'self',
      dModel: model.dModel, heads: model.heads, dK: d, dV: d,
      scaleMode: 'sqrt_dk', maskMode: 'none', positions: model.positions ?? 'none',
      weightsMode: 'custom', useWo: false,
      custom: { wq: Array.from(weights.wq), wk: Array.from(weights.wk), wv: Array.from(weights.wv), wo: null },
      inputs: null, x: null, xEdits: {}, contextEdits: {}, embeddings: learnedEmbeddings,
      selectedToken: e.query, selectedHead: 0,
    }, t(learnedEmbeddings ? 'train.usedEmbeddings' : 'train.used', { sentence: e.sentence }));
  }

  // ---- wiring

  $('train-task').addEventListener('change', () => {
    task = taskById($('train-task').value) ?? TASKS[0];
    examples = null;
    showTask();
    reset();
  });
  $('train-run').addEventListener('click', () => (running ? pause() : play()));
  $('train-step').addEventListener('click', async () => {
    pause();
    if (!run && !(await start())) return;
    await busy;
    steps(1);
  });
  async function reset() {
    pause();
    generation++;
    run = null;
    await busy;
    examples ??= task.build(task.model.dModel);
    fillProbes();
    start();
  }
  $('train-reset').addEventListener('click', reset);
  $('train-use').addEventListener('click', useWeights);
  // a new setting applies from a fresh start (the optimiser's state belongs to the old one)
  $('train-controls').addEventListener('change', (event) => {
    if (event.target.id === 'train-task' || event.target.id === 'train-speed') return;
    reset();
  });
  $('train-controls').addEventListener('submit', (event) => event.preventDefault());
  $('train-probe').addEventListener('change', async () => {
    if (!run) return;
    await busy;
    const snapshot = await engine.probe(Number($('train-probe').value));
    if (snapshot && run) {
      run.snapshot = { ...run.snapshot, probe: snapshot.probe };
      drawProbe(run.snapshot, run.config);
    }
  });
  $('train-speed').value = String(DEFAULT_SPEED);
  showTask();

  return {
    /** Every text again in the lab's language now; the run goes on. */
    relabel() {
      applyTexts(section, t);
      $('train-about').textContent = t(`train.about.${task.id}`);
      $('train-run').textContent = t(running ? 'train.pause' : 'train.start');
      if (examples) fillProbes();
      if (run?.snapshot) draw();
    },
    /** Prepares the first task (called once the engine is ready); nothing trains until asked. */
    start: () => reset(),
    /** For tests: the current run's last snapshot and settings. */
    get run() { return run; },
    get running() { return running; },
    stop() {
      pause();
      generation++;
      engine.dispose().catch(() => {});  // nothing to free when no run was started
    },
  };
}
