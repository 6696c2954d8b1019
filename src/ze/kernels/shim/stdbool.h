/* stdbool.h for OpenCL C, where bool, true and false are built in. */
#ifndef DLX_ZE_SHIM_STDBOOL_H
#define DLX_ZE_SHIM_STDBOOL_H
#endif
