/* stddef.h for OpenCL C, where size_t and ptrdiff_t are built in. */
#ifndef DLX_ZE_SHIM_STDDEF_H
#define DLX_ZE_SHIM_STDDEF_H
#ifndef NULL
#define NULL ((void *)0)
#endif
#endif
