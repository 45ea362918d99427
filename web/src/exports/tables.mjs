// The toolbar's table exports: a table of the last computation in a format (CSV, JSON, Markdown,
// LaTeX) at a precision, previewed, downloaded or copied.
import { tablesOf, settingsOf, titleOf, exportTable, FORMATS } from './formats.mjs';
import { copyText, download, toggle } from './toolbar.mjs';

const tables = ({ getView, t }) => tablesOf(getView(), t);

// the Numbers each format starts with: Markdown and LaTeX as the lab shows them (its Digits), CSV and JSON exact
const PRECISION_FOR = { csv: 'shortest', json: 'shortest', md: 'display', tex: 'display' };

/** The table menu (in the lab's language) and the preview. */
export function fillTableChoices(toolbar) {
  const select = toolbar.$('export-table');
  const chosen = select.value;
  select.replaceChildren(...tables(toolbar).map((table) => {
    const option = document.createElement('option');
    option.value = table.id;
    option.textContent = table.caption;
    return option;
  }));
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  showPreview(toolbar);
}

/** The chosen table in the chosen format: { text, name, type }. */
export function currentExport(toolbar) {
  const { $, getState, getView, t } = toolbar;
  const table = tables(toolbar).find((each) => each.id === $('export-table').value) ?? tables(toolbar)[0];
  const format = $('export-format').value;
  // titled with the model and layer when the lab holds one (review 10, E 2)
  const titled = { ...table, caption: titleOf(table, getState(), t) };
  const text = exportTable(titled, format, settingsOf(getState(), getView(), t), { precision: $('export-precision').value });
  return { text, name: `attention-lab-${table.id}.${FORMATS[format].extension}`, type: FORMATS[format].type };
}

function showPreview(toolbar) {
  if (!toolbar.$('export-practising').hidden) return;  // practising: the tables would give the answers
  toolbar.preview.textContent = currentExport(toolbar).text;
}

export function wireTables(toolbar) {
  const { $ } = toolbar;
  toggle($('export-toggle'), $('export-panel'), () => fillTableChoices(toolbar));
  $('export-table').addEventListener('change', () => showPreview(toolbar));
  $('export-format').addEventListener('change', () => {
    // slides take the numbers as the lab shows them, files for a program every float32 digit
    // (review 10, E 4), unless the reader has chosen
    if (!toolbar.precisionChosen) $('export-precision').value = PRECISION_FOR[$('export-format').value] ?? 'shortest';
    showPreview(toolbar);
  });
  $('export-precision').addEventListener('change', () => {
    toolbar.precisionChosen = true;
    showPreview(toolbar);
  });
  $('export-download').addEventListener('click', () => {
    const { text, name, type } = currentExport(toolbar);
    download(toolbar, name, new Blob([text], { type }));
  });
  $('export-copy').addEventListener('click', () => copyText(toolbar, currentExport(toolbar).text, 'table'));
}
