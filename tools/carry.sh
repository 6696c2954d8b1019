#!/usr/bin/env bash
# tools/carry.sh BUILD_DIR [OUT]: packs what the GPU checks need into OUT (default
# BUILD_DIR/dlx-carry) and OUT.tar.gz, to run on a GPU machine that has no Lua:
#   dlx-runner            Lua 5.4 + dlx (+ the CUDA backend, static runtime), tools/dlx-runner
#   libdlx.so.0, liblua5.4.so.0, dlx_lua.py   dlx for Python through ctypes (interop, benchmark)
#   testprod.so           the specs' DLPack test producer
#   lua/                  the spec runner, luassert and say (pure Lua, from Debian's lua-busted deps)
#   spec/                 spec/helper.lua, the shared device cases (spec/*_device.lua),
#                         spec/cuda_*_spec.lua and the peer-bug specs
#                         (docs/peer-bugs.md; dlpack_devices_copy has a #gpu part)
#   bench/cuda/ tests/interop_cuda/   the benchmark and the PyTorch/CuPy interop test
# BUILD_DIR must be a build with the CUDA backend (DLX_CUDA=ON or AUTO with the toolkit).
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:?usage: tools/carry.sh BUILD_DIR [OUT]}" && pwd)
out=${2:-$build/dlx-carry}
lua_share=${LUA_SHARE:-/usr/share/lua/5.4}

for f in dlx-runner testprod.so; do
  [ -f "$build/$f" ] || { echo "carry.sh: $build/$f is missing: build it first" >&2; exit 1; }
done
liblua=$(ldconfig -p | awk '/liblua5\.4\.so\.0 .*x86-64/ && !found {print $NF; found = 1}')
[ -n "$liblua" ] || { echo "carry.sh: liblua5.4.so.0 not found (apt-get install liblua5.4-0)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/lua" "$out/spec" "$out/bench" "$out/tests"
cp "$build/dlx-runner" "$build/testprod.so" "$out/"
cp -L "$build/libdlx.so.0" "$out/libdlx.so.0"
cp -L "$liblua" "$out/liblua5.4.so.0"
cp "$src/tools/dlx_lua.py" "$out/"
cp "$src/tools/dlx-runner/dlx_spec_runner.lua" "$out/lua/"
cp -rL "$lua_share/luassert" "$lua_share/say" "$out/lua/"
cp "$src/spec/helper.lua" "$src"/spec/*_device.lua "$src"/spec/cuda_*_spec.lua \
  "$src"/spec/dlpack_devices_copy_spec.lua \
  "$src"/spec/dlpack_readonly_lifetime_spec.lua "$src"/spec/dlpack_strides_offsets_spec.lua \
  "$out/spec/"
cp -r "$src/bench/cuda" "$out/bench/"
cp -r "$src/tests/interop_cuda" "$out/tests/"
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"
echo "carry.sh: $out.tar.gz ($(du -h "$out.tar.gz" | cut -f1))"
