-- The script that examples/libtorch/libtorch_host.cpp runs. The host passes two legacy capsules
-- made by at::toDLPack: `weights`, a 2x3 float32 tensor, and `column`, a non-contiguous view
-- (a column of a 4x3 int64 tensor, stride 3). It returns three tensors for at::fromDLPack.
local dlx = require "dlx" -- preloaded by dlx_openlibs
local weights_capsule, column_capsule = ...
assert(weights_capsule.name == "dltensor", "at::toDLPack makes legacy capsules")

local weights = dlx.from_dlpack(weights_capsule) -- zero-copy: torch's memory
assert(weights.dtype == "float32" and weights.shape[1] == 2 and weights.shape[2] == 3)
weights:select(1, 1):fill_(-1) -- row 1 := -1, in torch's storage

local column = dlx.from_dlpack(column_capsule)
assert(column.dtype == "int64" and column.ndim == 1 and column.strides[1] == 3)

-- A new tensor (dlx's memory), a view of torch's memory with a non-zero offset and a transpose.
return weights:sum(2), column:slice(1, 2, -1, 2), weights:transpose(1, 2)
