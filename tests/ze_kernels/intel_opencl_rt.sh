#!/bin/sh
# Runs the Level Zero kernels' test (test_ze_kernels) on Intel's CPU OpenCL runtime, the one
# OpenCL implementation reachable here with Intel sub-groups (sizes 4 to 64) and SPIR-V input:
#   1. the kernels built from source, the reductions at each sub-group size the device offers;
#   2. the very SPIR-V the library embeds (build/ze/dlx_kernels.spv), as a driver loads it.
# PoCL (ctest's ze.kernels_pocl) has no sub-groups, so only this run reaches the reductions'
# shuffles. The runtime comes from PyPI (intel-opencl-rt, Intel's licence; not a Debian package)
# and is unpacked under the build directory, not installed.
#
# usage: tests/ze_kernels/intel_opencl_rt.sh [BUILD_DIR]   (a build with DLX_LEVEL_ZERO on)
set -eu
build=$(cd "${1:-build}" && pwd)
test_bin=$build/tests/ze_kernels/test_ze_kernels
spirv=$build/ze/dlx_kernels.spv
rt=$build/intel-opencl-rt
for f in "$test_bin" "$spirv"; do
  [ -f "$f" ] || { echo "missing $f: build with DLX_LEVEL_ZERO=ON and OpenCL headers" >&2; exit 1; }
done

if [ ! -f "$rt/.unpacked" ]; then
  mkdir -p "$rt/wheels"
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$rt/wheels" \
    intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 tbb==2023.2.0
  for w in "$rt"/wheels/*.whl; do python3 -m zipfile -e "$w" "$rt"; done
  rm -rf "$rt/wheels"
  touch "$rt/.unpacked"
fi

lib() { dirname "$(find "$rt" -name "$1" | head -n 1)"; }
ocl=$(lib libintelocl.so)
LD_LIBRARY_PATH=$ocl:$(lib 'libtbb.so.12'):$(lib 'libimf.so')${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$rt/vendors" # empty: no other OpenCL platform is loaded
OCL_ICD_VENDORS=$rt/vendors
OCL_ICD_FILENAMES=$ocl/libintelocl.so
DLX_ZE_EXPECT_SUBGROUPS=1
export LD_LIBRARY_PATH OCL_ICD_VENDORS OCL_ICD_FILENAMES DLX_ZE_EXPECT_SUBGROUPS

echo "== from source, every sub-group size"
"$test_bin"
echo "== the embedded SPIR-V ($spirv)"
DLX_ZE_KERNEL_IL=$spirv "$test_bin"
