// The sentence's tokens (one button each, the query token pressed) and the input tables X and C.
//   page: { $(id), t(key, values) }
import { renderMatrix } from '../shared/matrix.mjs';
import { unchanged } from './slots.mjs';

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

// X's caption says what X is in a stack: LN₁ of the stream (pre-LN), or the stream entering a layer past the first
function xCaption(view) {
  if (!view.self) return 'caption.xQueries';
  if (view.readsNorm) return 'caption.xNorm';
  return view.layer > 0 ? 'caption.xLayer' : 'caption.x';
}

export function renderInputs({ $, t }, view) {
  renderMatrix($('x-table'), {
    caption: t(xCaption(view), { n: view.tokens.length, dModel: view.dModel, layer: (view.layer ?? 0) + 1 }),
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
