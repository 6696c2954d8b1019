# The ctest suite beyond tests/c: the busted specs, the examples, the installed package and the
# ABI check against Debian's DLPack 0.6 header. Included from the root when DLX_BUILD_TESTS is on.
find_program(DLX_LUA_INTERPRETER NAMES lua5.4 lua54)
find_program(DLX_BUSTED busted)
if(NOT DLX_LUA_INTERPRETER)
  message(FATAL_ERROR "lua5.4 not found (apt-get install lua5.4), or configure with "
                      "-DDLX_BUILD_TESTS=OFF")
endif()

# ---- Sanitizer settings ---------------------------------------------------------------------
# DLX_SANITIZER_ENV goes to every test registered here; the asan test preset (CMakePresets.json)
# gives the same options to the C tests of tests/. allocator_may_return_null: dlx reports a failed allocation as a MemoryError,
# and the specs check that with impossible sizes, which ASan would otherwise abort on. Leaks are
# reported: busted and lua5.4 close their state on exit (os.exit(code, true)), so whatever is
# still allocated then was lost.
#
# lua5.4 is not instrumented, so to load the sanitized core.so the sanitizer runtime must be
# loaded first: DLX_LUA_TEST_ENV adds LD_PRELOAD of the shared ASan runtime (gcc: libasan.so,
# and the module's own NEEDED libubsan follows; clang: its shared ASan runtime, which carries
# the UBSan handlers too). Only lua5.4 gets it; instrumented executables have their runtime.
set(DLX_SANITIZER_ENV "")
set(DLX_LUA_TEST_ENV "")
set(DLX_ASAN_RUNTIME "")
if(DLX_SANITIZE)
  set(DLX_SANITIZER_ENV
      "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    set(runtime libasan.so)
  else()
    set(runtime libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  endif()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${runtime}
                  OUTPUT_VARIABLE DLX_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${DLX_ASAN_RUNTIME}" OR NOT EXISTS "${DLX_ASAN_RUNTIME}")
    message(FATAL_ERROR "DLX_SANITIZE: the shared ASan runtime ${runtime} was not found "
                        "(clang needs libclang-rt-14-dev); lua5.4 cannot load the sanitized module")
  endif()
  message(STATUS "dlx: Lua tests preload ${DLX_ASAN_RUNTIME}")
  set(DLX_LUA_TEST_ENV ${DLX_SANITIZER_ENV} "LD_PRELOAD=${DLX_ASAN_RUNTIME}")
endif()

set(src ${PROJECT_SOURCE_DIR})
set(bin ${PROJECT_BINARY_DIR})

# ---- busted: every spec/*_spec.lua against this build ----------------------------------------
# lua5.4 runs busted itself (/usr/bin/busted's shebang is plain lua, 5.1 on Debian) and
# --ignore-lua stops a `lua` directive in .busted from re-executing it. The ; between the path
# entries must be escaped (\;), or add_test splits the argument in two.
if(DLX_BUSTED)
  add_test(NAME busted
           COMMAND ${DLX_LUA_INTERPRETER} ${DLX_BUSTED} --ignore-lua
                   --lpath=${src}/lua/?.lua\;${src}/lua/?/init.lua --cpath=${bin}/?.so
                   -o plainTerminal ${src}/spec
           WORKING_DIRECTORY ${src})
  set_tests_properties(busted PROPERTIES ENVIRONMENT "${DLX_LUA_TEST_ENV}")
else()
  dlx_suite_skipped("the busted specs" "busted not found (apt-get install lua-busted)")
endif()

# ---- examples/tour.lua with lua5.4, against the Lua files and the module of this tree --------
# (Unquoted arguments without spaces: in a quoted one, \; would stay a backslash and a ;.)
add_test(NAME example.tour
         COMMAND ${DLX_LUA_INTERPRETER}
                 -e package.path='${src}/lua/?.lua\;${src}/lua/?/init.lua\;'..package.path
                 -e package.cpath='${bin}/?.so\;'..package.cpath
                 ${src}/examples/tour.lua
         WORKING_DIRECTORY ${src})
set_tests_properties(example.tour PROPERTIES ENVIRONMENT "${DLX_LUA_TEST_ENV}")

# ---- a Lua process that exits right after a multi-threaded kernel (cmake/ExitAfterThreads.cmake)
add_test(NAME module.exit_after_threads
         COMMAND ${CMAKE_COMMAND} -DLUA=${DLX_LUA_INTERPRETER} -DSRC=${src} -DBIN=${bin}
                 -P ${src}/cmake/ExitAfterThreads.cmake)
set_tests_properties(module.exit_after_threads PROPERTIES ENVIRONMENT "${DLX_LUA_TEST_ENV}")

if(DLX_BUILD_HOST_LIBS)
  # ---- examples/embed: the C host, built against libdlx of this tree (test example.embed) ----
  add_subdirectory(${src}/examples/embed ${bin}/examples/embed)

  # ---- find_package(dlx) and pkg-config from an installed tree --------------------------------
  # Installs this build into <build>/install-test/prefix, builds examples/embed there as an
  # outside project would (CMake and pkg-config), runs it, and requires "dlx" from the installed
  # module and Lua files.
  list(JOIN DLX_SANITIZE_FLAGS " " flags) # the sanitized libdlx needs a sanitized host
  add_test(NAME install.find_package
           COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${src} -DBUILD_DIR=${bin}
                   -DWORK_DIR=${bin}/install-test -DC_COMPILER=${CMAKE_C_COMPILER}
                   -DC_FLAGS=${flags} -DLUA=${DLX_LUA_INTERPRETER}
                   -DLUA_PRELOAD=${DLX_ASAN_RUNTIME} -P ${src}/cmake/TestInstall.cmake)
  set_tests_properties(install.find_package PROPERTIES ENVIRONMENT "${DLX_SANITIZER_ENV}")
endif()

# ---- ABI: our dlpack.h against Debian's libdlpack-dev 0.6 ------------------------------------
# Both headers use the include guard DLPACK_DLPACK_H_, so the legacy one is compiled in its own
# translation unit (tests/abi_compat/legacy_layout.c, with none of our include directories), which
# reports its layout; test_abi_compat.c compares it with ours.
# The header is named by its full path: a dlx installed into /usr/local would otherwise put our
# own dlpack.h first on the compiler's default search path.
find_file(DLX_LEGACY_DLPACK_HEADER dlpack/dlpack.h HINTS /usr/include)
set(legacy_ok FALSE)
if(DLX_LEGACY_DLPACK_HEADER)
  file(STRINGS ${DLX_LEGACY_DLPACK_HEADER} legacy_version REGEX "#define DLPACK_VERSION ")
  if(legacy_version)
    set(legacy_ok TRUE)
  endif()
endif()
if(legacy_ok)
  add_library(dlx_abi_legacy OBJECT ${src}/tests/abi_compat/legacy_layout.c)
  target_compile_definitions(dlx_abi_legacy
                             PRIVATE DLX_LEGACY_DLPACK_HEADER="${DLX_LEGACY_DLPACK_HEADER}")
  target_compile_options(dlx_abi_legacy PRIVATE ${DLX_WARNINGS})
  add_executable(test_abi_compat ${src}/tests/abi_compat/test_abi_compat.c
                                 $<TARGET_OBJECTS:dlx_abi_legacy>)
  target_include_directories(test_abi_compat PRIVATE ${src}/include ${src}/tests/c)
  target_compile_options(test_abi_compat PRIVATE ${DLX_WARNINGS})
  add_test(NAME c.test_abi_compat COMMAND test_abi_compat)
  set_tests_properties(c.test_abi_compat PROPERTIES ENVIRONMENT "${DLX_SANITIZER_ENV}")
else()
  dlx_suite_skipped("c.test_abi_compat" "the 0.x dlpack/dlpack.h of libdlpack-dev was not "
                    "found (apt-get install libdlpack-dev)")
endif()
