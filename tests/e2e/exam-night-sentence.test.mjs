// Issue 26, point 10: a typed sentence takes every vector from one source. With cat-sat chosen,
// "I sat on the river bank with my dog" gives 'the' and 'sat' the vocabulary's vectors like every
// other word (not 002's hand-made ones), and the notes say so; choosing the example again brings its
// vectors back (the notes' E_The = [1, 0, 1, 0], E_sat = [1, 1, 1, 1]).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { embedAll } from '../../web/src/state/vocabulary.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const shownX = () => tab.page.evaluate(() => {
  const { view } = globalThis.attentionLab;
  return { tokens: view.tokens, dModel: view.dModel, x: Array.from(view.x), columns: view.columns };
});

describe('a typed sentence (issue 26, point 10)', () => {
  it('takes every vector from the vocabulary, says so, and choosing the example brings its own back', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    await lab.redrawn(() => tab.page.fill('#sentence', 'I sat on the river bank with my dog'));
    const typed = await shownX();
    assert.deepEqual(typed.x, Array.from(embedAll(typed.tokens, typed.dModel)), 'one source: the vocabulary');
    const notes = await tab.page.textContent('#notes');
    assert.match(notes, /vocabulary/i);
    // the typed sentence left the example (second review): choosing it again brings its vectors back
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    const own = await shownX();
    assert.deepEqual(own.x, [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1]);
    assert.deepEqual(own.columns, ['e1', 'e2', 'e3', 'e4']);
  });
});
