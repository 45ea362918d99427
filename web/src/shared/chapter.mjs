// The markup the chapters of modern attention share (web/src/flash/, web/src/kv-cache/): a section with
// its title, intro, a row of controls ending in the run button, a status line, and a body (hidden until
// there is a result) holding a scrolling table, a step-through (previous, next) and a live line that
// says the chosen step's arithmetic. Every text is set by the chapter's relabel() (textContent only).
// `key` names the parts for tests: data-flash="table", data-kv="prev", …. The chapters' small
// controls (a labelled number input) are built here too.

export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A number input from `min` to `max` by `step` (whole steps unless given), showing `value`; `data` its data-* attributes. */
export function numberInput({ min, max, value, step = 1, data = {} }) {
  const input = element('input');
  Object.assign(input, { type: 'number', min: String(min), max: String(max), step: String(step), value: String(value) });
  Object.assign(input.dataset, data);
  return input;
}

/** A control's label: its text in parts[`${name}Text`] (relabel() sets it), then the control. */
export function labelled(parts, name, input) {
  const label = element('label');
  parts[`${name}Text`] = element('span');
  label.append(parts[`${name}Text`], ' ', input);
  return label;
}

/**
 * Sets `text` as `node`'s text with each ℓ in a span.ell, drawn in the page's sans font: in a
 * monospace line in Hindi the system's monospace font for the language (Lohit Devanagari here) draws
 * ℓ like ι (styles.css, .ell). Text only, no markup.
 */
export function setLineText(node, text) {
  node.replaceChildren(...text.split('ℓ').flatMap((piece, i) => (i ? [element('span', 'ell', 'ℓ'), piece] : [piece])));
}

function button(key, name) {
  const node = element('button');
  node.type = 'button';
  node.dataset[key] = name;
  return node;
}

/**
 * The chapter's parts: { section, title, intro, controls, run, status, body, table, prev, next, [line] }
 * where `line` is the step-through's live line (data-<key>="<line>"); the chapter appends its own
 * controls before `run` (controls.prepend) and its own paragraphs to `body`.
 */
export function chapterParts({ view, key, className, line }) {
  const parts = { section: element('section', `${className} panel`) };
  parts.section.dataset.view = view;
  parts.title = element('h2');
  parts.title.id = `${key}-title-${Math.random().toString(36).slice(2)}`;
  parts.section.setAttribute('aria-labelledby', parts.title.id);
  parts.intro = element('p');
  parts.controls = element('div', 'flash-controls');
  parts.run = button(key, 'run');
  parts.controls.append(parts.run);
  parts.status = element('p', 'flash-status');
  parts.status.setAttribute('role', 'status');
  parts.body = element('div', 'flash-body');
  parts.body.hidden = true;
  const scroll = element('div', 'scroll');
  scroll.tabIndex = 0;
  parts.table = element('table', 'flash-table');
  parts.table.dataset[key] = 'table';
  scroll.append(parts.table);
  const stepper = element('div', 'flash-stepper');
  parts.prev = button(key, 'prev');
  parts.next = button(key, 'next');
  stepper.append(parts.prev, parts.next);
  parts[line] = element('p', 'flash-arithmetic');
  parts[line].dataset[key] = line;
  parts[line].setAttribute('aria-live', 'polite');
  parts.body.append(scroll, stepper, parts[line]);
  parts.section.append(parts.title, parts.intro, parts.controls, parts.status, parts.body);
  return parts;
}
