# ctest interop.libtorch:
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DWORK_DIR=... -DCXX_COMPILER=... -DTORCH_DIR=...
#         -P libtorch_host.cmake
# Installs BUILD_DIR into WORK_DIR/prefix, builds examples/libtorch against it with
# find_package(dlx) and find_package(Torch), warnings as errors, and runs it on its script.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/DlxScript.cmake)
dlx_require_vars(libtorch_host.cmake SOURCE_DIR BUILD_DIR WORK_DIR CXX_COMPILER TORCH_DIR)

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${prefix})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# The build directory is kept between runs: the C++ compile of the host is the slow part.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/libtorch -B ${WORK_DIR}/build
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DTorch_DIR=${TORCH_DIR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Wshadow -Werror"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/dlx_libtorch ${SOURCE_DIR}/examples/libtorch/script.lua)
