# ctest install.find_package:
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DWORK_DIR=... -DC_COMPILER=... [-DC_FLAGS=...]
#         -DLUA=lua5.4 [-DLUA_PRELOAD=<asan runtime>] -P TestInstall.cmake
# Installs BUILD_DIR into WORK_DIR/prefix and uses it the way a user would: examples/embed built
# with find_package(dlx), with pkg-config against libdlx.so, and with `pkg-config --static`
# against libdlx.a alone (whatever backends the build has: with CUDA, the static CUDA runtime
# and the C++ runtime come from dlx.pc's Libs.private), and require "dlx" from the installed Lua
# module.
include(${CMAKE_CURRENT_LIST_DIR}/DlxScript.cmake)
dlx_require_vars(TestInstall.cmake SOURCE_DIR BUILD_DIR WORK_DIR C_COMPILER LUA)

set(prefix ${WORK_DIR}/prefix)
set(script ${SOURCE_DIR}/examples/embed/script.lua)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# find_package(dlx) -> dlx::dlx
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embed -B ${WORK_DIR}/cmake-build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_C_FLAGS=${C_FLAGS}
    -DCMAKE_EXE_LINKER_FLAGS=${C_FLAGS} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${WORK_DIR}/cmake-build/dlx_embed ${script})

# pkg-config --cflags --libs dlx (libdlx.so), then pkg-config --static --cflags --libs dlx against
# a copy of the prefix without libdlx.so, so that -ldlx can only be libdlx.a.
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

embed_with_pkg_config(${prefix} ${WORK_DIR}/embed-pkgconfig --cflags --libs)

set(static_prefix ${WORK_DIR}/prefix-static)
file(COPY ${prefix}/ DESTINATION ${static_prefix})
file(GLOB_RECURSE shared_libdlx ${static_prefix}/libdlx.so*)
if(NOT shared_libdlx)
  message(FATAL_ERROR "no libdlx.so under ${static_prefix}")
endif()
file(REMOVE ${shared_libdlx})
embed_with_pkg_config(${static_prefix} ${WORK_DIR}/embed-static --static --cflags --libs)

# The installed module and Lua files (lib/lua/5.4/dlx/core.so, share/lua/5.4/dlx/*.lua).
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
