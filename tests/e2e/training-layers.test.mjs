// The Train section with layers (issue 23), in headless Chromium through the page's controls:
// "'tired' or 'wide'" learned by two layers and not by one, with the page saying how layer 1 feeds
// layer 2; induction heads found and named by their scores, and ablated from the page. Each run
// goes from the Train button, in the worker, and stops by itself or when the test pauses it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { renderEverySection, useLabPage } from './browser.mjs';

const require = createRequire(import.meta.url);

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;

async function accuracy() {
  const text = await page().textContent('#train-accuracy');
  const match = /Held-out accuracy: (\d+) %/.exec(text);
  assert.ok(match, `accuracy text: ${text}`);
  return Number(match[1]) / 100;
}

// Train until held-out accuracy reaches `goal` or `steps` steps have run, then pause; the time from
// the click to the goal (ms), measured in the page
async function trainTo({ goal = 2, steps }) {
  await page().evaluate(() => { globalThis.trainClicked = performance.now(); });
  await page().click('#train-run');
  const ms = await page().waitForFunction(([goal, steps]) => {
    const run = globalThis.attentionLab.training.run;
    return run && (run.snapshot.heldOut.accuracy >= goal || run.snapshot.steps >= steps) && performance.now() - globalThis.trainClicked;
  }, [goal, steps], { timeout: 120_000 }).then((handle) => handle.jsonValue());
  if (await page().evaluate(() => globalThis.attentionLab.training.running)) await page().click('#train-run');
  await page().waitForFunction(() => !globalThis.attentionLab.training.running);
  return ms;
}

async function chooseTask(id, layers, heads) {
  await page().selectOption('#train-task', id);
  await page().waitForFunction((id) => globalThis.attentionLab.training.run?.snapshot.steps === 0 &&
    document.querySelector('#train-task').value === id, id);
  if (layers !== undefined) {
    await page().selectOption('#train-layers', String(layers));
    await page().waitForFunction((layers) => globalThis.attentionLab.training.run?.config.model.layers === layers &&
      globalThis.attentionLab.training.run.snapshot.steps === 0, layers);
  }
  if (heads !== undefined) {
    await page().selectOption('#train-heads', String(heads));
    await page().waitForFunction((heads) => globalThis.attentionLab.training.run?.config.model.heads === heads &&
      globalThis.attentionLab.training.run.snapshot.steps === 0, heads);
  }
}

describe('the Train section with layers', () => {
  it("'tired' or 'wide' with two layers: ≥ 95 % held out; the page says what layer 1 gave 'it'", async () => {
    await page().locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await page().waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 30_000 });
    await chooseTask('tired-or-wide-layers');
    assert.equal(await page().inputValue('#train-layers'), '2');
    assert.ok(await page().isHidden('#train-use'), 'no "Use these weights" for a stack');
    await trainTo({ goal: 0.95, steps: 100 });
    assert.ok(await accuracy() >= 0.95);
    // four heatmaps (2 layers × 2 heads), and the sentence about layer 1's 'it' and layer 2's query
    assert.equal(await page().locator('#train-heatmaps canvas').count(), 4);
    const findings = await page().textContent('#train-findings');
    const match = /In layer 1, 'it' puts (\d+) % of its weight on '(tired|wide)'\. .* by (\d+) % of its length; in layer 1 it differs by 0 %/.exec(findings);
    assert.ok(match, findings);
    assert.ok(Number(match[3]) > 0, findings);
  });

  it("'tired' or 'wide' with one layer: held-out accuracy stays at or below 50 %", async () => {
    await chooseTask('tired-or-wide-layers', 1);
    await trainTo({ steps: 60 });
    const run = await page().evaluate(() => globalThis.attentionLab.training.run.snapshot.heldOut);
    assert.ok(run.accuracy <= 0.5, `one layer: ${run.accuracy}`);
    assert.equal(await page().locator('#train-heatmaps canvas').count(), 2);
  });

});

describe('the Train section with layers: induction heads', () => {
  it('induction heads: ≥ 95 % held out; the page names a previous-token head in layer 1 and an induction head in layer 2; ablation', async () => {
    await chooseTask('induction');
    const ms = await trainTo({ goal: 0.95, steps: 1500 });
    process.stdout.write(`# induction: 95 % held out ${Math.round(ms)} ms after Train\n`);
    assert.ok(await accuracy() >= 0.95);
    const findings = await page().textContent('#train-findings');
    const previous = /Previous-token head: layer 1, head (\d) \(score (0\.\d+)/.exec(findings);
    const induction = /Induction head: layer 2, head (\d) \(score (0\.\d+)/.exec(findings);
    assert.ok(previous && induction, findings);
    // the named heads are marked on their heatmaps, with their scores
    const captions = await page().$$eval('#train-heatmaps span', (spans) => spans.map((s) => s.textContent));
    assert.match(captions[Number(previous[1]) - 1], /previous-token head/);
    assert.match(captions[2 + Number(induction[1]) - 1], /induction head/);
    // switch the previous-token head off: the induction heads lose what they find the copy by
    await page().check(`#train-ablate input[value="0,${Number(previous[1]) - 1}"]`);
    await page().waitForFunction(() => globalThis.attentionLab.training.ablated !== null);
    const off = await page().evaluate(() => globalThis.attentionLab.training.ablated.accuracy);
    assert.ok(off < 0.5, `previous-token head off: ${off}`);
    assert.match(await page().textContent('#train-ablated'), /Held-out accuracy with Layer 1, head \d switched off: \d+ %/);
    // both heads of layer 2 off as well as on: the text follows the boxes
    await page().uncheck(`#train-ablate input[value="0,${Number(previous[1]) - 1}"]`);
    await page().check('#train-ablate input[value="1,0"]');
    await page().check('#train-ablate input[value="1,1"]');
    await page().waitForFunction(() => globalThis.attentionLab.training.ablated?.heads.length === 2);
    const layer2Off = await page().evaluate(() => globalThis.attentionLab.training.ablated.accuracy);
    assert.ok(layer2Off < 0.5, `layer 2's heads off: ${layer2Off}`);
    // "Switch off the induction heads found": exactly the heads the text names, and below 50 %
    const named = [...(await page().textContent('#train-findings')).matchAll(/Induction head: layer 2, head (\d)/g)].map((m) => [1, Number(m[1]) - 1]);
    await page().click('#train-ablate-induction');
    await page().waitForFunction((n) => globalThis.attentionLab.training.ablated?.heads.length === n &&
      document.querySelectorAll('#train-ablate input:checked').length === n, named.length);
    const found = await page().evaluate(() => globalThis.attentionLab.training.ablated);
    assert.deepEqual(found.heads.map(String).sort(), named.map(String).sort(), 'the named induction heads, switched off');
    assert.ok(found.accuracy < 0.5, `the induction heads found (${named.length}) off: ${found.accuracy}`);
    process.stdout.write(`# induction heads named: ${named.length}, held out with them off: ${found.accuracy}\n`);
    if (named.length > 1) assert.match(await page().textContent('#train-findings'), new RegExp(`Layer 2 has ${named.length} induction heads`));
  });

  it('induction heads with one head a layer: switching the induction head off drops held-out accuracy below 50 %', async () => {
    await chooseTask('induction', 2, 1);
    await trainTo({ goal: 0.95, steps: 1500 });
    assert.ok(await accuracy() >= 0.95);
    assert.match(await page().textContent('#train-findings'), /Induction head: layer 2, head 1 \(score 0\.\d+/);
    assert.equal(await page().locator('#train-ablate input').count(), 2);
    await page().check('#train-ablate input[value="1,0"]');
    await page().waitForFunction(() => globalThis.attentionLab.training.ablated !== null);
    const off = await page().evaluate(() => globalThis.attentionLab.training.ablated.accuracy);
    assert.ok(off < 0.5, `the induction head off: ${off}`);
  });

  it('axe-core finds no serious or critical violation in the Train section with a stack task, light and dark', async () => {
    await renderEverySection(page());
    await page().addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    for (const scheme of ['light', 'dark']) {
      await page().emulateMedia({ colorScheme: scheme });
      const violations = await page().evaluate(async () => {
        const result = await globalThis.axe.run(document.querySelector('section[data-view="train"]'), { resultTypes: ['violations'] });
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      });
      assert.deepEqual(violations, [], scheme);
    }
  });
});
