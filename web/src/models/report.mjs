// What was recognised in a model folder, and what was not, as list items in the lab's language:
// the architecture and its sizes, the files and dtypes read, the settings' layout, and the tensors
// skipped (integers, booleans), the tensors not used and the config.json settings not read.
import { isolate } from '../shared/bidi.mjs';

const SHOWN = 12;  // names listed before "and N more"

function names(list, t) {
  const shown = list.slice(0, SHOWN).map((name) => isolate(name)).join(', ');
  return list.length > SHOWN ? t('models.andMore', { names: shown, count: list.length - SHOWN }) : shown;
}

const item = (text) => {
  const li = document.createElement('li');
  li.textContent = text;
  return li;
};

// Below this many parameters a model is a test-size one (the shared folders' models: tens of thousands,
// random weights), whose guesses are not expected to make sense. The smallest trained models people
// use are well above it: BERT-Tiny (2 layers, hidden 128, vocab 30522) has 4.4 million; GPT-2 small 124 million.
export const SMALL_PARAMETERS = 1_000_000;

/**
 * A model's parameters as the lab keeps them (its weight matrices and tables: report.keptBytes / 4,
 * float32; its biases and norms left out), rounded to 2 significant digits, when fewer than
 * SMALL_PARAMETERS; else null (no note).
 */
export function smallModel(report) {
  const count = Math.round(report.keptBytes / 4);
  if (!(count < SMALL_PARAMETERS)) return null;
  const step = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(1, count))) - 1);
  return Math.round(count / step) * step;
}

/** The report (openModel's) as <li> elements. */
export function reportLines(report, t) {
  const lines = [
    // key/value heads only where the model shares them (grouped-query attention): BERT and GPT-2 have no such notion
    t(report.kvHeads === report.heads ? 'models.recognised' : 'models.recognisedGqa', { type: isolate(report.modelType),
      architectures: report.architectures.map((a) => isolate(a)).join(', ') || '—', layers: report.layers,
      dModel: report.dModel, heads: report.heads, dK: report.dK, kvHeads: report.kvHeads }),
    t(report.causal ? 'models.causal' : 'models.bidirectional'),
    t('models.files', { files: names(report.files, t), dtypes: report.dtypes.join(', '), size: (report.keptBytes / 2 ** 20).toFixed(1),
      prefix: report.prefix ? isolate(report.prefix) : t('models.noPrefix') }),
  ];
  if (report.ropeLayout) lines.push(t('models.rope', { layout: report.ropeLayout }));
  if (report.windows?.some((w) => w > 0)) lines.push(t('models.window', { window: Math.max(...report.windows) }));
  if (report.skipped.length) lines.push(t('models.skipped', { count: report.skipped.length, names: names(report.skipped.map((s) => `${s.name} (${s.dtype})`), t) }));
  if (report.unused.length) lines.push(t('models.unused', { count: report.unused.length, names: names(report.unused, t) }));
  if (report.unread.length) lines.push(t('models.unread', { count: report.unread.length, names: names(report.unread, t) }));
  lines.push(t(report.tokenizer ? 'models.tokenizer' : 'models.noTokenizer'));
  return lines.map(item);
}
