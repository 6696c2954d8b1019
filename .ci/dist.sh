#!/usr/bin/env bash
# CI for the release, called from .ci/run right after its `luarocks make` step:
#   - `luarocks test` on that build (the scm rockspec's test section: the specs with busted);
#   - rocks/dlx-V-1.rockspec is what scripts/dist writes;
#   - scripts/dist makes dist/, and `luarocks install --only-server=dist dlx` builds and installs
#     dlx into an empty tree, without a warning, from which lua5.4 (started in /) requires it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
section() { printf '\n==== %s ====\n' "$*"; }
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} # LuaRocks builds with one job

section "luarocks test (after luarocks make)"
[ -d build.luarocks ] || { echo "build.luarocks/ missing: run luarocks make first" >&2; exit 1; }
luarocks --lua-version=5.4 test rocks/dlx-scm-1.rockspec

section "scripts/dist --check, scripts/dist"
scripts/dist --check
scripts/dist

section "luarocks install --only-server=dist dlx into an empty tree, then require \"dlx\" from it"
tree=$(mktemp -d)
server=$PWD/dist
version=$(sed -n 's/^#define DLX_VERSION_STRING "\([^"]*\)"$/\1/p' include/dlx.h)
(
  cd /
  # As a user without a GPU runs it: no DLX_CUDA, so AUTO. LuaRocks must not warn (an
  # unmatched variable of the rockspec once did): its output is kept and searched.
  luarocks --lua-version=5.4 --tree="$tree" install --only-server="$server" dlx 2>&1 |
    tee "$tree.log"
  if grep -i 'warning' "$tree.log"; then
    echo "luarocks install warned (above): the rockspec or the build must not" >&2
    exit 1
  fi
  rm -f "$tree.log"
  # Lua's paths are the tree's entries of `luarocks path` and nothing else (no ";;": not even
  # Lua's defaults, which luarocks path adds with the other trees of its configuration).
  only_tree() { tr ";" "\n" | awk -v t="$tree/" "index(\$0, t) == 1" | paste -sd ";"; }
  # (Set only for lua5.4: luarocks itself runs on Lua 5.1, which reads LUA_PATH too.)
  lua_path=$(luarocks --lua-version=5.4 --tree="$tree" path --lr-path | only_tree)
  lua_cpath=$(luarocks --lua-version=5.4 --tree="$tree" path --lr-cpath | only_tree)
  echo "LUA_PATH=$lua_path"
  echo "LUA_CPATH=$lua_cpath"
  LUA_PATH=$lua_path LUA_CPATH=$lua_cpath DLX_TREE=$tree DLX_VERSION=$version lua5.4 -e '
    local tree, version = os.getenv("DLX_TREE"), os.getenv("DLX_VERSION")
    local dlx = require "dlx"
    for _, m in ipairs{ {"dlx", package.path}, {"dlx.core", package.cpath} } do
      local where = package.searchpath(m[1], m[2])
      assert(where and where:sub(1, #tree) == tree, m[1] .. " not from the tree: " .. tostring(where))
    end
    assert(dlx.version == version, dlx.version)
    local t = dlx.arange(12, {dtype = "float32"}):view{3, 4}
    assert(t:sum(1):totable()[4] == 3 + 7 + 11 and t:max():item() == 11)
    print("dlx " .. dlx.version .. " installed from dist/ into " .. tree)'
)
rm -rf "$tree"
