// Issue 27, "Print and disk": index.html, embed.html and a page with the component, opened from
// file://, cannot run their module scripts; instead of a blank page they say that they need a web
// server and link to attention-lab.html, the single file, which then works from disk. Served over
// http they say nothing. Uses the dist/ the suite has built.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { openBrowser } from './browser.mjs';
import { EN } from '../../web/src/i18n/en.mjs';
import { HI } from '../../web/src/i18n/hi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-disk-'));
const lab = path.join(scratch, 'lab');

let browser;
before(async () => {
  cpSync(path.join(root, 'dist'), lab, { recursive: true });
  // the plain HTML page of docs/embedding.md, beside the copied folder
  writeFileSync(path.join(scratch, 'course.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title>
<script src="lab/file-notice.js" defer></script>
<script type="module" src="lab/attention-lab.js"></script></head>
<body><h1>Week 3</h1><attention-lab preset="cat-sat" view="steps,heatmap"></attention-lab></body></html>`);
  browser = await openBrowser({ dir: scratch });
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// the sentence as the page shows it: the slots filled as file-notice.js fills them
const expected = (catalogue) => catalogue['page.needsServer'].replace('{scheme}', 'file://').replace('{file}', 'attention-lab.html').replace('{command}', 'python3 -m http.server');

describe('pages opened from disk', () => {
  // one offline tab for the pages from disk, each a new document: a tab's later loads reuse its
  // compiled code (the single file each link opens: 2-4 s in a new tab)
  let tab;
  before(async () => { tab = await browser.newPage({ offline: true }); });
  after(async () => {
    assert.deepEqual(tab.foreignRequests, [], 'no request left the disk');
    await tab.page.close();
  });
  for (const [name, file, count] of [['index.html', 'lab/index.html', 1], ['embed.html', 'lab/embed.html', 1], ['a page with the component', 'course.html', 1]]) {
    it(`${name} says it needs a web server and links to the single file`, async () => {
      await tab.page.goto(pathToFileURL(path.join(scratch, file)).href);
      const notice = tab.page.locator('.needs-server');
      await notice.first().waitFor();
      assert.equal(await notice.count(), count);
      assert.equal(await notice.first().isVisible(), true);
      assert.equal((await notice.first().textContent()).trim(), expected(EN));
      const href = await notice.first().locator('a').getAttribute('href');
      assert.equal(href, pathToFileURL(path.join(lab, 'attention-lab.html')).href);
      // the link works: the single file draws from disk
      await notice.first().locator('a').click();
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      assert.equal(await tab.page.locator('.needs-server').count(), 0, 'the single file says nothing');
      assert.deepEqual(tab.foreignRequests, []);
    });
  }

  it('says it in Hindi with ?lang=hi', async () => {
    await tab.page.goto(`${pathToFileURL(path.join(lab, 'index.html')).href}?lang=hi`);
    await tab.page.locator('.needs-server').waitFor();
    assert.equal((await tab.page.textContent('.needs-server')).trim(), expected(HI));
  });

  it('served over http, the same pages say nothing and draw', async () => {
    // one tab, each page a new document
    const served = await browser.newPage();
    for (const file of ['lab/index.html', 'lab/embed.html']) {
      await served.page.goto(`${browser.url}${file}`);
      await served.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      assert.equal(await served.page.locator('.needs-server').count(), 0, file);
      assert.deepEqual(served.problems, []);
    }
    await served.page.close();
  });
});
