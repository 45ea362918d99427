// The GQA chapter's practice (shared/chapter-practice.mjs): which K/V head a query head reads (the
// engine's answer: the groups of the core's trace, query heads whose k is the same array), and the
// bytes of the typed model's cache per token (the formula's answer).
import { bytesPerTokenLayer, readModel } from './cache.mjs';

/**
 * The query head asked about: the last whose answer (from 1), h mod kvHeads + 1 and the answer from 0
 * all differ, so that each mistake is told apart; else the last where the mod rule is wrong; else the last.
 */
function askedHead(heads, kvHeads) {
  const g = (h) => Math.floor((h * kvHeads) / heads);
  for (let h = heads - 1; h >= 0; h--) if (g(h) !== h % kvHeads && g(h) !== (h % kvHeads) + 1) return h;
  for (let h = heads - 1; h >= 0; h--) if (g(h) !== h % kvHeads) return h;
  return heads - 1;
}

export function groupQuestion(ctx, chapter) {
  if (!chapter.r) return null;
  const { heads, kvHeads, groupOf } = chapter.r;
  const h = askedHead(heads, kvHeads);
  const slots = { head: h + 1, heads, kvHeads };
  return {
    id: JSON.stringify(['gqa', slots]), text: ctx.t('gqa.practice', slots), want: groupOf[h] + 1, exact: true,
    mistakes: [{ key: 'gqaMod', value: (h % kvHeads) + 1 }, { key: 'gqaZero', value: groupOf[h] }],
  };
}

export function cacheQuestion(ctx, inputs) {
  const { model } = readModel(inputs);
  if (!model) return null;
  const want = bytesPerTokenLayer(model) * model.layers;
  return {
    id: JSON.stringify(['gqa-cache', model]), text: ctx.t('gqa.practiceCache', model), want, exact: true,
    mistakes: [{ key: 'cacheKOnly', value: want / 2 }, { key: 'cacheLayers', value: want / model.layers },
      { key: 'cacheHeads', value: (want * model.heads) / model.kvHeads }, { key: 'cacheBytes', value: want / model.bytes }],
  };
}
