// What `npm run pack` and `npm pack` hand to others, used as they would use it:
//   - the SCORM 1.2 zip: its manifest parses and lists exactly the files in the zip but ADL's
//     schemas; unzipped, the page it launches works opened from disk with no network; in a
//     platform's frame it opens a SCORM session, marks the lab incomplete, reports a score through
//     the hook, and closes (grading with a real runtime: scorm.test.mjs);
//   - the npm tarball, installed into a fresh project: the engine computes the notes' cat-sat
//     example in Node, and the component, bundled by esbuild into a page, draws it in Chromium.
// Both use the dist/ the suite has just built (scripts/test.sh): no second build here.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unzipSync } from 'fflate';
import * as esbuild from 'esbuild';

import { openBrowser } from './browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const scratch = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-package-'));

let browser;
before(async () => {
  browser = await openBrowser({ dir: scratch });
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// The notes' 002 example, W = I: rows The, cat, sat. The row of 'sat' is softmax([1, 1, 2]).
const CAT_SAT = { x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], n: 3, dModel: 4 };
const SAT_WEIGHTS = [0.2119, 0.2119, 0.5761];
const THE_WEIGHTS_SHOWN = ['0.4223', '0.1554', '0.4223', '1'];

describe('the SCORM 1.2 package', () => {
  const unpacked = path.join(scratch, 'scorm');
  let entries;
  let manifest;
  before(() => {
    execFileSync('bash', ['scripts/pack.sh'], { cwd: root, stdio: 'pipe' });
    entries = unzipSync(readFileSync(path.join(root, 'build/attention-lab-scorm.zip')));
    for (const [name, bytes] of Object.entries(entries)) {
      mkdirSync(path.dirname(path.join(unpacked, name)), { recursive: true });
      writeFileSync(path.join(unpacked, name), bytes);
    }
    manifest = new TextDecoder().decode(entries['imsmanifest.xml']);
  });

  it('has a manifest that parses as XML, is SCORM 1.2, and lists exactly the files in the zip but the schemas', async () => {
    const tab = await browser.newPage();
    const parsed = await tab.page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'application/xml');
      if (doc.querySelector('parsererror')) return { error: doc.querySelector('parsererror').textContent };
      const resource = doc.getElementsByTagName('resource')[0];
      return {
        root: doc.documentElement.localName,
        schema: doc.getElementsByTagName('schemaversion')[0]?.textContent,
        scormType: resource.getAttributeNS('http://www.adlnet.org/xsd/adlcp_rootv1p2', 'scormtype'),
        launch: resource.getAttribute('href'),
        itemRef: doc.getElementsByTagName('item')[0].getAttribute('identifierref'),
        resourceId: resource.getAttribute('identifier'),
        files: [...doc.getElementsByTagName('file')].map((f) => f.getAttribute('href')),
      };
    }, manifest);
    await tab.page.close();
    assert.equal(parsed.error, undefined);
    assert.equal(parsed.root, 'manifest');
    assert.equal(parsed.schema, '1.2');
    assert.equal(parsed.scormType, 'sco');
    assert.equal(parsed.itemRef, parsed.resourceId);
    assert.equal(parsed.launch, 'attention-lab.html');
    const inZip = Object.keys(entries).filter((name) => name !== 'imsmanifest.xml' && !/\.(xsd|dtd)$/.test(name)).sort();
    assert.deepEqual([...parsed.files].sort(), inZip, 'every listed file is in the zip, and every file is listed');
    assert.deepEqual(inZip, ['attention-lab.html', 'exercise.js', 'scorm-api.js'], 'the single file needs nothing else');
    for (const name of ['imscp_rootv1p1p2.xsd', 'adlcp_rootv1p2.xsd', 'ims_xml.xsd', 'imsmd_rootv1p2p1.xsd']) assert.ok(name in entries, name);
    assert.ok(!inZip.some((name) => name.endsWith('.map')), 'no source maps');
  });

  unpackedPageTests(unpacked);
});

// the unpacked page, from disk and in a stand-in platform
function unpackedPageTests(unpacked) {
  it('opens from disk with every network request blocked, and works without a platform', async () => {
    const tab = await browser.newPage({ offline: true });
    await tab.page.goto(pathToFileURL(path.join(unpacked, 'attention-lab.html')).href);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const row = await tab.page.$eval('[data-slot="head-0-weights"] tbody tr', (tr) => Array.from(tr.cells).slice(1).map((c) => c.textContent));
    assert.deepEqual(row, THE_WEIGHTS_SHOWN);
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLabScorm.available), false);
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLabScorm.reportScore(5)), false);
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, []);
    await tab.page.close();
  });

  it("in a platform's frame: initialises, marks incomplete, reports a score through the hook, and finishes with the session time", async () => {
    // a stand-in platform: the SCORM 1.2 API on the parent window, recording every call
    writeFileSync(path.join(unpacked, 'lms.html'), `<!doctype html><html lang="en"><title>LMS</title><body>
<script>
  window.calls = [];
  const data = { 'cmi.core.lesson_status': 'not attempted' };
  const record = (name, result) => (...args) => { calls.push([name, ...args]); return result(...args); };
  window.API = {
    LMSInitialize: record('LMSInitialize', () => 'true'),
    LMSGetValue: record('LMSGetValue', (k) => data[k] ?? ''),
    LMSSetValue: record('LMSSetValue', (k, v) => { data[k] = v; return 'true'; }),
    LMSCommit: record('LMSCommit', () => 'true'),
    LMSFinish: record('LMSFinish', () => 'true'),
    LMSGetLastError: () => '0', LMSGetErrorString: () => '', LMSGetDiagnostic: () => '',
  };
  window.data = data;
</script>
<iframe id="sco" title="Attention Lab" src="attention-lab.html" style="width: 100%; height: 600px"></iframe></body></html>`);
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}scorm/lms.html`);
    const frame = tab.page.frame({ url: /attention-lab\.html/ });
    await frame.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.equal(await frame.evaluate(() => globalThis.attentionLabScorm.available), true);
    let calls = await tab.page.evaluate(() => window.calls);
    assert.deepEqual(calls[0], ['LMSInitialize', '']);
    assert.ok(calls.some((c) => c[0] === 'LMSSetValue' && c[1] === 'cmi.core.lesson_status' && c[2] === 'incomplete'), JSON.stringify(calls));

    assert.equal(await frame.evaluate(() => globalThis.attentionLabScorm.reportScore(8, { max: 10, passingScore: 6 })), true);
    const data = await tab.page.evaluate(() => window.data);
    assert.equal(data['cmi.core.score.raw'], '8');
    assert.equal(data['cmi.core.score.max'], '10');
    assert.equal(data['cmi.core.score.min'], '0');
    assert.equal(data['cmi.core.lesson_status'], 'passed');

    // the learner leaves: the session ends once, with the time spent
    await tab.page.$eval('#sco', (f) => { f.src = 'about:blank'; });
    await tab.page.waitForFunction(() => window.calls.some((c) => c[0] === 'LMSFinish'));
    calls = await tab.page.evaluate(() => window.calls);
    assert.equal(calls.filter((c) => c[0] === 'LMSFinish').length, 1);
    assert.match(calls.find((c) => c[1] === 'cmi.core.session_time')[2], /^\d{4}:\d{2}:\d{2}\.\d{2}$/);
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
}

describe('the npm package', () => {
  const consumer = path.join(scratch, 'consumer');
  before(() => {
    // dist/ is fresh from the suite's build: pack it as is (prepack would build it again)
    const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: root, encoding: 'utf8' }));
    const tarball = path.join(scratch, packed[0].filename);
    mkdirSync(consumer);
    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'a-course-site', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: consumer, stdio: 'pipe' });
  });

  it('installs with no dependencies, ships only the built folder and its licence', () => {
    const installed = path.join(consumer, 'node_modules/attention-lab');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.version, version);
    assert.equal(manifest.dependencies, undefined);
    assert.deepEqual(readdirSync(path.join(consumer, 'node_modules')).filter((name) => !name.startsWith('.')), ['attention-lab']);
    assert.deepEqual(readdirSync(installed).sort(), ['LICENSE', 'README.md', 'dist', 'package.json']);
    const all = readdirSync(path.join(installed, 'dist'), { recursive: true });
    assert.ok(!all.some((name) => name.endsWith('.map')), 'no source maps');
    assert.match(readFileSync(path.join(installed, 'LICENSE'), 'utf8'), /^MIT License/);
  });

  it("import 'attention-lab' in Node computes the cat-sat example of the notes (002)", () => {
    const script = `
      import { loadAttention, VERSION } from 'attention-lab';
      const engine = await loadAttention();
      const r = engine.attention(${JSON.stringify(CAT_SAT)});
      console.log(JSON.stringify({ version: VERSION, sat: Array.from(r.heads[0].weights.subarray(6, 9)) }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, encoding: 'utf8' }));
    assert.equal(out.version, version);
    out.sat.forEach((w, i) => assert.ok(Math.abs(w - SAT_WEIGHTS[i]) <= 5e-5, `sat → ${i}: ${w} vs ${SAT_WEIGHTS[i]}`));
  });

  it("import 'attention-lab/component', bundled by esbuild into a page, draws the example in Chromium", async () => {
    const site = path.join(consumer, 'site');
    mkdirSync(path.join(consumer, 'src'));
    writeFileSync(path.join(consumer, 'src/main.js'), "import 'attention-lab/component';\n");
    await esbuild.build({ absWorkingDir: consumer, entryPoints: ['src/main.js'], bundle: true, format: 'esm', outfile: 'site/main.js', logLevel: 'silent' });
    writeFileSync(path.join(site, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 3</title>
<link rel="icon" href="data:,"><script type="module" src="main.js"></script></head>
<body><attention-lab id="lab" preset="cat-sat" view="steps" theme="dark"></attention-lab></body></html>`);
    assert.deepEqual(readdirSync(site).sort(), ['index.html', 'main.js'], 'one script: nothing for the bundle to leave behind');
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}consumer/site/index.html`);
    await tab.page.waitForFunction(() => document.getElementById('lab')?.lab?.draws > 0);
    const rows = await tab.page.$$eval('#lab [data-slot="head-0-weights"] tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells).slice(1).map((c) => c.textContent)));
    assert.deepEqual(rows[0], THE_WEIGHTS_SHOWN);
    assert.deepEqual(rows[2].slice(0, 3), SAT_WEIGHTS.map((w) => w.toPrecision(4)));  // 4 significant digits (issue 26)
    assert.deepEqual(tab.problems, []);
    assert.deepEqual(tab.foreignRequests, []);
    await tab.page.close();
  });
});
