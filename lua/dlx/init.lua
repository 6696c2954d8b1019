--- dlx: tensors and DLPack for Lua 5.4.
-- The C module dlx.core does the work; this layer resolves options (default dtype and device)
-- and holds the consumer side of DLPack (dlx.dlpack), device selection (dlx.device) and
-- printing (dlx.print).
local core = require "dlx.core"
local device = require "dlx.device"
local dlpack = require "dlx.dlpack"
local print_module = require "dlx.print"
local cuda = require "dlx.cuda"

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
  -- "MemoryError", or nil for an error without a dlx class
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
  Tensor = core.Tensor,
}

core.tensor_metatable.__tostring = print_module.format

--- Bytes the caching allocator of device's backend keeps there for reuse (default: the default
-- device); 0 for devices without a cache.
function dlx.memory_cached(dev)
  return core.memory_cached(dev or device.default_device())
end

local DEFAULT_DTYPE = "float32"

-- dtype (or nil), device and usm (the kind of memory of oneapi tensors, or nil) from an opts
-- table; level is the caller's level for errors.
local function resolve(opts, fname)
  if opts == nil then return nil, device.default_device() end
  if type(opts) ~= "table" then
    error("TypeError: " .. fname .. ": opts must be a table {dtype =, device =, usm =}, not a "
      .. type(opts), 3)
  end
  local dev = opts.device ~= nil and core.device(opts.device) or device.default_device()
  return opts.dtype, dev, opts.usm
end

-- dlx.empty, dlx.zeros and dlx.ones: (shape, opts), float32 unless opts.dtype says otherwise.
local function creator(name)
  return function(shape, opts)
    local dtype, dev, usm = resolve(opts, name)
    return core[name](shape, dtype or DEFAULT_DTYPE, dev, usm)
  end
end

dlx.empty = creator "empty"
dlx.zeros = creator "zeros"
dlx.ones = creator "ones"

--- dtype defaults to the value's: bool, int64 for an integer, float32 for a float.
function dlx.full(shape, value, opts)
  local dtype, dev, usm = resolve(opts, "full")
  return core.full(shape, value, dtype, dev, usm)
end

--- dlx.arange([start,] stop[, step][, opts]): NumPy's half-open range.
function dlx.arange(...)
  local args = table.pack(...)
  while args.n > 0 and args[args.n] == nil do args.n = args.n - 1 end
  local opts
  if type(args[args.n]) == "table" then
    opts = args[args.n]
    args.n = args.n - 1
  end
  local start, stop, step
  if args.n == 1 then
    start, stop, step = 0, args[1], 1
  elseif args.n == 2 then
    start, stop, step = args[1], args[2], 1
  elseif args.n == 3 then
    start, stop, step = args[1], args[2], args[3]
  else
    error("TypeError: arange([start,] stop[, step][, opts]) takes 1 to 3 numbers, got "
      .. args.n, 2)
  end
  for _, v in ipairs { start, stop, step } do
    if type(v) ~= "number" then
      error("TypeError: arange takes numbers, not a " .. type(v), 2)
    end
  end
  local dtype, dev, usm = resolve(opts, "arange")
  return core.arange(start, stop, step, dtype, dev, usm)
end

--- dtype defaults to the data's: bool, int64, float32 (any float) or complex64.
function dlx.tensor(data, opts)
  local dtype, dev, usm = resolve(opts, "tensor")
  return core.tensor(data, dtype, dev, usm)
end

return dlx
