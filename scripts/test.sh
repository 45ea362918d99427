#!/usr/bin/env bash
# Every test, installing what is missing first:
#   1. the native core: doctest suites through CTest;
#   2. the same suites compiled to WebAssembly, relaxed-SIMD (fused multiply-adds; Node with
#      --experimental-wasm-relaxed-simd), SIMD and scalar builds, run under Node (this is where the
#      SIMD kernels run);
#   3. lint: ESLint over the JavaScript (eslint.config.js says which folders), each problem a failure;
#      and the C++ (scripts/lint-cpp.sh: clang-format's layout, no function above 80 lines), one check;
#   4. the JavaScript in Node and in headless Chromium (node:test): tests/web and tests/e2e, with one
#      Chromium and one server of each test site shared by every file (scripts/test-session.mjs).
# Each stage prints its wall time; the last line is the total over all suites: "total: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
stage_start=0
# Prints the wall time of the stage that just ended.
stage_time() {
  echo "   ($1: $((SECONDS - stage_start)) s)"
  stage_times+=("$1 $((SECONDS - stage_start)) s")
  stage_start=$SECONDS
}
stage_times=()
bash scripts/setup.sh || exit 1
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
stage_time setup

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
    eslint)  # "lint: 0 problems in 64 files": one pass when there are none, else one failure per problem
      local problems
      line=$(grep -E '^lint: [0-9]+ problems? in [0-9]+ files$' "$log" | tail -1)
      [ -n "$line" ] || { failed=$((failed + 1)); return; }
      problems=$(sed -E 's/^lint: ([0-9]+).*/\1/' <<<"$line")
      if [ "$problems" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + problems)); fi ;;
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
stage_time native

echo "== 2. core suites compiled to WebAssembly, run under Node"
if bash scripts/build.sh >/dev/null && cmake --build build/wasm -j"$jobs" --target core_tests_simd core_tests_scalar core_tests_relaxed >/dev/null; then
  for variant in relaxed simd scalar; do
    echo "-- $variant build"
    flags=()
    # Node 20: relaxed SIMD behind a flag; its suite's .wasm is beside the .cjs (rewritten after the
    # link), which Emscripten 3.1.6's glue would fetch() when Node has fetch: read from disk instead
    [ "$variant" = relaxed ] && flags=(--experimental-wasm-relaxed-simd --no-experimental-fetch)
    node "${flags[@]}" "build/wasm/core_tests_$variant.cjs" --no-colors=true >"$log" 2>&1
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
stage_time wasm

echo "== 3. lint (ESLint; clang-format and clang-tidy)"
# one line per problem (path:line:column rule message), then the summary line count() reads
npx eslint --format json 2>&1 | node -e '
  let text = ""; process.stdin.on("data", (d) => { text += d; }).on("end", () => {
    let report;
    try { report = JSON.parse(text); } catch { console.log(text.slice(0, 2000)); return; }
    let problems = 0;
    for (const file of report) for (const m of file.messages) {
      problems++;
      console.log(`${require("path").relative(".", file.filePath)}:${m.line}:${m.column} ${m.ruleId ?? ""} ${m.message}`);
    }
    console.log(`lint: ${problems} problem${problems === 1 ? "" : "s"} in ${report.length} files`);
  });' >"$log"
tail -40 "$log"
count eslint
echo "-- C++ (clang-format, functions of at most 80 lines)"
if bash scripts/lint-cpp.sh >"$log" 2>&1; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi
tail -20 "$log"
stage_time lint

echo "== 4. JavaScript in Node and in headless Chromium (node:test, one shared Chromium)"
# two test files at a time (TEST_CONCURRENCY=1 for one): the browser tests wait on Chromium much of
# the time, so two of them keep a 2-core machine busy (measured in the commit that chose 2)
node scripts/test-session.mjs node --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-reporter=tap tests/web/ tests/e2e/ >"$log" 2>&1
grep -E "^not ok|^# (tests|pass|fail)" "$log"
grep -q "^not ok" "$log" && grep -B2 -A25 "^    not ok\|^not ok" "$log" | head -80
count node
# the whole TAP log kept (build/test-node.tap) and the ten slowest files printed: where the time goes
mkdir -p build && cp "$log" build/test-node.tap
node scripts/slowest-tests.mjs build/test-node.tap 10
stage_time "node+e2e"

echo
echo "stage times: $(IFS=,; echo "${stage_times[*]}" | sed 's/,/, /g'); all $SECONDS s"
echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
