# Interop tests with real peers (tests/interop, examples/python, examples/libtorch), included from
# the root when DLX_BUILD_TESTS is on:
#   interop.python.numpy    Debian's NumPy 1.24 through examples/python/dlx_host.py (pytest)
#   interop.python.example  examples/python/example.py
#   interop.python.torch    Debian's PyTorch 1.13, the same way
#   interop.python.numpy2   NumPy 2.x from pip, in a virtual environment made by the fixture
#                           interop.python.numpy2.venv under <build>/.venv-numpy2
#   interop.python.jax      JAX (CPU wheels) from pip, in <build>/.venv-jax made by the fixture
#                           interop.python.jax.venv
# PyTorch 2.x from pip is too large for CI (its CUDA libraries): test_torch.py is run against it
# by hand (docs/status.md).
#   interop.libtorch        examples/libtorch, a C++ host built against Debian's libtorch-dev
# Each is registered only when what it needs is installed (apt-get install python3-numpy
# python3-torch python3-pytest python3-venv libtorch-dev g++; scripts/test --all does it), with a
# message saying what is missing.
set(DLX_INTEROP_PYTHON "/usr/bin/python3" CACHE FILEPATH
    "Python with Debian's NumPy and PyTorch, for the interop tests")

function(dlx_interop_skip what)
  dlx_suite_skipped("${what}" ${ARGN})
endfunction()

# True in ${out} when `${DLX_INTEROP_PYTHON} -c "import ${module}"` works.
function(dlx_python_has module out)
  execute_process(COMMAND ${DLX_INTEROP_PYTHON} -c "import ${module}" RESULT_VARIABLE rc
                  OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# Registers `interop.python.<name>`: pytest on one test file with the given interpreter.
set(DLX_INTEROP_ENV "DLX_LIBRARY=$<TARGET_FILE:dlx_shared>"
                    "PYTHONPATH=${PROJECT_SOURCE_DIR}/examples/python")

function(dlx_add_pytest name python test_file)
  add_test(NAME interop.python.${name}
           COMMAND ${python} -m pytest -q -p no:cacheprovider ${test_file}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/interop)
  set_tests_properties(interop.python.${name} PROPERTIES ENVIRONMENT "${DLX_INTEROP_ENV}"
                                                        TIMEOUT 900 ${ARGN})
endfunction()

function(dlx_add_interop_tests)
  if(DLX_SANITIZE)
    # Python and libtorch are not instrumented; the C tests cover dlx's side under sanitizers.
    dlx_interop_skip("the interop tests" "not in a sanitizer build (DLX_SANITIZE)")
    return()
  endif()
  if(NOT TARGET dlx_shared)
    dlx_interop_skip("the interop tests" "they need libdlx.so (DLX_BUILD_HOST_LIBS=ON)")
    return()
  endif()

  # ---- Python peers
  if(NOT EXISTS ${DLX_INTEROP_PYTHON})
    dlx_interop_skip("the Python interop tests"
                     "${DLX_INTEROP_PYTHON} not found (apt-get install python3)")
  else()
    dlx_python_has(pytest have_pytest)
    dlx_python_has(numpy have_numpy)
    dlx_python_has(torch have_torch)
    dlx_python_has(ensurepip have_venv)
    if(NOT have_pytest)
      dlx_interop_skip("the Python interop tests"
                       "pytest missing for ${DLX_INTEROP_PYTHON} (apt-get install python3-pytest)")
    else()
      if(have_numpy)
        dlx_add_pytest(numpy ${DLX_INTEROP_PYTHON} test_numpy.py)
        add_test(NAME interop.python.example
                 COMMAND ${DLX_INTEROP_PYTHON} ${PROJECT_SOURCE_DIR}/examples/python/example.py)
        set_tests_properties(interop.python.example PROPERTIES ENVIRONMENT "${DLX_INTEROP_ENV}")
      else()
        dlx_interop_skip("interop.python.numpy" "apt-get install python3-numpy")
      endif()
      if(have_torch)
        dlx_add_pytest(torch ${DLX_INTEROP_PYTHON} test_torch.py)
      else()
        dlx_interop_skip("interop.python.torch" "apt-get install python3-torch")
      endif()
    endif()
    if(have_venv)
      set(venv ${PROJECT_BINARY_DIR}/.venv-numpy2)
      add_test(NAME interop.python.numpy2.venv
               COMMAND ${PROJECT_SOURCE_DIR}/tests/interop/make_numpy2_venv.sh
                       ${DLX_INTEROP_PYTHON} ${venv})
      set_tests_properties(interop.python.numpy2.venv PROPERTIES FIXTURES_SETUP numpy2_venv
                                                                 TIMEOUT 600)
      dlx_add_pytest(numpy2 ${venv}/bin/python test_numpy.py FIXTURES_REQUIRED numpy2_venv)
      set(venv ${PROJECT_BINARY_DIR}/.venv-jax)
      add_test(NAME interop.python.jax.venv
               COMMAND ${PROJECT_SOURCE_DIR}/tests/interop/make_jax_venv.sh
                       ${DLX_INTEROP_PYTHON} ${venv})
      # Label heavy: the venv downloads about 640 MB of wheels, so scripts/test runs it only
      # with --all (ctest -LE heavy otherwise).
      set_tests_properties(interop.python.jax.venv PROPERTIES FIXTURES_SETUP jax_venv TIMEOUT 900
                                                              LABELS heavy)
      dlx_add_pytest(jax ${venv}/bin/python test_jax.py FIXTURES_REQUIRED jax_venv LABELS heavy)
    else()
      dlx_interop_skip("interop.python.numpy2 and interop.python.jax" "apt-get install python3-venv")
    endif()
  endif()

  # ---- The C++ host with libtorch, built the way a user would: against an installed dlx,
  # at test time, so that dlx's own build stays C only.
  find_program(DLX_INTEROP_CXX NAMES g++ c++ clang++)
  find_path(DLX_TORCH_CONFIG_DIR TorchConfig.cmake
            HINTS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/Torch
            PATH_SUFFIXES lib/cmake/Torch share/cmake/Torch)
  if(NOT DLX_INTEROP_CXX)
    dlx_interop_skip("interop.libtorch" "no C++ compiler (apt-get install g++)")
  elseif(NOT DLX_TORCH_CONFIG_DIR)
    dlx_interop_skip("interop.libtorch"
                     "TorchConfig.cmake not found (apt-get install libtorch-dev)")
  else()
    add_test(NAME interop.libtorch
             COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                     -DBUILD_DIR=${PROJECT_BINARY_DIR}
                     -DWORK_DIR=${PROJECT_BINARY_DIR}/interop-libtorch
                     -DCXX_COMPILER=${DLX_INTEROP_CXX} -DTORCH_DIR=${DLX_TORCH_CONFIG_DIR}
                     -P ${PROJECT_SOURCE_DIR}/tests/interop/libtorch_host.cmake)
    set_tests_properties(interop.libtorch PROPERTIES TIMEOUT 900)
  endif()
endfunction()

dlx_add_interop_tests()
