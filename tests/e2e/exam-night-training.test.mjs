// Issue 26, point 9: training a reader can watch. Slow motion for the first steps by default (one
// step per picture), a stop once held-out accuracy has held its best for 200 steps (said with the
// step where it was reached), the starting accuracy and the ◂ marker explained, and "Use these
// weights" bringing the changed tables into view and saying so.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const training = () => page().evaluate(() => {
  const { running, run } = globalThis.attentionLab.training;
  return { running, steps: run?.snapshot.steps, accuracy: run?.snapshot.heldOut.accuracy, best: run?.best };
});

describe('training a reader can watch (issue 26, point 9)', () => {
  it('starts in slow motion: the first pictures come one step at a time', async () => {
    await page().locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await page().waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 20_000 });
    assert.equal(await page().isChecked('#train-slow'), true);
    assert.equal(await page().isChecked('#train-autostop'), true);
    assert.match(await page().textContent('section[data-view="train"]'), /step 0 is the untrained layer’s.*◂ marks/);
    // every step count the progress line shows, as it is drawn
    await page().evaluate(() => {
      globalThis.seenSteps = [];
      new MutationObserver(() => globalThis.seenSteps.push(Number(/Step (\d+)/.exec(document.getElementById('train-progress').textContent)?.[1])))
        .observe(document.getElementById('train-progress'), { childList: true, characterData: true, subtree: true });
    });
    await page().click('#train-run');
    await page().waitForFunction(() => globalThis.attentionLab.training.run.snapshot.steps >= 6, null, { timeout: 30_000 });
    await page().click('#train-run');
    await page().waitForFunction(() => !globalThis.attentionLab.training.running);
    const seen = (await page().evaluate(() => globalThis.seenSteps)).filter((s) => s > 0);
    assert.deepEqual(seen.slice(0, 6), [1, 2, 3, 4, 5, 6], `steps drawn: ${seen}`);
  });

  it('stops by itself once held-out accuracy has held its best for 200 steps, and says so', async () => {
    await page().uncheck('#train-slow');
    await page().selectOption('#train-speed', '0');
    await page().click('#train-run');
    await page().waitForFunction(() => !globalThis.attentionLab.training.running, null, { timeout: 120_000 });
    const run = await training();
    assert.equal(run.steps - run.best.step, 200, `stopped at ${run.steps}, best at ${run.best.step}`);
    const said = await page().textContent('#train-stopped');
    assert.match(said, new RegExp(`best, ${Math.round(run.best.accuracy * 100)} %, at step ${run.best.step}`));
  });

  it('"Use these weights" brings the tables it changed into view and says so', async () => {
    await lab.redrawn(() => page().click('#train-use'));
    await page().waitForTimeout(300);
    assert.match(await page().textContent('#train-stopped'), /Learned weights sent to the lab/);
    const top = await page().evaluate(() => document.getElementById('weights').getBoundingClientRect().top);
    const height = await page().evaluate(() => innerHeight);
    assert.ok(top >= 0 && top < height, `the parameters at ${top} px of ${height}`);
  });
});
