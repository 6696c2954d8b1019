#!/usr/bin/env bash
# Checks of the Level Zero build, called by scripts/test --all (which .ci/run runs) after its
# ctest. No Intel GPU is needed:
#   - the kernels are compiled to SPIR-V by the build (clang-14, llvm-spirv-14) and checked with
#     spirv-val, then checked again here;
#   - the oneapi specs run on the test driver (tests/ze_driver) through the real loader with its
#     validation layer (ZE_ENABLE_VALIDATION_LAYER, ZE_ENABLE_PARAMETER_VALIDATION);
#   - the kernels' OpenCL C runs on PoCL against the CPU backend (tests/ze_kernels), without
#     sub-groups (PoCL has none); the module's sub-group shuffles are checked to be there;
#   - a dlx built with Level Zero still loads and works CPU-only when the loader is missing.
# Runs after scripts/test, on its build/; a few seconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
section() { printf '\n==== %s ====\n' "$*"; }

# scripts/test has installed the packages (scripts/common.sh), built build/ with
# DLX_LEVEL_ZERO=AUTO and run the oneapi specs on the test driver with the validation layer
# (busted.oneapi*) and the PoCL kernel tests (ze.kernels_pocl). What is left is checked here.
section "Level Zero: the build has the backend, the validation layer is there, SPIR-V is valid"
spv=build/ze/dlx_kernels.spv
[ -f "$spv" ] || { echo "$spv missing: build/ was configured without Level Zero" >&2; exit 1; }
registered=$(ctest --test-dir build -N) # (not piped into grep -q: pipefail and SIGPIPE)
grep -q 'busted\.oneapi' <<<"$registered" || { echo "no oneapi specs registered" >&2; exit 1; }
# The validation layer ships in Debian's libze1; the loader opens it by this name.
layer=$(ldconfig -p | awk '/libze_validation_layer\.so\.1 /{p = $NF} END {print p}')
[ -n "$layer" ] || { echo "libze_validation_layer.so.1 not found (Debian's libze1 ships it)" >&2; exit 1; }
echo "validation layer: $layer"
spirv-val --target-env opencl2.2 "$spv"
echo "spirv-val: $spv is valid ($(stat -c %s "$spv") bytes)"
# The reductions' sub-group step (shuffles) is in the module; PoCL cannot run it (no sub-groups),
# .ci/intel_opencl.sh does, on Intel's CPU OpenCL runtime.
module=$(spirv-dis "$spv")
grep -q 'OpCapability SubgroupShuffleINTEL' <<<"$module" || { echo "no sub-group shuffles in $spv" >&2; exit 1; }
echo "sub-group step: $(grep -c 'OpSubgroupShuffleXorINTEL' <<<"$module") shuffles in the module"

section "Level Zero: CPU-only without a driver, and without the loader"
export LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua" LUA_CPATH="$PWD/build/?.so"
check=$(mktemp --suffix=.lua)
cat >"$check" <<'LUA'
local dlx = require "dlx"
assert(#dlx.devices() == 1 and tostring(dlx.default_device()) == "cpu")
assert(not pcall(dlx.device, "oneapi:0"))
assert(dlx.arange(4):sum():item() == 6)
print("CPU-only: ok")
LUA
lua5.4 "$check"
loader=$(ldconfig -p | awk '/libze_loader\.so\.1 /{p = $NF} END {print p}')
if unshare -m true 2>/dev/null; then
  # the loader hidden from this one process (a private mount namespace)
  unshare -m bash -c "mount --bind /dev/null '$loader' && lua5.4 '$check'"
else
  echo "SKIPPED: no mount namespace here (unshare -m) to hide $loader from one process"
fi
rm -f "$check"
