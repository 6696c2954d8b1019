-- dlx from a working tree:
--   [DLX_CUDA=OFF|ON] luarocks --lua-version=5.4 --tree=T make rocks/dlx-scm-1.rockspec
-- (luarocks make does not look in rocks/ by itself: give the path.) Installs dlx/core.so into
-- T/lib/lua/5.4 and lua/dlx/*.lua into T/share/lua/5.4.
-- The release rockspec beside it is written from this file by scripts/dist: edit this one.
rockspec_format = "3.0"
package = "dlx"
version = "scm-1"

source = {
  url = "git+https://github.com/dlx-lua/dlx.git",
}

description = {
  summary = "Tensors and DLPack for Lua 5.4",
  detailed = [[
dlx gives Lua 5.4 scripts real tensors (views, copies, casts, reductions in C) and speaks
DLPack, so host applications and other libraries exchange tensors with Lua scripts without
copying. This release runs on the CPU; the CUDA and Level Zero backends are build options,
environment variables DLX_CUDA and DLX_LEVEL_ZERO = AUTO | ON | OFF (AUTO: CUDA where the
machine has an NVIDIA GPU and the toolkit, Level Zero where its compiler is installed).
]],
  labels = { "tensor", "dlpack", "array", "numeric" },
  license = "MIT",
}

dependencies = {
  "lua >= 5.4, < 5.5",
}

-- SLEEF, the vectorised math of the elementwise math functions (Debian: libsleef-dev). Only the
-- library is named: Debian puts sleef.h under include/<multiarch>, where LuaRocks does not look
-- (CMake does, and names the header if it is missing).
-- OpenBLAS and LAPACKE, the CPU's matrix products and decompositions (Debian: libopenblas-dev,
-- liblapacke-dev); CMake finds OpenBLAS's cblas.h (under include/<multiarch>/openblas-pthread on
-- Debian) itself.
external_dependencies = {
  SLEEF = { library = "sleef" },
  OPENBLAS = { library = "openblas" },
  LAPACKE = { header = "lapacke.h", library = "lapacke" },
}

build = {
  type = "cmake",
  -- LuaRocks' cmake backend sets no prefix, build type or Lua paths itself. LIBDIR and LUADIR
  -- are where the module and the Lua files go. The backends' options come from the
  -- environment, which CMake reads (`DLX_CUDA=ON luarocks install dlx`; docs/install.md):
  -- a rockspec cannot declare a variable with a default, and one named here as $(DLX_CUDA)
  -- but not given on the command line makes LuaRocks warn "unmatched variable".
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    LUA_INCDIR = "$(LUA_INCDIR)",
    LIBDIR = "$(LIBDIR)",
    LUADIR = "$(LUADIR)",
    SLEEF_INCDIR = "$(SLEEF_INCDIR)",
    SLEEF_LIBDIR = "$(SLEEF_LIBDIR)",
    OPENBLAS_INCDIR = "$(OPENBLAS_INCDIR)",
    OPENBLAS_LIBDIR = "$(OPENBLAS_LIBDIR)",
    LAPACKE_INCDIR = "$(LAPACKE_INCDIR)",
    LAPACKE_LIBDIR = "$(LAPACKE_LIBDIR)",
    -- Only the module and the Lua files: no tests, and no libdlx for hosts (which would need
    -- liblua5.4.so, and is what `cmake --install` is for).
    DLX_BUILD_TESTS = "OFF",
    DLX_BUILD_HOST_LIBS = "OFF",
  },
}

test = {
  -- `luarocks test` after `luarocks make`: the specs against the module in build.luarocks/,
  -- plus the specs' own producer module (tests/testprod), built there first. (type = "busted"
  -- would insist on a busted rock; Debian's lua-busted must be run by lua5.4 explicitly.)
  type = "command",
  command = "cmake -S . -B build.luarocks -DDLX_BUILD_TESTS=ON"
    .. " && cmake --build build.luarocks --target testprod"
    .. " && lua5.4 /usr/bin/busted --ignore-lua --lpath='./lua/?.lua;./lua/?/init.lua'"
    .. " --cpath='./build.luarocks/?.so' -o plainTerminal spec",
}
