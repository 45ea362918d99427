// Issue 26, point 1: doing what a note proposes is part of the example. Action (004) asks to untick
// "÷ √d_k"; done, its notes stay (none dimmed) and a line says what the reader should now see, with
// the largest weight as the engine computed it. Expected numbers: softmax in float64 here over the
// engine's unscaled scores.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

const notes = () => tab.page.evaluate(() => Array.from(document.querySelectorAll('#notes li'), (li) => ({ text: li.textContent, stale: li.classList.contains('stale') })));
const noteLines = () => tab.page.evaluate(() => Array.from(document.querySelectorAll('#notes p'), (p) => p.textContent));

describe('a note\'s own experiment (issue 26, point 1)', () => {
  it('unticking ÷ √d_k in Action keeps every note and says what to see now', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'action'));
    assert.equal((await notes()).length, 3);
    await lab.redrawn(() => tab.page.uncheck('#steps-scale'));
    const after = await notes();
    assert.deepEqual(after.map((n) => n.stale), [false, false, false], 'no note dimmed by the experiment the notes propose');
    const scores = await tab.page.evaluate(() => {
      const { result, view } = globalThis.attentionLab;
      return Array.from(result.heads[0].scores.subarray(0, view.m));
    });
    const max = Math.max(...scores);
    const exps = scores.map((s) => Math.exp(s - max));
    const top = Math.max(...exps) / exps.reduce((a, b) => a + b, 0);
    assert.ok(top > 0.99, `the unscaled row is nearly one-hot (${top})`);
    const lines = (await noteLines()).join('\n');
    assert.doesNotMatch(lines, /Modified/, 'the experiment is not called a modification');
    assert.match(lines, new RegExp(top.toPrecision(4).replace('.', '\\.')), 'the line gives the largest weight the engine computed');
    await lab.redrawn(() => tab.page.check('#steps-scale'));
    assert.deepEqual((await notes()).map((n) => n.stale), [false, false, false]);
  });

  it('an edit that breaks a claim still dims the notes', async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'action'));
    // (a typed sentence now leaves the example altogether: exam-night-2.test.mjs); a smaller d_model breaks its claims
    await lab.redrawn(() => tab.page.fill('#dModel', '32'));
    const after = await notes();
    assert.ok(after.some((n) => n.stale));
  });

  it("cat-sat: the notes' 3 × 3 identity for 4-number vectors is said like the other slips (wish)", async () => {
    await lab.redrawn(() => tab.page.selectOption('#preset', 'cat-sat'));
    const dModel = await tab.page.evaluate(() => globalThis.attentionLab.view.dModel);
    assert.equal(dModel, 4, 'E_The = [1, 0, 1, 0] has 4 numbers');
    const text = (await notes()).map((n) => n.text).join(' ');
    assert.match(text, /3 × 3 identity/);
    assert.match(text, new RegExp(`${dModel} × ${dModel} identity`));
  });
});
