// The lecturer's review 6 (2026-11-27), its findings on layers (briefs: review6/findings.md, tagged
// [layers]): at 375 px the explanation's arithmetic is not crowded out by its links (finding 2); the
// sentence over X says its cells cannot be edited where X is computed (finding 10).
// (Finding 3 is in practice-layers.test.mjs, finding 4 in walk-layers.test.mjs.)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { labOf, setLab as setLabOf } from './two-layer-lab.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });
const setLab = (change) => setLabOf(lab, tab, change);

const hint = () => tab.page.textContent('[data-view="inputs"] > p.hint');
const typedCells = () => tab.page.locator('#x-table input').count();

describe('review 6: X computed by the stack', () => {
  it('the sentence over X says so where X cannot be edited, in English and Hindi, and back', async () => {
    await setLab(labOf('post', { selectedLayer: 0 }));
    assert.ok(await typedCells() > 0, 'layer 1 post-LN: X is the sentence\'s own vectors, typed in');
    assert.equal(await hint(), 'Every cell can be edited; every table below recomputes at once.');

    await setLab({ selectedLayer: 1 });
    assert.equal(await typedCells(), 0, 'layer 2: X is computed');
    assert.match(await hint(), /^This X is computed \(see its caption\), so its cells cannot be edited here/);
    assert.doesNotMatch(await hint(), /Every cell can be edited/);

    // pre-LN, layer 1: X is LN₁ of the sentence's vectors, computed too
    await setLab({ norm: 'pre', selectedLayer: 0 });
    assert.equal(await typedCells(), 0);
    assert.match(await hint(), /^This X is computed/);

    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('hi')));
    assert.match(await hint(), /^यह X गणना से आया है/);
    await lab.redrawn(() => tab.page.evaluate(() => globalThis.attentionLab.setLanguage('en')));
    assert.match(await hint(), /^This X is computed/);

    await setLab({ norm: 'post', selectedLayer: 0 });
    assert.equal(await hint(), 'Every cell can be edited; every table below recomputes at once.');
    await setLab({ layers: 1, block: 'attention' });
  });
});

describe('review 6: the explanation at 375 px (finding 2)', () => {
  it('a layer-2 X of money bank: the arithmetic lines show their first steps, the links keep one row', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'action'));
    await lab.redrawn(() => tab.page.selectOption('#preset', 'money-bank'));
    await setLab({ layers: 2, block: 'full', norm: 'pre', selectedLayer: 1 });
    await tab.page.setViewportSize({ width: 375, height: 800 });
    try {
      const col = await tab.page.evaluate(() => globalThis.attentionLab.view.columns.indexOf('finance'));
      await tab.page.click(`#x-table td[data-matrix="x"][data-row="0"][data-col="${col}"]`);
      const box = await tab.page.evaluate(() => {
        const height = (id) => document.getElementById(id).getBoundingClientRect().height;
        const lines = document.getElementById('explain-lines').getBoundingClientRect();
        const steps = [...document.querySelectorAll('#explain-lines li')].map((li) => li.getBoundingClientRect());
        const buttons = [...document.querySelectorAll('#explain-links button')].map((b) => Math.round(b.getBoundingClientRect().top));
        return { panel: height('explain'), lines: lines.height, links: height('explain-links'), buttons, steps: steps.length,
          // steps whose top is inside the lines' box as it opens (the rest scroll into it)
          shown: steps.filter((r) => r.top >= lines.top - 1 && r.top < lines.bottom - 10).length };
      });
      assert.ok(box.buttons.length >= 2, `links across layers: ${box.buttons.length}`);
      assert.equal(new Set(box.buttons).size, 1, `the links keep one row: tops ${box.buttons}`);
      // the review saw 1 of 5 steps in 61 px, the links' three rows under them
      assert.ok(box.shown >= 3, `${box.shown} of ${box.steps} steps begin inside the lines' box (${box.lines} px of the panel's ${box.panel}; links ${box.links})`);
    } finally {
      await tab.page.setViewportSize({ width: 1280, height: 720 });  // playwright's default
      await setLab({ layers: 1, block: 'attention', selectedLayer: 0 });
    }
  });
});
