#!/usr/bin/env bash
# Hostile input and hard lifetimes (issue 5), after .ci/run's ASan + UBSan + LSan suite, which
# already runs tests/c/test_alloc_fail, test_lifetime, test_threads and spec/stress_spec.lua and
# spec/property_spec.lua:
#   1. ThreadSanitizer: the threaded C tests built with -fsanitize=thread (build-tsan).
#   2. valgrind memcheck of the C tests of the Release build that scripts/test made (build/).
#   3. The property specs against NumPy (python3-numpy), with more cases.
#   4. The libFuzzer import fuzzer (build-fuzz): the committed corpus, then FUZZ_SECONDS (90)
#      of new inputs; the executions that ran clean are printed.
# About 5 minutes on 2 cores. Run it alone (as root on Debian 12, after scripts/test):
#   CI=true .ci/hostile.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

section() { printf '\n==== %s ====\n' "$*"; }
jobs=$(nproc)
fuzz_seconds=${FUZZ_SECONDS:-90}
build=${DLX_BUILD_DIR:-build} # the Release build of scripts/test
# The instrumented builds are CPU-only: they compile the core, the CPU backend and the binding
# again, and only their own targets.
cpu_only=(-DDLX_CUDA=OFF -DDLX_LEVEL_ZERO=OFF -DDLX_BUILD_HOST_LIBS=OFF -DDLX_WERROR=ON)

section "hostile: dependencies (valgrind, python3-numpy)"
if ! command -v valgrind >/dev/null || ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends valgrind python3-numpy
fi

section "hostile: ThreadSanitizer build (clang, build-tsan) and the threaded tests"
CC=clang cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLX_TSAN=ON "${cpu_only[@]}" \
  >/dev/null
tsan_targets=$(cd tests/c && for f in test_threads*.c; do echo "${f%.c}_tsan"; done)
# shellcheck disable=SC2086 # one target per word
cmake --build build-tsan --parallel "$jobs" --target $tsan_targets
ctest --test-dir build-tsan --output-on-failure -R '^tsan\.'

section "hostile: valgrind memcheck of the C tests ($build)"
# Not the exhaustive kernel tests test_cpu_cast and test_cpu_reduce: their references compute in
# long double, which valgrind emulates with 64-bit doubles (so their value checks fail under
# it), and they take minutes there; the ASan + UBSan suite covers their memory.
for test in "$build"/tests/test_*; do
  [ -x "$test" ] || continue
  case "$test" in */test_cpu_cast | */test_cpu_reduce) continue ;; esac
  echo "valgrind $test"
  valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    "$test" >/dev/null
done

section "hostile: property specs against NumPy"
DLX_PROPERTY_CASES=4000 DLX_PYTHON=/usr/bin/python3 lua5.4 "$(command -v busted)" --ignore-lua \
  --lpath='./lua/?.lua;./lua/?/init.lua' --cpath="./$build/?.so" -o plainTerminal \
  spec/property_spec.lua

section "hostile: libFuzzer import fuzzer (clang, build-fuzz), ${fuzz_seconds} s"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
  -DDLX_FUZZ=ON "${cpu_only[@]}" >/dev/null
cmake --build build-fuzz --parallel "$jobs" --target fuzz_import
ctest --test-dir build-fuzz --output-on-failure -R '^fuzz\.'
mkdir -p build-fuzz/corpus
# New inputs go to build-fuzz/corpus; tests/fuzz/corpus (the committed seeds) is only read.
set +e
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  build-fuzz/fuzz_import -max_total_time="$fuzz_seconds" -timeout=10 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/ build-fuzz/corpus tests/fuzz/corpus >build-fuzz/fuzz.log 2>&1
status=$?
set -e
grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|#[0-9]+ +DONE)' \
  build-fuzz/fuzz.log || true
if [ "$status" -ne 0 ]; then
  tail -n 80 build-fuzz/fuzz.log
  echo "the fuzzer found a failing input (build-fuzz/crash-* or timeout-*)" >&2
  exit 1
fi

section "hostile: OK"
