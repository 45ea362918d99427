// The three ways the lab is used, in headless Chromium: a folder on any static host, one file
// opened from disk with no network, and embedded (web component, iframe); plus links that carry
// the state, exports, a strict Content-Security-Policy, and axe-core's accessibility checks.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { openBrowser } from './browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

// A static site: the built folder under /lab/, beside host pages that embed it.
const site = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-site-'));
cpSync(path.join(root, 'dist'), path.join(site, 'lab'), { recursive: true });
cpSync(path.join(root, 'tests/e2e/fixtures'), site, { recursive: true });

let browser;
before(async () => {
  browser = await openBrowser({ dir: site });
});
after(async () => {
  await browser?.close();
  rmSync(site, { recursive: true, force: true });
});

async function openLab(url, options) {
  const tab = await browser.newPage(options);
  await tab.page.goto(url);
  await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
  return tab;
}

const weightsRow = (page, selector = '[data-slot="head-0-weights"]') =>
  page.$eval(`${selector} tbody tr`, (tr) => Array.from(tr.cells).slice(1).map((c) => c.textContent));

describe('static and offline', () => {
  it('the folder works from a sub-path of a static host (relative paths only)', async () => {
    const tab = await openLab(`${browser.url}lab/index.html`);
    assert.deepEqual(await weightsRow(tab.page), ['0.422', '0.155', '0.422', '1.000']);
    // how it was computed sits in the "About the engine" details, out of the reader's way
    await tab.page.waitForFunction(() => document.getElementById('engine-status').textContent !== '');
    assert.match(await tab.page.textContent('#engine-status'), /SIMD WebAssembly engine\.$/, 'the engine runs in the worker');
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, []);
    await tab.page.close();
  });

  it('the single file works opened from disk with every network request blocked', async () => {
    const tab = await browser.newPage({ offline: true });
    await tab.page.goto(pathToFileURL(path.join(root, 'dist/attention-lab.html')).href);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.deepEqual(await weightsRow(tab.page), ['0.422', '0.155', '0.422', '1.000']);
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.selectOption('#preset', 'telescope');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    assert.equal(await tab.page.locator('#head-tabs [role="tab"]').count(), 3);
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, [], 'nothing was requested from any host');
    await tab.page.close();
  });
});

describe('embedding', () => {
  it('two web components on one page: their own presets, their own styles, and attribute changes', async () => {
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}components.html`);
    const ready = (id) => tab.page.waitForFunction((el) => document.getElementById(el)?.lab?.draws > 0, id);
    await ready('first');
    await ready('second');
    // Playwright's CSS selectors pierce open shadow roots
    assert.deepEqual(await weightsRow(tab.page, '#first [data-slot="head-0-weights"]'), ['0.422', '0.155', '0.422', '1.000']);
    assert.equal(await tab.page.locator('#second [role="tab"]').count(), 3);
    assert.equal(await tab.page.locator('#first [data-view="inputs"]').isHidden(), true, 'view= shows only the chosen views');
    assert.equal(await tab.page.locator('#first [data-view="steps"]').isVisible(), true);

    // host styles stay out, lab styles stay in
    const labHeading = await tab.page.$eval('#second', (el) => getComputedStyle(el.shadowRoot.querySelector('h2')).color);
    assert.notEqual(labHeading, 'rgb(255, 0, 0)');
    assert.equal(await tab.page.$eval('.host-heading', (h) => getComputedStyle(h).color), 'rgb(255, 0, 0)');
    const hostCell = await tab.page.$eval('.host-table td', (td) => [getComputedStyle(td).borderTopWidth, getComputedStyle(td).paddingTop]);
    assert.deepEqual(hostCell, ['0px', '17px']);

    // changing an attribute updates that instance only
    const before = await tab.page.$eval('#first', (el) => el.lab.draws);
    await tab.page.$eval('#first', (el) => el.setAttribute('preset', 'animal-it'));
    await tab.page.waitForFunction((n) => document.getElementById('first').lab.draws > n, before);
    const itRow = await tab.page.$$eval('#first [data-slot="head-0-scores"] tbody tr', (rows) => Array.from(rows[7].cells).slice(1).map((c) => c.textContent));
    assert.deepEqual(itRow, ['0.170', '0.770', '0.200', '0.290', '0.170', '0.620', '0.000', '0.920', '0.140', '0.000', '1.220', '0.000']);
    assert.equal(await tab.page.$eval('#second', (el) => el.lab.state.preset), 'telescope');

    // a bad attribute gives a message inside the lab, not a broken page
    await tab.page.$eval('#second', (el) => el.setAttribute('heads', 'many'));
    await tab.page.waitForFunction(() => document.getElementById('second').shadowRoot.getElementById('messages').textContent.includes('heads'));
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, []);
    await tab.page.close();
  });

  it('the iframe embed shows minimal chrome and reports its height to the host', async () => {
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}iframe.html`);
    await tab.page.waitForFunction(() => window.heights?.length > 0 && window.heights.at(-1) > 300);
    const frame = tab.page.frame({ url: /embed\.html/ });
    await frame.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.equal(await frame.locator('#controls').isHidden(), true);
    assert.equal(await frame.locator('[data-view="steps"]').isVisible(), true);
    assert.match(await frame.textContent('#steps caption'), /Query 'it'/);
    const [reported, actual, frameHeight] = await Promise.all([
      tab.page.evaluate(() => window.heights.at(-1)),
      frame.evaluate(() => document.documentElement.scrollHeight),
      tab.page.$eval('#frame', (f) => Number(f.height)),
    ]);
    assert.ok(Math.abs(reported - actual) <= 2, `reported ${reported}, content ${actual}`);
    assert.equal(frameHeight, reported, 'the host sized the frame');
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
});

describe('links carry the state', () => {
  it('a copied link reopens exactly the same lab', async () => {
    const tab = await openLab(`${browser.url}lab/index.html`);
    const { page } = tab;
    const redraw = async (action) => {
      const n = await page.evaluate(() => globalThis.attentionLab.draws);
      await action();
      await page.waitForFunction((m) => globalThis.attentionLab.draws > m, n);
    };
    await redraw(() => page.selectOption('#preset', 'money-bank'));
    await redraw(() => page.fill('#sentence', 'river bank money'));
    await redraw(() => page.selectOption('#weightsMode', 'random'));
    await redraw(() => page.fill('#seed', '42'));
    await redraw(() => page.getByRole('textbox', { name: 'X, row bank, column finance', exact: true }).fill('0.25'));
    await redraw(() => page.click('#tokens button[data-index="2"]'));
    const link = page.url();
    assert.match(link, /#lab=/);
    const before = await page.evaluate(() => ({ state: globalThis.attentionLab.state, out: Array.from(globalThis.attentionLab.view.result.output) }));
    const copy = await openLab(link);
    const after = await copy.page.evaluate(() => ({ state: globalThis.attentionLab.state, out: Array.from(globalThis.attentionLab.view.result.output) }));
    for (const key of ['sentence', 'weightsMode', 'seed', 'xEdits', 'selectedToken', 'dModel', 'heads']) {
      assert.deepEqual(after.state[key], before.state[key], key);
    }
    assert.deepEqual(after.out, before.out);
    assert.equal(await copy.page.textContent('#messages'), '');
    await page.close();
    await copy.page.close();
  });

  for (const [what, fragment] of [
    ['not JSON', '#lab=%7Bbroken'],
    ['a wrong type', '#lab=%7B%22heads%22%3A%22%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%22%7D'],
    ['an unknown key', '#lab=%7B%22__proto__x%22%3A1%7D'],
    ['no lab= prefix', '#something-else'],
    ['an array', '#lab=%5B1%2C2%5D'],
  ]) {
    it(`a broken fragment (${what}) gives a message and the first example`, async () => {
      const tab = await openLab(`${browser.url}lab/index.html${fragment}`);
      assert.match(await tab.page.textContent('#messages'), /could not be read/);
      assert.deepEqual(await weightsRow(tab.page), ['0.422', '0.155', '0.422', '1.000']);
      assert.equal(await tab.page.locator('main img').count(), 0);
      assert.deepEqual(tab.problems, []);
      await tab.page.close();
    });
  }
});

describe('exports', () => {
  let tab;
  before(async () => {
    tab = await openLab(`${browser.url}lab/index.html#lab=%7B%22preset%22%3A%22animal-it%22%7D`);
    await tab.page.click('#export-toggle');
  });
  after(async () => tab.page.close());

  async function exported(table, format) {
    await tab.page.selectOption('#export-table', table);
    await tab.page.selectOption('#export-format', format);
    return tab.page.textContent('#export-preview');
  }

  // The page's table as numbers, to compare each export with.
  async function shown(slot) {
    return tab.page.$$eval(`[data-slot="${slot}"] tbody tr`, (rows) => rows.map((tr) => ({
      label: tr.cells[0].textContent,
      values: Array.from(tr.cells).slice(1).filter((c) => !c.classList.contains('row-sum')).map((c) => (c.textContent === '−∞' ? -Infinity : Number(c.textContent))),
    })));
  }
  const close = (a, b) => (a === -Infinity ? b === -Infinity : Math.abs(a - b) <= 0.0006);
  function assertSame(parsed, table, what) {
    assert.equal(parsed.length, table.length, `${what}: rows`);
    parsed.forEach((row, r) => {
      assert.equal(row.label, table[r].label, `${what}: row label`);
      row.values.forEach((v, c) => assert.ok(close(table[r].values[c], v), `${what} [${r}][${c}]: ${v} vs ${table[r].values[c]}`));
    });
  }

  it('CSV, JSON, Markdown and LaTeX parse back to the table, with labels and settings', async () => {
    const table = await shown('head-0-scores');
    const csv = (await exported('scores-0', 'csv')).trim().split('\n');
    assert.match(csv[0], /^# Attention Lab: Scores/);
    assert.match(csv[1], /"weights":"edited by hand"/);
    assert.equal(csv[2], 'token,The,animal,didn\'t,cross,the,street,because,it,was,too,tired,.');
    assertSame(csv.slice(3).map((line) => { const [label, ...v] = line.split(','); return { label, values: v.map(Number) }; }), table, 'CSV');

    const json = JSON.parse(await exported('scores-0', 'json'));
    assert.equal(json.settings.scale, 'none');
    assert.deepEqual(json.columns, ['The', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired', '.']);
    assertSame(json.rows.map((label, r) => ({ label, values: json.values[r] })), table, 'JSON');

    const md = (await exported('scores-0', 'md')).trim().split('\n');
    assert.match(md[0], /^\*\*Scores Q·Kᵀ \(head 1\)\*\* \(sentence: The animal/);
    assertSame(md.slice(4).map((line) => { const cells = line.split('|').slice(1, -1).map((c) => c.trim()); return { label: cells[0], values: cells.slice(1).map(Number) }; }), table, 'Markdown');

    const tex = (await exported('scores-0', 'tex')).trim().split('\n');
    assert.ok(tex.includes('\\begin{tabular}{lrrrrrrrrrrrr}'));
    const body = tex.filter((line) => line.endsWith('\\\\')).slice(1);
    assertSame(body.map((line) => { const cells = line.replace(/\\\\$/, '').split('&').map((c) => c.trim()); return { label: cells[0], values: cells.slice(1).map(Number) }; }), table, 'LaTeX');
  });

  it('masked scores export as -Infinity, null and −∞', async () => {
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.selectOption('#maskMode', 'causal');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    await tab.page.click('#export-toggle');
    await tab.page.click('#export-toggle');
    const scaled = await exported('scaled-0', 'csv');
    assert.match(scaled, /^The,0\.04\d*,-Infinity,-Infinity/m);
    assert.match(scaled, /^it,0\.17\d*,0\.77\d*,0\.2\d*,0\.29\d*,0\.17\d*,0\.62\d*,0,0\.92\d*,-Infinity,-Infinity,-Infinity,-Infinity$/m);
    const json = JSON.parse(await exported('scaled-0', 'json'));
    assert.equal(json.values[0][1], null);
    assert.match(await exported('scaled-0', 'tex'), /\$-\\infty\$/);
    assertSame((await exported('weights-0', 'csv')).trim().split('\n').slice(3).map((line) => { const [label, ...v] = line.split(','); return { label, values: v.map(Number) }; }),
      await shown('head-0-weights'), 'weights under the causal mask');
  });

  it('downloads: a table file, the heatmap as SVG and PNG, the token lines as SVG', async () => {
    const download = async (button) => {
      const [file] = await Promise.all([tab.page.waitForEvent('download'), tab.page.click(button)]);
      return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
    };
    await tab.page.selectOption('#export-format', 'csv');
    const csv = await download('#export-download');
    assert.match(csv.name, /\.csv$/);
    assert.equal(csv.bytes.toString('utf8'), await tab.page.textContent('#export-preview'));

    await tab.page.selectOption('#export-picture', 'heatmap');
    const svg = await download('#export-svg');
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal((text.match(/<rect /g) ?? []).length, 144, '12 × 12 cells');
    assert.match(text, /<desc>Attention Lab: \{/);
    assert.match(text, />tired</);
    const png = await download('#export-png');
    assert.deepEqual([...png.bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG signature');

    await tab.page.selectOption('#export-picture', 'lines');
    const lines = (await download('#export-svg')).bytes.toString('utf8');
    assert.ok((lines.match(/<line /g) ?? []).length >= 8);
    assert.match(lines, /stroke-opacity="0\.\d+"/);
    assert.deepEqual(tab.problems, []);
  });
});

describe('Content-Security-Policy and accessibility', () => {
  let strict;
  before(async () => {
    strict = await openBrowser({ dir: site, headers: { 'Content-Security-Policy': CSP } });
  });
  after(async () => strict?.close());

  for (const [name, pathname, ready] of [
    ['the page', 'lab/index.html', () => globalThis.attentionLab?.draws > 0],
    ['the embed page', 'lab/embed.html', () => globalThis.attentionLab?.draws > 0],
    ['a page hosting the web component', 'components.html', () => document.getElementById('second')?.lab?.draws > 0],
  ]) {
    it(`${name} works under "${CSP}" with no violation`, async () => {
      const tab = await strict.newPage();
      await tab.page.addInitScript(() => {
        window.violations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      const response = await tab.page.goto(`${strict.url}${pathname}`);
      assert.equal(response.headers()['content-security-policy'], CSP);
      await tab.page.waitForFunction(ready);
      await tab.page.waitForTimeout(300);
      assert.deepEqual(await tab.page.evaluate(() => window.violations), []);
      assert.deepEqual(tab.problems, []);
      await tab.page.close();
    });

    it(`axe-core finds no serious or critical violation on ${name}`, async () => {
      const tab = await browser.newPage();
      await tab.page.goto(`${browser.url}${pathname}`);
      await tab.page.waitForFunction(ready);
      await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
      const violations = await tab.page.evaluate(async () => {
        const result = await globalThis.axe.run(document, { resultTypes: ['violations'] });
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      });
      assert.deepEqual(violations, []);
      await tab.page.close();
    });
  }
});
