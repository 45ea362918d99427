// The sinks chapter's practice (shared/chapter-practice.mjs): what the chosen head's last row spends on
// its keys with a sink logit σ one above the table's (a number no table shows): Σ_j e^(s_j) / (Σ_j
// e^(s_j) + e^σ). The engine's answer: the row's weights from engine.flashAttention() with that σ. The
// typical mistakes: no e^σ in the denominator (1, a plain row), σ added rather than e^σ, and the sink's
// own share given instead of the keys'.
import { formatNumber, formatNumbers } from '../shared/format.mjs';

/** The question's σ: one above the table's (−∞ and softmax + 1 count as 0). */
export function practiceSigma(mode, sigma) {
  return (mode === 'learned' ? sigma : 0) + 1;
}

export function sinkQuestion(ctx, chapter) {
  const { practiceAnswer: answer, head: h, tokens } = chapter;
  if (!answer) return null;
  const { n } = answer.shape, i = n - 1;
  const scores = Array.from(answer.exact.heads[h].scaled.slice(i * n, i * n + i + 1));
  const total = scores.reduce((sum, s) => sum + Math.exp(s), 0);
  const sigma = chapter.practiceSigma;
  const spent = Array.from(answer.heads[h].weights.slice(i * n, i * n + i + 1)).reduce((a, b) => a + b, 0);
  const slots = { head: h + 1, token: tokens[i], scores: formatNumbers(scores), sigma: formatNumber(sigma) };
  return {
    id: JSON.stringify(['sinks', slots]), text: ctx.t('sinks.practice', slots), want: spent,
    mistakes: [{ key: 'sinksOne', value: 1 }, { key: 'sinksLogit', value: total / (total + sigma) },
      { key: 'sinksShare', value: Math.exp(sigma) / (total + Math.exp(sigma)) }],
  };
}
