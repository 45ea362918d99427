// Tables as files: CSV, JSON, Markdown and LaTeX (tabular), each carrying its token labels and the
// settings that produced it. Pure: a table in, text out. Numbers are written at full float32
// precision; a masked score (−∞) is "-Infinity" in CSV, null in JSON, −∞ in Markdown and LaTeX.
import { formatFull } from './format.mjs';
import { numbered, keyColumns, valueColumns, concatColumns, outputProjectionRows } from './labels.mjs';

/** The settings behind a view, as plain data. */
export function settingsOf(state, view) {
  return {
    sentence: state.sentence,
    ...(view.self ? {} : { context: state.contextSentence }),
    tokens: view.tokens.join(' '),
    dModel: view.dModel, heads: view.heads, dK: view.dK, dV: view.dV,
    scale: state.scaleMode === 'custom' ? `÷ ${state.scaleDivisor}` : state.scaleMode === 'sqrt_dk' ? `÷ √d_k = ${formatFull(view.result.shape.scale)}` : 'none',
    mask: state.maskMode,
    weights: state.weightsMode === 'random' ? `seeded random (seed ${state.seed})` : state.weightsMode === 'identity' ? 'identity' : 'edited by hand',
    outputProjection: view.weights.wo ? 'W_O' : 'none',
    ...(state.preset ? { preset: state.preset } : {}),
  };
}

/** Every table of a view: { id, caption, rowLabels, columnLabels, values, cols }. */
export function tablesOf(view) {
  const tables = [{ id: 'x', caption: 'X (inputs)', rowLabels: view.tokens, columnLabels: view.columns, values: view.x }];
  if (!view.self) tables.push({ id: 'context', caption: 'C (context)', rowLabels: view.keyTokens, columnLabels: view.columns, values: view.context });
  for (let h = 0; h < view.heads; h++) {
    const trace = view.result.heads[h];
    const at = ` (head ${h + 1})`;
    const size = (width) => view.dModel * width;
    tables.push(
      { id: `wq-${h}`, caption: `W_q${at}`, rowLabels: view.columns, columnLabels: numbered(view.dK), values: view.weights.wq.subarray(h * size(view.dK), (h + 1) * size(view.dK)) },
      { id: `wk-${h}`, caption: `W_k${at}`, rowLabels: view.columns, columnLabels: numbered(view.dK), values: view.weights.wk.subarray(h * size(view.dK), (h + 1) * size(view.dK)) },
      { id: `wv-${h}`, caption: `W_v${at}`, rowLabels: view.columns, columnLabels: numbered(view.dV), values: view.weights.wv.subarray(h * size(view.dV), (h + 1) * size(view.dV)) },
      { id: `q-${h}`, caption: `Q${at}`, rowLabels: view.tokens, columnLabels: keyColumns(view), values: trace.q },
      { id: `k-${h}`, caption: `K${at}`, rowLabels: view.keyTokens, columnLabels: keyColumns(view), values: trace.k },
      { id: `v-${h}`, caption: `V${at}`, rowLabels: view.keyTokens, columnLabels: valueColumns(view), values: trace.v },
      { id: `scores-${h}`, caption: `Scores Q·Kᵀ${at}`, rowLabels: view.tokens, columnLabels: view.keyTokens, values: trace.scores },
      { id: `scaled-${h}`, caption: `Scaled scores${at}`, rowLabels: view.tokens, columnLabels: view.keyTokens, values: trace.scaled },
      { id: `weights-${h}`, caption: `Weights (softmax)${at}`, rowLabels: view.tokens, columnLabels: view.keyTokens, values: trace.weights },
      { id: `z-${h}`, caption: `Z${at}`, rowLabels: view.tokens, columnLabels: valueColumns(view), values: trace.z },
    );
  }
  const concat = concatColumns(view);
  tables.push({ id: 'concat', caption: 'Concatenation', rowLabels: view.tokens, columnLabels: concat, values: view.result.concat });
  if (view.weights.wo) tables.push({ id: 'wo', caption: 'W_O', rowLabels: outputProjectionRows(view), columnLabels: view.columns, values: view.weights.wo });
  tables.push({ id: 'output', caption: view.weights.wo ? 'Z_f = concat · W_O' : 'Output', rowLabels: view.tokens, columnLabels: view.weights.wo ? view.columns : concat, values: view.result.output });
  return tables;
}

const rowsOf = (table) => table.rowLabels.map((_, r) => Array.from(table.values.subarray(r * table.columnLabels.length, (r + 1) * table.columnLabels.length)));

function csvField(text) {
  return /[",\n\r#]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function toCsv(table, settings) {
  const lines = [`# Attention Lab: ${table.caption}`, `# settings: ${JSON.stringify(settings)}`];
  lines.push(['token', ...table.columnLabels].map(csvField).join(','));
  rowsOf(table).forEach((row, r) => lines.push([csvField(table.rowLabels[r]), ...row.map((v) => (v === -Infinity ? '-Infinity' : formatFull(v)))].join(',')));
  return `${lines.join('\n')}\n`;
}

function toJson(table, settings) {
  return `${JSON.stringify({
    table: table.caption,
    settings,
    rows: table.rowLabels,
    columns: table.columnLabels,
    values: rowsOf(table).map((row) => row.map((v) => (v === -Infinity ? null : Number(formatFull(v))))),
    ...(Array.from(table.values).includes(-Infinity) ? { null: 'a masked score, −∞' } : {}),
  }, null, 2)}\n`;
}

function markdownCell(text) {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
}

function toMarkdown(table, settings) {
  const settingsLine = Object.entries(settings).map(([k, v]) => `${k}: ${v}`).join('; ');
  const lines = [`**${markdownCell(table.caption)}** (${markdownCell(settingsLine)})`, ''];
  lines.push(`| token | ${table.columnLabels.map(markdownCell).join(' | ')} |`);
  lines.push(`|---|${table.columnLabels.map(() => '---:').join('|')}|`);
  rowsOf(table).forEach((row, r) => lines.push(`| ${markdownCell(table.rowLabels[r])} | ${row.map((v) => (v === -Infinity ? '−∞' : formatFull(v))).join(' | ')} |`));
  return `${lines.join('\n')}\n`;
}

const LATEX_SPECIAL = { '\\': '\\textbackslash{}', '&': '\\&', '%': '\\%', $: '\\$', '#': '\\#', _: '\\_', '{': '\\{', '}': '\\}', '~': '\\textasciitilde{}', '^': '\\textasciicircum{}' };

export function latexText(text) {
  return text.replace(/[\\&%$#_{}~^]/g, (c) => LATEX_SPECIAL[c]);
}

function toLatex(table, settings) {
  const lines = [`% Attention Lab: ${table.caption}`, ...Object.entries(settings).map(([k, v]) => `% ${k}: ${String(v).replace(/\n/g, ' ')}`)];
  lines.push(`\\begin{tabular}{l${'r'.repeat(table.columnLabels.length)}}`, '\\hline');
  lines.push(`token & ${table.columnLabels.map(latexText).join(' & ')} \\\\`, '\\hline');
  rowsOf(table).forEach((row, r) => lines.push(`${latexText(table.rowLabels[r])} & ${row.map((v) => (v === -Infinity ? '$-\\infty$' : formatFull(v))).join(' & ')} \\\\`));
  lines.push('\\hline', '\\end{tabular}');
  return `${lines.join('\n')}\n`;
}

export const FORMATS = {
  csv: { extension: 'csv', type: 'text/csv', write: toCsv },
  json: { extension: 'json', type: 'application/json', write: toJson },
  md: { extension: 'md', type: 'text/markdown', write: toMarkdown },
  tex: { extension: 'tex', type: 'application/x-tex', write: toLatex },
};

export function exportTable(table, format, settings) {
  return FORMATS[format].write(table, settings);
}
