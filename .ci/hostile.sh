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
# A failure prints the command that reruns just the failing test, soak run or fuzzer input.
# Run it alone (as root on Debian 12, after scripts/test):
#   CI=true .ci/hostile.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# dlx_install_missing, dlx_build (CMakePresets.json), dlx_ctest (ctest that prints how to rerun
# each failed test alone)
source scripts/common.sh

section() { printf '\n==== %s ====\n' "$*"; }
# A command line to print for copying: words of plain characters as they are, others in single
# quotes (printf %q would escape every comma and semicolon).
quoted() {
  local arg words=()
  for arg in "$@"; do
    if [[ $arg =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then
      words+=("$arg")
    else
      words+=("'${arg//\'/\'\\\'\'}'")
    fi
  done
  echo "${words[*]}"
}
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
dlx_ctest tsan
# the soak test of the host API (tests/soak) for a minute: loans, gifts and capsules across
# threads, as four processes of a quarter each (TSan's trace memory grows with a process's
# length, and its runtime has crashed inside itself late in long runs, clang 14 and 16 alike);
# a hang is a failure after three times a run's length, not a stalled CI
soak_seconds=${SOAK_SECONDS:-60}
for run in 1 2 3 4; do
  echo "soak under ThreadSanitizer, run $run of 4"
  soak=(env DLX_SOAK_SECONDS=$((soak_seconds / 4))
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
    timeout --signal=KILL $((soak_seconds * 3 / 4 + 60)) build-tsan/soak_tsan)
  status=0
  "${soak[@]}" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "soak run $run failed (exit $status; 137: killed, a hang); rerun it alone:" >&2
    echo "  $(quoted "${soak[@]}")" >&2
    exit "$status"
  fi
done

section "hostile: valgrind memcheck of the C tests ($build)"
# Not the exhaustive kernel tests test_cpu_cast, test_cpu_reduce and test_cpu_math_ulp: their
# references (and some math kernels' edges) compute in long double, which valgrind emulates with
# 64-bit doubles (so their value checks fail under it), and they take minutes there; the
# ASan + UBSan suite covers their memory.
# Every test runs, and then each one that failed is named with its valgrind command line.
# tests/valgrind.supp: reports in the system's code that are not errors (the dynamic loader's).
memcheck=(valgrind --quiet --error-exitcode=99 --leak-check=full
  "--errors-for-leak-kinds=definite,indirect" --suppressions=tests/valgrind.supp)
failed=()
for test in "$build"/tests/test_*; do
  [ -x "$test" ] || continue
  case "$test" in */test_cpu_cast | */test_cpu_reduce | */test_cpu_math_ulp) continue ;; esac
  echo "valgrind $test"
  "${memcheck[@]}" "$test" >/dev/null || failed+=("$test")
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "valgrind: ${#failed[@]} failed; each one alone, from $PWD:" >&2
  for test in "${failed[@]}"; do echo "  $(quoted "${memcheck[@]}" "$test")" >&2; done
  exit 1
fi

section "hostile: property specs against NumPy"
# The seed is drawn here (the specs would each take os.time()), so that the command printed on a
# failure runs the same cases again.
property=(env DLX_PROPERTY_SEED="${DLX_PROPERTY_SEED:-$(date +%s)}" DLX_PROPERTY_CASES=4000
  DLX_PYTHON=/usr/bin/python3 lua5.4 "$(command -v busted)" --ignore-lua
  "--lpath=./lua/?.lua;./lua/?/init.lua" "--cpath=./$build/?.so" -o plainTerminal
  spec/property_spec.lua spec/property_joining_spec.lua spec/property_indexing_spec.lua)
status=0
"${property[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  echo "the property specs failed; the same cases again, from $PWD (or one spec file of them):" >&2
  echo "  $(quoted "${property[@]}")" >&2
  exit "$status"
fi

section "hostile: libFuzzer import fuzzer (clang, build-fuzz), ${fuzz_seconds} s"
dlx_build fuzz
dlx_ctest fuzz
fuzz_env=(env ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1)
# Runs a fuzzer (the arguments after its name and log file) with its output in the log and
# prints the executions that ran clean. When it finds a failing input: the log's end, and the
# commands that rerun that input alone (libFuzzer runs the files it is given once) and the whole
# run.
run_fuzzer() {
  local what=$1 log=$2 status=0 input arg once
  shift 2
  once=("$1") # the fuzzer on the failing input, with the run's -timeout (a timeout reproduces)
  for arg in "$@"; do
    case "$arg" in -timeout=*) once+=("$arg") ;; esac
  done
  "${fuzz_env[@]}" "$@" >"$log" 2>&1 || status=$?
  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|#[0-9]+ +DONE)' "$log" ||
    true
  if [ "$status" -eq 0 ]; then return 0; fi
  tail -n 80 "$log"
  echo "the $what found a failing input (exit $status, $log)" >&2
  input=$(sed -n 's/^.*Test unit written to //p' "$log" | tail -n 1)
  if [ -n "$input" ]; then
    echo "rerun that input alone, from $PWD:" >&2
    echo "  $(quoted "${fuzz_env[@]}" "${once[@]}" "$input")" >&2
  fi
  echo "rerun the whole run:" >&2
  echo "  $(quoted "${fuzz_env[@]}" "$@")" >&2
  return "$status"
}
mkdir -p build-fuzz/corpus
# New inputs go to build-fuzz/corpus; tests/fuzz/corpus (the committed seeds) is only read.
run_fuzzer "import fuzzer" build-fuzz/fuzz.log build-fuzz/fuzz_import \
  -max_total_time="$fuzz_seconds" -timeout=10 -print_final_stats=1 -artifact_prefix=build-fuzz/ \
  build-fuzz/corpus tests/fuzz/corpus

section "hostile: libFuzzer .npy fuzzer (clang, build-fuzz), ${npy_fuzz_seconds} s"
mkdir -p build-fuzz/npy_corpus
run_fuzzer ".npy fuzzer" build-fuzz/fuzz_npy.log build-fuzz/fuzz_npy \
  -max_total_time="$npy_fuzz_seconds" -timeout=10 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/npy- build-fuzz/npy_corpus tests/fuzz/npy_corpus

section "hostile: OK"
