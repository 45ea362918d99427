// The residual stream as files: every token's hidden state at every stage, CSV (one row per token and
// stage) and JSON, each number the shortest decimal that reads back as the same float32 (formatFull),
// the model and sentence said first. Token strings go through the lab's one CSV escaper (shared/csv.mjs:
// a cell starting with = + - @ is neutralised, quoted); JSON escapes them itself. Pure: text out.
import { formatFull } from '../shared/format.mjs';
import { csvField } from '../shared/csv.mjs';
import { streamStages } from './stream-check.mjs';

// The stages in English, as the files name them (streamStages: a pre-LN model's last layer before
// and after its final norm)
function stageLabels(stages) {
  return stages.map(({ key, layer, final }) => {
    if (layer === 0) return 'embeddings';
    if (key === 'before-norm') return `after layer ${layer} (before the final norm)`;
    return final ? `after the final norm (hidden state ${layer})` : `after layer ${layer}`;
  });
}

const number = (v) => Number(formatFull(v));

/** The stream as CSV: comment lines (model, sentence), then token index, token, id, stage, e1 … e_d. */
export function streamCsv(result, report) {
  const d = result.hidden[0].length / result.n;
  const stages = streamStages(result, report);
  const labels = stageLabels(stages);
  const lines = [
    `# Attention Lab,${csvField('the residual stream: each token\'s hidden state at each stage')}`,
    `# model,${csvField(`${report.modelType} (${report.architectures?.join(', ') ?? ''})`)}`,
    `# tokens,${result.tokens.map(csvField).join(',')}`,
    ['token index', 'token', 'id', 'stage', 'stage name', ...Array.from({ length: d }, (_, j) => `e${j + 1}`)].join(','),
  ];
  result.tokens.forEach((token, i) => {
    stages.forEach(({ values: state }, s) => {
      const values = Array.from(state.subarray(i * d, (i + 1) * d), (v) => csvField(formatFull(v), { number: true }));
      lines.push([i + 1, csvField(token), result.ids[i], s, csvField(labels[s]), ...values].join(','));
    });
  });
  return `${lines.join('\n')}\n`;
}

/**
 * The stream as JSON: { model, tokens, ids, dModel, stages, hidden[stage][token][feature] }, stages
 * named as `stages` says (a pre-LN model's has one more than transformers' hidden states: its last
 * layer before the final norm).
 */
export function streamJson(result, report) {
  const d = result.hidden[0].length / result.n;
  const stages = streamStages(result, report);
  return `${JSON.stringify({
    table: 'the residual stream: each token\'s hidden state at each stage',
    model: { type: report.modelType, architectures: report.architectures ?? [], layers: report.layers, dModel: d },
    tokens: result.tokens, ids: result.ids, stages: stageLabels(stages),
    hidden: stages.map(({ values: state }) => result.tokens.map((_, i) => Array.from(state.subarray(i * d, (i + 1) * d), number))),
  })}\n`;
}

export const STREAM_FORMATS = {
  csv: { type: 'text/csv', write: streamCsv },
  json: { type: 'application/json', write: streamJson },
};
