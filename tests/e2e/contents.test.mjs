// The contents bar (web/src/contents/) and the chapters embedded alone: the bar's links in the issue's
// order, each to ?view=<name>; following one by keyboard lands on the chapter with the focus in it; a
// click on RoPE's the same; Hindi at 375 px in one line that scrolls, no link over another; axe-core;
// for each of the six chapters, index.html?view=<name> lands on it in the whole page and
// embed.html?view=<name> is it alone and computes; <attention-lab view="sinks"> the same.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useChapterPage } from './browser.mjs';

const require = createRequire(import.meta.url);
const ORDER = ['learn', 'blocks', 'flash', 'flash', 'kv-cache', 'rope', 'gqa', 'window', 'sinks', 'train', 'models'];

let browser, tab;
const { open } = useChapterPage({ before, after, assert, prefix: '', render: false, onReady: (opened, launched) => { tab = opened; browser = launched; } });

// the section's views shown: every [data-view] element not hidden and not inside a hidden one
const shownViews = (page) => page.evaluate(() => [...document.querySelectorAll('[data-view]')]
  .filter((part) => part.checkVisibility()).map((part) => part.dataset.view));

describe('the contents bar', () => {
  it('links every chapter in order, each to ?view=<name>, and a link by keyboard lands on its chapter', async () => {
    await open('index.html');
    const links = await tab.page.$$eval('nav.contents a', (as) => as.map((a) => [a.dataset.contents, a.textContent, new URL(a.href).search]));
    assert.deepEqual(links.map(([view]) => view), ORDER);
    assert.deepEqual(links.map(([, text]) => text), ['Basics from the notes', 'Layers', 'Modern attention', 'FlashAttention', 'KV cache', 'RoPE', 'GQA',
      'Sliding window', 'Sinks', 'Train', 'Real models']);
    links.forEach(([view, , search]) => assert.equal(search, `?view=${view}`));
    assert.equal(await tab.page.getAttribute('nav.contents', 'aria-label'), 'Contents');
    await tab.page.focus('nav.contents a[data-contents="window"]');
    await tab.page.keyboard.press('Enter');
    await tab.page.waitForFunction(() => document.activeElement?.dataset.view === 'window');
    const top = await tab.page.$eval('section[data-view="window"]', (s) => s.getBoundingClientRect().top);
    assert.ok(Math.abs(top) < 2, `the chapter's top is at ${top} px`);
    assert.equal(new URL(tab.page.url()).pathname.endsWith('index.html'), true, 'no reload: the same page');
  });

  it('every chapter is on the page now: the RoPE link by a click lands on it too, no reload, no error', async () => {
    await open('index.html');
    assert.equal(await tab.page.locator('section[data-view="rope"]').count(), 1);
    await tab.page.click('nav.contents a[data-contents="rope"]');
    await tab.page.waitForFunction(() => document.activeElement?.dataset.view === 'rope');
    await tab.page.waitForTimeout(300);  // any smooth scroll ended
    const { top, end, height } = await tab.page.$eval('section[data-view="rope"]', (s) => ({
      top: s.getBoundingClientRect().top, end: scrollY + innerHeight >= document.documentElement.scrollHeight - 2, height: innerHeight,
    }));
    assert.ok(top > -2 && (top < 2 || (end && top < height / 2)), `the chapter's top is at ${top} px`);
    assert.equal(new URL(tab.page.url()).pathname.endsWith('index.html'), true, 'no reload: the same page');
    assert.equal(await tab.page.locator('section[data-view="steps"]').count(), 1);
  });

  it('in Hindi at 375 px: Hindi labels, the bar wraps with no link over another, no overflow, axe-core clean', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await open('index.html?lang=hi');
    assert.equal(await tab.page.textContent('nav.contents a[data-contents="sinks"]'), 'सिंक (sinks)');
    assert.match(new URL(await tab.page.getAttribute('nav.contents a[data-contents="flash"]', 'href'), browser.url).search, /lang=hi/);
    // one line that scrolls sideways (the first screen keeps the step table: exam-night-first-screen.test)
    const bar = await tab.page.$eval('nav.contents > ul', (ul) => ({ right: ul.getBoundingClientRect().right, height: ul.getBoundingClientRect().height, scrolls: ul.scrollWidth > ul.clientWidth }));
    assert.ok(bar.right <= 375 && bar.scrolls && bar.height < 60, JSON.stringify(bar));
    const boxes = await tab.page.$$eval('nav.contents a', (as) => as.map((a) => a.getBoundingClientRect()).map(({ left, right, top, bottom }) => ({ left, right, top, bottom })));
    boxes.forEach((a, i) => {
      boxes.slice(i + 1).forEach((b, k) => {
        const overlap = a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        assert.ok(!overlap, `links ${i} and ${i + k + 1} overlap`);
      });
    });
    const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 375`);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('nav.contents'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
    });
    assert.deepEqual(violations, []);
    await tab.page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('every chapter by its link, on the page and alone', () => {
  // [view, the key of its data attributes]
  const CHAPTERS = [['flash', 'flash'], ['kv-cache', 'kv'], ['rope', 'rope'], ['gqa', 'gqa'], ['window', 'window'], ['sinks', 'sinks']];
  for (const [view, key] of CHAPTERS) {
    it(`index.html?view=${view} lands on it in the whole page; embed.html?view=${view} is it alone, and it computes`, async () => {
      await tab.page.setViewportSize({ width: 1280, height: 800 });
      await open(`index.html?view=${view}&preset=telescope`);
      await tab.page.waitForTimeout(100);
      const { top, end, height } = await tab.page.$eval(`section[data-view="${view}"]`, (s) => ({
        top: s.getBoundingClientRect().top, end: scrollY + innerHeight >= document.documentElement.scrollHeight - 2, height: innerHeight,
      }));
      assert.ok(top > -1 && (top < 80 || (end && top < height / 2)), `${view}: its top is at ${top} px`);
      assert.equal(await tab.page.locator('section[data-view="steps"]').count(), 1, 'the rest of the page is there');
      await open(`embed.html?view=${view}&preset=telescope`);
      assert.deepEqual(await shownViews(tab.page), [view]);
      await tab.page.click(`[data-${key}="run"]`);
      await tab.page.waitForFunction((k) => document.querySelectorAll(`[data-${k}="table"] tbody tr`).length > 0, key);
      assert.equal(await tab.page.locator(`section[data-view="${view}"] .flash-status[role="status"]`).first().textContent(), '', 'no error');
      assert.ok(await tab.page.locator(`[data-${key}="table"]`).isVisible(), 'its table is shown');
    });
  }
});

describe('one chapter embedded alone', () => {
  it('embed.html?view=window shows the window chapter only (no bar, no tables), and it computes', async () => {
    await open('embed.html?view=window&preset=telescope');
    assert.deepEqual(await shownViews(tab.page), ['window']);
    await tab.page.click('[data-window="run"]');
    await tab.page.waitForFunction(() => document.querySelectorAll('[data-window="reach-table"] tbody tr').length === 3);
    assert.match(await tab.page.textContent('[data-window="reach"]'), /^After layer 1 of 3: 'telescope' was moved by tokens 7–8/);
  });

  it('<attention-lab view="sinks"> on a course page shows the sinks chapter only, and it computes', async () => {
    const page = `${browser.url}week-sinks.html`;
    await tab.page.route(page, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><html lang="en"><head><meta charset="utf-8">
      <title>Week 9: attention sinks</title><script type="module" src="attention-lab.js"></script></head>
      <body><main><h1>Week 9</h1><attention-lab id="lab" preset="telescope" view="sinks"></attention-lab></main></body></html>` }));
    await tab.page.goto(page);
    await tab.page.waitForFunction(() => document.getElementById('lab')?.lab?.draws > 0);
    const shown = await tab.page.$eval('#lab', (el) => [...el.shadowRoot.querySelectorAll('[data-view]')].filter((p) => p.checkVisibility()).map((p) => p.dataset.view));
    assert.deepEqual(shown, ['sinks']);
    await tab.page.click('#lab [data-sinks="run"]');
    await tab.page.waitForFunction(() => document.getElementById('lab').shadowRoot.querySelectorAll('[data-sinks="table"] tbody tr').length > 0);
    assert.match(await tab.page.textContent('#lab [data-sinks="evictLine"]'), /^Step 1 of 7: 'man' at position 2 reads the keys at 1, 2 /);
  });
});
