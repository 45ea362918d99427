// The residual stream as files: every token's hidden state at every stage, CSV (one row per token and
// stage) and JSON, each number the shortest decimal that reads back as the same float32 (formatFull),
// the model and sentence said first. Token strings go through the lab's one CSV escaper (shared/csv.mjs:
// a cell starting with = + - @ is neutralised, quoted); JSON escapes them itself. Pure: text out.
import { formatFull } from '../shared/format.mjs';
import { csvField } from '../shared/csv.mjs';

// The stages in English, as the files name them: hidden state s of the model
function stageLabels(result, report) {
  const count = result.hidden.length - 1;
  return Array.from({ length: count + 1 }, (_, s) => {
    if (s === 0) return 'embeddings';
    return s === count && report.family !== 'bert' ? `after layer ${s} and the final norm` : `after layer ${s}`;
  });
}

const number = (v) => Number(formatFull(v));

/** The stream as CSV: comment lines (model, sentence), then token index, token, id, stage, e1 … e_d. */
export function streamCsv(result, report) {
  const d = result.hidden[0].length / result.n;
  const stages = stageLabels(result, report);
  const lines = [
    `# Attention Lab,${csvField('the residual stream: each token\'s hidden state at each stage')}`,
    `# model,${csvField(`${report.modelType} (${report.architectures?.join(', ') ?? ''})`)}`,
    `# tokens,${result.tokens.map(csvField).join(',')}`,
    ['token index', 'token', 'id', 'stage', 'stage name', ...Array.from({ length: d }, (_, j) => `e${j + 1}`)].join(','),
  ];
  result.tokens.forEach((token, i) => {
    result.hidden.forEach((state, s) => {
      const values = Array.from(state.subarray(i * d, (i + 1) * d), (v) => csvField(formatFull(v), { number: true }));
      lines.push([i + 1, csvField(token), result.ids[i], s, csvField(stages[s]), ...values].join(','));
    });
  });
  return `${lines.join('\n')}\n`;
}

/** The stream as JSON: { model, tokens, ids, dModel, stages, hidden[stage][token][feature] }. */
export function streamJson(result, report) {
  const d = result.hidden[0].length / result.n;
  return `${JSON.stringify({
    table: 'the residual stream: each token\'s hidden state at each stage',
    model: { type: report.modelType, architectures: report.architectures ?? [], layers: report.layers, dModel: d },
    tokens: result.tokens, ids: result.ids, stages: stageLabels(result, report),
    hidden: result.hidden.map((state) => result.tokens.map((_, i) => Array.from(state.subarray(i * d, (i + 1) * d), number))),
  })}\n`;
}

export const STREAM_FORMATS = {
  csv: { type: 'text/csv', write: streamCsv },
  json: { type: 'application/json', write: streamJson },
};
