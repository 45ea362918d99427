// Practice across layers (issue 23), the DOM: at the end of the practice panel, when the lab is a
// stack, the shown layer's x and attention(x) for the query token (or the first after it whose
// mistakes show: layers.mjs chooseLayerSequence), and the sequence of layers.mjs
// (the sum, then the norm's mean, variance and one output), each step opening when the one before
// is answered. Answers are read as practice reads them (answer.mjs) and judged with its tolerance
// (check.mjs); a typed value that matches a typical mistake gets that mistake named. The steps count
// in practice's progress and score (index.mjs): their records (progress.mjs), ids 'layers-sum' …,
// go into the work a host keeps (SCORM's suspend data) and come back from it (restore).
import { parseAnswer } from './answer.mjs';
import { judgeBlanks, DEFAULT_TOLERANCE } from './check.mjs';
import { practiceSettings } from './spec.mjs';
import { chooseLayerSequence } from './layers.mjs';
import { createProgress } from './progress.mjs';
import { element, resolve } from './render.mjs';
import { renderMatrix } from '../shared/matrix.mjs';
import { formatNumber } from '../shared/format.mjs';
import { layerNumber, normName } from '../shared/layer-name.mjs';

function build(section) {
  const parts = {
    box: element('section', { className: 'practice-layers', attributes: { 'aria-labelledby': 'practice-layers-title' } }),
    title: element('h3', { attributes: { id: 'practice-layers-title' } }),
    intro: element('p', { className: 'hint' }),
    given: element('div', { className: 'scroll practice-layers-given' }),
    list: element('ol', { className: 'practice-layers-steps' }),
  };
  parts.box.append(parts.title, parts.intro, parts.given, parts.list);
  section.append(parts.box);
  return parts;
}

// One step: its question, a blank per value, Check and Show the answer, and the verdict
function stepItem(exercise, index, t, columns) {
  const item = element('li', { className: 'practice-layers-step', attributes: { 'data-id': exercise.id } });
  const question = element('p', { text: resolve(exercise.label, t), attributes: { id: `practice-layers-q${index}` } });
  const inputs = exercise.blanks.map((_, k) => element('input', { className: 'practice-input', attributes: {
    type: 'text', inputmode: 'decimal', autocomplete: 'off', 'data-blank': String(k),
    'aria-label': exercise.blanks.length > 1 ? t('practice.layers.blank', { col: columns[k] }) : resolve(exercise.label, t),
  } }));
  const check = element('button', { text: t('practice.layers.check'), attributes: { type: 'button' } });
  const reveal = element('button', { className: 'reveal-button', text: t('practice.layers.reveal'), attributes: { type: 'button' } });
  const feedback = element('p', { className: 'feedback practice-layers-feedback', attributes: { 'aria-live': 'polite', id: `practice-layers-f${index}` } });
  for (const input of inputs) input.setAttribute('aria-describedby', feedback.id);
  const eps = exercise.label.params.eps ?? formatNumber(1e-5);
  const blindKey = exercise.id === 'normRms' || exercise.id === 'meanSquare' ? 'practice.layers.blindRms' : 'practice.layers.blind';
  const blind = exercise.blind.length ? element('p', { className: 'practice-note', text: t(blindKey, { eps, mistakes: exercise.blind.map((key) => t(`practice.${key}.name`)).join('; ') }) }) : null;
  // a row of blanks is labelled by its columns, as the tables above it
  const blanks = inputs.length > 1 ? inputs.map((input, k) => element('label', { className: 'practice-layers-blank' }, [element('span', { text: columns[k] }), input])) : inputs;
  item.append(question, element('div', { className: 'practice-layers-blanks' }, blanks), element('div', { className: 'practice-actions' }, [check, reveal]), feedback, ...(blind ? [blind] : []));
  return { item, inputs, check, reveal, feedback, exercise, id: `layers-${exercise.id}`, status: 'open' };
}

function showStatus(steps) {
  let open = true;
  for (const step of steps) {
    const locked = !open;
    const done = step.status === 'correct' || step.status === 'revealed';
    step.item.dataset.status = locked ? 'locked' : step.status;
    for (const input of step.inputs) {
      input.disabled = locked;
      input.readOnly = done;
    }
    step.check.hidden = step.reveal.hidden = done || locked;
    open = open && done;
  }
}

// A one-value step's own "not quite": how its value is made (a mean has no columns to count)
const WRONG = { mean: 'practice.layers.wrongMean', variance: 'practice.layers.wrongVariance', norm: 'practice.layers.wrongNorm', meanSquare: 'practice.layers.wrongMeanSquare', normRms: 'practice.layers.wrongNormRms' };

// What a wrong answer with no named mistake is told: a row, how many of its columns are right
function wrongText(step, verdict, t) {
  const key = step.inputs.length === 1 ? WRONG[step.exercise.id] : null;
  if (key) return t(key, step.exercise.label.params);
  return t('practice.layers.wrong', { right: verdict.right.filter(Boolean).length, count: step.inputs.length });
}

// Check: every blank read (a format problem said, no verdict), then right, a named mistake, or wrong
function checkStep(step, t, tolerance) {
  const read = step.inputs.map((input) => parseAnswer(input.value));
  const problem = read.find((r) => r.value === undefined);
  if (problem) {
    step.feedback.textContent = t(`practice.${problem.problem}`, problem.params);
    step.feedback.dataset.verdict = 'format';
    return false;
  }
  const values = read.map((r) => r.value);
  const blanks = step.exercise.blanks.map((truth) => ({ truth }));
  const verdict = judgeBlanks(values, { blanks, mistakes: step.exercise.mistakes }, tolerance);
  step.inputs.forEach((input, k) => {
    input.setAttribute('aria-invalid', String(!verdict.right[k]));
    input.dataset.verdict = verdict.right[k] ? 'right' : '';
  });
  if (verdict.correct) {
    step.status = 'correct';
    step.feedback.textContent = t('practice.layers.correct', { value: step.exercise.blanks.map((v) => formatNumber(v)).join(', ') });
  } else {
    step.feedback.textContent = verdict.mistakes.length
      ? verdict.mistakes.map((m) => t(`practice.${m.key}`, m.params ?? {})).join(' ')
      : wrongText(step, verdict, t);
  }
  step.feedback.dataset.verdict = verdict.correct ? 'correct' : verdict.mistakes.length ? 'mistake' : 'wrong';
  step.feedback.dataset.mistakes = verdict.mistakes.map((m) => m.key).join(' ');
  return verdict.correct;
}

function revealStep(step, t) {
  step.status = 'revealed';
  step.inputs.forEach((input, k) => { input.value = formatNumber(step.exercise.blanks[k]); });
  step.feedback.textContent = t('practice.layers.revealed');
  step.feedback.dataset.verdict = 'revealed';
}

// Check (a format problem is no attempt) or Show the answer, recorded in the steps' progress
function answerStep(step, checking, own, t) {
  if (!checking) {
    revealStep(step, t);
    own.progress.reveal(step.id);
  } else if (checkStep(step, t, own.tolerance)) own.progress.correct(step.id);
  else if (step.feedback.dataset.verdict !== 'format') own.progress.wrong(step.id);
}

// A step as saved work left it: right (its values and verdict shown), shown, or open with what was typed
function restoreStep(step, record, t) {
  if (record.status === 'revealed') return revealStep(step, t);
  if (record.status === 'correct') {
    step.status = 'correct';
    step.inputs.forEach((input, k) => { input.value = formatNumber(step.exercise.blanks[k]); });
    step.feedback.textContent = t('practice.layers.correct', { value: step.exercise.blanks.map((v) => formatNumber(v)).join(', ') });
    step.feedback.dataset.verdict = 'correct';
    return undefined;
  }
  step.inputs.forEach((input, k) => { input.value = typeof record.answers?.[k] === 'string' ? record.answers[k].slice(0, 100) : ''; });
  return undefined;
}

/**
 * mountLayerPractice({ section, t, onAnswer() }) → { draw(state, view), relabel(), destroy(),
 * totals() (null while not shown), records() (with the typed answers), restore(saved), lines() }.
 * onAnswer is called after each check or reveal (practice reports its progress then).
 */
export function mountLayerPractice({ section, t, onAnswer = () => {} }) {
  const parts = build(section);
  const own = { steps: [], signature: null, tolerance: DEFAULT_TOLERANCE, state: null, view: null, progress: createProgress(), pending: null };
  const act = (event) => {
    const index = own.steps.findIndex((step) => step.item.contains(event.target));
    const step = own.steps[index];
    if (!step) return;
    const checking = event.type === 'click' ? event.target === step.check : event.key === 'Enter' && event.target.matches('input');
    if (!checking && !(event.type === 'click' && event.target === step.reveal)) return;
    answerStep(step, checking, own, t);
    showStatus(own.steps);
    // on to the next step's first blank once this one is answered
    if (step.status !== 'open') own.steps[index + 1]?.inputs[0]?.focus();
    onAnswer();
  };
  const restore = (saved) => {
    let restored = 0;
    for (const step of own.steps) {
      const record = saved.find((entry) => entry && entry.id === step.id);
      if (!record || !own.progress.restore(step.id, record)) continue;
      restored++;
      restoreStep(step, { ...record, status: own.progress.status(step.id) }, t);
    }
    showStatus(own.steps);
    return restored;
  };
  parts.list.addEventListener('click', act);
  parts.list.addEventListener('keydown', act);
  const draw = (state, view) => {
    const token = Number.isInteger(state.selectedToken) ? state.selectedToken : 0;
    own.tolerance = practiceSettings(state.practice).tolerance;
    const sequence = view ? chooseLayerSequence(view, token, own.tolerance) : null;
    parts.box.hidden = !sequence;
    own.shown = Boolean(sequence);
    if (!sequence) return;
    Object.assign(own, { state, view, layer: sequence.layer });
    parts.box.dataset.token = String(sequence.token);  // the token asked about (tests, styles)
    fillGiven(parts, sequence, view, t);
    // the same numbers keep the steps and what was typed; new ones start again
    const signature = JSON.stringify([sequence.layer, sequence.token, sequence.exercises.map((e) => e.blanks)]);
    if (signature === own.signature) return;
    own.signature = signature;
    own.steps = sequence.exercises.map((exercise, index) => stepItem(exercise, index, t, view.columns));
    own.progress.reset(own.steps.map((step) => step.id));
    parts.list.replaceChildren(...own.steps.map((step) => step.item));
    showStatus(own.steps);
    // saved work that came before these steps were drawn (a relaunch)
    if (own.pending) restore(own.pending.splice(0));
  };
  return {
    draw,
    relabel() {
      // the steps are said again in the new language, their progress and answers kept
      const kept = own.shown ? records() : [];
      own.signature = null;
      if (own.view) draw(own.state, own.view);
      if (kept.length) restore(kept);
    },
    totals: () => (own.shown ? own.progress.totals() : null),
    records,
    /** Puts saved work back: now if the steps are drawn, else when they are; returns how many matched now. */
    restore(saved) {
      const mine = saved.filter((entry) => typeof entry?.id === 'string' && entry.id.startsWith('layers-'));
      if (!mine.length) return 0;
      if (own.shown && own.steps.length) return restore(mine);
      own.pending = mine;
      return 0;
    },
    /** The steps as lines for practice's list of steps (panel.mjs); [] while not shown. */
    lines: () => linesOf(own, parts, t),
    destroy: () => parts.box.remove(),
  };
  // the steps' records with what is typed in their blanks, while they are shown
  function records() {
    if (!own.shown) return [];
    return own.progress.records().map((record, index) => ({ ...record, answers: own.steps[index].inputs.map((input) => input.value) }));
  }
}

// The steps as lines for practice's list of steps, while they are shown, else []:
// [{ id, text (a short name in t's language), status (locked, open, correct, revealed), focus() }]
function linesOf(own, parts, t) {
  if (!own.shown) return [];
  const values = { token: own.view.tokens[Number(parts.box.dataset.token)], layer: layerNumber(own.view, own.layer) };
  return own.steps.map((step) => ({
    id: step.id,
    text: t(`practice.layers.line.${step.exercise.id}`, { ...step.exercise.label.params, ...values }),
    status: step.item.dataset.status,
    focus: () => step.inputs[0].focus(),
  }));
}

// The title, what the sequence is about, and the given rows: x and attention(x)
function fillGiven(parts, sequence, view, t) {
  // the model's layer number and its norms' names (RMSNorm₁, RMSNorm₂ for Llama and Qwen2)
  const values = { token: view.tokens[sequence.token], layer: layerNumber(view, sequence.layer), n1: normName(view, sequence.layer, 0), n2: normName(view, sequence.layer, 1) };
  parts.title.textContent = t('practice.layers.title');
  parts.intro.textContent = t(`practice.layers.intro.${sequence.arrangement}${sequence.rms ? 'Rms' : ''}`, values);
  const given = new Float32Array([...sequence.x, ...sequence.attention]);
  renderMatrix(parts.given, {
    caption: t('practice.layers.given', values), t,
    rowLabels: [t('practice.layers.x', values), t(sequence.arrangement === 'pre' ? 'practice.layers.attentionPre' : 'practice.layers.attention', values)],
    columnLabels: view.columns, values: given, address: { matrix: null },
  });
}
