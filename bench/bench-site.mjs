// The Chromium side of `npm run bench` and `npm run bench:train`: dist/, TensorFlow.js's wasm files
// (./tfjs/) and, when asked, ONNX Runtime Web's SIMD build (./ort/) in a temporary folder with a
// benchmark entry bundled into it (external: ./lib/attention.mjs, dist's own), served on localhost,
// and headless Chromium launched. close() stops both and removes the folder.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
export const tfWasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));

/** entry: the module to bundle (a path from the repository's root); name: its page's name (name.html, name.js). */
export async function openBenchSite({ entry, name, title, ort = false }) {
  const { chromium } = await import('playwright-core');
  const site = mkdtempSync(path.join(os.tmpdir(), `attention-lab-${name}-`));
  cpSync(path.join(root, 'dist'), site, { recursive: true });
  // the relaxed build's ceiling module's .wasm (its glue is bundled into the entry), when built
  const fmaPeak = path.join(root, 'build/wasm/peak-relaxed.wasm');
  if (existsSync(fmaPeak)) cpSync(fmaPeak, path.join(site, 'peak-relaxed.wasm'));
  mkdirSync(path.join(site, 'tfjs'));
  for (const file of readdirSync(tfWasmDir).filter((f) => f.endsWith('.wasm'))) cpSync(path.join(tfWasmDir, file), path.join(site, 'tfjs', file));
  if (ort) {
    // ONNX Runtime Web's wasm build (SIMD, loaded by ort.env.wasm.wasmPaths = ./ort/)
    const ortDir = path.join(path.dirname(require.resolve('onnxruntime-web')), '..', 'dist');
    mkdirSync(path.join(site, 'ort'));
    for (const file of ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm']) cpSync(path.join(ortDir, file), path.join(site, 'ort', file));
  }
  execFileSync('npx', ['esbuild', path.join(root, entry), '--bundle', '--format=esm', '--minify', '--log-level=warning',
    '--external:./lib/attention.mjs', `--outfile=${path.join(site, `${name}.js`)}`], { cwd: root, stdio: 'inherit' });
  // no favicon request (a 404 in the console otherwise)
  writeFileSync(path.join(site, `${name}.html`), `<!doctype html><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"><script type="module" src="${name}.js"></script>\n`);
  const { serve } = await import(path.join(root, 'scripts/serve.mjs'));
  const server = await serve({ dir: site, port: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    browser,
    url: server.url,
    page: `${server.url}${name}.html`,
    async close() {
      await browser.close();
      await server.close();
      rmSync(site, { recursive: true, force: true });
    },
  };
}
