// The lab in the pages course authors put it in, in headless Chromium: a classic Jupyter notebook
// (root font 10 px, a narrow flex column), a 600 px column, themes, compact, the iframe that a
// course platform sizes from the lab's messages (Canvas's lti.frameResize), and the Embed button's
// snippet pasted into a page of the same site, or of another site with and without CORS headers.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openBrowser } from './browser.mjs';
import { hostSite } from './host-site.mjs';
import { serve } from '../../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const hosting = hostSite();
const site = hosting.dir;
// every view the lab's markup can show on its own
const VIEW_NAMES = [...new Set([...readFileSync(path.join(root, 'web/app.html'), 'utf8').matchAll(/data-view="(\w+)"/g)].map((m) => m[1]))];

let browser;
before(async () => {
  browser = await openBrowser({ dir: site });
});
after(async () => {
  await browser?.close();
  hosting.remove();
});

const drawn = (page, id) => page.waitForFunction((el) => document.getElementById(el)?.lab?.draws > 0, id);
const redrawn = async (page, id, action) => {
  const before = await page.$eval(`#${id}`, (el) => el.lab.draws);
  await action();
  await page.waitForFunction(([el, n]) => document.getElementById(el).lab.draws > n, [id, before]);
};

// The smallest font size of any HTML element in the lab that shows text (pictures are drawn at
// their own scale and left out), with the element's tag and text.
function smallestText(host) {
  let smallest = { size: Infinity };
  const walk = (node) => {
    for (const el of node.children) {
      if (el instanceof SVGElement || el.tagName === 'CANVAS' || el.tagName === 'STYLE') continue;
      const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
      if (ownText && el.getClientRects().length > 0) {
        const size = parseFloat(getComputedStyle(el).fontSize);
        if (size < smallest.size) smallest = { size, what: `<${el.tagName.toLowerCase()}> ${el.textContent.trim().slice(0, 30)}` };
      }
      walk(el);
    }
  };
  walk(host.shadowRoot);
  return smallest;
}

// How far the lab reaches past its host's right edge: the host's own scroll width, and any box in
// it that is not inside a scrolling area.
function overflow(host) {
  const right = host.getBoundingClientRect().right;
  let worst = { by: host.scrollWidth - host.clientWidth, what: 'the host scroll width' };
  const scrolls = (el) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
  const walk = (node) => {
    for (const el of node.children) {
      if (el.getClientRects().length === 0) continue;
      const by = el.getBoundingClientRect().right - right;
      if (by > worst.by) worst = { by, what: `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') ?? ''}">` };
      if (!scrolls(el)) walk(el);
    }
  };
  walk(host.shadowRoot);
  return { width: host.getBoundingClientRect().width, ...worst };
}

describe('a host page with a 10 px root font and narrow columns', () => {
  it('classic Jupyter: readable text (at least 12 px), and as wide as the output area, in both kinds of output row', async () => {
    const tab = await browser.newPage();
    await tab.page.setViewportSize({ width: 1280, height: 900 });
    await tab.page.goto(`${browser.url}jupyter.html`);
    await drawn(tab.page, 'classic');
    await drawn(tab.page, 'nbconvert');
    for (const id of ['classic', 'nbconvert']) {
      const smallest = await tab.page.$eval(`#${id}`, smallestText);
      assert.ok(smallest.size >= 12, `${id}: smallest text ${smallest.size} px (${smallest.what})`);
      const body = await tab.page.$eval(`#${id}`, (host) => parseFloat(getComputedStyle(host.shadowRoot.querySelector('.controls')).fontSize));
      assert.equal(body, 16, `${id}: the lab's own base size`);
      // the output row must not grow past the notebook's column (nbconvert's flex row did, by the widest table)
      const [right, limit] = await tab.page.$eval(`#${id}`, (el) => {
        const column = document.getElementById('notebook-container');
        return [el.getBoundingClientRect().right, column.getBoundingClientRect().right - parseFloat(getComputedStyle(column).paddingRight)];
      });
      assert.ok(right <= limit + 0.5, `${id}: the lab ends at ${right} px, past the notebook column's ${limit} px`);
      const { by, what } = await tab.page.$eval(`#${id}`, overflow);
      assert.ok(by <= 0.5, `${id}: ${what} reaches ${by} px past the lab`);
    }
    const page = await tab.page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    assert.ok(page[0] <= page[1], `the notebook page scrolls sideways: ${page[0]} px in ${page[1]}`);
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });

  it('in a 600 px column, as a block and as a flex item, the lab is never wider than 600 px, whichever view', async () => {
    const tab = await browser.newPage();
    await tab.page.setViewportSize({ width: 1280, height: 900 });
    await tab.page.goto(`${browser.url}narrow.html`);
    for (const id of ['block', 'flex']) {
      await drawn(tab.page, id);
      for (const view of [...VIEW_NAMES, 'all']) {
        await redrawn(tab.page, id, () => tab.page.$eval(`#${id}`, (el, v) => el.setAttribute('view', v), view));
        const { width, by, what } = await tab.page.$eval(`#${id}`, overflow);
        assert.ok(width <= 600, `${id}, view=${view}: ${width} px wide`);
        assert.ok(by <= 0.5, `${id}, view=${view}: ${what} reaches ${by} px past the lab`);
        const smallest = await tab.page.$eval(`#${id}`, smallestText);
        assert.ok(smallest.size >= 12, `${id}, view=${view}: smallest text ${smallest.size} px (${smallest.what})`);
      }
    }
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
});

// the lab's light and dark backgrounds, as the themes tests read them
const background = (page, selector) => page.$eval(selector, (el) => getComputedStyle(el).backgroundColor);
const LIGHT = 'rgb(251, 251, 250)';
const DARK = 'rgb(21, 21, 23)';

describe('themes, compact, no timing line', () => {
  // one tab for the suite's 11 pages, each a new document (through about:blank) with the reader's
  // colour scheme set first (a new tab's is light): a tab's later loads reuse its compiled code
  const tab = {};
  before(async () => { Object.assign(tab, await browser.newPage()); });
  after(async () => { await tab.page.close(); });
  const load = async (url, colorScheme = 'light') => {
    await tab.page.goto('about:blank');
    await tab.page.emulateMedia({ colorScheme });
    await tab.page.goto(url);
  };
  themeTests(tab, load);
  compactTests(tab, load);
});

// the themes of the component, the embed and the full page
function themeTests(tab, load) {
  it('the component is light by default even for a dark-mode reader; theme="auto" follows the reader, theme="dark" forces dark', async () => {
    await load(`${browser.url}narrow.html`);
    await drawn(tab.page, 'block');
    for (const scheme of ['dark', 'light']) {
      await tab.page.emulateMedia({ colorScheme: scheme });
      await tab.page.$eval('#block', (el) => el.removeAttribute('theme'));
      assert.equal(await background(tab.page, '#block'), LIGHT, `${scheme} reader, no theme`);
      await tab.page.$eval('#block', (el) => el.setAttribute('theme', 'auto'));
      assert.equal(await background(tab.page, '#block'), scheme === 'dark' ? DARK : LIGHT, `${scheme} reader, theme=auto`);
      await tab.page.$eval('#block', (el) => el.setAttribute('theme', 'dark'));
      assert.equal(await background(tab.page, '#block'), DARK, `${scheme} reader, theme=dark`);
      assert.equal(await tab.page.$eval('#block', (el) => getComputedStyle(el.shadowRoot.querySelector('h2')).color), 'rgb(236, 236, 240)');
      await tab.page.$eval('#block', (el) => el.setAttribute('theme', 'light'));
      assert.equal(await background(tab.page, '#block'), LIGHT, `${scheme} reader, theme=light`);
    }
    // canvas labels are drawn again in the new ink
    const legend = () => tab.page.$eval('#block', (el) => el.shadowRoot.getElementById('heatmap-legend').toDataURL());
    const lightLegend = await legend();
    await tab.page.$eval('#block', (el) => el.setAttribute('theme', 'dark'));
    assert.notEqual(await legend(), lightLegend, 'the legend was redrawn for the dark theme');
    await tab.page.$eval('#block', (el) => el.setAttribute('theme', 'light'));
    assert.equal(await legend(), lightLegend, 'and back');

    await tab.page.$eval('#block', (el) => el.setAttribute('theme', 'purple'));
    await tab.page.waitForFunction(() => document.getElementById('block').shadowRoot.getElementById('messages').textContent.includes('theme'));
    assert.match(await tab.page.$eval('#block', (el) => el.shadowRoot.getElementById('messages').textContent), /theme must be light, dark or auto, got "purple"/);
    assert.equal(await background(tab.page, '#block'), LIGHT);
    await tab.page.$eval('#block', (el) => el.setAttribute('theme', 'dark'));
    assert.equal(await tab.page.$eval('#block', (el) => el.shadowRoot.getElementById('messages').textContent), '', 'a good value takes the message away');
    assert.deepEqual(tab.problems, []);
  });

  it('embed.html: light by default even for a dark-mode reader; ?theme=auto and ?theme=dark', async () => {
    for (const [query, scheme, expected] of [['', 'dark', LIGHT], ['?theme=auto', 'dark', DARK], ['?theme=auto', 'light', LIGHT], ['?theme=dark', 'light', DARK], ['?theme=light', 'dark', LIGHT]]) {
      await load(`${browser.url}lab/embed.html${query}`, scheme);
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      assert.equal(await background(tab.page, 'body'), expected, `${scheme} reader, embed.html${query}`);
      assert.deepEqual(tab.problems, []);
    }
    await load(`${browser.url}lab/embed.html?theme=neon`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.match(await tab.page.textContent('#messages'), /theme must be light, dark or auto, got "neon"/);
  });

  it('the full page still follows the reader', async () => {
    await load(`${browser.url}lab/index.html`, 'dark');
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.equal(await background(tab.page, 'body'), DARK);
  });
}

// what each host leaves out
function compactTests(tab, load) {
  it('no timing line in the component or the iframe (the full page keeps it); compact drops the notes and hints', async () => {
    await load(`${browser.url}narrow.html`);
    await drawn(tab.page, 'block');
    await tab.page.waitForTimeout(200);
    assert.equal(await tab.page.$eval('#block', (el) => el.shadowRoot.getElementById('status').textContent), '');
    const visible = (selector) => tab.page.$eval('#block', (el, s) => [...el.shadowRoot.querySelectorAll(s)].filter((e) => e.getClientRects().length > 0).length, selector);
    assert.equal(await visible('#notes-section'), 1);
    // the inputs' hint (the tokens' went into their label), the step table's float32 note and digits
    // (issue 26, point 6), the Train section's intro, counts and markers (point 9), the layer section's
    // intro, Real models' intro (issue 24), the note on column names above Parameters and Matrices
    // (issue 26, point 5), and the Layers section's line and its residual stream's hint (issue 23)
    assert.equal(await visible('section > .hint'), 11);
    await tab.page.$eval('#block', (el) => el.setAttribute('compact', ''));
    assert.equal(await visible('#notes-section'), 0, 'compact: no notes');
    assert.equal(await visible('section > .hint'), 0, 'compact: no hints');
    assert.equal(await visible('[data-view="steps"]'), 1, 'compact: the tables stay');
    await tab.page.$eval('#block', (el) => el.removeAttribute('compact'));
    assert.equal(await visible('#notes-section'), 1);

    await load(`${browser.url}lab/embed.html?compact=1`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await tab.page.waitForTimeout(200);
    assert.equal(await tab.page.textContent('#status'), '');
    assert.equal(await tab.page.locator('#notes-section').isHidden(), true);
    assert.equal(await tab.page.locator('#inputs-hint').isHidden(), true);
    assert.deepEqual(tab.problems, []);

    await load(`${browser.url}lab/index.html`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    // the full page keeps its timing line, under "About the engine"
    await tab.page.waitForFunction(() => document.getElementById('engine-status').textContent !== '');
    assert.match(await tab.page.textContent('#engine-status'), /^Computed in/);
  });
}

describe('the component\'s attributes for attention as real models have it', () => {
  it('kv-heads, rotary, rotary-dims and window set the lab; a bad one is named in the lab\'s messages', async () => {
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}components.html`);
    await drawn(tab.page, 'second');
    const set = (attributes) => redrawn(tab.page, 'second', () => tab.page.$eval('#second', (el, a) => {
      for (const [name, value] of Object.entries(a)) el.setAttribute(name, value);
    }, attributes));
    await set({ 'd-model': '4', heads: '2', 'd-k': '4', 'd-v': '4', weights: 'random', mask: 'causal', 'kv-heads': '1', rotary: '500', 'rotary-dims': '2', window: '3' });
    const read = await tab.page.$eval('#second', (el) => {
      const { state, result } = el.lab;
      return { fields: [state.kvHeads, state.rotary, state.rotaryTheta, state.rotaryDims, state.window], kvHeads: result.shape.kvHeads, turned: Boolean(result.heads[0].qUnrotated) };
    });
    assert.deepEqual(read, { fields: [1, true, 500, 2, 3], kvHeads: 1, turned: true });
    await tab.page.$eval('#second', (el) => el.setAttribute('kv-heads', 'three'));
    await tab.page.waitForFunction(() => /key\/value heads must be a whole number of at least 1, got "three"/.test(document.getElementById('second').shadowRoot.getElementById('messages').textContent));
    await tab.page.close();
  });
});

describe('the iframe on a course platform', () => {
  it('posts its content height, as its own message and as lti.frameResize, and the frame follows it down and up', async () => {
    const tab = await browser.newPage();
    await tab.page.setViewportSize({ width: 1000, height: 800 });
    await tab.page.goto(`${browser.url}lms-iframe.html`);
    const frame = tab.page.frame({ url: /embed\.html/ });
    await frame.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    // the frame starts 3000 px tall; the content is less, so the first message shrinks it
    await tab.page.waitForFunction(() => window.ltiHeights.length > 0 && window.ltiHeights.at(-1) < 3000);
    // waits until no new message came for 150 ms (the height settles; it must not swing for ever)
    const settled = async () => {
      let last = -1;
      for (let tries = 0; tries < 40; tries++) {
        await tab.page.waitForTimeout(150);
        const now = await tab.page.evaluate(() => window.ltiHeights.length);
        if (now === last) return;
        last = now;
      }
      assert.fail(`the height kept changing: ${await tab.page.evaluate(() => window.ltiHeights.slice(-6).join(', '))}`);
    };
    const measure = async () => {
      await settled();
      return {
        lti: await tab.page.evaluate(() => window.ltiHeights.at(-1)),
        own: await tab.page.evaluate(() => window.heights.at(-1)),
        frame: await tab.page.$eval('#frame', (f) => f.getBoundingClientRect().height),
        content: await frame.evaluate(() => document.querySelector('main').getBoundingClientRect().height),
        scrolls: await frame.evaluate(() => document.documentElement.scrollHeight > innerHeight + 1),
      };
    };
    const full = await measure();
    assert.equal(full.own, full.lti, 'both forms carry the same height');
    assert.ok(Math.abs(full.frame - full.content) <= 1, `frame ${full.frame}, content ${full.content}`);
    assert.equal(full.scrolls, false, 'no scroll bar inside the frame');

    await frame.evaluate(() => globalThis.attentionLab.setViews(new Set(['tokens'])));
    const small = await measure();
    assert.ok(small.lti < full.lti / 3, `shrank from ${full.lti} to ${small.lti}`);
    assert.ok(Math.abs(small.frame - small.content) <= 1, `frame ${small.frame}, content ${small.content}`);

    await frame.evaluate(() => globalThis.attentionLab.setViews(null));
    const grown = await measure();
    assert.ok(grown.lti > full.lti, `grew from ${small.lti} to ${grown.lti}`);
    assert.ok(Math.abs(grown.frame - grown.content) <= 1, `frame ${grown.frame}, content ${grown.content}`);
    assert.equal(grown.scrolls, false);
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
});

// The lab of a pasted snippet, once drawn: its state and output.
const openSnippet = async (page) => {
  await page.waitForFunction(() => document.querySelector('attention-lab')?.lab?.draws > 0);
  return page.evaluate(() => {
    const { lab } = document.querySelector('attention-lab');
    return { state: lab.state, output: Array.from(lab.view.result.output) };
  });
};

describe("the Embed button's component snippet", () => {
  let snippet;
  let original;
  before(async () => {
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}lab/index.html#lab=%7B%22preset%22%3A%22telescope%22%7D`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const redraw = async (action) => {
      const n = await tab.page.evaluate(() => globalThis.attentionLab.draws);
      await action();
      await tab.page.waitForFunction((m) => globalThis.attentionLab.draws > m, n);
    };
    await redraw(() => tab.page.locator('#x-table input').nth(1).fill('0.75'));
    await redraw(() => tab.page.click('#tokens button[data-index="2"]'));
    await redraw(() => tab.page.click('#tab-1'));
    await tab.page.click('#embed-toggle');
    snippet = await tab.page.textContent('#embed-component');
    original = await tab.page.evaluate(() => ({ state: globalThis.attentionLab.state, output: Array.from(globalThis.attentionLab.view.result.output) }));
    assert.equal(await tab.page.textContent('#embed-absolute'), `${browser.url}lab/attention-lab.js`);
    assert.match(await tab.page.textContent('#embed-panel'), /Access-Control-Allow-Origin/);
    await tab.page.close();
  });

  it('loads the script by its path on this site and carries the edits, the chosen token and the head', async () => {
    assert.match(snippet, /^<script type="module" src="\/lab\/attention-lab\.js"><\/script>\n<attention-lab state="lab=[^"]+"><\/attention-lab>$/);
    writeFileSync(path.join(site, 'week3.html'), `<!doctype html><html lang="en"><title>Week 3</title><body>${snippet}</body></html>`);
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}week3.html`);
    const pasted = await openSnippet(tab.page);
    for (const key of ['preset', 'sentence', 'xEdits', 'selectedToken', 'selectedHead', 'heads']) {
      assert.deepEqual(pasted.state[key], original.state[key], key);
    }
    assert.equal(original.state.selectedToken, 2);
    assert.equal(original.state.selectedHead, 1);
    assert.equal(Object.keys(original.state.xEdits).length, 1);
    assert.deepEqual(pasted.output, original.output);
    assert.equal(await tab.page.locator('attention-lab #tab-1[aria-selected="true"]').count(), 1);
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });

  it('on another site it loads only from a server that sends Access-Control-Allow-Origin (the engine then runs on the page)', async () => {
    for (const cors of [true, false]) {
      const lab = await serve({ dir: path.join(root, 'dist'), port: 0, headers: cors ? { 'Access-Control-Allow-Origin': '*' } : {} });
      const host = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-other-site-'));
      const page = await browser.browser.newPage();
      let other;
      try {
        const pasted = snippet.replace('/lab/attention-lab.js', `${lab.url}attention-lab.js`);
        writeFileSync(path.join(host, 'index.html'), `<!doctype html><html lang="en"><title>Another site</title><link rel="icon" href="data:,"><body>${pasted}</body></html>`);
        other = await serve({ dir: host, port: 0 });
        const errors = [];
        page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
        // another origin: localhost, against the lab's 127.0.0.1
        await page.goto(other.url.replace('127.0.0.1', 'localhost'));
        if (cors) {
          const shown = await openSnippet(page);
          assert.deepEqual(shown.output, original.output);
          // no worker from another origin: the page itself fetched the engine's WebAssembly
          assert.ok(await page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('.wasm'))), 'the engine runs on the page');
          assert.deepEqual(errors, []);
        } else {
          await page.waitForTimeout(500);
          assert.equal(await page.evaluate(() => customElements.get('attention-lab')), undefined);
          assert.ok(errors.some((e) => /CORS|Access-Control-Allow-Origin/.test(e)), errors.join('\n'));
        }
      } finally {
        await page.close();
        await other?.close();
        await lab.close();
        rmSync(host, { recursive: true, force: true });
      }
    }
  });
});
