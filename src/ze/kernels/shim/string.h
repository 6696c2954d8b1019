/* string.h for OpenCL C: the one function src/cpu/convert.h and half.h use, as a builtin. */
#ifndef DLX_ZE_SHIM_STRING_H
#define DLX_ZE_SHIM_STRING_H
#define memcpy __builtin_memcpy
#endif
