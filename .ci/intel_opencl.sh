#!/usr/bin/env bash
# CI: the Level Zero kernels' test on Intel's CPU OpenCL runtime (from PyPI), the one runtime
# here with real sub-groups, as well as on PoCL (ctest's ze.kernels_pocl, no sub-groups).
# Called by scripts/test --all after .ci/level_zero.sh, on the build/ it made; pip
# installs the runtime into build/intel-opencl-rt (a virtual environment, about 230 MB of
# wheels). A few minutes, most of them in the test itself.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
printf '\n==== %s ====\n' "Level Zero kernels on Intel's CPU OpenCL runtime (intel-opencl-rt from PyPI)"
start=$SECONDS
tests/ze_kernels/intel_opencl_rt.sh build
echo "Intel's CPU OpenCL runtime: passed in $((SECONDS - start)) s"
