// `import { loadAttention } from 'attention-lab'` in the two bundlers course sites use, with no
// configuration at all: the tarball `npm pack` makes, installed offline into a fresh app, built by
// Vite 8 and by webpack 5 (the repository's dev dependencies), served, and run in Chromium. Each app
// runs the example of docs/embedding.md as it is written, then loads the SIMD, the scalar and the learning
// build in turn; each computes the notes' cat-sat example (002).
// Uses the dist/ the suite has just built (scripts/test.sh): `npm pack --ignore-scripts`, no second build.
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as viteBuild } from 'vite';
import webpack from 'webpack';

import { openBrowser } from './browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-bundlers-'));

// The notes' 002 example, W = I: rows The, cat, sat. The row of 'sat' is softmax([1, 1, 2]) =
// (1, 1, e) / (2 + e): 0.2119, 0.2119, 0.5761 in the notes.
const CAT_SAT = { x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], n: 3, dModel: 4 };
const SAT_WEIGHTS = [0.2119, 0.2119, 0.5761];

// The example of docs/embedding.md#vite-and-webpack, as it is there (top-level await, console.log).
function docsExample() {
  const text = readFileSync(path.join(root, 'docs/embedding.md'), 'utf8');
  const section = text.slice(text.indexOf('### Vite and webpack'));
  return section.match(/^```js\n([\s\S]*?)^```/m)[1];
}

// The app: the docs' example, then each build in turn; it leaves what it found on window.found.
const APP = `import './example.js';
import { loadAttention } from 'attention-lab';

async function sat(options) {
  const engine = await loadAttention(options);
  const r = engine.attention(${JSON.stringify(CAT_SAT)});
  return { simd: engine.info.simd, build: engine.info.build, learning: engine.info.learning, sat: Array.from(r.heads[0].weights.subarray(6, 9)) };
}

Promise.all([sat({ simd: true }), sat({ simd: false }), sat({ learning: true })])
  .then((found) => { window.found = found; }, (error) => { window.found = String(error?.stack ?? error); });
`;
const PAGE = (script) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 3</title>
<link rel="icon" href="data:,"></head><body><script type="module" src="${script}"></script></body></html>`;

let browser;
let app;
before(async () => {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: root, encoding: 'utf8' }));
  app = path.join(scratch, 'app');
  mkdirSync(path.join(app, 'src'), { recursive: true });
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'a-course-site', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(scratch, packed[0].filename)], { cwd: app, stdio: 'pipe' });
  writeFileSync(path.join(app, 'src/main.js'), APP);
  writeFileSync(path.join(app, 'src/example.js'), docsExample());
  browser = await openBrowser({ dir: scratch });
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// Opens the built app's page and returns what it found, checking the numbers against the notes.
async function runApp(page) {
  const tab = await browser.newPage();
  const logged = [];
  tab.page.on('console', async (message) => {
    if (message.type() === 'log') logged.push(await message.args()[0].jsonValue());
  });
  await tab.page.goto(`${browser.url}app/${page}`);
  await tab.page.waitForFunction(() => window.found !== undefined, null, { timeout: 20000 });
  const found = await tab.page.evaluate(() => window.found);
  assert.ok(Array.isArray(found), `the app failed: ${found}`);
  // the learning one by 'auto': Chromium has relaxed SIMD, so its relaxed build (fused multiply-adds)
  assert.deepEqual(found.map(({ build, learning }) => [build, learning]), [['simd', false], ['scalar', false], ['relaxed', true]]);
  for (const { sat, simd, learning } of found) near(sat, SAT_WEIGHTS, `simd ${simd}, learning ${learning}`);
  // the docs' example logged the row of 'sat' (a Float32Array: its values by index)
  for (let wait = 0; wait < 100 && logged.length === 0; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(logged.length, 1, JSON.stringify(logged));
  near(Object.values(logged[0]), SAT_WEIGHTS, 'the docs\' example');
  assert.deepEqual(tab.problems, []);
  assert.deepEqual(tab.foreignRequests, []);
  await tab.page.close();
}

const near = (found, expected, what) => {
  assert.equal(found.length, expected.length, what);
  found.forEach((w, i) => assert.ok(Math.abs(w - expected[i]) <= 5e-5, `${what}: sat → ${i}: ${w} vs ${expected[i]}`));
};

// The .wasm files a build wrote (anywhere under `dir`).
const wasmFiles = (dir) => readdirSync(dir, { recursive: true }).filter((name) => name.endsWith('.wasm'));

it('Vite 8 builds the app with no configuration, and it computes the notes\' example with every build', async () => {
  writeFileSync(path.join(app, 'index.html'), PAGE('/src/main.js'));
  await viteBuild({ root: app, configFile: false, logLevel: 'silent', base: './', build: { outDir: 'vite-out' } });
  // the six builds, each once (the glue no longer names its .wasm a second time)
  assert.equal(wasmFiles(path.join(app, 'vite-out')).length, 6, wasmFiles(path.join(app, 'vite-out')).join(', '));
  await runApp('vite-out/index.html');
});

it('webpack 5 builds the app with no configuration, and it computes the notes\' example with every build', async () => {
  const stats = await new Promise((resolve, reject) => {
    webpack({ mode: 'production', context: app, entry: './src/main.js', output: { path: path.join(app, 'webpack-out') } },
      (error, result) => (error ? reject(error) : resolve(result)));
  });
  const { errors, warnings } = stats.toJson({ all: false, errors: true, warnings: true });
  assert.deepEqual(errors.map((e) => e.message), [], 'no errors');
  // webpack's performance hint for assets over 244 KiB: the learning engines' .wasm (the transformer
  // stacks made them larger) are that large by nature; any other warning is a failure
  const sizeHint = (message) => /^asset size limit:/.test(message)
    && message.split('\n').filter((line) => /^\s+\S+ \(\d+ KiB\)$/.test(line)).every((line) => /\.wasm \(/.test(line));
  assert.deepEqual(warnings.map((w) => w.message).filter((message) => !sizeHint(message)), [], 'no warnings but the .wasm size hint');
  writeFileSync(path.join(app, 'webpack-out/index.html'), PAGE('main.js'));
  assert.equal(wasmFiles(path.join(app, 'webpack-out')).length, 6, wasmFiles(path.join(app, 'webpack-out')).join(', '));
  await runApp('webpack-out/index.html');
});

it('the package\'s browser entry carries no Node built-in, and its Node entry is chosen by Node', () => {
  const manifest = JSON.parse(readFileSync(path.join(app, 'node_modules/attention-lab/package.json'), 'utf8'));
  const entry = manifest.exports['.'];
  assert.equal(entry.node, './dist/lib/attention.node.mjs');
  assert.equal(entry.default, './dist/lib/attention.mjs');
  const lib = path.join(app, 'node_modules/attention-lab/dist/lib');
  for (const name of readdirSync(lib).filter((n) => n.endsWith('.mjs') && !n.endsWith('.node.mjs'))) {
    assert.doesNotMatch(readFileSync(path.join(lib, name), 'utf8'), /["']node:|require\(/, name);
  }
  // no .wasm shipped that nothing loads: the six builds of dist/lib, and the single file's own copies inside it
  const shipped = readdirSync(path.join(app, 'node_modules/attention-lab/dist'), { recursive: true }).filter((n) => n.endsWith('.wasm'));
  assert.deepEqual(shipped.sort(), ['lib/attention-learn-relaxed.wasm', 'lib/attention-learn-scalar.wasm', 'lib/attention-learn-simd.wasm',
    'lib/attention-relaxed.wasm', 'lib/attention-scalar.wasm', 'lib/attention-simd.wasm']);
});
