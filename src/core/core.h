/* core.h -- the Lua-free C core of dlx, in one include. */
#ifndef DLX_CORE_CORE_H
#define DLX_CORE_CORE_H

#include "core/alloc.h"
#include "core/backend.h"
#include "core/buffer.h"
#include "core/device.h"
#include "core/dlpack_io.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/indexing.h"
#include "core/ops.h"
#include "core/scalar.h"
#include "core/tensor.h"

#endif
