// Issue 26, point 11: the example's pictures come right after its tables (before Train and "Bring
// your own layer"); at 375 px the embedding plot's labels are at least 12 px as shown and do not
// overlap; the explanation panel shows its final "= …" line.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

describe('the pictures (issue 26, point 11)', () => {
  it('come right after the tables, before Train and Bring your own layer', async () => {
    const order = await tab.page.evaluate(() => Array.from(document.querySelectorAll('.lab > section'), (s) => s.dataset.view));
    const at = (view) => order.indexOf(view);
    assert.ok(at('pictures') > at('output'), order.join(' '));
    assert.ok(at('pictures') < at('train') && at('pictures') < at('layers'), order.join(' '));
  });

  for (const preset of ['money-bank', 'telescope']) {
    it(`${preset} at 375 px: plot labels ≥ 12 px as shown, none overlapping`, async () => {
      await tab.page.setViewportSize({ width: 375, height: 800 });
      await lab.redrawn(() => tab.page.selectOption('#preset', preset));
      await tab.page.locator('#embedding-plot').scrollIntoViewIfNeeded();
      await tab.page.waitForTimeout(200);
      const labels = await tab.page.$$eval('#embedding-plot text', (texts) => texts.map((text) => {
        const svg = text.ownerSVGElement;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        const box = text.getBoundingClientRect();
        return { text: text.textContent, size: parseFloat(getComputedStyle(text).fontSize) * scale, box: [box.left, box.top, box.right, box.bottom] };
      }));
      assert.ok(labels.length > 4);
      for (const label of labels) assert.ok(label.size >= 12 - 1e-6, `'${label.text}' at ${label.size.toFixed(1)} px`);
      const overlap = (a, b) => a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && a[1] < b[3] - 0.5 && b[1] < a[3] - 0.5;
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++) assert.ok(!overlap(labels[i].box, labels[j].box), `'${labels[i].text}' overlaps '${labels[j].text}'`);
      }
    });
  }

  it('at 375 px the explanation panel shows its "= …" line', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await lab.redrawn(() => tab.page.selectOption('#preset', 'telescope'));
    await tab.page.click('[data-slot="head-0-z"] td[data-row="7"][data-col="4"]');
    const seen = await tab.page.evaluate(() => {
      const value = document.getElementById('explain-value').getBoundingClientRect();
      const panel = document.getElementById('explain').getBoundingClientRect();
      return { value: [value.top, value.bottom], panel: [panel.top, panel.bottom], height: innerHeight };
    });
    assert.ok(seen.value[1] <= seen.panel[1] + 0.5 && seen.value[0] >= seen.panel[0] - 0.5 && seen.value[1] <= seen.height, JSON.stringify(seen));
    await tab.page.click('#explain-close');
  });
});
