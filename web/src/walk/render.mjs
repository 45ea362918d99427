// The guided walk's drawing: the formula strip and the walk panel. DOM only; walk/index.mjs
// decides what they show. Their fixed texts carry data-text keys (i18n.mjs applyTexts); the
// changing ones are set through `t(key, values)`, the lab's language.
import { STAGES } from './steps.mjs';

/** The formula and its stages as buttons (data-stage) into `holder`; returns the strip. */
export function buildFormulaStrip(holder) {
  const title = document.createElement('p');
  title.className = 'formula-text';
  title.dataset.text = 'walk.formula';
  const strip = document.createElement('ol');
  strip.className = 'stages';
  strip.append(...STAGES.map((stage) => {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.stage = stage;
    button.dataset.text = `walk.stage.${stage}`;
    button.dataset.title = 'walk.jump';
    li.append(button);
    // RoPE's stage is there only when the layer rotates q and k (showRotation)
    li.hidden = stage === 'rope';
    return li;
  }));
  holder.append(title, strip);
  return strip;
}

/**
 * The formula and its strip with RoPE's stage (RoPE(Q), RoPE(K) between the projections and QKᵀ)
 * when the layer shown rotates q and k, without it otherwise (review 9, finding 6); true when it
 * changed (the caller applies the texts again).
 */
export function showRotation(formula, strip, rotates) {
  const title = formula.querySelector('.formula-text');
  const key = rotates ? 'walk.formulaRope' : 'walk.formula';
  const item = strip.querySelector('[data-stage="rope"]').parentElement;
  if (title.dataset.text === key && item.hidden === !rotates) return false;
  title.dataset.text = key;
  item.hidden = !rotates;
  return true;
}

/** The walk panel's parts in `panel`: { start, back, next, stop, position, text, arithmetic, keys, more }. */
export function buildWalkPanel(panel) {
  const button = (key, id) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.id = id;
    b.dataset.text = key;
    return b;
  };
  const parts = {
    start: button('walk.start', 'walk-start'),
    back: button('walk.back', 'walk-back'),
    next: button('walk.next', 'walk-next'),
    stop: button('walk.stop', 'walk-stop'),
    position: document.createElement('span'),
    text: document.createElement('p'),
    arithmetic: document.createElement('ol'),
    keys: document.createElement('p'),
    more: document.createElement('p'),
  };
  parts.position.className = 'walk-position';
  parts.position.setAttribute('aria-live', 'polite');
  parts.text.className = 'walk-text';
  parts.arithmetic.className = 'walk-arithmetic';
  parts.keys.className = 'hint walk-keys';
  parts.keys.dataset.text = 'walk.keys';
  // a step longer than the panel (RoPE's arithmetic on a phone, review 9, finding 3): said at its foot
  parts.more.className = 'walk-more';
  parts.more.dataset.text = 'walk.more';
  parts.more.hidden = true;
  parts.more.setAttribute('aria-hidden', 'true');
  const bar = document.createElement('div');
  bar.className = 'walk-bar';
  bar.append(parts.start, parts.back, parts.next, parts.stop, parts.position);
  panel.append(bar, parts.text, parts.arithmetic, parts.keys, parts.more);
  return parts;
}

/**
 * The line "more of this step below" shown while the panel holds more than it shows below what is
 * scrolled into view (the panel scrolls inside; its buttons stay at its top).
 */
export function showMore(panel, more, walking) {
  const rest = panel.scrollHeight - panel.clientHeight - panel.scrollTop;
  const hidden = !walking || rest <= 1;
  if (more.hidden !== hidden) more.hidden = hidden;
}

/**
 * Fills the panel: the intro when not walking, else the step's position, sentence and arithmetic.
 * step: { index, count, text, lines, layer?, layers?, onward?, backward? } (in a stack: its layer,
 * and whether Next and Back go on into the next or the previous layer)
 */
export function renderWalkPanel(parts, step, t) {
  const { start, back, next, stop, position, text, arithmetic, keys } = parts;
  start.hidden = step !== null;
  for (const b of [back, next, stop]) b.hidden = step === null;
  keys.hidden = step === null;
  if (step === null) {
    position.textContent = '';
    text.textContent = t('walk.intro');
    arithmetic.replaceChildren();
    return;
  }
  // aria-disabled, not disabled: the button keeps the focus, so the keys keep working at either end
  back.setAttribute('aria-disabled', String(step.index === 0 && !step.backward));
  next.setAttribute('aria-disabled', String(step.index === step.count - 1 && !step.onward));
  position.textContent = t(step.layers ? 'walk.positionLayer' : 'walk.position', { step: step.index + 1, count: step.count, layer: step.layer, layers: step.layers });
  text.textContent = step.text;
  arithmetic.replaceChildren(...step.lines.map((line) => {
    const li = document.createElement('li');
    li.textContent = line;
    return li;
  }));
}
