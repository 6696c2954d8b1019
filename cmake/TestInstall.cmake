# ctest install.find_package:
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DWORK_DIR=... -DC_COMPILER=... [-DC_FLAGS=...]
#         -DLUA=lua5.4 [-DLUA_PRELOAD=<asan runtime>] -P TestInstall.cmake
# Installs BUILD_DIR and uses it the way a user would, with the command lines of
# examples/embed/README.md, run as they are written: cmake --install, examples/embed built with
# find_package(dlx) and with pkg-config against libdlx.so, and run. Then examples/embed linked
# with `pkg-config --static` against libdlx.a alone (whatever backends the build has: with CUDA,
# the static CUDA runtime and the C++ runtime come from dlx.pc's Libs.private), and require "dlx"
# from the installed Lua module.
include(${CMAKE_CURRENT_LIST_DIR}/DlxScript.cmake)
dlx_require_vars(TestInstall.cmake SOURCE_DIR BUILD_DIR WORK_DIR C_COMPILER LUA)

set(script ${SOURCE_DIR}/examples/embed/script.lua)
file(REMOVE_RECURSE ${WORK_DIR})

# ---- The lines of examples/embed/README.md ---------------------------------------------------
# They run from the root of a checkout and install into "$HOME/dlx": here HOME is WORK_DIR/home
# and the checkout WORK_DIR/checkout, whose build/ and examples/ are links to BUILD_DIR and
# SOURCE_DIR/examples, so that what the lines write (build-embed/, embed-pc) stays in WORK_DIR.
# The compiler and its flags (the sanitizers') come from the environment: CC, CFLAGS and LDFLAGS
# for CMake, and a shell function for `cc`.
set(home ${WORK_DIR}/home)
set(checkout ${WORK_DIR}/checkout)
set(prefix ${home}/dlx)
file(MAKE_DIRECTORY ${home} ${checkout})
file(CREATE_LINK ${BUILD_DIR} ${checkout}/build SYMBOLIC)
file(CREATE_LINK ${SOURCE_DIR}/examples ${checkout}/examples SYMBOLIC)

set(readme ${SOURCE_DIR}/examples/embed/README.md)
file(READ ${readme} text)
# A ; would split the blocks, which CMake holds as a list: the prose's are kept as @SEMICOLON@,
# and the blocks must have none.
string(REPLACE ";" "@SEMICOLON@" text "${text}")
string(REGEX MATCHALL "\n```sh\n[^`]*```" blocks "${text}")
list(LENGTH blocks count)
# install, CMake, pkg-config: each must be there, in that order
set(expected "cmake --install build" "-DCMAKE_PREFIX_PATH=" "pkg-config --cflags --libs dlx")
if(NOT count EQUAL 3)
  message(FATAL_ERROR "${readme}: ${count} sh blocks, expected 3 (install, CMake, pkg-config)")
endif()
foreach(i RANGE 2)
  list(GET blocks ${i} block)
  list(GET expected ${i} word)
  string(FIND "${block}" "${word}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${readme}: sh block ${i} (from 0) lacks `${word}`")
  endif()
  string(REGEX REPLACE "^\n```sh\n|```$" "" block "${block}")
  if(block MATCHES "@SEMICOLON@")
    message(FATAL_ERROR "${readme}: sh block ${i} has a ';', which TestInstall.cmake cannot run")
  endif()
  message(STATUS "examples/embed/README.md, sh block ${i}:\n${block}")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env HOME=${home} CC=${C_COMPILER} "CFLAGS=${C_FLAGS}"
            "LDFLAGS=${C_FLAGS}" PKG_CONFIG_PATH= bash -e -x -c
            "cc() {\n  \"$CC\" $CFLAGS \"$@\"\n}\n${block}"
    WORKING_DIRECTORY ${checkout} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): sh block ${i} of ${readme}")
  endif()
endforeach()

# ---- pkg-config --static --cflags --libs dlx, against a copy of the prefix without libdlx.so, so
# that -ldlx can only be libdlx.a.
find_program(PKG_CONFIG pkg-config)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found (apt-get install pkg-config): dlx.pc is not checked")
endif()
separate_arguments(c_flags UNIX_COMMAND "${C_FLAGS}")

# Builds examples/embed as `exe` with the flags of `pkg-config <pc_args> dlx` from the prefix
# `root`, and runs it.
function(embed_with_pkg_config root exe)
  file(GLOB_RECURSE pc_files ${root}/dlx.pc)
  list(GET pc_files 0 pc_file)
  get_filename_component(pc_dir ${pc_file} DIRECTORY)
  get_filename_component(libdir ${pc_dir} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} ${pc_dir})
  execute_process(COMMAND ${PKG_CONFIG} ${ARGN} dlx OUTPUT_VARIABLE pc_flags
                  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(JOIN " " pc_args ${ARGN})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${pc_args} dlx failed")
  endif()
  message(STATUS "pkg-config ${pc_args} dlx: ${pc_flags}")
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run(${C_COMPILER} -std=c11 ${c_flags} ${SOURCE_DIR}/examples/embed/embed.c -o ${exe}
      ${pc_flags} -Wl,-rpath,${libdir})
  run(${exe} ${script})
endfunction()

set(static_prefix ${WORK_DIR}/prefix-static)
file(COPY ${prefix}/ DESTINATION ${static_prefix})
file(GLOB_RECURSE shared_libdlx ${static_prefix}/libdlx.so*)
if(NOT shared_libdlx)
  message(FATAL_ERROR "no libdlx.so under ${static_prefix}")
endif()
file(REMOVE ${shared_libdlx})
embed_with_pkg_config(${static_prefix} ${WORK_DIR}/embed-static --static --cflags --libs)

# ---- The installed module and Lua files (lib/lua/5.4/dlx/core.so, share/lua/5.4/dlx/*.lua).
set(env "")
if(LUA_PRELOAD)
  set(env LD_PRELOAD=${LUA_PRELOAD})
endif()
# (No ; in these arguments: a function's ARGN would split them. package.config gives Lua's own
# path separator.)
set(lua_dir ${prefix}/share/lua/5.4)
run(${CMAKE_COMMAND} -E env ${env} ${LUA}
    -e "SEP = package.config:sub(3, 3)"
    -e "package.path = '${lua_dir}/?.lua' .. SEP .. '${lua_dir}/?/init.lua'"
    -e "package.cpath = '${prefix}/lib/lua/5.4/?.so'"
    -e "dlx = require 'dlx'"
    -e "assert(package.searchpath('dlx.core', package.cpath))"
    -e "print('installed dlx ' .. dlx.version)")
