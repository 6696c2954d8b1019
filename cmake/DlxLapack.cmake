# LAPACK through LAPACKE for the CPU's dlx.linalg decompositions (src/cpu/linalg.c, lapack.c):
# the header lapacke.h and the libraries lapacke and lapack (which brings its BLAS). Debian:
# liblapacke-dev, and libopenblas-dev for a fast LAPACK and BLAS (without it the reference
# ones of liblapack-dev work, slowly). LuaRocks passes LAPACKE_INCDIR and LAPACKE_LIBDIR.
find_path(LAPACKE_INCLUDE_DIR lapacke.h HINTS ${LAPACKE_INCDIR} PATH_SUFFIXES openblas)
find_library(LAPACKE_LIBRARY lapacke HINTS ${LAPACKE_LIBDIR})
find_package(LAPACK)
if(NOT LAPACKE_INCLUDE_DIR OR NOT LAPACKE_LIBRARY OR NOT LAPACK_FOUND)
  message(FATAL_ERROR "LAPACKE (LAPACK's C interface, for dlx.linalg) not found: install "
                      "liblapacke-dev and libopenblas-dev (Debian, Ubuntu), or give "
                      "-DLAPACKE_INCLUDE_DIR=<dir of lapacke.h> -DLAPACKE_LIBRARY=<path of liblapacke>")
endif()
target_include_directories(dlx_objects PRIVATE ${LAPACKE_INCLUDE_DIR})
dlx_objects_link(BUILD ${LAPACKE_LIBRARY} ${LAPACK_LIBRARIES} INSTALLED lapacke lapack)
