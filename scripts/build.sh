#!/usr/bin/env bash
# Builds dist/: the WebAssembly engines (SIMD and scalar) with their JavaScript API in dist/lib/,
# and the page. Flags live in CMakeLists.txt; this script only drives the tools.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"  # Debian's emcc needs acorn from here
jobs=$(nproc 2>/dev/null || echo 2)

emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$jobs" --target attention_simd attention_scalar

rm -rf dist
mkdir -p dist/lib
cp -R web/. dist/
rm -f dist/lib/attention.mjs
cp build/wasm/attention-{simd,scalar}.{mjs,wasm} dist/lib/
npx esbuild web/lib/attention.mjs --bundle --format=esm --target=es2020 --external:node:* \
  --log-level=warning --outfile=dist/lib/attention.mjs
echo "build: dist/ is ready"
