# dlx_cuda_gpu_architectures(<out> <why>): the CUDA architectures of the NVIDIA GPUs that a
# driver shows on this machine, as CMAKE_CUDA_ARCHITECTURES wants them: one "<XY>-real" per
# compute capability found and "<XY>-virtual" (PTX, for newer GPUs) for the highest, e.g.
# "90-real;90-virtual" on an H100; "native" when a GPU is there but its compute capability
# cannot be read (nvcc -arch=native then asks the driver); empty when no GPU is found. <why>
# gets a few words saying how that was decided, for the configure summary.
#
# Asked of the driver's nvidia-smi (DLX_NVIDIA_SMI, found on PATH; its --query-gpu=compute_cap
# needs a driver of 2022 or later), else of /proc/driver/nvidia/gpus, where the kernel module
# lists its GPUs. A toolkit alone is not a GPU: CI runners and containers often have one
# without the other, and compiling kernels that cannot run there costs minutes (issue 19).
#
# Also run as a script by the test cmake.cuda_gpus (tests/cmake/cuda_gpus.cmake), with a
# stand-in nvidia-smi.
function(dlx_cuda_gpu_architectures out why)
  set(${out} "" PARENT_SCOPE)
  if(NOT DEFINED DLX_NVIDIA_SMI)
    find_program(DLX_NVIDIA_SMI nvidia-smi)
  endif()
  if(DLX_NVIDIA_SMI)
    execute_process(COMMAND ${DLX_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_QUIET TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" capabilities "${text}")
      set(archs "")
      foreach(capability IN LISTS capabilities)
        string(REPLACE "." "" arch "${capability}")
        list(APPEND archs ${arch})
      endforeach()
      list(REMOVE_DUPLICATES archs)
      list(SORT archs COMPARE NATURAL)
      if(archs)
        set(result "")
        foreach(arch IN LISTS archs)
          list(APPEND result ${arch}-real)
        endforeach()
        list(GET archs -1 newest)
        list(APPEND result ${newest}-virtual)
        string(REPLACE ";" " sm_" seen "${archs}")
        set(${out} "${result}" PARENT_SCOPE)
        set(${why} "nvidia-smi shows a GPU: sm_${seen}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endif()
  file(GLOB gpus /proc/driver/nvidia/gpus/*)
  if(gpus)
    set(${out} native PARENT_SCOPE)
    set(${why} "the NVIDIA driver lists a GPU in /proc/driver/nvidia/gpus" PARENT_SCOPE)
  elseif(DLX_NVIDIA_SMI)
    set(${why} "${DLX_NVIDIA_SMI} shows no GPU" PARENT_SCOPE)
  else()
    set(${why} "no NVIDIA driver with a GPU (no nvidia-smi, no /proc/driver/nvidia/gpus)"
        PARENT_SCOPE)
  endif()
endfunction()

# dlx_cuda_keep_supported(<architectures-var> <nvcc> <dropped-var>): removes from the list in
# <architectures-var> the "<XY>-real" entries that <nvcc> cannot compile for (nvcc
# --list-gpu-code; CUDA 13 dropped the GPUs before sm_75), and turns a "<XY>-virtual" it cannot
# make into one for the newest architecture it can. <dropped-var> gets the dropped ones.
function(dlx_cuda_keep_supported architectures_var nvcc dropped_var)
  set(${dropped_var} "" PARENT_SCOPE)
  execute_process(COMMAND ${nvcc} --list-gpu-code RESULT_VARIABLE rc OUTPUT_VARIABLE text
                  ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT ${architectures_var} OR ${architectures_var} STREQUAL "native")
    return() # an old nvcc without the option: let it say what it cannot do
  endif()
  string(REGEX MATCHALL "sm_[0-9]+" codes "${text}")
  string(REPLACE "sm_" "" supported "${codes}")
  set(kept "")
  set(dropped "")
  foreach(entry IN LISTS ${architectures_var})
    string(REGEX MATCH "^[0-9]+" arch "${entry}")
    if(arch IN_LIST supported)
      list(APPEND kept ${entry})
    else()
      list(APPEND dropped sm_${arch})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES dropped)
  set(${architectures_var} "${kept}" PARENT_SCOPE)
  set(${dropped_var} "${dropped}" PARENT_SCOPE)
endfunction()
