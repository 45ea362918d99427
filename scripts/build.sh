#!/usr/bin/env bash
# Builds the page into dist/. (The WebAssembly engine joins here with the engine issue.)
set -euo pipefail
cd "$(dirname "$0")/.."

rm -rf dist
mkdir -p dist
cp -R web/. dist/
echo "build: dist/ is ready"
