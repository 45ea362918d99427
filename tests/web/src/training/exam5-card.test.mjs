// Review 4, finding 13: the "Who is 'it'?" task card quotes a sentence and says held-out sentences use
// nouns and places never seen in training. Read here: the card's text (en and hi) and the task's two
// lists of sentences; the claim is checked word by word, and the quoted sentence must be a training one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { EN } from '../../../../web/src/i18n/en.mjs';
import { HI } from '../../../../web/src/i18n/hi.mjs';
import { taskById } from '../../../../web/src/training/tasks.mjs';

const words = (sentence) => sentence.toLowerCase().match(/[a-z']+/g);
// the noun 'it' refers to, and the place: "The N didn't cross the P …" / "By the P the N sat …"
function nounAndPlace(sentence) {
  const w = words(sentence);
  return w[0] === 'by' ? [w[4], w[2]] : [w[1], w[5]];
}

describe('finding 13: the task card and the held-out list agree', () => {
  const { train, heldOut } = taskById('who-is-it').build(10);
  const trainWords = new Set(train.flatMap((e) => words(e.sentence)));

  it('no held-out sentence has a noun or a place that a training sentence has', () => {
    assert.ok(heldOut.length > 10 && train.length > 10);
    const shared = heldOut.flatMap((e) => nounAndPlace(e.sentence).filter((w) => trainWords.has(w)).map((w) => `${w} in "${e.sentence}"`));
    assert.deepEqual(shared, []);
  });

  for (const [lang, catalogue] of [['en', EN], ['hi', HI]]) {
    it(`the card (${lang}) quotes a training sentence, so its noun and place are training words`, () => {
      const quoted = /“([^”]+)”/.exec(catalogue['train.about.who-is-it'])[1];
      assert.ok(train.some((e) => words(e.sentence).join(' ') === words(quoted).join(' ')), `"${quoted}" is not a training sentence`);
      const heldOutWords = new Set(heldOut.flatMap((e) => nounAndPlace(e.sentence)));
      assert.deepEqual(nounAndPlace(quoted).filter((w) => heldOutWords.has(w)), [], quoted);
    });
  }
});
