// "Make an exercise": a teacher chooses which cells to blank (for a query token, a key, a head and
// a column), the tolerance and whether hints are allowed, and gets a link to the page, an iframe
// snippet and a component snippet that open exactly that exercise. The inputs are the lab's own
// at the time (a preset, or a sentence and numbers typed above).
import { element } from './render.mjs';
import { parseAnswer } from './answer.mjs';
import { practiceSettings } from './spec.mjs';
import { KINDS, defaultCells, buildExercises, cellFits } from './exercises.mjs';
import { stateToFragment } from '../state/index.mjs';
import { componentSnippet } from '../exports/index.mjs';

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

/** t: the lab's messages in its language now; getLanguage(): its code, which the link and snippets carry. */
export function createTeacherPanel({ prefix, t, getState, links, announce, getLanguage = () => 'en' }) {
  const id = (name) => `${prefix}-teacher-${name}`;
  // the fixed words, each node with its key: written again in another language (relabel)
  const words = [];
  const say = (node, key) => {
    words.push([node, key]);
    node.textContent = t(key);
    return node;
  };
  const toggle = element('button', { attributes: { type: 'button', 'aria-expanded': 'false', 'aria-controls': id('panel'), 'data-role': 'teacher' } });
  const panel = element('div', { className: 'panel teacher', attributes: { id: id('panel') } });
  say(toggle, 'practice.teacher.toggle');
  panel.hidden = true;
  toggle.addEventListener('click', () => {
    panel.hidden = !panel.hidden;
    toggle.setAttribute('aria-expanded', String(!panel.hidden));
  });

  const field = (name, key, control) => {
    control.id = id(name);
    control.dataset.field = name;
    return element('div', { className: 'field' }, [say(element('label', { attributes: { for: id(name) } }), key), control]);
  };
  const query = element('select');
  const key = element('select');
  const head = element('select');
  const column = element('input', { attributes: { type: 'number', min: '1', step: '1', inputmode: 'numeric' } });
  const relative = element('input', { attributes: { type: 'text', inputmode: 'decimal', autocomplete: 'off' } });
  const absolute = element('input', { attributes: { type: 'text', inputmode: 'decimal', autocomplete: 'off' } });
  const hints = element('input', { attributes: { type: 'checkbox', id: id('hints'), 'data-field': 'hints' } });
  const kindBoxes = KINDS.map((kind) => element('input', { attributes: { type: 'checkbox', value: kind, id: id(`kind-${kind}`) } }));
  const problem = element('p', { className: 'teacher-problem', attributes: { role: 'alert' } });
  const write = say(element('button', { attributes: { type: 'button', 'data-role': 'write' } }), 'practice.teacher.write');
  const outputs = element('div', { className: 'teacher-outputs' });
  outputs.hidden = true;
  const snippet = (name, intro) => {
    const code = element('code', { attributes: { id: id(name) } });
    const copy = say(element('button', { attributes: { type: 'button' } }), 'practice.teacher.copy');
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(code.textContent);
        announce(t('practice.teacher.copied'));
      } catch {
        announce(t('practice.teacher.copyByHand'));
      }
    });
    outputs.append(say(element('p', { className: 'hint' }), intro), element('pre', {}, [code]), copy);
    return code;
  };

  panel.append(
    say(element('h3'), 'practice.teacher.title'),
    say(element('p', { className: 'hint' }), 'practice.teacher.intro'),
    element('div', { className: 'teacher-fields' }, [
      field('query', 'practice.teacher.query', query),
      field('key', 'practice.teacher.key', key),
      field('head', 'practice.teacher.head', head),
      field('column', 'practice.teacher.column', column),
      field('relative', 'practice.teacher.relative', relative),
      field('absolute', 'practice.teacher.absolute', absolute),
    ]),
    element('fieldset', { className: 'teacher-kinds' }, [
      say(element('legend'), 'practice.teacher.cells'),
      ...KINDS.map((kind, i) => element('label', {}, [kindBoxes[i], ' ', say(element('span'), `practice.kind.${kind}`)])),
    ]),
    element('label', { className: 'check' }, [hints, ' ', say(element('span'), 'practice.teacher.hints')]),
    element('div', { className: 'practice-actions' }, [write]),
    problem,
    outputs,
  );
  const linkCode = snippet('link', 'practice.teacher.link');
  const iframeCode = snippet('iframe', 'practice.teacher.iframe');
  const componentCode = snippet('component', 'practice.teacher.component');
  let said = null;  // the message under the button, as a function of the language (written again on relabel)
  const sayProblem = (make) => {
    said = make;
    problem.textContent = make ? make() : '';
  };

  let view = null;
  const options = (select, labels) => {
    const value = select.value;
    select.replaceChildren(...labels.map((label, i) => element('option', { text: label, attributes: { value: String(i) } })));
    if (value !== '' && Number(value) < labels.length) select.value = value;
  };

  // a tolerance typed by a teacher: a number in [0, max], or a message naming the field
  function readTolerance(input, name, max, scale) {
    const read = parseAnswer(input.value);
    if (read.value === undefined || read.value < 0 || read.value > max) {
      const text = input.value.slice(0, 40);
      sayProblem(() => t('practice.teacher.badTolerance', { field: t(name), max, text }));
      input.setAttribute('aria-invalid', 'true');
      return null;
    }
    input.removeAttribute('aria-invalid');
    return read.value / scale;
  }

  write.addEventListener('click', () => {
    if (!view) return;
    sayProblem(null);
    outputs.hidden = true;  // no stale link beside a message
    const kinds = kindBoxes.filter((box) => box.checked && !box.disabled).map((box) => box.value);
    const rel = readTolerance(relative, 'practice.teacher.relative', 100, 100);
    const abs = rel === null ? null : readTolerance(absolute, 'practice.teacher.absolute', 1000, 1);
    if (rel === null || abs === null) return;
    if (!kinds.length) {
      sayProblem(() => t('practice.teacher.noCell'));
      return;
    }
    const cells = cellsFromChoices(view, {
      kinds, query: Number(query.value), key: Number(key.value), head: Number(head.value), column: Math.round(Number(column.value) || 1) - 1,
    });
    // the link opens on the head of the exercise's blanks, whichever tab the teacher had open
    const current = getState();
    const selectedHead = current.selectedHead === 'all' ? 'all' : Number(head.value);
    const state = { ...current, selectedToken: Number(query.value), selectedHead, practice: { cells, relative: rel, absolute: abs, hints: hints.checked } };
    const fragment = stateToFragment(state);
    // a lab in another language than English opens the exercise in it: ?lang=hi, lang="hi"
    const lang = getLanguage();
    const langQuery = lang === 'en' ? '' : `lang=${encodeURIComponent(lang)}`;
    linkCode.textContent = `${links.page}${langQuery ? `?${langQuery}` : ''}${fragment}`;
    iframeCode.textContent = `<iframe src="${links.embed}?mode=practice${langQuery ? `&${langQuery}` : ''}${fragment}" title="Attention Lab exercise" style="width: 100%; border: 0" height="900"></iframe>`;
    // the state carries the practice settings, so the component opens in practice mode
    componentCode.textContent = componentSnippet(links.component, state, lang);
    outputs.hidden = false;
    // every answer 0 (a key the query does not see through this head, a column of zeros): worth saying
    const truths = buildExercises(view, cells.filter((cell) => cellFits(view, cell))).flatMap((e) => e.blanks.map((b) => b.truth));
    const allZero = truths.length > 0 && truths.every((truth) => Math.abs(truth) < 1e-6);
    sayProblem(() => `${t('practice.teacher.written', { count: cells.length })}${allZero ? ` ${t('practice.teacher.allZero')}` : ''}`);
  });

  return {
    toggle,
    panel,
    /** Writes its words again (t now speaks another language). */
    relabel() {
      for (const [node, key] of words) node.textContent = t(key);
      if (said) problem.textContent = said();
    },
    /** Fills the choices from the lab as it is now. */
    fill(nextView, state) {
      const first = view === null;
      view = nextView;
      options(query, view.tokens.map((token, i) => `${i + 1} ${token}`));
      options(key, view.keyTokens.map((token, i) => `${i + 1} ${token}`));
      options(head, Array.from({ length: view.heads }, (_, h) => String(h + 1)));
      column.max = String(Math.max(view.dK, view.dV, view.dModel));
      const usable = { concat: view.heads > 1, output: Boolean(view.weights.wo), scaled: view.result.shape.scale !== 1 };
      kindBoxes.forEach((box) => {
        box.disabled = Object.hasOwn(usable, box.value) && !usable[box.value];
      });
      if (first) {
        const settings = practiceSettings(state.practice);
        query.value = String(Math.min(state.selectedToken, view.tokens.length - 1));
        key.value = String(defaultCells(view, { query: Number(query.value) })[1].col);
        column.value = '1';
        relative.value = String(settings.tolerance.relative * 100);
        absolute.value = String(settings.tolerance.absolute);
        hints.checked = settings.hints;
        // one weight, or its whole row: the row by default
        kindBoxes.forEach((box) => { box.checked = !box.disabled && box.value !== 'weights'; });
      }
    },
  };
}
