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
