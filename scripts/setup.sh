#!/usr/bin/env bash
# Installs whatever this project needs and is missing: Debian packages through apt-get (as root;
# otherwise it prints the exact command), npm packages through `npm ci`. Quiet and quick when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# libxml2-utils, poppler-utils: the SCORM manifests' schema check (xmllint) and the print test (pdftoppm)
# python3-*, jupyter-nbconvert: the Python package's wheel (scripts/wheel.sh) and its notebook test
packages=(cmake g++ make libeigen3-dev doctest-dev emscripten chromium gzip fonts-lohit-deva clang-format clang-tidy libxml2-utils poppler-utils
  python3-build python3-setuptools python3-wheel python3-venv python3-numpy python3-torch jupyter-nbconvert python3-ipykernel)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run this, then try again:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# npm ci when node_modules is absent or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
