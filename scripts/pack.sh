#!/usr/bin/env bash
# A release archive of dist/ for download: build/attention-lab-VERSION.tar.gz, unpacking to
# attention-lab-VERSION/ (index.html, embed.html, attention-lab.html, attention-lab.js, lib/, …).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/index.html ] || bash scripts/build.sh
version=$(node -p "require('./package.json').version")
name="attention-lab-$version"
rm -rf "build/$name" && mkdir -p "build/$name"
cp -R dist/. "build/$name/"
find "build/$name" -name '*.map' -delete
tar -C build -czf "build/$name.tar.gz" "$name"
rm -rf "build/$name"
echo "pack: build/$name.tar.gz ($(du -k "build/$name.tar.gz" | cut -f1) KB)"
