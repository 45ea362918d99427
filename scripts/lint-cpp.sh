#!/usr/bin/env bash
# The C++ lint of core/ and tests/core/, failing on any finding:
#   1. clang-format's layout (.clang-format): `clang-format --dry-run --Werror` finds no difference;
#   2. no function longer than 80 lines: clang-tidy's readability-function-size (LineThreshold 80),
#      on the native build's compile_commands.json (build/lint), and on the bindings (core/bindings/,
#      which include Emscripten's headers and are not in the native build) with their flags given here.
# To fix the layout: clang-format -i $(git ls-files 'core/*.[ch]pp' 'tests/core/*.[ch]pp')
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files 'core/*.cpp' 'core/*.hpp' 'tests/core/*.cpp' 'tests/core/*.hpp')
clang-format --dry-run --Werror "${files[@]}"
echo "lint-cpp: clang-format: ${#files[@]} files as .clang-format lays them out"

cmake -S . -B build/lint -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
config='{CheckOptions: [{key: readability-function-size.LineThreshold, value: 80}]}'
# --system-headers: doctest's TEST_CASE is a macro from a system header, whose function clang-tidy
# would otherwise not report; findings are then kept only where they are in this repository's files.
tidy=(clang-tidy --quiet --checks='-*,readability-function-size' --config="$config" --system-headers)
jobs=$(nproc 2>/dev/null || echo 2)
mapfile -t native < <(git ls-files 'core/*.cpp' 'tests/core/*.cpp' | grep -v '^core/bindings/')
mapfile -t bindings < <(git ls-files 'core/bindings/*.cpp')
report=$(mktemp)
trap 'rm -f "$report"' EXIT
# Natively every file must parse: a compile error fails the lint as a long function does.
native_ok=true
printf '%s\n' "${native[@]}" | xargs -P "$jobs" -n 4 "${tidy[@]}" -p build/lint >>"$report" 2>&1 || native_ok=false
# Emscripten's headers do not all parse for the host; the functions of the bindings still do, so only
# the size findings are read from this run.
"${tidy[@]}" "${bindings[@]}" -- -std=c++17 -Icore/include -Icore/src -isystem /usr/include/eigen3 \
  -isystem /usr/share/emscripten/system/include -DATTN_LEARNING=1 >>"$report" 2>/dev/null || true
ours="^$PWD/(core|tests/core)/[^:]+:[0-9]+:[0-9]+: (warning|error): .*readability-function-size"
if grep -Eq "$ours" "$report"; then
  grep -E "$ours" "$report" | sort -u >&2
  echo "lint-cpp: functions above 80 lines (split them)" >&2
  exit 1
fi
if [ "$native_ok" != true ]; then
  grep -E 'error' "$report" | sort -u >&2 || cat "$report" >&2
  echo "lint-cpp: clang-tidy failed on the native sources" >&2
  exit 1
fi
echo "lint-cpp: no function above 80 lines in $((${#native[@]} + ${#bindings[@]})) files"
