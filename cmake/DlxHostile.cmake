# Hostile-input builds, each off by default and independent of DLX_SANITIZE: they compile the
# library's sources again with their own instrumentation (.ci/hostile.sh turns them on).
#   DLX_FUZZ  the libFuzzer import fuzzer tests/fuzz/fuzz_import.c (clang): -fsanitize=fuzzer,
#             address,undefined; ctest "fuzz.corpus" replays the committed seed corpus. And the
#             .npy fuzzer tests/fuzz/fuzz_npy.c, whose seeds ctest "fuzz.npy_corpus" replays.
#   DLX_TSAN  the threaded C tests (tests/c/test_threads*.c, test_cpu_cache.c) and the soak test
#             (tests/soak) built with ThreadSanitizer, as ctest "tsan.<name>" and "tsan.soak".
# The plain C tests of tests/c (test_alloc_fail, test_lifetime, test_threads) are part of the
# normal suite already (tests/CMakeLists.txt).
# (The options are declared in the root CMakeLists.txt: under AUTO, CUDA is not built with them.)
if((DLX_FUZZ OR DLX_TSAN) AND DLX_WITH_CUDA)
  message(FATAL_ERROR "DLX_FUZZ and DLX_TSAN compile the library again with clang's sanitizers, "
                      "which nvcc does not take: configure with DLX_CUDA=OFF (presets tsan, fuzz)")
endif()

# An executable of `sources` plus the whole library (the sources, include directories and
# definitions of dlx_core_objects and dlx_lua_objects), compiled and linked with `flags`.
function(dlx_instrumented_executable name flags)
  set(core dlx_core_objects)
  set(lua dlx_lua_objects)
  add_executable(${name} ${ARGN} $<TARGET_PROPERTY:${core},SOURCES>
                                 $<TARGET_PROPERTY:${lua},SOURCES>)
  target_include_directories(${name} PRIVATE $<TARGET_PROPERTY:${core},INCLUDE_DIRECTORIES>
                                             $<TARGET_PROPERTY:${lua},INCLUDE_DIRECTORIES>
                                             ${PROJECT_SOURCE_DIR}/tests/c ${SLEEF_INCLUDE_DIR}
                                             ${DLX_CBLAS_INCLUDE_DIR} ${DLX_LAPACKE_INCLUDE_DIR})
  target_compile_definitions(${name} PRIVATE $<TARGET_PROPERTY:${core},COMPILE_DEFINITIONS>)
  # DLX_WITH_THREADS comes with the definitions: the kernels' thread pool runs instrumented too.
  target_compile_options(${name} PRIVATE ${DLX_WARNINGS} ${flags}
                                         -fno-omit-frame-pointer)
  target_link_options(${name} PRIVATE ${flags})
  target_link_libraries(${name} PRIVATE Lua54::lua ${MATH_LIBRARY} ${CMAKE_DL_LIBS} ${SLEEF_LIBRARY}
                                                ${DLX_LAPACKE_LIBRARY} ${DLX_BLAS_LIBRARIES})
endfunction()

if(DLX_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "DLX_FUZZ needs clang (libFuzzer): configure with CC=clang")
  endif()
  dlx_instrumented_executable(fuzz_import "-fsanitize=fuzzer,address,undefined;-fno-sanitize-recover=all"
                              ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_import.c)
  # Every seed of the committed corpus once: a quick regression run inside ctest.
  dlx_instrumented_executable(fuzz_npy "-fsanitize=fuzzer,address,undefined;-fno-sanitize-recover=all"
                              ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_npy.c)
  add_custom_target(fuzz_tests DEPENDS fuzz_import fuzz_npy) # what the fuzz preset builds
  add_test(NAME fuzz.npy_corpus COMMAND fuzz_npy -runs=0 ${PROJECT_SOURCE_DIR}/tests/fuzz/npy_corpus)
  set_tests_properties(fuzz.npy_corpus PROPERTIES ENVIRONMENT
                       "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1")
  add_test(NAME fuzz.corpus COMMAND fuzz_import -runs=0 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus)
  set_tests_properties(fuzz.corpus PROPERTIES ENVIRONMENT
                       "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1")
  # The same seeds handed over as loans and as host tensors (dlx_push_borrowed, dlx_push_tensor).
  foreach(mode loan host_tensor)
    add_test(NAME fuzz.corpus.${mode} COMMAND fuzz_import -runs=0 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus)
    set_tests_properties(fuzz.corpus.${mode} PROPERTIES ENVIRONMENT
                         "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1;DLX_FUZZ_MODE=${mode}")
  endforeach()
endif()

if(DLX_TSAN)
  file(GLOB DLX_THREAD_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/c/test_threads*.c)
  list(APPEND DLX_THREAD_TESTS ${PROJECT_SOURCE_DIR}/tests/c/test_cpu_cache.c) # threads too
  add_custom_target(tsan_tests) # what the tsan preset builds
  foreach(test_source ${DLX_THREAD_TESTS})
    get_filename_component(test_name ${test_source} NAME_WE)
    dlx_instrumented_executable(${test_name}_tsan "-fsanitize=thread" ${test_source})
    add_dependencies(tsan_tests ${test_name}_tsan)
    add_test(NAME tsan.${test_name} COMMAND ${test_name}_tsan)
    set_tests_properties(tsan.${test_name} PROPERTIES ENVIRONMENT
                         "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
  endforeach()
  # The soak test of the host API (tests/soak), short here; .ci/hostile.sh sets the time.
  find_package(Threads REQUIRED)
  dlx_instrumented_executable(soak_tsan "-fsanitize=thread" ${PROJECT_SOURCE_DIR}/tests/soak/soak.c)
  target_link_libraries(soak_tsan PRIVATE Threads::Threads)
  add_dependencies(tsan_tests soak_tsan)
  add_test(NAME tsan.soak COMMAND soak_tsan)
  set_tests_properties(tsan.soak PROPERTIES ENVIRONMENT
                       "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1;DLX_SOAK_SECONDS=3")
endif()
