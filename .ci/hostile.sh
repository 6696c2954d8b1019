#!/usr/bin/env bash
# Hostile input and hard lifetimes, after .ci/run's ASan + UBSan + LSan suite, which
# already runs tests/c/test_alloc_fail, test_lifetime, test_threads and spec/stress_spec.lua and
# spec/property_spec.lua:
#   1. ThreadSanitizer: the threaded C tests built with -fsanitize=thread by clang-16
#      (build-tsan), then the soak test for SOAK_SECONDS (60) in four processes.
#   2. valgrind memcheck of the C tests of the Release build that scripts/test made (build/).
#   3. The property specs against NumPy (python3-numpy), with more cases.
#   4. The libFuzzer import fuzzer (build-fuzz): the committed corpus, then FUZZ_SECONDS (90)
#      of new inputs; the executions that ran clean are printed. Then the .npy fuzzer the same
#      way, for NPY_FUZZ_SECONDS (30).
# Run it alone (as root on Debian 12, after scripts/test):
#   CI=true .ci/hostile.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh # dlx_install_missing, dlx_build (CMakePresets.json)

section() { printf '\n==== %s ====\n' "$*"; }
fuzz_seconds=${FUZZ_SECONDS:-90}
npy_fuzz_seconds=${NPY_FUZZ_SECONDS:-30}
build=${DLX_BUILD_DIR:-build} # the Release build of scripts/test
# The instrumented builds (the presets tsan and fuzz) are CPU-only: they compile the core, the
# CPU backend and the binding again, and only their own targets.

section "hostile: dependencies (valgrind, python3-numpy)"
dlx_install_missing ci test # (after scripts/test and .ci/run's own, all there already)

section "hostile: ThreadSanitizer build (clang-16, build-tsan) and the threaded tests"
# clang-16, not Debian's default clang 14: the first release of TSan's new runtime (14) now and
# then crashes inside its own trace switching at a thread start (a SEGV in
# __tsan::TraceSwitchPartImpl under the realloc of pthread_getattr_np) and then hangs; 16 has
# the fixes.
cmake --preset tsan -DCMAKE_C_COMPILER=clang-16
cmake --build --preset tsan --parallel "$(nproc)"
ctest --preset tsan
# the soak test of the host API (tests/soak) for a minute: loans, gifts and capsules across
# threads, as four processes of a quarter each (TSan's trace memory grows with a process's
# length, and its runtime has crashed inside itself late in long runs, clang 14 and 16 alike);
# a hang is a failure after three times a run's length, not a stalled CI
soak_seconds=${SOAK_SECONDS:-60}
for run in 1 2 3 4; do
  echo "soak under ThreadSanitizer, run $run of 4"
  DLX_SOAK_SECONDS=$((soak_seconds / 4)) TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    timeout --signal=KILL $((soak_seconds * 3 / 4 + 60)) build-tsan/soak_tsan
done

section "hostile: valgrind memcheck of the C tests ($build)"
# Not the exhaustive kernel tests test_cpu_cast, test_cpu_reduce and test_cpu_math_ulp: their
# references (and some math kernels' edges) compute in long double, which valgrind emulates with
# 64-bit doubles (so their value checks fail under it), and they take minutes there; the
# ASan + UBSan suite covers their memory.
for test in "$build"/tests/test_*; do
  [ -x "$test" ] || continue
  case "$test" in */test_cpu_cast | */test_cpu_reduce | */test_cpu_math_ulp) continue ;; esac
  echo "valgrind $test"
  valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    "$test" >/dev/null
done

section "hostile: property specs against NumPy"
DLX_PROPERTY_CASES=4000 DLX_PYTHON=/usr/bin/python3 lua5.4 "$(command -v busted)" --ignore-lua \
  --lpath='./lua/?.lua;./lua/?/init.lua' --cpath="./$build/?.so" -o plainTerminal \
  spec/property_spec.lua spec/property_joining_spec.lua spec/property_indexing_spec.lua

section "hostile: libFuzzer import fuzzer (clang, build-fuzz), ${fuzz_seconds} s"
dlx_build fuzz
ctest --preset fuzz
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

section "hostile: libFuzzer .npy fuzzer (clang, build-fuzz), ${npy_fuzz_seconds} s"
mkdir -p build-fuzz/npy_corpus
set +e
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  build-fuzz/fuzz_npy -max_total_time="$npy_fuzz_seconds" -timeout=10 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/npy- build-fuzz/npy_corpus tests/fuzz/npy_corpus \
  >build-fuzz/fuzz_npy.log 2>&1
status=$?
set -e
grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|#[0-9]+ +DONE)' \
  build-fuzz/fuzz_npy.log || true
if [ "$status" -ne 0 ]; then
  tail -n 80 build-fuzz/fuzz_npy.log
  echo "the .npy fuzzer found a failing input (build-fuzz/npy-crash-* or npy-timeout-*)" >&2
  exit 1
fi

section "hostile: OK"
