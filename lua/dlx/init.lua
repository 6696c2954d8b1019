--- dlx: tensors and DLPack for Lua 5.4.
-- The C module dlx.core does the work, options and the default device included; this layer
-- gathers the public table and holds the consumer side of DLPack for other producers
-- (dlx.dlpack), the default device's functions (dlx.device), printing (dlx.print) and dlx.cuda.
local core = require "dlx.core"
local device = require "dlx.device"
local dlpack = require "dlx.dlpack"
local print_module = require "dlx.print"
local cuda = require "dlx.cuda"
local compare = require "dlx.compare"
local linalg = require "dlx.linalg"

local dlx = {
  version = core.version,
  DLPACK_VERSION = core.DLPACK_VERSION,
  DLDeviceType = core.DLDeviceType,
  DLDataTypeCode = core.DLDataTypeCode,
  devices = core.devices,
  device = core.device,
  default_device = device.default_device,
  set_default_device = device.set_default_device,
  from_dlpack = dlpack.from_dlpack,
  is_capsule = core.is_capsule,
  is_tensor = core.is_tensor,
  -- dlx.type(v): "tensor", "closed tensor", "capsule", "device", "stream" or nil, as io.type
  type = core.type,
  -- dlx.error_class(err): "TypeError", "ValueError", "BufferError", "DeviceError",
  -- "MemoryError", "OSError", "LinAlgError", or nil for an error without a dlx class
  error_class = core.error_class,
  memory_allocated = core.memory_allocated,
  -- dlx.empty_cache([device]): gives the blocks the caching allocators keep for reuse back to the
  -- OS and the drivers: of device's backend, or of every backend without an argument
  empty_cache = core.empty_cache,
  -- streams of GPU devices: dlx.stream(device[, handle]), dlx.current_stream(device),
  -- dlx.with_stream(s, fn, ...) runs fn with s current (also s:use(fn, ...))
  stream = core.stream,
  current_stream = core.current_stream,
  with_stream = function(s, fn, ...) return s:use(fn, ...) end,
  cuda = cuda,
  linalg = linalg,
  Tensor = core.Tensor,
}

core.tensor_metatable.__tostring = print_module.format

--- Bytes the caching allocator of device's backend keeps there for reuse (default: the default
-- device); 0 for devices without a cache.
function dlx.memory_cached(dev)
  return core.memory_cached(dev or device.default_device())
end

-- Creation takes an options table {dtype =, device =, usm =}; the C functions read it (and the
-- default device) themselves, since this is on the path of every new tensor.
for name, fn in pairs(core.api) do dlx[name] = fn end

-- Comparisons for specs and people (dlx.compare).
dlx.equal = compare.equal
dlx.allclose = compare.allclose
core.Tensor.isclose = compare.isclose

-- Products built on dlx.matmul: outer, tensordot, einsum, kron, cross, diag, t:trace.
require("dlx.linalg_products").install(dlx, core)

-- Small ops built from views and other ops: t:movedim, rot90, roll, diff, renorm; dlx.meshgrid,
-- broadcast_tensors, dist.
require("dlx.small_ops").install(dlx, core)

-- Runs and positions built from other ops: t:unique_consecutive, t:argwhere.
require("dlx.runs").install(dlx, core)

-- Pooling and resizing: dlx.max_pool2d, avg_pool2d, interpolate (CPU kernels, composed elsewhere).
require("dlx.image").install(dlx, core)

-- Convolutions built on core.conv: dlx.conv1d, conv2d, conv3d, convolve, correlate.
require("dlx.conv").install(dlx, core)

-- Printing (dlx.print).
dlx.set_printoptions = print_module.set_printoptions
dlx.get_printoptions = print_module.get_printoptions

return dlx
