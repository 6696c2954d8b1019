/* string.h for OpenCL C: the one function src/common uses, as a builtin. */
#ifndef DLX_ZE_SHIM_STRING_H
#define DLX_ZE_SHIM_STRING_H
#define memcpy __builtin_memcpy
#endif
