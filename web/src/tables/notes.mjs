// The example's notes. Once the reader changes the example, a line says from what and how, and
// notes that held only for the example as given are dimmed (class "stale").
//   page: { $(id), t(key, values) }
import { unchanged } from './slots.mjs';

function paragraph(className, text) {
  const p = document.createElement('p');
  if (className) p.className = className;
  p.textContent = text;
  return p;
}

function noteList(t, preset, modified, view) {
  const list = document.createElement('ul');
  for (const note of preset.notes) {
    const li = document.createElement('li');
    const always = typeof note === 'object' && note.always;
    const values = typeof note === 'object' && note.values && view?.result ? note.values(view) : {};
    li.textContent = t(`preset.${preset.id}.${typeof note === 'string' ? note : note.key}`, values);
    if (modified && !always) li.className = 'stale';
    list.append(li);
  }
  return list;
}

// the example's own variations while it is as given; once changed, the way back to it
function actionBar(t, preset, modified) {
  const actions = modified ? [['restore', t('preset.action.restore')]] : (preset.actions ?? []).map((a) => [a.key, t(`preset.action.${a.key}`)]);
  if (!actions.length) return null;
  const bar = document.createElement('div');
  bar.className = 'note-actions';
  bar.append(...actions.map(([key, text]) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.action = key;
    button.textContent = text;
    return button;
  }));
  return bar;
}

// the example in one line (what to remember), on top of its notes
function rememberBox(t, text) {
  const box = document.createElement('div');
  box.className = 'remember';
  const title = document.createElement('strong');
  title.textContent = t('notes.remember');
  box.append(title, paragraph(null, text));
  return box;
}

// the notes' file names are for course authors, out of the reader's way
function sourceDetails(t, preset) {
  const source = document.createElement('details');
  source.className = 'source';
  const summary = document.createElement('summary');
  summary.textContent = t('preset.sourceTitle');
  source.append(summary, paragraph('hint', t('preset.source', { source: preset.source })));
  return source;
}

// The lines above the notes: what to see now (a note's experiment, layers that keep layer 1), or what changed.
function headLines(t, { preset, aspects, replacedWeights, experiment, layers }, modified) {
  const parts = [];
  const title = t(`preset.${preset.id}.title`);
  if (experiment) parts.push(paragraph('experiment', experiment));
  if (layers?.keep) parts.push(paragraph('experiment', layers.line));
  if (modified) parts.push(paragraph('modified', t('preset.modified', { title, aspects: aspects.map((a) => t(`preset.aspect.${a}`)).join(', ') })));
  // the example's hand-made vectors belong to its own sentence: a typed one takes the vocabulary's
  if (preset.state.x && aspects.includes('sentence')) parts.push(paragraph('modified', t('preset.ownSentence', { title })));
  if (replacedWeights) parts.push(paragraph('modified', replacedWeights));
  if (layers && !layers.keep) parts.push(paragraph('modified', layers.line));
  return parts;
}

// what the notes are drawn from, as one string: the same string, nothing to draw again
const notesKey = ({ preset, aspects, replacedWeights, experiment, remember, layers, loaded }) => [
  preset?.id ?? '', aspects.join(','), replacedWeights ?? '', experiment ?? '', remember ?? '', layers?.line ?? '', loaded ? JSON.stringify(loaded) : '',
].join('\u0001');

// Without an example: a real model's layer ("Open this layer in the lab") named with its model and
// layer, rows given row by row, or the reader's own sentence on the vocabulary
function ownNotes(t, loaded) {
  // (not the vocabulary's "0 (absent) to 1 (strong)" story: the block's columns are the model's e1 … e_d, review 7, finding 6)
  if (loaded?.model && loaded.changed) return [paragraph('modified', t('notes.modelChanged', loaded))];
  if (loaded?.model) return [paragraph('modified', t('notes.model', loaded)), paragraph(null, t('notes.modelNote', loaded))];
  if (loaded === 'rows') return [paragraph('modified', t('notes.rows'))];
  return [paragraph('modified', t('vocabulary.own')), paragraph(null, t('vocabulary.note'))];
}

/**
 * preset: the example or null; aspects: what the reader changed; replacedWeights: a sentence or null;
 * view: the result shown (a note's numbers come from it);
 * experiment: what to see now when the change is the one a note proposes (no note is dimmed then), or null;
 * remember: the example in one line, or null;
 * layers: { line, keep } when layers were added (keep: the notes still hold for the layer shown), or null;
 * loaded: without an example, a real model's layer ({ model, architectures, layer, layers, head, n }) or 'rows' (X given row by row), or null.
 */
export function renderNotes({ $, t }, { preset, aspects, replacedWeights, experiment = null, view = null, remember = null, layers = null, loaded = null }) {
  const container = $('notes');
  // a note with numbers from the engine is drawn again whenever they may have changed
  const numbers = preset?.notes.some((note) => note.values) ? view : null;
  if (unchanged(container, notesKey({ preset, aspects, replacedWeights, experiment, remember, layers, loaded })) && !numbers) return;
  if (!preset) {
    container.replaceChildren(...ownNotes(t, loaded));
    return;
  }
  const modified = aspects.length > 0 && !experiment && !layers?.keep;
  const parts = [...(remember ? [rememberBox(t, remember)] : []), ...headLines(t, { preset, aspects, replacedWeights, experiment, layers }, modified)];
  parts.push(noteList(t, preset, modified, view));
  const bar = actionBar(t, preset, modified);
  if (bar) parts.push(bar);
  parts.push(sourceDetails(t, preset));
  container.replaceChildren(...parts);
}
