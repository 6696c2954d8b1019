/* core.h -- the Lua-free C core of dlx, in one include. */
#ifndef DLX_CORE_CORE_H
#define DLX_CORE_CORE_H

#include "alloc.h"
#include "backend.h"
#include "buffer.h"
#include "device.h"
#include "dlpack_io.h"
#include "dtype.h"
#include "error.h"
#include "ops.h"
#include "scalar.h"
#include "tensor.h"

#define DLX_VERSION "0.1.0"

#endif
