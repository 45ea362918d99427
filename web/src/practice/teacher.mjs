// "Make an exercise": a teacher chooses which cells to blank (for a query token, a key, a head and
// a column), the tolerance and whether hints are allowed, and gets a link to the page, an iframe
// snippet and a component snippet that open exactly that exercise. The inputs are the lab's own
// at the time (a preset, or a sentence and numbers typed above).
import { element } from './render.mjs';
import { parseAnswer } from './answer.mjs';
import { practiceSettings } from './spec.mjs';
import { KINDS, defaultCells, buildExercises, cellFits } from './exercises.mjs';
import { stateToFragment } from '../state/index.mjs';
import { componentSnippet } from '../state/snippets.mjs';
import { buildScormSection } from './scorm-download.mjs';

/** The cells a teacher's choices give, in the order of the computation. */
export function cellsFromChoices(view, { kinds, query, key, head, column }) {
  const clamp = (value, size) => Math.min(Math.max(value, 0), size - 1);
  const at = { q: view.dK, z: view.dV, output: view.dModel };
  // the row's softmax covers its one weight
  const chosen = kinds.includes('softmax') ? kinds.filter((kind) => kind !== 'weights') : kinds;
  return KINDS.filter((kind) => chosen.includes(kind)).map((matrix) => {
    if (matrix === 'scores' || matrix === 'scaled' || matrix === 'weights') return { matrix, head, row: query, col: key };
    if (matrix === 'softmax') return { matrix, head, row: query, col: 0 };
    if (matrix === 'concat') return { matrix, head, row: query, col: head * view.dV + clamp(column, view.dV) };
    return { matrix, head: matrix === 'output' ? 0 : head, row: query, col: clamp(column, at[matrix]) };
  });
}

/**
 * t: the lab's messages in its language now; getLanguage(): its code, which the link and snippets
 * carry. Returns { toggle, panel, relabel(), fill(view, state) }.
 */
export function createTeacherPanel({ prefix, t, getState, links, announce, getLanguage = () => 'en' }) {
  const teacher = { prefix, t, getState, links, announce, getLanguage, words: [], said: null, view: null };
  const { toggle, panel } = buildPanel(teacher);
  teacher.write.addEventListener('click', () => writeLinks(teacher));
  return {
    toggle,
    panel,
    /** Writes its words again (t now speaks another language). */
    relabel() {
      for (const [node, key] of teacher.words) node.textContent = t(key);
      if (teacher.said) teacher.problem.textContent = teacher.said();
    },
    /** Fills the choices from the lab as it is now. */
    fill: (view, state) => fill(teacher, view, state),
  };
}

const idOf = (teacher, name) => `${teacher.prefix}-teacher-${name}`;

// A fixed word, kept with its key: written again in another language (relabel).
function say(teacher, node, key) {
  teacher.words.push([node, key]);
  node.textContent = teacher.t(key);
  return node;
}

// The toggle and the panel: the choices (teacher.fields), the kinds of cell, the button and what it writes.
function buildPanel(teacher) {
  const id = (name) => idOf(teacher, name);
  const toggle = say(teacher, element('button', { attributes: { type: 'button', 'aria-expanded': 'false', 'aria-controls': id('panel'), 'data-role': 'teacher' } }), 'practice.teacher.toggle');
  const panel = element('div', { className: 'panel teacher', attributes: { id: id('panel') } });
  panel.hidden = true;
  toggle.addEventListener('click', () => {
    panel.hidden = !panel.hidden;
    toggle.setAttribute('aria-expanded', String(!panel.hidden));
  });
  const fields = {
    query: element('select'),
    key: element('select'),
    head: element('select'),
    column: element('input', { attributes: { type: 'number', min: '1', step: '1', inputmode: 'numeric' } }),
    relative: element('input', { attributes: { type: 'text', inputmode: 'decimal', autocomplete: 'off' } }),
    absolute: element('input', { attributes: { type: 'text', inputmode: 'decimal', autocomplete: 'off' } }),
  };
  const field = (name, key) => {
    fields[name].id = id(name);
    fields[name].dataset.field = name;
    return element('div', { className: 'field' }, [say(teacher, element('label', { attributes: { for: id(name) } }), key), fields[name]]);
  };
  Object.assign(teacher, {
    fields,
    hints: element('input', { attributes: { type: 'checkbox', id: id('hints'), 'data-field': 'hints' } }),
    kindBoxes: KINDS.map((kind) => element('input', { attributes: { type: 'checkbox', value: kind, id: id(`kind-${kind}`) } })),
    problem: element('p', { className: 'teacher-problem', attributes: { role: 'alert' } }),
    write: say(teacher, element('button', { attributes: { type: 'button', 'data-role': 'write' } }), 'practice.teacher.write'),
    outputs: element('div', { className: 'teacher-outputs' }),
  });
  teacher.outputs.hidden = true;
  panel.append(
    say(teacher, element('h3'), 'practice.teacher.title'),
    say(teacher, element('p', { className: 'hint' }), 'practice.teacher.intro'),
    element('div', { className: 'teacher-fields' }, ['query', 'key', 'head', 'column', 'relative', 'absolute'].map((name) => field(name, `practice.teacher.${name}`))),
    element('fieldset', { className: 'teacher-kinds' }, [
      say(teacher, element('legend'), 'practice.teacher.cells'),
      ...KINDS.map((kind, i) => element('label', {}, [teacher.kindBoxes[i], ' ', say(teacher, element('span'), `practice.kind.${kind}`)])),
    ]),
    element('label', { className: 'check' }, [teacher.hints, ' ', say(teacher, element('span'), 'practice.teacher.hints')]),
    element('div', { className: 'practice-actions' }, [teacher.write]),
    teacher.problem,
    teacher.outputs,
    buildScormSection(teacher, (node, key) => say(teacher, node, key), () => exerciseOf(teacher)?.state ?? null),
  );
  teacher.codes = { link: snippet(teacher, 'link', 'practice.teacher.link'), iframe: snippet(teacher, 'iframe', 'practice.teacher.iframe'), component: snippet(teacher, 'component', 'practice.teacher.component') };
  return { toggle, panel };
}

// A snippet to copy, with its sentence and Copy button, in the outputs; returns its <code>.
function snippet(teacher, name, intro) {
  const { t } = teacher;
  const code = element('code', { attributes: { id: idOf(teacher, name) } });
  const copy = say(teacher, element('button', { attributes: { type: 'button' } }), 'practice.teacher.copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(code.textContent);
      teacher.announce(t('practice.teacher.copied'));
    } catch {
      teacher.announce(t('practice.teacher.copyByHand'));
    }
  });
  teacher.outputs.append(say(teacher, element('p', { className: 'hint' }), intro), element('pre', {}, [code]), copy);
  return code;
}

// The message under the button, as a function of the language (written again on relabel), or none.
function sayProblem(teacher, make) {
  teacher.said = make;
  teacher.problem.textContent = make ? make() : '';
}

// a tolerance typed by a teacher: a number in [0, max], or a message naming the field
function readTolerance(teacher, input, name, max, scale) {
  const { t } = teacher;
  const read = parseAnswer(input.value);
  if (read.value === undefined || read.value < 0 || read.value > max) {
    const text = input.value.slice(0, 40);
    sayProblem(teacher, () => t('practice.teacher.badTolerance', { field: t(name), max, text }));
    input.setAttribute('aria-invalid', 'true');
    return null;
  }
  input.removeAttribute('aria-invalid');
  return read.value / scale;
}

// Write link: the teacher's choices read, and the link, iframe and component that open them.
function writeLinks(teacher) {
  teacher.outputs.hidden = true;  // no stale link beside a message
  const made = exerciseOf(teacher);
  if (!made) return;
  const { state, cells, view } = made;
  const { t } = teacher;
  showLinks(teacher, state);
  // every answer 0 (a key the query does not see through this head, a column of zeros): worth saying
  const truths = buildExercises(view, cells.filter((cell) => cellFits(view, cell))).flatMap((e) => e.blanks.map((b) => b.truth));
  const allZero = truths.length > 0 && truths.every((truth) => Math.abs(truth) < 1e-6);
  sayProblem(teacher, () => `${t('practice.teacher.written', { count: cells.length })}${allZero ? ` ${t('practice.teacher.allZero')}` : ''}`);
}

// The exercise the teacher's choices describe: { state, cells, view }, or null after saying what is wrong.
function exerciseOf(teacher) {
  const { view, fields, t } = teacher;
  if (!view) return null;
  sayProblem(teacher, null);
  const kinds = teacher.kindBoxes.filter((box) => box.checked && !box.disabled).map((box) => box.value);
  const rel = readTolerance(teacher, fields.relative, 'practice.teacher.relative', 100, 100);
  const abs = rel === null ? null : readTolerance(teacher, fields.absolute, 'practice.teacher.absolute', 1000, 1);
  if (rel === null || abs === null) return null;
  if (!kinds.length) {
    sayProblem(teacher, () => t('practice.teacher.noCell'));
    return null;
  }
  const query = Number(fields.query.value);
  const head = Number(fields.head.value);
  const cells = cellsFromChoices(view, { kinds, query, key: Number(fields.key.value), head, column: Math.round(Number(fields.column.value) || 1) - 1 });
  // the link opens on the head of the exercise's blanks, whichever tab the teacher had open
  const current = teacher.getState();
  const selectedHead = current.selectedHead === 'all' ? 'all' : head;
  const state = { ...current, selectedToken: query, selectedHead, practice: { cells, relative: rel, absolute: abs, hints: teacher.hints.checked } };
  return { state, cells, view };
}

function showLinks(teacher, state) {
  const { links, codes } = teacher;
  const fragment = stateToFragment(state);
  // a lab in another language than English opens the exercise in it: ?lang=hi, lang="hi"
  const lang = teacher.getLanguage();
  const langQuery = lang === 'en' ? '' : `lang=${encodeURIComponent(lang)}`;
  codes.link.textContent = `${links.page}${langQuery ? `?${langQuery}` : ''}${fragment}`;
  codes.iframe.textContent = `<iframe src="${links.embed}?mode=practice${langQuery ? `&${langQuery}` : ''}${fragment}" title="Attention Lab exercise" style="width: 100%; border: 0" height="900"></iframe>`;
  // the state carries the practice settings, so the component opens in practice mode
  codes.component.textContent = componentSnippet(links.component, state, lang);
  teacher.outputs.hidden = false;
}

// The choices from the lab as it is now; the first time, the defaults too.
function fill(teacher, view, state) {
  const { fields, kindBoxes } = teacher;
  const first = teacher.view === null;
  teacher.view = view;
  options(fields.query, view.tokens.map((token, i) => `${i + 1} ${token}`));
  options(fields.key, view.keyTokens.map((token, i) => `${i + 1} ${token}`));
  options(fields.head, Array.from({ length: view.heads }, (_, h) => String(h + 1)));
  fields.column.max = String(Math.max(view.dK, view.dV, view.dModel));
  const usable = { concat: view.heads > 1, output: Boolean(view.weights.wo), scaled: view.result.shape.scale !== 1 };
  kindBoxes.forEach((box) => {
    box.disabled = Object.hasOwn(usable, box.value) && !usable[box.value];
  });
  if (!first) return;
  const settings = practiceSettings(state.practice);
  fields.query.value = String(Math.min(state.selectedToken, view.tokens.length - 1));
  fields.key.value = String(defaultCells(view, { query: Number(fields.query.value) })[1].col);
  fields.column.value = '1';
  fields.relative.value = String(settings.tolerance.relative * 100);
  fields.absolute.value = String(settings.tolerance.absolute);
  teacher.hints.checked = settings.hints;
  // one weight, or its whole row: the row by default
  kindBoxes.forEach((box) => { box.checked = !box.disabled && box.value !== 'weights'; });
}

// A select's options, keeping the choice when it still exists.
function options(select, labels) {
  const value = select.value;
  select.replaceChildren(...labels.map((label, i) => element('option', { text: label, attributes: { value: String(i) } })));
  if (value !== '' && Number(value) < labels.length) select.value = value;
}
