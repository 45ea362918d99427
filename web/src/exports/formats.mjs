// Tables as files: CSV, JSON, Markdown and LaTeX (tabular), each carrying its token labels and the
// settings that produced it. Pure: a table in, text out. A masked score (−∞) is "−∞" in CSV (text a
// spreadsheet cannot take for a formula), null in JSON, −∞ in Markdown and LaTeX.
//
// Every text from the reader (tokens, sentences, labels, settings) passes through one escaper per
// format, so it can never become a formula (CSV), a link, heading, HTML or code (Markdown), or a
// command or comment (LaTeX). Numbers are written at the chosen precision (PRECISIONS).
import { formatFull, precision } from '../shared/format.mjs';
import { keyColumns, valueColumns, concatColumns, outputProjectionRows } from '../shared/labels.mjs';
import { message } from '../i18n/index.mjs';
import { csvField, oneLine } from '../shared/csv.mjs';
import { stripControls } from '../shared/bidi.mjs';

export { csvField };

/** The settings behind a view, as plain data; its words in the language of `t` (English without it). */
export function settingsOf(state, view, t = message) {
  return {
    // the sentence typed: under Real models when the lab holds a model's layer (its tokens on their own
    // line), else the lab's box; without the directional controls the chips drop (review 8, hostile text)
    sentence: stripControls(state.modelBlock?.source?.text ?? state.sentence),
    ...(view.self ? {} : { context: stripControls(state.contextSentence) }),
    tokens: view.tokens.join(' '),
    dModel: view.dModel, heads: view.heads, dK: view.dK, dV: view.dV,
    scale: state.scaleMode === 'custom' ? `÷ ${state.scaleDivisor}` : state.scaleMode === 'sqrt_dk' ? `÷ √d_k = ${formatFull(view.result.shape.scale)}` : t('export.setting.none'),
    mask: state.maskMode,
    weights: weightsSetting(state, t),
    outputProjection: view.weights.wo ? 'W_O' : t('export.setting.none'),
    ...(state.preset ? { preset: state.preset } : {}),
  };
}

// Where the weights came from: seeded, identity, a real model's layer (review 8, 3), or given by hand
function weightsSetting(state, t) {
  if (state.weightsMode === 'random') return t('export.setting.random', { seed: state.seed });
  if (state.weightsMode === 'identity') return t('export.setting.identity');
  const source = state.modelBlock?.source;
  if (!source) return t('export.setting.custom');
  // whether the reader typed over any of the model's numbers, and how many (review 10, E 3)
  const count = editedCells(state);
  const edited = count ? t('export.edited.some', { count }) : t('export.edited.none');
  return t('export.setting.modelEdited', { model: source.model, layer: source.layer, layers: source.layers, edited });
}

/**
 * The cells the reader typed since the lab took a model's layer: X's (and C's), the block's MLP and
 * norms (state.blockEdits), and the attention's W_q, W_k, W_v, W_O (modelBlock.weightEdits, kept by
 * withWeightEdit while the lab holds a model's layer). A cell typed twice counts once.
 */
export function editedCells(state) {
  const count = (edits) => Object.keys(edits ?? {}).length;
  return count(state.xEdits) + count(state.contextEdits) + count(state.blockEdits) + count(state.modelBlock?.weightEdits);
}

/**
 * A table's title: its caption, and when the lab holds a model's layer, which model and layer first
 * ("qwen2, layer 2 of 2, head 1: Weights (softmax)"), so a slide tells Qwen2's from BERT's (review 10, E 2).
 */
export function titleOf(table, state, t = message) {
  const source = state.modelBlock?.source;
  if (!source) return table.caption;
  const values = { model: source.model, layer: source.layer, layers: source.layers };
  return table.head
    ? t('export.caption.modelHead', { ...values, head: table.head, table: table.name })
    : t('export.caption.model', { ...values, table: table.caption });
}

/**
 * Every table of a view: { id, caption, rowLabels, columnLabels, values }, a head's also its `name`
 * (the caption without the head) and `head` (1-based); captions in the language of `t`.
 */
export function tablesOf(view, t = message) {
  const tables = [{ id: 'x', caption: t('export.caption.x'), rowLabels: view.tokens, columnLabels: view.columns, values: view.x }];
  if (!view.self) tables.push({ id: 'context', caption: t('export.caption.context'), rowLabels: view.keyTokens, columnLabels: view.columns, values: view.context });
  for (let h = 0; h < view.heads; h++) {
    const trace = view.result.heads[h];
    const at = (table) => ({ caption: t('export.caption.perHead', { table, head: h + 1 }), name: table, head: h + 1 });
    const size = (width) => view.dModel * width;
    // grouped-query attention: head h's W_k and W_v are its key/value head g's
    const g = Math.floor(h / (view.heads / (view.kvHeads ?? view.heads)));
    tables.push(
      { id: `wq-${h}`, ...at('W_q'), rowLabels: view.columns, columnLabels: keyColumns(view), values: view.weights.wq.subarray(h * size(view.dK), (h + 1) * size(view.dK)) },
      { id: `wk-${h}`, ...at('W_k'), rowLabels: view.columns, columnLabels: keyColumns(view), values: view.weights.wk.subarray(g * size(view.dK), (g + 1) * size(view.dK)) },
      { id: `wv-${h}`, ...at('W_v'), rowLabels: view.columns, columnLabels: valueColumns(view), values: view.weights.wv.subarray(g * size(view.dV), (g + 1) * size(view.dV)) },
      // rotary positions: q and k before the rotation too
      ...(trace.qUnrotated ? [
        { id: `qUnrotated-${h}`, ...at(t('table.qUnrotated')), rowLabels: view.tokens, columnLabels: keyColumns(view), values: trace.qUnrotated },
        { id: `kUnrotated-${h}`, ...at(t('table.kUnrotated')), rowLabels: view.keyTokens, columnLabels: keyColumns(view), values: trace.kUnrotated },
      ] : []),
      { id: `q-${h}`, ...at('Q'), rowLabels: view.tokens, columnLabels: keyColumns(view), values: trace.q },
      { id: `k-${h}`, ...at('K'), rowLabels: view.keyTokens, columnLabels: keyColumns(view), values: trace.k },
      { id: `v-${h}`, ...at('V'), rowLabels: view.keyTokens, columnLabels: valueColumns(view), values: trace.v },
      { id: `scores-${h}`, ...at(t('caption.scores')), rowLabels: view.tokens, columnLabels: view.keyTokens, values: trace.scores },
      { id: `scaled-${h}`, ...at(t('table.scaled')), rowLabels: view.tokens, columnLabels: view.keyTokens, values: trace.scaled },
      { id: `weights-${h}`, ...at(t('caption.weights')), rowLabels: view.tokens, columnLabels: view.keyTokens, values: trace.weights },
      { id: `z-${h}`, ...at('Z'), rowLabels: view.tokens, columnLabels: valueColumns(view), values: trace.z },
    );
  }
  const concat = concatColumns(view);
  tables.push({ id: 'concat', caption: t('table.concat'), rowLabels: view.tokens, columnLabels: concat, values: view.result.concat });
  if (view.weights.wo) tables.push({ id: 'wo', caption: 'W_O', rowLabels: outputProjectionRows(view), columnLabels: view.columns, values: view.weights.wo });
  tables.push({ id: 'output', caption: view.weights.wo ? 'Z_f = concat · W_O' : t('table.output'), rowLabels: view.tokens, columnLabels: view.weights.wo ? view.columns : concat, values: view.result.output });
  return tables;
}

const rowsOf = (table) => table.rowLabels.map((_, r) => Array.from(table.values.subarray(r * table.columnLabels.length, (r + 1) * table.columnLabels.length)));

/**
 * How numbers are written: the shortest decimal that reads back as the same float32 (no
 * 0.048900004), all nine significant digits a float32 can need, or as the lab shows them (its Digits).
 */
export const PRECISIONS = {
  shortest: formatFull,
  full: (v) => String(Number(Math.fround(v).toPrecision(9))),
  // as the lab shows it: its precision (Digits), plain decimal notation (1.68e-7, not × 10⁻⁷)
  display: (v) => (precision() === 0 ? formatFull(v) : String(Number(v.toPrecision(precision())))),
};
export const DEFAULT_PRECISION = 'shortest';

// the CSV field and the one-line rule live in shared/csv.mjs (the models' stream export writes CSV too)

const csvLine = (fields) => fields.map(csvField).join(',');

function toCsv(table, settings, number) {
  const lines = [`# Attention Lab,${csvField(table.caption)}`];
  for (const [key, value] of Object.entries(settings)) lines.push(`# ${key},${csvField(value)}`);
  lines.push(csvLine(['token', ...table.columnLabels]));
  rowsOf(table).forEach((row, r) => lines.push(
    [csvField(table.rowLabels[r]), ...row.map((v) => (v === -Infinity ? '−∞' : csvField(number(v), { number: true })))].join(',')));
  return `${lines.join('\n')}\n`;
}

function toJson(table, settings, number) {
  return `${JSON.stringify({
    table: table.caption,
    settings,
    rows: table.rowLabels,
    columns: table.columnLabels,
    values: rowsOf(table).map((row) => row.map((v) => (v === -Infinity ? null : Number(number(v))))),
    ...(Array.from(table.values).includes(-Infinity) ? { null: 'a masked score, −∞' } : {}),
  }, null, 2)}\n`;
}

// ---- Markdown (CommonMark and GitHub tables)

/**
 * Reader text as inert Markdown, escaping only what CommonMark and GitHub's Markdown need where it
 * stands (review 10, E: a title full of \( \: \. showed its backslashes on a slide):
 * - always: \ ` * [ ] < > | ~ $ (code, emphasis, links, images, HTML, autolinks, table cells,
 *   strikethrough, math); ! before [ (an image) is inert once its [ is;
 * - _ where it can open or close emphasis (not inside a word: d_k stays d_k);
 * - & only where it starts an entity (&lt;), @ only before a word (a mention, an e-mail);
 * - a linkifier's URL: the : of :// and the . of a name (evil.com, www.x), not of a number (2.828);
 * - at the start: # + - = and a list's number (1. / 1)), a heading, list or rule;
 * line breaks as spaces. So no link, image, heading, HTML or code can open and a | cannot end a cell.
 */
export function markdownText(text) {
  return oneLine(text)
    .replace(/[\\`*[\]<>|~$]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])|&(?=#?\w+;)|@(?=\w)|:(?=\/\/)|(?<=[\p{L}\p{N}])\.(?=\p{L})/gu, '\\$&')
    .replace(/^([#+\-=])/, '\\$1')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

function toMarkdown(table, settings, number) {
  const settingsLine = Object.entries(settings).map(([k, v]) => `${k}: ${v}`).join('; ');
  const lines = [`**${markdownText(table.caption)}** (${markdownText(settingsLine)})`, ''];
  lines.push(`| token | ${table.columnLabels.map(markdownText).join(' | ')} |`);
  lines.push(`|---|${table.columnLabels.map(() => '---:').join('|')}|`);
  rowsOf(table).forEach((row, r) => lines.push(`| ${markdownText(table.rowLabels[r])} | ${row.map((v) => (v === -Infinity ? '−∞' : number(v))).join(' | ')} |`));
  return `${lines.join('\n')}\n`;
}

// ---- LaTeX (a tabular for pdflatex)

const LATEX_SPECIAL = { '\\': '\\textbackslash{}', '&': '\\&', '%': '\\%', $: '\\$', '#': '\\#', _: '\\_', '{': '\\{', '}': '\\}', '~': '\\textasciitilde{}', '^': '\\textasciicircum{}',
  '<': '\\textless{}', '>': '\\textgreater{}', '|': '\\textbar{}', '−': '$-$', '∞': '$\\infty$', '[': '{[}', ']': '{]}' };

/**
 * Reader text as inert LaTeX: the ten specials and < > | as text commands, every line break a space,
 * invisible control characters dropped, and characters pdflatex's default font encoding (OT1)
 * cannot set (past Latin-1: emoji, CJK, …; and « » Ð Þ ð þ) written as their code point, so the file compiles as it is. [ ] are
 * braced and a leading * is guarded: after a row's \\ they would be read as its arguments.
 */
export function latexText(text) {
  return oneLine(text)
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[\\&%$#_{}~^<>|−∞[\]]/g, (c) => LATEX_SPECIAL[c])
    .replace(/^\*/, '{}*')
    // eslint-disable-next-line no-control-regex -- the range is Latin-1, from U+0000
    .replace(/[«»ÐÞðþ]|[^\u0000-\u00ff]/gu, (c) => `{[}U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}{]}`);
}

function toLatex(table, settings, number) {
  // comments carry the settings: one line each, so no line break can end a comment early
  const lines = [`% Attention Lab: ${oneLine(table.caption)}`, ...Object.entries(settings).map(([k, v]) => `% ${k}: ${oneLine(v)}`)];
  lines.push(`\\begin{tabular}{l${'r'.repeat(table.columnLabels.length)}}`, '\\hline');
  lines.push(`token & ${table.columnLabels.map(latexText).join(' & ')} \\\\`, '\\hline');
  rowsOf(table).forEach((row, r) => lines.push(`${latexText(table.rowLabels[r])} & ${row.map((v) => (v === -Infinity ? '$-\\infty$' : number(v))).join(' & ')} \\\\`));
  lines.push('\\hline', '\\end{tabular}');
  return `${lines.join('\n')}\n`;
}

export const FORMATS = {
  csv: { extension: 'csv', type: 'text/csv', write: toCsv },
  json: { extension: 'json', type: 'application/json', write: toJson },
  md: { extension: 'md', type: 'text/markdown', write: toMarkdown },
  tex: { extension: 'tex', type: 'application/x-tex', write: toLatex },
};

/** A table as text in `format` (a key of FORMATS), numbers at `precision` (a key of PRECISIONS). */
export function exportTable(table, format, settings, { precision = DEFAULT_PRECISION } = {}) {
  if (!Object.hasOwn(FORMATS, format)) throw new RangeError(`unknown export format "${String(format).slice(0, 40)}"`);
  if (!Object.hasOwn(PRECISIONS, precision)) throw new RangeError(`unknown precision "${String(precision).slice(0, 40)}"`);
  return FORMATS[format].write(table, settings, PRECISIONS[precision]);
}
