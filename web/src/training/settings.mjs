// The Train section's settings ⇄ its controls: the task menu, the task's settings shown, the
// controls read back as a training configuration, and the problems found in them.
import { TASKS } from './tasks.mjs';
import { applyTexts } from '../i18n/page.mjs';

/** The task menu's options (their texts from the catalogue). */
export function fillTaskMenu(training) {
  const { $, t } = training;
  $('train-task').append(...TASKS.map((each) => {
    const option = document.createElement('option');
    option.value = each.id;
    option.dataset.text = `train.task.${each.id}`;
    return option;
  }));
  applyTexts($('train-task'), t);
}

/** The current task's settings in the controls. */
export function showTask({ $, t, task, section }) {
  $('train-task').value = task.id;
  $('train-about').textContent = t(`train.about.${task.id}`);
  $('train-rate').value = String(task.optimizer.learningRate);
  $('train-optimizer').value = task.optimizer.kind;
  $('train-seed').value = String(task.seed);
  // "look one word back" starts without positions, so the reader sees it fail first
  $('train-positions').value = task.positionsMatter ? 'none' : task.model.positions ?? 'none';
  for (const box of section.querySelectorAll('input[name="train-parameter"]')) box.checked = task.train?.includes(box.value) ?? false;
  // a stack's task: the number of layers instead of the one-layer settings; its own speed
  $('train-layers-field').hidden = !task.stack;
  $('train-heads-field').hidden = !task.headChoices;
  $('train-positions').closest('.field').hidden = Boolean(task.stack);
  section.querySelector('.train-parameters').hidden = Boolean(task.stack);
  $('train-use').hidden = Boolean(task.stack);
  if (task.stack) $('train-layers').value = String(task.model.layers);
  if (task.headChoices) $('train-heads').value = String(task.model.heads);
  $('train-speed').value = String(task.speed ?? 50);
}

// a stack's run: the layers chosen, every attention matrix learning (the task's list), the attend
// loss read in the last layer
function stackConfig({ $, task }, optimizer, seed) {
  const layers = Number($('train-layers').value) || task.model.layers;
  const heads = task.headChoices ? Number($('train-heads').value) || task.model.heads : task.model.heads;
  const loss = task.loss.kind === 'attend' ? { ...task.loss, layer: layers - 1 } : task.loss;
  return { stack: true, ablate: Boolean(task.ablate), model: { ...task.model, layers, heads }, loss, optimizer, seed, train: task.trainFor(layers) };
}

/** The controls as { problems, config }: the run's configuration, and what is wrong with them. */
export function readSettings({ $, t, task, section }) {
  const problems = [];
  const rateText = $('train-rate').value.trim();
  const learningRate = Number(rateText);
  if (!(learningRate > 0 && Number.isFinite(learningRate))) problems.push({ field: 'train-rate', message: t('train.badNumber', { field: t('train.learningRate'), value: rateText.slice(0, 20) }) });
  const seedText = $('train-seed').value.trim();
  const seed = Number(seedText);
  if (!(Number.isSafeInteger(seed) && seed >= 0) || seedText === '') problems.push({ field: 'train-seed', message: t('train.badSeed', { value: seedText.slice(0, 20) }) });
  const chosen = [...section.querySelectorAll('input[name="train-parameter"]:checked')].map((b) => b.value);
  if (chosen.length === 0 && !task.stack) problems.push({ field: 'train-parameter', message: t('train.needParameter') });
  // each step draws a batch of the task's size from the training sentences, with the seed
  const { batchSize } = task.optimizer;
  const optimizer = $('train-optimizer').value === 'sgd' ? { kind: 'sgd', learningRate, momentum: 0.9, batchSize } : { kind: 'adam', learningRate, batchSize };
  const readout = task.loss.kind === 'classify' ? ['readout', 'readoutBias'] : [];
  if (task.stack) return { problems, config: stackConfig({ $, task }, optimizer, seed) };
  return {
    problems,
    config: {
      model: { ...task.model, positions: $('train-positions').value },
      loss: task.loss, optimizer, seed,
      train: [...chosen, ...readout],
    },
  };
}

/** The problems under the controls, each control at fault marked invalid. */
export function showProblems({ $, section }, problems) {
  for (const node of section.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
  $('train-messages').replaceChildren(...problems.map((p) => {
    section.querySelector(`#${p.field}`)?.setAttribute('aria-invalid', 'true');
    const line = document.createElement('p');
    line.textContent = p.message;
    return line;
  }));
}
