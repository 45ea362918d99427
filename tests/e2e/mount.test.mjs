// The feature contract (tools/CONTRACT.md) for tables/, pictures/, scaling/, walk/ and explain/:
// each mount(ctx) on a second lab's markup (in a shadow root) draws the page's lab's state and view,
// changes the state only through ctx.store.dispatch, and draws its texts again on relabel().
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';

import { useLabPage } from './browser.mjs';

let tab;
const lab = useLabPage({ before, after, assert, onReady: (opened) => { tab = opened; } });

// Once, before the first test that needs it (a root-level hook of this file would run beside
// useLabPage's, before the tab is there): the page on a two-head example, the features mounted.
let mounting = null;
function mounted() {
  mounting ??= (async () => {
    const bundle = await esbuild.build({
      entryPoints: [new URL('./fixtures/mount-features.mjs', import.meta.url).pathname],
      bundle: true, write: false, format: 'iife', loader: { '.html': 'text' },
    });
    await lab.redrawn(() => tab.page.selectOption('#preset', 'telescope'));
    await tab.page.addScriptTag({ content: bundle.outputFiles[0].text });
    await tab.page.evaluate(() => {
      const page = globalThis.attentionLab;
      const source = { state: Object.freeze(page.state), get view() { return page.view; } };
      globalThis.mounted = { source, ...globalThis.mountFeatures(source) };
      globalThis.mounted.draw();
    });
  })();
  return mounting;
}

const inMounted = async (fn, arg) => {
  await mounted();
  return tab.page.evaluate(fn, arg);
};

describe('mount(ctx) draws', () => {
  it('tables: draw() fills every table section with the view\'s numbers', async () => {
    const { x, xPage, tabs, panels, notes } = await inMounted(() => {
      const { root } = globalThis.mounted;
      const cells = (scope) => [...scope.querySelectorAll('#x-table td[data-matrix="x"]')].map((td) => td.querySelector('input')?.value ?? td.textContent);
      return {
        x: cells(root), xPage: cells(document),
        tabs: [...root.querySelectorAll('#head-tabs [role="tab"]')].map((tab) => tab.dataset.head),
        panels: root.querySelectorAll('#head-panel [data-slot^="head-0-"]').length,
        notes: root.getElementById('notes').textContent.length,
      };
    });
    assert.ok(x.length > 0);
    assert.deepEqual(x, xPage, 'the same X as the page\'s lab');
    assert.deepEqual(tabs, ['0', '1', 'all']);
    assert.equal(panels, 7, 'Q, K, V, scores, scaled, weights, Z of head 1');
    assert.ok(notes > 0);
  });

  it('pictures: a small heatmap dispatches { type: "select", head }; scaling: runLab() and the slider draw', async () => {
    const result = await inMounted(async () => {
      const { root, features, actions } = globalThis.mounted;
      actions.length = 0;
      root.querySelector('#heatmap-grid button[data-head="1"]').click();
      const rows = await features.scaling.runLab();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return {
        actions: [...actions], rows: rows.length,
        points: root.querySelectorAll('#variance-plot circle[data-dk]').length,
        bars: root.querySelectorAll('#softmax-slider rect.bar').length,
        heatmap: root.getElementById('heatmap').dataset.head,
      };
    });
    assert.deepEqual(result.actions, [{ type: 'select', head: 1 }]);
    assert.equal(result.rows, 10);
    assert.equal(result.points, 20, 'two series of ten d_k');
    assert.ok(result.bars > 0);
    assert.equal(result.heatmap, '0');
  });

});

describe('mount(ctx) acts through the store and follows the language', () => {
  it('walk: stepping through asks for its head with a "select" action, only when another is shown', async () => {
    const actions = await inMounted(() => {
      const { root, features, actions, source } = globalThis.mounted;
      actions.length = 0;
      root.getElementById('walk-start').click();
      const same = [...actions];
      source.state = Object.freeze({ ...source.state, selectedHead: 'all' });
      features.walk.draw(source.state, source.view);
      root.getElementById('walk-next').click();
      return { same, other: [...actions], position: features.walk.position };
    });
    assert.deepEqual(actions.same, [], 'the lab shows the walk\'s token and head already');
    assert.equal(actions.other.length, 1);
    assert.equal(actions.other[0].type, 'select');
    assert.equal(actions.other[0].head, 0);
    assert.equal(actions.position.index, 1);
  });

  it('explain: a cell clicked is explained; setGuard(fn) withholds it; reset() forgets it', async () => {
    const shown = await inMounted(() => {
      const { root, features } = globalThis.mounted;
      const panel = () => ({ hidden: root.getElementById('explain').hidden, lines: [...root.querySelectorAll('#explain-lines li')].map((li) => li.textContent) });
      root.querySelector('td[data-matrix="scores"][data-head="0"][data-row="1"][data-col="0"]').click();
      const explained = panel();
      features.explain.setGuard(() => 'withheld');
      features.explain.redraw();
      const guarded = panel();
      features.explain.reset();
      features.explain.redraw();
      return { explained, guarded, after: panel() };
    });
    assert.equal(shown.explained.hidden, false);
    assert.ok(shown.explained.lines.length >= 2);
    assert.deepEqual(shown.guarded.lines, ['withheld']);
    assert.equal(shown.after.hidden, true);
  });

  it('relabel(): the drawn texts in the new language', async () => {
    const texts = await inMounted(() => {
      const { root } = globalThis.mounted;
      const drawn = () => ({ notes: root.getElementById('notes').textContent, legend: root.getElementById('heatmap-legend').getAttribute('aria-label') });
      const before = drawn();
      globalThis.mounted.setLanguage('hi');
      return { before, after: drawn() };
    });
    const devanagari = /[\u0900-\u097F]/;
    assert.doesNotMatch(texts.before.notes + texts.before.legend, devanagari);
    assert.match(texts.after.notes, devanagari, 'the notes (tables)');
    assert.match(texts.after.legend, devanagari, 'the heatmap legend (pictures)');
  });

  it('destroy(): the lab goes away with nothing left to call', async () => {
    await inMounted(() => {
      globalThis.mounted.destroy();
      document.getElementById('mounted-features').remove();
    });
  });
});
