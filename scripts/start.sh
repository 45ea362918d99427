#!/usr/bin/env bash
# One command on a fresh machine: install what is missing, build, serve on 127.0.0.1 and print the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs --port "${PORT:-8080}"
