// The static site of the tests that embed the lab: the built folder (dist/) under /lab/, beside the
// host pages of tests/e2e/fixtures (components.html, iframe.html, jupyter.html, …). Under `npm test`
// one copy serves the whole run (scripts/test-session.mjs makes it, and openBrowser({ dir }) uses the
// run's server of it); a file run alone makes its own. Files a test writes there have names of their
// own (week3.html, lms.html, lab/launch.html, lab/two-languages.html), so the files share it safely.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Writes the site into a new temporary folder and returns the folder. */
export function makeHostSite() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-site-'));
  cpSync(path.join(root, 'dist'), path.join(dir, 'lab'), { recursive: true });
  cpSync(path.join(root, 'tests/e2e/fixtures'), dir, { recursive: true });
  return dir;
}

/** The run's site, or a new one; remove() deletes only a site made here. */
export function hostSite() {
  const shared = process.env.ATTENTION_LAB_HOST_SITE;
  if (shared) return { dir: shared, remove() {} };
  const dir = makeHostSite();
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
