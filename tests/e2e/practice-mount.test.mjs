// Practice mode mounted by the feature contract of issue 21, mount(ctx), in headless
// Chromium on a page of its own: no lab around it, a store that records what practice dispatches.
// It speaks through ctx.t in ctx.language(), changes the state only by dispatching (the state it is
// given is frozen), chooses its views, and leaves nothing behind when destroyed. Exercises on a real
// computation are tested through the lab (practice.test.mjs, languages.test.mjs).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

import { openBrowser } from './browser.mjs';
import { message } from '../../web/src/i18n/index.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The page: the parts of a lab practice mounts into, and a ctx as the lab builds it.
const PAGE = `<!doctype html><meta charset="utf-8"><title>practice mount</title>
<div class="lab"><div class="mode-switch"></div><section data-view="practice"></section>
<section data-view="inputs"></section><section data-view="steps"></section><section data-view="pictures"></section></div>
<script type="module">
  import { mount, message } from './practice.js';
  let language = 'en';
  const container = document.querySelector('.lab');
  const store = {
    actions: [],
    state: Object.freeze({ practice: null, selectedToken: 0, selectedHead: 0 }),
    view: null,
    dispatch(action) {
      this.actions.push(structuredClone(action));
      if (action.type === 'replace') this.state = Object.freeze(action.state);
    },
  };
  const lifetime = new AbortController();
  const overlays = [];
  const ctx = {
    root: document, container, section: (name) => container.querySelector('section[data-view="' + name + '"]'),
    t: (key, values) => message(key, values, language), language: () => language, store, compute: null,
    signal: lifetime.signal, links: { page: location.origin + '/', embed: location.origin + '/embed.html', component: location.origin + '/attention-lab.js' },
    embedded: false, services: { setOverlay: (overlay) => overlays.push(overlay) },
  };
  globalThis.test = { practice: mount(ctx), store, overlays, setLanguage: (code) => { language = code; } };
</script>`;

describe('practice: mount(ctx)', () => {
  let site;
  let tab;
  let dir;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'practice-mount-'));
    await build({
      stdin: { contents: "export { mount } from './web/src/practice/index.mjs'; export { message } from './web/src/i18n/index.mjs';", resolveDir: root, loader: 'js' },
      bundle: true, format: 'esm', outfile: path.join(dir, 'practice.js'), loader: { '.css': 'text', '.html': 'text' }, logLevel: 'error',
    });
    writeFileSync(path.join(dir, 'index.html'), PAGE);
    site = await openBrowser({ dir });
    tab = await site.newPage();
    await tab.page.goto(`${site.url}index.html`);
    await tab.page.waitForFunction(() => globalThis.test?.practice);
  });
  after(async () => {
    assert.deepEqual(tab?.problems ?? [], []);
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes its switch and panel with ctx.t, and rewrites them in ctx.language() on relabel()', async () => {
    const words = () => tab.page.evaluate(() => ({
      modes: [...document.querySelectorAll('.mode-switch button')].map((button) => button.textContent),
      title: document.querySelector('[data-view="practice"] h2').textContent,
      teacher: document.querySelector('[data-role="teacher"]')?.textContent,
    }));
    const say = (language) => ({
      modes: [message('practice.mode.explore', {}, language), message('practice.mode.practice', {}, language)],
      title: message('practice.title', {}, language),
      teacher: message('practice.teacher.toggle', {}, language),
    });
    assert.deepEqual(await words(), say('en'));
    await tab.page.evaluate(() => { globalThis.test.setLanguage('hi'); globalThis.test.practice.relabel(); });
    assert.deepEqual(await words(), say('hi'));
    assert.notDeepEqual(say('hi'), say('en'));
  });

  it('changes the state only by dispatching a whole new one', async () => {
    const { actions, state } = await tab.page.evaluate(() => {
      document.querySelector('.mode-switch button[data-mode="practice"]').click();
      return { actions: globalThis.test.store.actions, state: globalThis.test.store.state };
    });
    assert.deepEqual(actions, [{ type: 'replace', state: { practice: {}, selectedToken: 0, selectedHead: 0 } }]);
    assert.deepEqual(state.practice, {});
  });

  it('chooses the views: the tables of its blanks, not the ones that give answers away; and marks the switch', async () => {
    const got = await tab.page.evaluate(() => {
      const { practice, store } = globalThis.test;
      const practising = [...practice.views(null, store.state)].sort();
      const pressed = document.querySelector('.mode-switch button[data-mode="practice"]').getAttribute('aria-pressed');
      const exploring = [...practice.views(null, { ...store.state, practice: null })].sort();
      return { practising, pressed, exploring };
    });
    assert.deepEqual(got.practising, ['controls', 'inputs', 'matrices', 'output', 'parameters', 'practice', 'tokens']);
    assert.equal(got.pressed, 'true');
    assert.deepEqual(got.exploring, ['inputs', 'pictures', 'steps']);
  });

  it('explains every cell while nothing is practised, and prepares nothing outside practice mode', async () => {
    const got = await tab.page.evaluate(() => {
      const { practice } = globalThis.test;
      return { guard: practice.explainGuard({ matrix: 'scores', head: 0, row: 0, col: 0 }), prepared: practice.prepare({ practice: null }, null), results: practice.results };
    });
    assert.equal(got.guard, null);
    assert.equal(got.prepared, null);
    assert.deepEqual(got.results, { correct: 0, total: 0, hints: 0, done: 0, attempts: 0, summary: message('practice.summary', { correct: 0, total: 0, hints: 0 }, 'hi') });
  });

  it('destroy() removes what it drew', async () => {
    const left = await tab.page.evaluate(() => {
      globalThis.test.practice.destroy();
      return [document.querySelector('.mode-switch').childElementCount, document.querySelector('[data-view="practice"]').childElementCount];
    });
    assert.deepEqual(left, [0, 0]);
  });
});
