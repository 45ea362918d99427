// "Real models" on the page, issue 24: a model's files are read in a worker of their own, started by
// the engine's worker for one opening and stopped after it, so that the opening's read buffers are
// freed (web/src/models/remote-reads.mjs; bench/models.mjs shows the three 8 MiB pieces gone). In
// headless Chromium through the page's own file input with ../shared/models/gpt2: on the page as
// served, and under a strict Content-Security-Policy, report.reads is 'worker' and every hidden state
// is transformers' (reference.json, 1e-4 relative); where the reading worker cannot start (its script missing, or failing as it starts) the
// reads are made in the engine's worker ('here'), with the same numbers, and the page keeps working.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openBrowser, useLabPage } from './browser.mjs';
import { haveModels as have, openAndRun, runText } from './model-folders.mjs';
import { relativeError } from '../web/lib/gpt2-request.mjs';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const lab = useLabPage({ before, after, assert });

// the hidden states and where the files were read, from the page
const readOf = (page) => page.evaluate(() => ({
  reads: globalThis.attentionLab.models.report.reads,
  hidden: globalThis.attentionLab.models.result.hidden.map((state) => [...state]),
}));

function checkHidden(hidden, reference) {
  assert.equal(hidden.length, reference.hidden_states.length);
  hidden.forEach((state, i) => assert.ok(relativeError(state, reference.hidden_states[i]) <= 1e-4, `hidden[${i}]`));
}

// dist/ as served, but for its read-worker.js: left out, or `script` in its place
function distWith(script) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-reading-'));
  mkdirSync(path.join(dir, 'site'));
  for (const name of readdirSync(dist)) {
    if (!name.startsWith('read-worker.js')) symlinkSync(path.join(dist, name), path.join(dir, 'site', name));
  }
  if (script !== null) writeFileSync(path.join(dir, 'site', 'read-worker.js'), script);
  return dir;
}

describe('Real models: the files read in a worker of their own', { skip: !have && 'no ../shared/models' }, () => {
  it('gpt2 on the page as served: read in the reading worker, every hidden state right', async () => {
    const reference = await openAndRun(lab.tab.page, 'gpt2');
    const { reads, hidden } = await readOf(lab.tab.page);
    assert.equal(reads, 'worker');
    checkHidden(hidden, reference);
  });

  it('under a strict Content-Security-Policy (no blob: or inline workers): still read in the reading worker', async () => {
    const browser = await openBrowser({ headers: { 'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'" } });
    try {
      const { page, problems } = await browser.newPage();
      await page.goto(browser.url);
      await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      const reference = await openAndRun(page, 'gpt2');
      const { reads, hidden } = await readOf(page);
      assert.equal(reads, 'worker');
      checkHidden(hidden, reference);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  for (const [what, script, expected] of [
    ['its script missing', null, /404|Failed to load/],
    ['it fails as it starts', 'throw new Error("this reading worker fails as it starts");', /fails as it starts/],
  ]) {
    it(`where the reading worker cannot start (${what}): read in the engine's worker, the same numbers`, async () => {
      const dir = distWith(script);
      const browser = await openBrowser({ dir: path.join(dir, 'site') });
      try {
        const { page, problems, foreignRequests } = await browser.newPage();
        await page.goto(browser.url);
        await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
        const reference = await openAndRun(page, 'gpt2');
        const { reads, hidden } = await readOf(page);
        assert.equal(reads, 'here');
        checkHidden(hidden, reference);
        // and the page goes on: another sentence, then the reference's again
        await runText(page, `${reference.text} And then?`);
        await runText(page, reference.text);
        checkHidden((await readOf(page)).hidden, reference);
        assert.ok(problems.every((problem) => expected.test(problem)), `only the reading worker's failure said: ${problems.join(' | ')}`);
        assert.deepEqual(foreignRequests, []);
      } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
