// The KV-cache chapter's practice (shared/chapter-practice.mjs): the bytes the cache holds after the
// last step; the engine's answer is the core's count. The typical mistakes: K counted but not V,
// numbers counted instead of bytes, and the new token's own key and value left out.
export function cacheQuestion(ctx, chapter) {
  const { answer } = chapter;
  if (!answer || answer.steps.length === 0) return null;
  const last = answer.steps.at(-1);
  const { kvHeads, dK, dV } = answer.full.shape;
  const slots = { tokens: last.length, kvHeads, dK, dV };
  return {
    id: JSON.stringify(['kv', slots]), text: ctx.t('kv.practice', slots), want: last.cacheBytes, exact: true,
    mistakes: [{ key: 'cacheKOnly', value: last.length * kvHeads * dK * 4 }, { key: 'cacheBytes', value: last.cacheValues },
      { key: 'cacheOwn', value: (last.length - 1) * kvHeads * (dK + dV) * 4 }],
  };
}
