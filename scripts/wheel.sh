#!/usr/bin/env bash
# The Python package (python/attention_lab) as a wheel with the single file (dist/attention-lab.html)
# inside: build/python/attention_lab-VERSION-py3-none-any.whl, VERSION from package.json. Debian's
# python3-build, offline (--no-isolation: setuptools and wheel as installed). Run by pack.sh.
#   bash scripts/wheel.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-/usr/bin/python3}
out=${1:-build/python}
[ -f dist/attention-lab.html ] || bash scripts/build.sh
version=$(node -p "require('./package.json').version")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R python/. "$stage/"
cp LICENSE "$stage/LICENSE"
cp dist/attention-lab.html "$stage/attention_lab/"
sed -i "s/^version = \".*\"/version = \"$version\"/" "$stage/pyproject.toml"
sed -i "s/^__version__ = \".*\"/__version__ = \"$version\"/" "$stage/attention_lab/__init__.py"
mkdir -p "$out"
"$python" -m build --wheel --no-isolation --outdir "$out" "$stage" >"$stage/build.log" 2>&1 || { cat "$stage/build.log"; exit 1; }
echo "wheel: $out/attention_lab-$version-py3-none-any.whl ($(du -k "$out/attention_lab-$version-py3-none-any.whl" | cut -f1) KB)"
