// The settings form: choosing "edited by hand" makes the parameters on screen the reader's own (the
// tables stay as they were, no message), and a link of that state opens it again, numbers and all.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const output = () => tab.page.evaluate(() => Array.from(globalThis.attentionLab.result.output));

describe('Parameters: edited by hand, chosen from the menu', () => {
  for (const preset of ['cat-sat', 'telescope']) {
    it(`${preset}: the parameters on screen become the reader's own, and a link brings them back`, async () => {
      if (await tab.page.evaluate(() => globalThis.attentionLab.state.preset) !== preset) {
        await lab.redrawn(() => tab.page.selectOption('#preset', preset));
      }
      const before = await output();
      const shown = await tab.page.evaluate(() => Array.from(globalThis.attentionLab.view.weights.wq));
      await lab.redrawn(() => tab.page.selectOption('#weightsMode', 'custom'));
      assert.equal(await tab.page.textContent('#messages'), '', 'no message: nothing is wrong');
      const state = await tab.page.evaluate(() => globalThis.attentionLab.state);
      assert.equal(state.weightsMode, 'custom');
      assert.deepEqual(state.custom.wq, shown, 'W_q as it was shown');
      assert.deepEqual(await output(), before, 'the same numbers');
      const address = await tab.page.evaluate(() => location.href);
      // the same tab, opened afresh at the link
      await tab.page.goto('about:blank');
      await tab.page.goto(address);
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      // the settings start folded (issue 26, point 12)
      await tab.page.evaluate(() => { document.getElementById('settings').open = true; });
      assert.equal(await tab.page.textContent('#messages'), '');
      assert.deepEqual(await output(), before);
      assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.state.sentence), state.sentence);
      assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.state.weightsMode), 'custom');
    });
  }
});
