#!/usr/bin/env bash
# A release archive of dist/ for download: build/attention-lab-VERSION.tar.gz, unpacking to
# attention-lab-VERSION/ (index.html, embed.html, attention-lab.html, attention-lab.js, lib/, …),
# the SCORM 1.2 package for learning platforms: build/attention-lab-scorm.zip (scorm.mjs), and the
# Python package for notebooks: build/python/attention_lab-VERSION-py3-none-any.whl (wheel.sh).
#   npm run pack [-- --start '#lab=…']   (--start: the state the SCORM package opens on)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/index.html ] || bash scripts/build.sh
version=$(node -p "require('./package.json').version")
name="attention-lab-$version"
rm -rf "build/$name" && mkdir -p "build/$name"
cp -R dist/. "build/$name/"
find "build/$name" -name '*.map' -delete
rm -rf "build/$name/npm"  # the npm package's bundle: in the package, not in the folder
tar -C build -czf "build/$name.tar.gz" "$name"
rm -rf "build/$name"
echo "pack: build/$name.tar.gz ($(du -k "build/$name.tar.gz" | cut -f1) KB)"
node scripts/scorm.mjs build/attention-lab-scorm.zip "$@"
bash scripts/wheel.sh build/python
