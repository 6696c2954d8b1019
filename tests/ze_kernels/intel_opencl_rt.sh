#!/usr/bin/env bash
# Runs the Level Zero kernels' test (test_ze_kernels) on Intel's CPU OpenCL runtime, the one
# OpenCL implementation reachable here with Intel sub-groups (sizes 4 to 64) and SPIR-V input:
#   1. the kernels built from source, the reductions at each sub-group size the device offers;
#   2. the very SPIR-V the library embeds (build/ze/dlx_kernels.spv), as a driver loads it.
# PoCL (ctest's ze.kernels_pocl) has no sub-groups, so only this run reaches the reductions'
# shuffles. The runtime comes from PyPI (intel-opencl-rt, Intel's licence; not a Debian package):
# pip installs it into a virtual environment under the build directory (reused by later runs),
# and the system's OpenCL ICD loader (ocl-icd, which the test links) is pointed at it alone.
# scripts/test --all (and so CI) runs this through .ci/intel_opencl.sh.
#
# usage: tests/ze_kernels/intel_opencl_rt.sh [BUILD_DIR]   (a build with DLX_LEVEL_ZERO on)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
test_bin=$build/tests/ze_kernels/test_ze_kernels
spirv=$build/ze/dlx_kernels.spv
venv=$build/intel-opencl-rt
fail() {
  echo "intel_opencl_rt.sh: $*" >&2
  exit 1
}
for f in "$test_bin" "$spirv"; do
  [ -f "$f" ] || fail "missing $f: build with DLX_LEVEL_ZERO=ON and the OpenCL headers"
done

# The runtime and every library it loads, pinned: intel-cmplr-lib-rt (libimf, libsvml, ...) is
# needed but not declared by intel-opencl-rt.
wheels="intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 intel-cmplr-lic-rt==2026.2.0
tbb==2023.2.0 tcmlib==1.6.0"
if [ "$(cat "$venv/wheels.txt" 2>/dev/null)" != "$wheels" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" || fail "python3 -m venv failed (Debian: apt-get install python3-venv)"
  # shellcheck disable=SC2086 # one word per wheel
  "$venv/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check \
    --only-binary=:all: $wheels || fail "pip could not install $wheels"
  echo "$wheels" >"$venv/wheels.txt"
fi

# The wheels put the libraries in the environment's lib/; the runtime finds its own through its
# RUNPATH ($ORIGIN), so no LD_LIBRARY_PATH (which would also pick the wheels' own libOpenCL).
icd=$venv/lib/libintelocl.so
[ -f "$icd" ] || fail "$icd is not there: the intel-opencl-rt wheel changed its layout"
missing=$(ldd "$icd" | grep 'not found' || true)
[ -z "$missing" ] || fail "the runtime $icd cannot load:"$'\n'"$missing"
# ocl-icd loads the one library that OCL_ICD_VENDORS names, and no other platform (PoCL).
export OCL_ICD_VENDORS=$icd DLX_ZE_EXPECT_SUBGROUPS=1

# Runs the test and checks that it ran on Intel's runtime (exit 77 is the test's "no device").
run_test() {
  local log rc=0 rerun
  log=$(mktemp)
  stdbuf -oL "$test_bin" 2>&1 | tee "$log" || rc=$? # (stdbuf: its lines as they come)
  if [ "$rc" -eq 77 ]; then
    fail "the OpenCL ICD loader (ocl-icd) found no device in $icd"
  fi
  rerun="env OCL_ICD_VENDORS=$icd DLX_ZE_EXPECT_SUBGROUPS=1"
  rerun+="${DLX_ZE_KERNEL_IL:+ DLX_ZE_KERNEL_IL=$DLX_ZE_KERNEL_IL} $test_bin"
  [ "$rc" -eq 0 ] || fail "test_ze_kernels failed (exit $rc); rerun it alone:"$'\n'"  $rerun"
  grep -q '^OpenCL: Intel' "$log" || fail "test_ze_kernels did not run on Intel's OpenCL runtime"
  rm -f "$log"
}

echo "== from source, every sub-group size"
run_test
echo "== the embedded SPIR-V ($spirv)"
DLX_ZE_KERNEL_IL=$spirv run_test
