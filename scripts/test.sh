#!/usr/bin/env bash
# Every test, installing what is missing first:
#   1. the native core: doctest suites through CTest;
#   2. the same suites compiled to WebAssembly, SIMD and scalar builds, run under Node (this is
#      where the SIMD kernels run);
#   3. the JavaScript API of dist/lib in Node (node:test), both builds.
# The last line is the total over all suites: "total: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"

jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Adds the counts from the summary line a runner printed into $log; a missing summary is a failure.
count() {
  local runner=$1 line
  case "$runner" in
    ctest)   # "100% tests passed, 0 tests failed out of 20"
      line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
      [ -n "$line" ] || { failed=$((failed + 1)); return; }
      local total bad
      total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
      bad=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
      passed=$((passed + total - bad)); failed=$((failed + bad)) ;;
    doctest) # "[doctest] test cases: 24 | 24 passed | 0 failed | 0 skipped"
      line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\[doctest\] test cases:' | tail -1)
      [ -n "$line" ] || { failed=$((failed + 1)); return; }
      passed=$((passed + $(sed -E 's/.*\| *([0-9]+) passed.*/\1/' <<<"$line")))
      failed=$((failed + $(sed -E 's/.*\| *([0-9]+) failed.*/\1/' <<<"$line"))) ;;
    node)    # "# pass 64" and "# fail 0" (TAP)
      local pass fail
      pass=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}')
      fail=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
      [ -n "$pass" ] || { failed=$((failed + 1)); return; }
      passed=$((passed + pass)); failed=$((failed + fail)) ;;
  esac
}

echo "== 1. native core (doctest via CTest)"
if cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build/native -j"$jobs" >/dev/null; then
  (cd build/native && ctest --output-on-failure -j"$jobs") >"$log" 2>&1
  tail -3 "$log"
  grep -q "tests failed" "$log" && ! grep -q " 0 tests failed" "$log" && cat "$log"
  count ctest
else
  cmake --build build/native 2>&1 | tail -40
  failed=$((failed + 1))
fi

echo "== 2. core suites compiled to WebAssembly, run under Node"
if bash scripts/build.sh >/dev/null && cmake --build build/wasm -j"$jobs" --target core_tests_simd core_tests_scalar >/dev/null; then
  for variant in simd scalar; do
    echo "-- $variant build"
    node "build/wasm/core_tests_$variant.cjs" --no-colors=true >"$log" 2>&1
    rc=$?
    tail -3 "$log" | cut -c1-200
    [ $rc -eq 0 ] || grep -E "ERROR|error" "$log" | head -20 | cut -c1-300
    count doctest
  done
else
  echo "WebAssembly build failed"
  cmake --build build/wasm 2>&1 | grep -E "error" | head -20
  failed=$((failed + 1))
fi

echo "== 3. JavaScript API in Node and in headless Chromium (node:test)"
node --test --test-reporter=tap tests/web/ tests/e2e/ >"$log" 2>&1
grep -E "^not ok|^# (tests|pass|fail)" "$log"
grep -q "^not ok" "$log" && grep -B2 -A25 "^    not ok\|^not ok" "$log" | head -80
count node

echo
echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
