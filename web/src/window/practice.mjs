// The window chapter's practice (shared/chapter-practice.mjs): the first key the chosen query reads
// with the window (the engine's answer: the first key its weights do not mask), and how many tokens
// reach it after the L layers (the engine's answer: the tokens whose change moved its output). The
// typical mistakes: w keys before the query rather than w with it (one off), forgetting the text starts
// at token 1, Mistral's round w × L, and leaving the token itself out of its receptive field.
import { isolate } from '../shared/bidi.mjs';

export function firstKeyQuestion(ctx, chapter) {
  const { answer, tokens, token, window, head } = chapter;
  if (!answer) return null;
  const n = tokens.length, position = token + 1;
  const weights = answer.attention.heads[head].weights;
  let first = 0;
  while (first < token && !(weights[token * n + first] > 0)) first++;
  const slots = { window, position, token: isolate(tokens[token]) };  // reader text, isolated
  return {
    id: JSON.stringify(['window-first', slots]), text: ctx.t('window.practiceFirst', slots), want: first + 1, exact: true,
    mistakes: [{ key: 'windowOneOff', value: position - window }, { key: 'windowOneOff', value: position - window + 2 },
      { key: 'windowStart', value: position - window + 1 }],
  };
}

export function reachQuestion(ctx, chapter) {
  const { answer, tokens, token, window, layers } = chapter;
  if (!answer) return null;
  const slots = { window, layers, position: token + 1, token: isolate(tokens[token]) };
  const rule = (window - 1) * layers + 1;
  return {
    id: JSON.stringify(['window-reach', slots]), text: ctx.t('window.practiceReach', slots), want: answer.reach[layers - 1][token].length, exact: true,
    mistakes: [{ key: 'windowMistral', value: window * layers }, { key: 'windowSelf', value: (window - 1) * layers },
      { key: 'windowStart', value: rule }],
  };
}
