// Real models' tables as files a lecturer can take away (review 10, finding D): the next tokens, a
// [MASK]'s guesses and a head's weights, each in CSV, Markdown or LaTeX through the lab's own writers
// (exports/formats.mjs: its escaping of = + - @ cells, of Markdown and of LaTeX), numbers the page's
// (the shortest decimal that reads back as the same float32), the model and the sentence typed on
// header lines. File names say the model, what the table is and its layer and head; a model's name
// comes from its config.json (reader text): only [a-z0-9-] of it is kept.
import { exportTable, FORMATS } from '../exports/formats.mjs';
import { stripControls } from '../shared/bidi.mjs';

/** The formats offered under each table (keys of the lab's FORMATS). */
export const TABLE_FORMATS = ['csv', 'md', 'tex'];
const FORMAT_NAMES = { csv: 'CSV', md: 'Markdown', tex: 'LaTeX' };

/** A model's name as a file name's first part: small letters, digits and - only ("model" when none is left). */
export function fileStem(name) {
  const kept = String(name ?? '').toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-{2,}/g, '-').replace(/^-|-$/g, '');
  return kept.slice(0, 60) || 'model';
}

/** The header lines of a file: the model and the sentence typed (without directional controls), and more. */
export const settingsFor = ({ model, sentence }, more = {}) => ({ model: String(model ?? ''), sentence: stripControls(String(sentence ?? '')), ...more });

/** A list of guessed tokens ({ id, token, probability }) as the lab's table: one row per token, its id and probability. */
export function guessesTable(list, caption, readable) {
  const values = new Float64Array(list.length * 2);
  list.forEach(({ id, probability }, i) => { values[i * 2] = id; values[i * 2 + 1] = probability; });
  return { caption, rowLabels: list.map(({ token }) => readable(token)), columnLabels: ['id', 'probability'], values };
}

/** A head's weights (n × n, query rows, key columns) as the lab's table. */
export const weightsTable = (weights, tokens, caption) => ({ caption, rowLabels: tokens, columnLabels: tokens, values: weights });

/**
 * A row of buttons, one per format: a click saves `${stem}.${extension}`, the table written then
 * (table(): the table, settings: its header lines). download(name, blob) saves a file.
 */
export function exportButtons({ stem, table, settings, label, download, t }) {
  const bar = document.createElement('p');
  bar.className = 'model-table-export';
  const said = document.createElement('span');
  said.textContent = t('models.tableExport');
  bar.append(said);
  for (const format of TABLE_FORMATS) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.format = format;
    button.textContent = FORMAT_NAMES[format];
    button.setAttribute('aria-label', t('models.tableExportLabel', { table: label, format: FORMAT_NAMES[format] }));
    button.addEventListener('click', () => {
      const text = exportTable(table(), format, settings());
      download(`${stem}.${FORMATS[format].extension}`, new Blob([text], { type: FORMATS[format].type }));
    });
    bar.append(' ', button);
  }
  return bar;
}
