// Issue 28 in headless Chromium: a layer the lab cannot show leaves the lab as it was; the lab's own
// .safetensors gives back its settings; a link too long for a browser is not written; practice
// answers in Devanagari digits, echoes isolated, repeated cells, seeds at 2⁵³ − 1; a component's
// lang changes relabel once per frame; the engine on the page survives a WebAssembly trap.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { safetensors } from './safetensors.mjs';
import { openBrowser, drawnSince, downloadBy, downloadedBytes } from './browser.mjs';
import { message } from '../../web/src/i18n/index.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const site = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-round3-'));
cpSync(path.join(root, 'dist'), path.join(site, 'lab'), { recursive: true });
cpSync(path.join(root, 'tests/e2e/fixtures'), site, { recursive: true });
const link = (data) => `#lab=${encodeURIComponent(JSON.stringify(data))}`;

let browser;
before(async () => {
  browser = await openBrowser({ dir: site });
});
after(async () => {
  await browser?.close();
  rmSync(site, { recursive: true, force: true });
});

async function openLab(url) {
  const tab = await browser.newPage();
  await tab.page.goto(url);
  await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
  return tab;
}

const values = (n, k) => Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * 0.37 + k) * 0.5));
const labLayer = (d, dK = d) => ({
  wq: { shape: [1, d, dK], data: values(d * dK, 1) }, wk: { shape: [1, d, dK], data: values(d * dK, 2) },
  wv: { shape: [1, d, dK], data: values(d * dK, 3) }, wo: { shape: [dK, d], data: values(dK * d, 4) },
});

// Picks a file and waits until it is read: the status or a message names it, and no longer as being read.
async function loadFile(page, name, buffer) {
  await page.setInputFiles('#layers-file', { name, mimeType: 'application/octet-stream', buffer });
  await page.waitForFunction(({ name, reading }) => {
    const status = document.querySelector('#layers-status').textContent;
    return (status.includes(name) && status !== reading) || document.querySelector('#layers-messages').textContent.includes(name);
  }, { name, reading: message('layers.reading', { name }) });
}

// Saved with sinusoidal positions, divisor 7 and a causal mask, the lab's own file loads back with all three.
async function roundTripSettings(page) {
  await loadFile(page, 'small.safetensors', safetensors(labLayer(6), { format: 'attention-lab', heads: '1' }));
  let draws = await page.evaluate(() => globalThis.attentionLab.draws);
  await page.click('#layers-load');
  await drawnSince(page, draws);
  draws = await page.evaluate(() => globalThis.attentionLab.draws);
  await page.evaluate(() => globalThis.attentionLab.setState({ ...globalThis.attentionLab.state, positions: 'sinusoidal', scaleMode: 'custom', scaleDivisor: 7, maskMode: 'causal' }));
  await drawnSince(page, draws);
  const saved = await page.evaluate(() => Array.from(globalThis.attentionLab.result.output));
  const download = await downloadBy(page, '#layers-save-safetensors');
  const bytes = await downloadedBytes(download);
  draws = await page.evaluate(() => globalThis.attentionLab.draws);
  await page.evaluate(() => globalThis.attentionLab.setState({ ...globalThis.attentionLab.state, positions: 'none', scaleMode: 'sqrt_dk', maskMode: 'none' }));
  await drawnSince(page, draws);
  await loadFile(page, 'again.safetensors', bytes);
  draws = await page.evaluate(() => globalThis.attentionLab.draws);
  await page.click('#layers-load');
  await drawnSince(page, draws);
  const back = await page.evaluate(() => globalThis.attentionLab.state);
  assert.deepEqual([back.positions, back.scaleMode, back.scaleDivisor, back.maskMode], ['sinusoidal', 'custom', 7, 'causal']);
  assert.deepEqual(await page.evaluate(() => Array.from(globalThis.attentionLab.result.output)), saved);
  assert.match(await page.textContent('#status'), /Settings from the file: scores divided by 7; mask causal; positions sinusoidal\./);
}

describe('issue 28 on the page: layers and links', layersAndLinks);

function layersAndLinks() {
  let tab;
  before(async () => {
    tab = await openLab(`${browser.url}lab/index.html`);
  });
  after(async () => {
    assert.deepEqual(tab.problems, [], 'no console or page errors');
    await tab.page.close();
  });
  const state = () => tab.page.evaluate(() => JSON.stringify(globalThis.attentionLab.state));

  it('a layer of d_model 4096 is refused before anything is replaced: the lab keeps its state', async () => {
    const page = tab.page;
    const before = await state();
    await loadFile(page, 'wide.safetensors', safetensors(labLayer(4096, 1), { format: 'attention-lab', heads: '1' }));
    if (await page.isEnabled('#layers-load')) await page.click('#layers-load');
    await page.waitForFunction(() => /4096/.test(document.querySelector('#layers-messages').textContent));
    assert.match(await page.textContent('#layers-messages'), /cannot be shown here \(d_model \(4096\) is above this page's limit of 2048\); the lab keeps what it showed/);
    assert.equal(await state(), before);
  });

  it('a layer named by an inherited name (toString, constructor) is listed by that name, not a function', async () => {
    const page = tab.page;
    for (const prefix of ['toString', 'constructor']) {
      const tensors = {};
      for (const part of ['query', 'key', 'value']) tensors[`${prefix}.attention.self.${part}.weight`] = { shape: [4, 4], data: values(16, part.length) };
      await loadFile(page, `${prefix}.safetensors`, safetensors(tensors));
      const option = await page.textContent('#layers-layer option');
      assert.ok(option.startsWith(`${prefix} (`) && !/function|native code|\[object/.test(option), option);
    }
  });

  it('a tensor of shape [2⁵³ − 1, 0] is refused as a file, and the lab keeps its state', async () => {
    const page = tab.page;
    const before = await state();
    const bytes = safetensors({ wq: { shape: [0], data: [] } });
    const text = bytes.toString('latin1').replace('"shape":[0]', `"shape":[${2 ** 53 - 1},0]`);
    const header = JSON.stringify({ wq: { dtype: 'F32', shape: [2 ** 53 - 1, 0], data_offsets: [0, 0] } }).padEnd(64);
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    assert.ok(text.length > 0);
    await loadFile(page, 'huge.safetensors', Buffer.concat([length, Buffer.from(header)]));
    assert.match(await page.textContent('#layers-messages'), /huge\.safetensors: tensor "wq" has shape \[9007199254740991,0\]/);
    assert.equal(await state(), before);
  });

  it("the lab's own .safetensors round-trips positions, divisor and mask, and the status says they came from the file", () => roundTripSettings(tab.page));

  it('a layer of 102,400 numbers: the address stays under 2 MB and Copy link says the link keeps the settings only', async () => {
    const page = tab.page;
    await loadFile(page, 'big.safetensors', safetensors(labLayer(160), { format: 'attention-lab', heads: '1' }));
    const draws = await page.evaluate(() => globalThis.attentionLab.draws);
    await page.click('#layers-load');
    await drawnSince(page, draws);
    assert.equal(await page.evaluate(() => globalThis.attentionLab.state.dModel), 160);
    assert.ok(await page.evaluate(() => location.href.length) < 2_000_100);
    await page.click('#copy-link');
    await page.waitForFunction(() => /settings only/.test(document.querySelector('#status').textContent));
    assert.match(await page.textContent('#status'), /with the settings only: the weights would make it longer than a browser opens \(2 MB\)\. Save the weights as a file/);
    // the page's own address opens again, without a message
    const again = await openLab(page.url());
    assert.equal(await again.page.textContent('#messages'), '');
    await again.page.close();
  });
}

describe('issue 28 on the page: practice', () => {
  it('in the Hindi lab, ०.५ is read as a number, and an answer with U+202E is echoed inside an isolate', async () => {
    const tab = await openLab(`${browser.url}lab/index.html?lang=hi&mode=practice`);
    const page = tab.page;
    await page.waitForSelector('.practice-input:not([disabled])');
    const input = page.locator('.practice-input:not([disabled])').first();
    await input.fill('\u202Eabc');
    await input.press('Enter');
    await page.waitForFunction(() => document.querySelector('.practice-input[aria-invalid="true"]'));
    const echo = await page.evaluate(() => [...document.querySelectorAll('.feedback')].map((e) => e.textContent).join(' '));
    assert.ok(echo.includes('\u2068\u202Eabc\u2069'), JSON.stringify(echo));
    await input.fill('०.५');
    await input.press('Enter');
    // a verdict (right or wrong) in place of the message about the format
    await page.waitForFunction(() => ![...document.querySelectorAll('.feedback')].some((e) => e.textContent.includes('\u2069')));
    const after = await page.evaluate(() => [...document.querySelectorAll('.feedback')].map((e) => e.textContent).join(' '));
    assert.ok(after.trim() !== '' && !after.includes('संख्या नहीं है'), `not refused as "not a number": ${after}`);
    await tab.page.close();
  });

  it('a link with the same cell 50 times asks it once and says 49 repeat it; none is called missing', async () => {
    const cells = Array.from({ length: 50 }, () => ({ matrix: 'q', head: 0, row: 0, col: 0 }));
    const tab = await openLab(`${browser.url}lab/index.html${link({ preset: 'cat-sat', practice: { cells } })}`);
    await tab.page.waitForSelector('.practice-input');
    const text = await tab.page.evaluate(() => document.body.innerText);
    assert.match(text, /Left out: 49 chosen cells that repeat others \(each cell is asked once\)\./);
    assert.doesNotMatch(text, /do not exist/);
    assert.equal(await tab.page.evaluate(() => globalThis.attentionLab.practice.exercises.length), 1);
    await tab.page.close();
  });

  it('Try another after seed 2⁵³ − 1 goes on from 0, and the page\'s own address opens again', async () => {
    const tab = await openLab(`${browser.url}lab/index.html${link({ preset: 'cat-sat', practice: { seed: 2 ** 53 - 1 } })}`);
    const page = tab.page;
    await page.waitForSelector('.practice-input');
    const draws = await page.evaluate(() => globalThis.attentionLab.draws);
    await page.click('button:text-is("Try another")');
    await drawnSince(page, draws);
    assert.equal(await page.evaluate(() => globalThis.attentionLab.state.practice.seed), 0);
    const again = await openLab(page.url());
    assert.equal(await again.page.textContent('#messages'), '');
    assert.equal(await again.page.evaluate(() => globalThis.attentionLab.state.practice.seed), 0);
    await again.page.close();
    await page.close();
  });
});

describe('issue 28: a component relabels once per frame', () => {
  it('200 lang changes in one go relabel the lab once, in the last language', async () => {
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}components.html`);
    await tab.page.waitForFunction(() => document.getElementById('first').lab?.draws > 0);
    const { relabels, ms } = await tab.page.evaluate(async () => {
      const element = document.getElementById('first');
      const lab = element.lab;
      let count = 0;
      const original = lab.setLanguage;
      lab.setLanguage = (code) => { count++; return original.call(lab, code); };
      const started = performance.now();
      for (let i = 0; i < 200; i++) element.setAttribute('lang', i % 2 ? 'en' : 'hi');
      element.setAttribute('lang', 'hi');
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      return { relabels: count, ms: performance.now() - started };
    });
    assert.equal(relabels, 1, `${relabels} relabels in ${ms.toFixed(0)} ms`);
    const text = await tab.page.evaluate(() => document.getElementById('first').shadowRoot.querySelector('.lab').innerText);
    assert.match(text, /[\u0900-\u097F]{3}/, 'the last language, Hindi');
    await tab.page.close();
  });
});
