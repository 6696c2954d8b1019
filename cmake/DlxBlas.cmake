# BLAS and LAPACKE for the CPU backend: the matrix products (src/cpu/matmul*.c) call OpenBLAS's
# CBLAS, the decompositions call LAPACKE over OpenBLAS's LAPACK. docs/cpu.md ("Matrix products")
# says why OpenBLAS and not BLIS. Everything about finding them is here, in one place:
#   DLX_BLAS_LIBRARIES       what to link for CBLAS and LAPACK (OpenBLAS)
#   DLX_CBLAS_INCLUDE_DIR    the directory of cblas.h
#   DLX_LAPACKE_LIBRARY      liblapacke (Debian: liblapacke-dev, the LAPACK C interface)
#   DLX_LAPACKE_INCLUDE_DIR  the directory of lapacke.h
# and both are usage requirements of dlx_objects (dlx_objects_link: dlx.pc and dlx::dlx_static
# name them for static links). LuaRocks passes OPENBLAS_INCDIR/LIBDIR and LAPACKE_INCDIR/LIBDIR
# (the rockspec's external dependencies), used as hints.
#
# dlx calls openblas_set_num_threads (one thread count for dlx's pool and the BLAS), so the
# vendor is OpenBLAS; BLA_VENDOR given on the command line is refused when it is another.
if(DEFINED BLA_VENDOR AND NOT BLA_VENDOR STREQUAL "OpenBLAS")
  message(FATAL_ERROR "dlx needs OpenBLAS (BLA_VENDOR=OpenBLAS), not ${BLA_VENDOR}: "
                      "docs/cpu.md says why")
endif()
set(BLA_VENDOR OpenBLAS)
if(OPENBLAS_LIBDIR)
  list(APPEND CMAKE_PREFIX_PATH ${OPENBLAS_LIBDIR}/..)
  set(ENV{LD_LIBRARY_PATH} "${OPENBLAS_LIBDIR}:$ENV{LD_LIBRARY_PATH}") # FindBLAS looks there too
endif()
find_package(BLAS)
if(NOT BLAS_FOUND)
  message(FATAL_ERROR "OpenBLAS not found: install libopenblas-dev (Debian, Ubuntu) or openblas, "
                      "or give -DBLAS_LIBRARIES=<path of libopenblas>")
endif()
set(DLX_BLAS_LIBRARIES ${BLAS_LIBRARIES})

# cblas.h: OpenBLAS's own where Debian keeps it apart (openblas-pthread/), else the first found.
find_path(DLX_CBLAS_INCLUDE_DIR cblas.h HINTS ${OPENBLAS_INCDIR}
          PATH_SUFFIXES openblas-pthread openblas x86_64-linux-gnu/openblas-pthread)
find_path(DLX_LAPACKE_INCLUDE_DIR lapacke.h HINTS ${LAPACKE_INCDIR} PATH_SUFFIXES lapacke)
find_library(DLX_LAPACKE_LIBRARY lapacke HINTS ${LAPACKE_LIBDIR})
if(NOT DLX_CBLAS_INCLUDE_DIR OR NOT DLX_LAPACKE_INCLUDE_DIR OR NOT DLX_LAPACKE_LIBRARY)
  message(FATAL_ERROR "cblas.h, lapacke.h or liblapacke not found: install libopenblas-dev and "
                      "liblapacke-dev (Debian, Ubuntu), or give -DDLX_CBLAS_INCLUDE_DIR=, "
                      "-DDLX_LAPACKE_INCLUDE_DIR= and -DDLX_LAPACKE_LIBRARY=")
endif()
target_include_directories(dlx_core_objects PRIVATE ${DLX_CBLAS_INCLUDE_DIR} ${DLX_LAPACKE_INCLUDE_DIR})
dlx_objects_link(BUILD ${DLX_LAPACKE_LIBRARY} ${DLX_BLAS_LIBRARIES} INSTALLED lapacke openblas)
message(STATUS "dlx: BLAS ${DLX_BLAS_LIBRARIES}, LAPACKE ${DLX_LAPACKE_LIBRARY}")
