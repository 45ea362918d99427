// The sentence's tokens (one button each, the query token pressed) and the input tables X and C.
//   page: { $(id), t(key, values) }
import { renderMatrix } from '../shared/matrix.mjs';
import { unchanged } from './slots.mjs';
import { layerNumber, modelLayerOf, normName } from '../shared/layer-name.mjs';

export function renderTokens({ $ }, tokens, selected) {
  const container = $('tokens');
  if (unchanged(container, `${selected}|${tokens.join('\u0001')}`)) return;
  const buttons = tokens.map((token, i) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = token === '[PAD]' ? 'token pad' : 'token';
    button.textContent = token;
    button.dataset.index = String(i);
    button.setAttribute('aria-pressed', String(i === selected));
    button.tabIndex = i === selected ? 0 : -1;
    return button;
  });
  container.replaceChildren(...buttons);
}

// X's caption says what X is in a stack: LN₁ (or an RMSNorm model's RMSNorm₁) of the stream (pre-LN),
// or the stream entering a layer past the first, or a real model's layer N (review 7, finding 5)
const rmsFirst = (view) => normName(view, view.layer ?? 0, 0).startsWith('RMS');
function xCaption(view) {
  if (!view.self) return 'caption.xQueries';
  if (view.readsNorm) return rmsFirst(view) ? 'caption.xNormRms' : 'caption.xNorm';
  return view.layer > 0 || modelLayerOf(view) ? 'caption.xLayer' : 'caption.x';
}

// X past layer 1 is computed, not typed: the hint says where to type (review 6, finding 10); the
// message a keystroke in it gave (events.mjs) stays while that layer's X is shown
function inputsHint({ $, t }, view) {
  const hint = $('inputs-hint');
  const norm = rmsFirst(view) ? 'section.inputsHintNormRms' : 'section.inputsHintNorm';
  const key = view.typedX !== false ? 'section.inputsHint' : view.readsNorm ? norm
    : view.layer > 0 ? 'section.inputsHintComputed' : 'section.inputsHintPositions';
  if (hint && hint.dataset.text !== key) {
    hint.dataset.text = key;
    hint.textContent = t(key);
  }
  const said = $('x-computed');
  if (said && (view.typedX !== false || said.dataset.layer !== String(view.layer))) said.hidden = true;
}

export function renderInputs({ $, t }, view) {
  inputsHint({ $, t }, view);
  renderMatrix($('x-table'), {
    caption: t(xCaption(view), { n: view.tokens.length, dModel: view.dModel, layer: layerNumber(view, view.layer ?? 0) }),
    label: 'X', t, rowLabels: view.tokens, columnLabels: view.columns, values: view.x, editable: view.typedX !== false,
    address: { matrix: 'x' },
  });
  if (view.self) {
    $('context-table').replaceChildren();
  } else {
    renderMatrix($('context-table'), {
      caption: t('caption.context', { n: view.keyTokens.length, dModel: view.dModel }),
      label: 'C', t, rowLabels: view.keyTokens, columnLabels: view.columns, values: view.context, editable: true,
      address: { matrix: 'context' },
    });
  }
}
