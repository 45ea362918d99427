// Shared set-up for the browser tests: dist/ served on 127.0.0.1, Debian's Chromium driven by
// playwright-core, and a record of every request that tried to leave the page's origin.
//
// Under `npm test` (scripts/test-session.mjs) one Chromium and the sites are shared by every test
// file of the run: openBrowser connects to that Chromium (each page in a browser context of its
// own, all of them cleared by close()) and uses the run's server for a site it serves. Run alone
// (`node --test tests/e2e/page.test.mjs`), a file launches its own Chromium and server, as before.
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { serve } from '../../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic',
  // no host but the test sites' (127.0.0.1, and localhost for a second origin) resolves: a request to another host fails in Chromium itself (the
  // pages record it, below), without a route that stops every request in the test process
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost'];
// The shared Chromium's flags: every flag a test file asks for (hostile.test.mjs forces garbage
// collections with the page's gc()), so that no file needs a Chromium of its own.
export const SHARED_FLAGS = [...FLAGS, '--js-flags=--expose-gc'];

// What the run shares, set by scripts/test-session.mjs: the Chromium's endpoint, and the URL of each
// folder served ({ [folder]: url }).
const SHARED_BROWSER = process.env.ATTENTION_LAB_BROWSER_WS;
const SHARED_SITES = JSON.parse(process.env.ATTENTION_LAB_SITES || '{}');

/** The run's Chromium when it has every flag asked for (a new connection: close() clears its contexts), else a new one. */
function connectOrLaunch(args) {
  if (SHARED_BROWSER && args.every((flag) => SHARED_FLAGS.includes(flag))) return chromium.connect(SHARED_BROWSER);
  return chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, ...args], headless: true });
}

/** The run's server of `dir` when there is one and no header is asked for, else a new server. */
async function siteFor({ dir = path.join(root, 'dist'), headers }) {
  const shared = SHARED_SITES[path.resolve(dir)];
  if (shared && !headers) return { url: shared, close: async () => {} };
  return serve({ port: 0, headers, dir });
}

export async function openBrowser({ headers, dir, args = [] } = {}) {
  const site = await siteFor({ dir, headers });
  const browser = await connectOrLaunch(args);
  const origin = new URL(site.url).origin;

  async function newPage({ offline = false } = {}) {
    const page = await browser.newPage();
    const problems = [];
    const foreignRequests = [];
    page.on('console', (message) => {
      // (not the browser's own request for /favicon.ico, which a test's host page without an icon
      // answers 404: a route on every request used to keep Chromium from asking)
      if (message.type() === 'error' && !/\/favicon\.ico$/.test(message.location()?.url ?? '')) problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const local = (url) => url.startsWith('data:') || url.startsWith('blob:') || url.startsWith('file:');
    if (offline) {
      // offline: every request to a server is stopped, the page's own origin too
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (local(url)) return route.continue();
        foreignRequests.push(url);
        return route.abort();
      });
    } else {
      // recorded as it is made (a route on every request cost each page load about a tenth of its
      // time: 3260 against 2945 ms median, 8 interleaved loads each, 2026-11-29); the host resolver
      // rules above make it fail
      page.on('request', (request) => {
        const url = request.url();
        if (!local(url) && !url.startsWith(origin)) foreignRequests.push(url);
      });
    }
    return { page, problems, foreignRequests };
  }

  return {
    url: site.url,
    browser,
    newPage,
    async close() {
      await browser.close();
      await site.close();
    },
  };
}

/**
 * The download a click on `selector` starts. Asked for once more, by a second click, when no download
 * event comes in 15 s: on a loaded test machine Chromium has twice let one of several downloads in
 * a row go without the event (ci34, ci38); a page that never downloads still fails.
 */
export async function downloadBy(page, selector) {
  const clicked = () => Promise.all([page.waitForEvent('download', { timeout: 15_000 }), page.click(selector)]);
  const [download] = await clicked().catch((error) => {
    if (error.name !== 'TimeoutError') throw error;
    return clicked();
  });
  return download;
}

/**
 * The bytes of a finished download. (download.path() is there only in a Chromium this process
 * launched; a stream works in the run's shared one too.)
 */
export async function downloadedBytes(download) {
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The usual set-up of a test file on the page: a browser, one tab on index.html once it has drawn,
 * and, when the file ends, the checks every page must pass (no console error, no request that left
 * the origin). `onReady(tab)` is called at the end of that same `before` hook, so the tab is there
 * when the tests start (a second root-level hook of the file's own saw it undefined); returns { redrawn }.
 */
export function useLabPage({ before, after, assert, onReady }) {
  const shared = {};
  let browser;
  before(async () => {
    browser = await openBrowser();
    shared.tab = await browser.newPage();
    await shared.tab.page.goto(browser.url);
    await shared.tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    // the settings start folded (issue 26, point 12): the tests type into their fields
    await shared.tab.page.evaluate(() => { document.getElementById('settings').open = true; });
    onReady?.(shared.tab);
  });
  after(async () => {
    if (shared.tab) {
      assert.deepEqual(shared.tab.problems, [], 'no console or page errors');
      assert.deepEqual(shared.tab.foreignRequests, [], 'no request left the origin');
    }
    await browser?.close();
  });
  /** Runs `action` and waits until the lab has drawn again. */
  shared.redrawn = (action) => redrawn(shared.tab.page, action);
  return shared;
}

/**
 * The usual set-up of a chapter's test file: a browser and one tab; open(query) goes to
 * `${prefix}${query}` (the embed unless `prefix` says otherwise), waits for its lab's first draw and,
 * with `render`, has every section rendered (a section far below is skipped until near:
 * content-visibility). `onReady(tab, browser)` at the end of the `before` hook; when the file ends,
 * the checks every page must pass (as useLabPage). Returns { open }.
 */
export function useChapterPage({ before, after, assert, onReady, prefix = 'embed.html?', render = true }) {
  const shared = {};
  before(async () => {
    shared.browser = await openBrowser();
    shared.tab = await shared.browser.newPage();
    onReady?.(shared.tab, shared.browser);
  });
  after(async () => {
    if (shared.tab) {
      assert.deepEqual(shared.tab.problems, [], 'no console or page errors');
      assert.deepEqual(shared.tab.foreignRequests, [], 'no request left the origin');
    }
    await shared.browser?.close();
  });
  shared.open = async (query) => {
    await shared.tab.page.goto(`${shared.browser.url}${prefix}${query}`);
    await shared.tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    if (render) await renderEverySection(shared.tab.page);
  };
  return shared;
}

/**
 * Waits for the page's lab (globalThis.attentionLab) to have drawn more than `n` times with no input
 * still waiting for its answer: the page then shows the last input, not a draw for an earlier one.
 */
export function drawnSince(page, n) {
  return page.waitForFunction((n) => globalThis.attentionLab.draws > n && globalThis.attentionLab.idle, n);
}

/** Runs `action` on `page` and waits until its lab has drawn again (drawnSince). */
export async function redrawn(page, action) {
  const before = await page.evaluate(() => globalThis.attentionLab.draws);
  await action();
  await drawnSince(page, before);
}

/**
 * Renders every section of every lab on `page` (in the document and in open shadow roots), for
 * axe-core. The page skips the sections far from the viewport (content-visibility: auto), and axe
 * cannot judge colour contrast there (dequelabs/axe-core#2768): a skipped section keeps its last
 * size, or a guess, while its content, laid out at full size when a script asks where it is,
 * overlaps the sections after it, so axe pairs a cell's text with another section's background.
 * A reader never sees a skipped section: it is rendered as it comes near the screen, as here.
 * (The skipped state's own colours are checked without geometry in embed.test.mjs.)
 */
export async function renderEverySection(page) {
  await page.evaluate(() => {
    const roots = [document, ...[...document.querySelectorAll('*')].map((element) => element.shadowRoot).filter(Boolean)];
    for (const root of roots) {
      const style = document.createElement('style');
      style.textContent = '.lab > section { content-visibility: visible !important; }';
      (root === document ? document.head : root).append(style);
    }
  });
}

/** In the compare view's page: both labs have drawn, neither waits for an answer, and its tables are there. */
export const compareReady = () => {
  const c = globalThis.attentionCompare;
  return c?.a.lab?.view && c.b.lab?.view && c.a.lab.idle && c.b.lab.idle && document.querySelector('.compare-weights table');
};

/** A compare view's difference cells ({ value, sign }) against B − A, value by value (5e-4 relative), each coloured by its sign. */
export function checkDifference(cells, a, b, what) {
  assert.equal(cells.length, a.length, `${what}: one cell per value`);
  cells.forEach(({ value, sign }, i) => {
    const expected = b[i] - a[i];
    assert.ok(Math.abs(value - expected) <= Math.max(5e-4 * Math.abs(expected), 1e-6), `${what}[${i}]: ${value} vs ${expected}`);
    assert.equal(sign, Math.sign(value), `${what}[${i}] coloured by its sign`);
  });
}

/**
 * The lab's walk from its start to the first step whose sentence matches `pattern`: { text, lines }.
 * Start and Stop are clicked by Playwright; Next in the page, step after step in one round trip,
 * each time once the lab is idle and the button is on screen with nothing over its centre (what
 * Playwright's click checks first): a click and a read a round trip each made a walk of 30 steps
 * take seconds.
 */
export async function walkTo(page, pattern, steps = 80) {
  if (await page.isVisible('#walk-stop')) await page.click('#walk-stop');
  await page.click('#walk-start');
  const found = await page.evaluate(async ({ source, flags, steps }) => {
    const wanted = new RegExp(source, flags);
    const next = document.getElementById('walk-next');
    for (let i = 0; i < steps; i++) {
      while (!globalThis.attentionLab.idle) await new Promise((done) => setTimeout(done, 10));
      const text = document.querySelector('.walk-text').textContent;
      if (wanted.test(text)) return { text, lines: [...document.querySelectorAll('.walk-arithmetic li')].map((li) => li.textContent) };
      next.scrollIntoView({ block: 'nearest' });
      const box = next.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      if (!box.width || !(hit === next || next.contains(hit))) return { covered: `step ${i + 1}: Next is not on screen or is covered (by ${hit?.tagName} ${hit?.className})` };
      next.click();
    }
    return null;
  }, { source: pattern.source, flags: pattern.flags, steps });
  if (found?.covered) throw new Error(found.covered);
  if (!found) throw new Error(`no walk step matches ${pattern}`);
  return found;
}
