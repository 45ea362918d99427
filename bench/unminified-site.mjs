// A copy of dist/ whose page bundles are built again without minifying, so that Chromium's profiler
// names the functions (bench/page-profile.mjs, bench/page-critical.mjs). Returns the copy's folder.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// source: the folder whose web/src and dist/ are used (another checkout, to compare a build before)
export function unminifiedSite(prefix, source = root) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cpSync(path.join(source, 'dist'), dir, { recursive: true });
  rmSync(path.join(dir, 'chunks'), { recursive: true, force: true });
  execFileSync('npx', ['esbuild', 'main=web/src/hosts/page.mjs', '--bundle', '--splitting', '--format=esm', '--target=es2020',
    `--outdir=${dir}`, '--entry-names=[name]', '--chunk-names=chunks/[name]-[hash]', '--external:./lib/attention.mjs',
    '--loader:.html=text', '--loader:.css=text', '--log-level=warning'], { cwd: source, stdio: 'inherit' });
  return dir;
}
