// The three ways the lab is used, in headless Chromium: a folder on any static host, one file
// opened from disk with no network, and embedded (web component, iframe); plus links that carry
// the state, exports, a strict Content-Security-Policy, and axe-core's accessibility checks.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { downloadBy, downloadedBytes, openBrowser, renderEverySection } from './browser.mjs';
import { hostSite } from './host-site.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

// A static site: the built folder under /lab/, beside host pages that embed it.
const hosting = hostSite();
const site = hosting.dir;

let browser;
before(async () => {
  browser = await openBrowser({ dir: site });
});
after(async () => {
  await browser?.close();
  hosting.remove();
});

async function openLab(url, options) {
  return openIn(await browser.newPage(options), url);
}

/** Opens `url` in `tab` as a new document (through about:blank), waits for its lab's first draw, unfolds the settings. */
async function openIn(tab, url) {
  await tab.page.goto('about:blank');
  await tab.page.goto(url);
  await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
  // the settings start folded (issue 26, point 12): these tests choose in them
  await tab.page.evaluate(() => { const settings = document.getElementById('settings'); if (settings) settings.open = true; });
  return tab;
}

const weightsRow = (page, selector = '[data-slot="head-0-weights"]') =>
  page.$eval(`${selector} tbody tr`, (tr) => Array.from(tr.cells).slice(1).map((c) => c.textContent));

describe('static and offline', () => {
  it('the folder works from a sub-path of a static host (relative paths only)', async () => {
    const tab = await openLab(`${browser.url}lab/index.html`);
    assert.deepEqual(await weightsRow(tab.page), ['0.4223', '0.1554', '0.4223', '1']);
    // how it was computed sits in the "About the engine" details, out of the reader's way
    await tab.page.waitForFunction(() => document.getElementById('engine-status').textContent !== '');
    assert.match(await tab.page.textContent('#engine-status'), /SIMD( \+ FMA)? WebAssembly engine\.$/, 'the engine runs in the worker');
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, []);
    await tab.page.close();
  });

  it('the single file works opened from disk with every network request blocked', async () => {
    const tab = await browser.newPage({ offline: true });
    await tab.page.goto(pathToFileURL(path.join(root, 'dist/attention-lab.html')).href);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.deepEqual(await weightsRow(tab.page), ['0.4223', '0.1554', '0.4223', '1']);
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.selectOption('#preset', 'telescope');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    assert.equal(await tab.page.locator('#head-tabs [role="tab"]').count(), 3);
    // and it trains: its engine is the learning build (inline-engine.mjs)
    await tab.page.locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 20_000 });
    await tab.page.click('#train-run');
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.run.snapshot.steps >= 5, null, { timeout: 30_000 });
    await tab.page.click('#train-run');
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, [], 'nothing was requested from any host');
    await tab.page.close();
  });

  it("the page's worker loads the forward-only engine at start, the learning engine only when training starts", async () => {
    const tab = await browser.newPage();
    const engines = [];
    tab.page.context().on('request', (request) => {
      const name = /\/lib\/(attention-[\w-]+\.wasm)$/.exec(new URL(request.url()).pathname)?.[1];
      if (name) engines.push(name);
    });
    await tab.page.goto(`${browser.url}lab/index.html`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await tab.page.waitForFunction(() => document.getElementById('engine-status').textContent !== '');
    // the page's own copy of it, for small requests (compute.mjs), follows the worker's
    for (let waited = 0; engines.length < 2 && waited < 10_000; waited += 100) await tab.page.waitForTimeout(100);
    // Chromium has relaxed SIMD: the relaxed build (fused multiply-adds) in place of the SIMD one
    assert.deepEqual(engines, ['attention-relaxed.wasm', 'attention-relaxed.wasm'], 'only the small engine before any training, in the worker and on the page');
    await tab.page.locator('section[data-view="train"]').scrollIntoViewIfNeeded();
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.run !== null, null, { timeout: 20_000 });
    await tab.page.click('#train-run');
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.run.snapshot.steps >= 5, null, { timeout: 30_000 });
    await tab.page.click('#train-run');
    assert.deepEqual(engines, ['attention-relaxed.wasm', 'attention-relaxed.wasm', 'attention-learn-relaxed.wasm']);
    // the forward pass still answers from the small engine: an edit redraws
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.selectOption('#preset', 'telescope');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    assert.deepEqual(engines, ['attention-relaxed.wasm', 'attention-relaxed.wasm', 'attention-learn-relaxed.wasm']);
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, []);
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
    assert.deepEqual(await weightsRow(tab.page, '#first [data-slot="head-0-weights"]'), ['0.4223', '0.1554', '0.4223', '1']);
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
    assert.deepEqual(itRow, ['0.17', '0.77', '0.2', '0.29', '0.17', '0.62', '0', '0.92', '0.14', '0', '1.22', '0']);
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
  let linkTab;
  it('a copied link reopens exactly the same lab', async () => {
    linkTab = await openLab(`${browser.url}lab/index.html`);
    const { page } = linkTab;
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
    // reopened as a new document in the same tab (what was on screen is gone with the old one)
    const copy = await openIn(linkTab, link);
    const after = await copy.page.evaluate(() => ({ state: globalThis.attentionLab.state, out: Array.from(globalThis.attentionLab.view.result.output) }));
    for (const key of ['sentence', 'weightsMode', 'seed', 'xEdits', 'selectedToken', 'dModel', 'heads']) {
      assert.deepEqual(after.state[key], before.state[key], key);
    }
    assert.deepEqual(after.out, before.out);
    assert.equal(await copy.page.textContent('#messages'), '');
  });

  for (const [what, fragment] of [
    ['not JSON', '#lab=%7Bbroken'],
    ['a wrong type', '#lab=%7B%22heads%22%3A%22%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%22%7D'],
    ['an unknown key', '#lab=%7B%22__proto__x%22%3A1%7D'],
    ['no lab= prefix', '#something=else'],  // a plain anchor (#something-else) is a place, not a link
    ['an array', '#lab=%5B1%2C2%5D'],
  ]) {
    // the five in the same tab, each a new document: a tab's later loads reuse its compiled code
    it(`a broken fragment (${what}) gives a message and the first example`, async () => {
      linkTab ??= await browser.newPage();
      const tab = await openIn(linkTab, `${browser.url}lab/index.html${fragment}`);
      assert.match(await tab.page.textContent('#messages'), /could not be read/);
      assert.deepEqual(await weightsRow(tab.page), ['0.4223', '0.1554', '0.4223', '1']);
      assert.equal(await tab.page.locator('main img').count(), 0);
      assert.deepEqual(tab.problems, []);
    });
  }
  after(async () => { await linkTab?.page.close(); });
});

// The exports tests' tab (opened by their before hook) and the readers they share.
let tab;

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
const csvRows = (lines) => lines.map((line) => { const [label, ...v] = line.split(','); return { label, values: v.map((t) => (t === '−∞' ? -Infinity : Number(t))) }; });
const close = (a, b) => (a === -Infinity ? b === -Infinity : Math.abs(a - b) <= 0.0006);
function assertSame(parsed, table, what) {
  assert.equal(parsed.length, table.length, `${what}: rows`);
  parsed.forEach((row, r) => {
    assert.equal(row.label, table[r].label, `${what}: row label`);
    row.values.forEach((v, c) => assert.ok(close(table[r].values[c], v), `${what} [${r}][${c}]: ${v} vs ${table[r].values[c]}`));
  });
}

describe('exports', () => {
  before(async () => {
    tab = await openLab(`${browser.url}lab/index.html#lab=%7B%22preset%22%3A%22animal-it%22%7D`);
    await tab.page.click('#export-toggle');
  });
  after(async () => tab.page.close());

  it('CSV, JSON, Markdown and LaTeX parse back to the table, with labels and settings', async () => {
    const table = await shown('head-0-scores');
    const csv = (await exported('scores-0', 'csv')).trim().split('\n');
    assert.match(csv[0], /^# Attention Lab,Scores/);
    assert.ok(csv.includes('# weights,edited by hand'));
    const header = csv.indexOf('token,The,animal,didn\'t,cross,the,street,because,it,was,too,tired,.');
    assert.ok(header > 0);
    assertSame(csvRows(csv.slice(header + 1)), table, 'CSV');

    const json = JSON.parse(await exported('scores-0', 'json'));
    assert.equal(json.settings.scale, 'none');
    assert.deepEqual(json.columns, ['The', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired', '.']);
    assertSame(json.rows.map((label, r) => ({ label, values: json.values[r] })), table, 'JSON');

    const md = (await exported('scores-0', 'md')).trim().split('\n');
    // no backslash a slide would show: ( : . stay bare (review 10, E)
    assert.match(md[0], /^\*\*Scores Q·Kᵀ \(head 1\)\*\* \(sentence: The animal didn't cross the street because it was too tired\.; /);
    // a label's Markdown escapes (\. for .) come off, as a renderer takes them off
    assertSame(md.slice(4).map((line) => { const cells = line.split('|').slice(1, -1).map((c) => c.trim()); return { label: cells[0].replace(/\\(.)/g, '$1'), values: cells.slice(1).map(Number) }; }), table, 'Markdown');

    const tex = (await exported('scores-0', 'tex')).trim().split('\n');
    assert.ok(tex.includes('\\begin{tabular}{lrrrrrrrrrrrr}'));
    const body = tex.filter((line) => line.endsWith('\\\\')).slice(1);
    assertSame(body.map((line) => { const cells = line.replace(/\\\\$/, '').split('&').map((c) => c.trim()); return { label: cells[0], values: cells.slice(1).map(Number) }; }), table, 'LaTeX');
  });

  it('masked scores export as −∞ (CSV), null (JSON) and −∞ (Markdown, LaTeX)', async () => {
    const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.selectOption('#maskMode', 'causal');
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    await tab.page.click('#export-toggle');
    await tab.page.click('#export-toggle');
    const scaled = await exported('scaled-0', 'csv');
    assert.match(scaled, /^The,0\.04\d*,−∞,−∞/m);
    assert.match(scaled, /^it,0\.17\d*,0\.77\d*,0\.2\d*,0\.29\d*,0\.17\d*,0\.62\d*,0,0\.92\d*,−∞,−∞,−∞,−∞$/m);
    const json = JSON.parse(await exported('scaled-0', 'json'));
    assert.equal(json.values[0][1], null);
    assert.match(await exported('scaled-0', 'tex'), /\$-\\infty\$/);
    const weights = (await exported('weights-0', 'csv')).trim().split('\n');
    assertSame(csvRows(weights.slice(weights.findIndex((line) => line.startsWith('token,')) + 1)), await shown('head-0-weights'), 'weights under the causal mask');
  });

  it('downloads: a table file, the heatmap as SVG and PNG, the token lines as SVG', async () => {
    const download = async (button) => {
      const file = await downloadBy(tab.page, button);
      return { name: file.suggestedFilename(), bytes: await downloadedBytes(file) };
    };
    await tab.page.selectOption('#export-format', 'csv');
    const csv = await download('#export-download');
    assert.match(csv.name, /\.csv$/);
    assert.equal(csv.bytes.toString('utf8'), await tab.page.textContent('#export-preview'));

    await tab.page.selectOption('#export-picture', 'heatmap');
    const svg = await download('#export-svg');
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal((text.match(/<rect [^>]*data-weight=/g) ?? []).length, 144, '12 × 12 cells');
    assert.match(text, />Attention weights of head 1 \(rows: queries, columns: keys\)</);
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
  // one tab under the policy and one without for the suite's 12 pages, each a new document (through
  // about:blank) with the reader's colour scheme set first (a new tab's is light): a tab's later
  // loads reuse its compiled code
  let strict, strictTab, tab;
  before(async () => {
    strict = await openBrowser({ dir: site, headers: { 'Content-Security-Policy': CSP } });
    strictTab = await strict.newPage();
    await strictTab.page.addInitScript(() => {
      window.violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    tab = await browser.newPage();
  });
  after(async () => {
    await tab?.page.close();
    await strict?.close();
  });
  const load = async (opened, url, colorScheme = 'light') => {
    await opened.page.goto('about:blank');
    await opened.page.emulateMedia({ colorScheme });
    return opened.page.goto(url);
  };

  for (const [name, pathname, ready] of [
    ['the page', 'lab/index.html', () => globalThis.attentionLab?.draws > 0],
    ['the embed page', 'lab/embed.html', () => globalThis.attentionLab?.draws > 0],
    ['a page hosting the web component', 'components.html', () => document.getElementById('second')?.lab?.draws > 0],
  ]) {
    it(`${name} works under "${CSP}" with no violation`, async () => {
      const response = await load(strictTab, `${strict.url}${pathname}`);
      assert.equal(response.headers()['content-security-policy'], CSP);
      await strictTab.page.waitForFunction(ready);
      await strictTab.page.waitForTimeout(300);
      assert.deepEqual(await strictTab.page.evaluate(() => window.violations), []);
      assert.deepEqual(strictTab.problems, []);
    });

    it(`axe-core finds no serious or critical violation on ${name}`, async () => {
      await load(tab, `${browser.url}${pathname}`);
      await tab.page.waitForFunction(ready);
      await renderEverySection(tab.page);
      await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
      const violations = await tab.page.evaluate(async () => {
        const result = await globalThis.axe.run(document, { resultTypes: ['violations'] });
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      });
      assert.deepEqual(violations, []);
    });

    // axe cannot see into the sections content-visibility skips (renderEverySection); their cells'
    // contrast, from the computed colours alone: WCAG's ratio of the text's colour against the
    // backgrounds under it (each stop of a gradient), at least 4.5 for the tables' 13.8 px text
    for (const scheme of ['light', 'dark']) {
      it(`cells in the sections skipped off screen have a contrast of at least 4.5 on ${name} (${scheme})`, async () => {
        await load(tab, `${browser.url}${pathname}`, scheme);
        await tab.page.waitForFunction(ready);
        await tab.page.waitForTimeout(300);  // the sections out of view are drawn after the first frame
        const { skipped, worst } = await tab.page.evaluate(cellContrastOffScreen);
        assert.ok(skipped >= 20, `only ${skipped} cells are in skipped sections: the test would prove little`);
        assert.ok(worst.ratio >= 4.5, `${worst.where}: ${worst.fg} on ${worst.bg}, contrast ${worst.ratio.toFixed(2)}`);
      });
    }
  }
});

// In the page: every table cell in a section that content-visibility skips now, its text colour
// against each background under it, composited up through transparent ancestors (and out of a
// shadow root through its host). Returns how many cells were checked and the lowest ratio.
function cellContrastOffScreen() {
  const parse = (css) => {
    const [r, g, b, a = 1] = css.match(/[\d.]+/g).map(Number);
    return [r, g, b, a];
  };
  const over = (top, below) => top.slice(0, 3).map((c, i) => c * top[3] + below[i] * (1 - top[3])).concat(1);
  const beneath = (element) => {
    if (!element) return [[255, 255, 255, 1]];
    const style = getComputedStyle(element);
    const stops = [...style.backgroundImage.matchAll(/rgba?\([^)]*\)/g)].map((m) => parse(m[0]));
    const colour = parse(style.backgroundColor);
    const parent = element.parentElement ?? element.getRootNode().host ?? null;
    const below = stops.length || colour[3] < 1 ? beneath(parent) : [];
    const layers = stops.length ? stops.flatMap((stop) => below.map((b) => over(stop, b))) : below;
    return colour[3] === 1 ? [colour] : colour[3] === 0 ? layers : layers.map((b) => over(colour, b));
  };
  const luminance = ([r, g, b]) => {
    const linear = (c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  const ratio = (a, b) => {
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  };
  const roots = [document, ...[...document.querySelectorAll('*')].map((element) => element.shadowRoot).filter(Boolean)];
  let skipped = 0;
  let worst = { ratio: Infinity };
  for (const root of roots) {
    for (const section of root.querySelectorAll('.lab > section')) {
      if (section.hidden || !section.firstElementChild || section.firstElementChild.checkVisibility({ contentVisibilityAuto: true })) continue;
      for (const cell of section.querySelectorAll('td, th')) {
        const text = cell.querySelector('input') ?? cell;
        if (!(text.value ?? text.textContent).trim()) continue;
        skipped++;
        for (const bg of beneath(text)) {
          const fg = over(parse(getComputedStyle(text).color), bg);
          const r = ratio(fg, bg);
          // eslint-disable-next-line no-restricted-syntax -- the cell's markup read for the message, never written
          if (r < worst.ratio) worst = { ratio: r, where: `${section.dataset.view}: ${cell.outerHTML.slice(0, 80)}`, fg: `rgb(${fg.slice(0, 3).map(Math.round)})`, bg: `rgb(${bg.slice(0, 3).map(Math.round)})` };
        }
      }
    }
  }
  return { skipped, worst };
}
