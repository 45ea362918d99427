#!/usr/bin/env bash
# Every test: the native core (doctest through CTest). Installs what is missing first.
# The last line is the total over all suites: "total: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# ctest's summary: "100% tests passed, 0 tests failed out of 20"
count_ctest() {
  local line total bad
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  bad=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
  passed=$((passed + total - bad))
  failed=$((failed + bad))
}

echo "== native core (doctest via CTest)"
if cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build/native -j"$jobs" >/dev/null; then
  (cd build/native && ctest --output-on-failure -j"$jobs") 2>&1 | tee "$log"
  count_ctest
else
  echo "native build failed"
  cmake --build build/native 2>&1 | tail -40
  failed=$((failed + 1))
fi

echo
echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
