// The sinks chapter's tables and lines (DOM, textContent only): the example's rows with and without
// the sink logit, and the StreamingLLM cache's steps against the full causal pass.
import { formatNumber, formatNumbers } from '../shared/format.mjs';
import { isolate } from '../shared/bidi.mjs';
import { element } from '../shared/chapter.mjs';

function head(ctx, keys) {
  const tr = element('tr');
  for (const key of keys) {
    const th = element('th', '', ctx.t(key));
    th.scope = 'col';
    tr.append(th);
  }
  const thead = element('thead');
  thead.append(tr);
  return thead;
}

const sum = (values) => values.reduce((a, b) => a + b, 0);

/** Row i of one head: its weights, their sum, the sink's weight and z, plain and with the sink. */
export function sinkRow(answer, h, i) {
  const { n, dV } = answer.shape;
  const plain = Array.from(answer.exact.heads[h].weights.slice(i * n, i * n + i + 1));
  const withSink = Array.from(answer.heads[h].weights.slice(i * n, i * n + i + 1));
  return {
    plain, plainSum: sum(plain), withSink, withSum: sum(withSink), sink: answer.heads[h].sinkWeight[i],
    zPlain: Array.from(answer.exact.heads[h].z.slice(i * dV, (i + 1) * dV)), zSink: Array.from(answer.heads[h].z.slice(i * dV, (i + 1) * dV)),
  };
}

export function renderSinkTable(ctx, table, chapter) {
  const { sinkAnswer: answer, head: h, tokens } = chapter;
  const tbody = element('tbody');
  tokens.forEach((token, i) => {
    const row = sinkRow(answer, h, i);
    const tr = element('tr');
    const th = element('th', '', `${i + 1}: ${token}`);
    th.scope = 'row';
    tr.append(th, ...[formatNumbers(row.plain), formatNumber(row.plainSum), formatNumbers(row.withSink), formatNumber(row.withSum),
      formatNumber(row.sink), formatNumbers(row.zPlain), formatNumbers(row.zSink)].map((text) => element('td', '', text)));
    tbody.append(tr);
  });
  table.replaceChildren(element('caption', '', ctx.t('sinks.caption', { head: h + 1, sink: chapter.sinkText })),
    head(ctx, ['sinks.col.token', 'sinks.col.plain', 'sinks.col.plainSum', 'sinks.col.with', 'sinks.col.withSum', 'sinks.col.sink', 'sinks.col.zPlain', 'sinks.col.zSink']),
    tbody);
}

// The full pass's output row i, and its largest difference from the evicting cache's step.
export function evictRow(answer, k) {
  const step = answer.steps[k];
  const dOut = step.output.length, i = step.position;
  const full = Array.from(answer.full.output.slice(i * dOut, (i + 1) * dOut));
  const difference = Math.max(...full.map((value, c) => Math.abs(value - step.output[c])));
  return { step, full, difference };
}

export function renderEvictTable(ctx, table, chapter) {
  const { evictAnswer: answer, lineTokens, step: current } = chapter;
  const tbody = element('tbody');
  answer.steps.forEach((_, k) => {
    const { step, full, difference } = evictRow(answer, k);
    const tr = element('tr');
    if (k === current) tr.className = 'current';
    if (k > current) tr.hidden = true;
    const th = element('th', '', `${step.position + 1}: ${isolate(lineTokens[step.position])}`);  // reader text, isolated
    th.scope = 'row';
    tr.append(th, ...[step.keyPositions.map((p) => p + 1).join(', '), formatNumbers(step.output), formatNumbers(full), formatNumber(difference)]
      .map((text) => element('td', '', text)));
    tbody.append(tr);
  });
  table.replaceChildren(element('caption', '', ctx.t('sinks.evictCaption', { sinks: chapter.evictSinks, budget: chapter.budget })),
    head(ctx, ['sinks.col.token', 'sinks.col.kept', 'sinks.col.evicted', 'sinks.col.full', 'sinks.col.difference']), tbody);
}

export function renderLines(ctx, parts, chapter) {
  const last = sinkRow(chapter.sinkAnswer, chapter.head, chapter.tokens.length - 1);
  parts.sums.textContent = ctx.t('sinks.sums', {
    head: chapter.head + 1, token: chapter.tokens.at(-1), first: formatNumber(last.plain[0]), plainSum: formatNumber(last.plainSum),
    spent: formatNumber(last.withSum), sink: formatNumber(last.sink), total: formatNumber(last.withSum + last.sink),
  });
  const { evictAnswer: answer, step: k } = chapter;
  const { step, full, difference } = evictRow(answer, k);
  parts.evictLine.textContent = ctx.t('sinks.evictLine', {
    step: k + 1, steps: answer.steps.length, token: chapter.lineTokens[step.position], position: step.position + 1,
    kept: step.keyPositions.map((p) => p + 1).join(', '), count: step.keyPositions.length, length: step.length,
    output: formatNumbers(step.output), full: formatNumbers(full), difference: formatNumber(difference),
  });
  parts.prev.disabled = k === 0;
  parts.next.disabled = k === answer.steps.length - 1;
}
