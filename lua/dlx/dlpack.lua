--- dlx.dlpack: the consumer side of the DLPack protocol (from_dlpack).
-- The rules are the Python array API's: ask the producer for its device, then for a versioned
-- capsule; an old producer that raises TypeError for the keywords is asked again without them.
-- dlx.from_dlpack itself is in C (src/lua/dlpack.c): it reads the options, takes dlx's own
-- tensors and capsules directly, and imports, moves or copies what the producer gives. This file
-- holds only the dialogue with other producers.
local core = require "dlx.core"

local M = {}

local DLX_MAX_VERSION = core.DLPACK_VERSION

local function field(x, key) return x[key] end

-- x's method called name, or nil; a lookup that raises counts as none.
local function method_of(x, name)
  local ok, method = pcall(field, x, name)
  if ok and type(method) == "function" then return method end
  return nil
end

-- True when one of the available devices has this DLPack device type.
local function device_type_available(dev_type)
  for _, dev in ipairs(core.devices()) do
    if dev.dltype == dev_type then return true end
  end
  return false
end

-- Asks the producer x for a capsule; from_dlpack (in C) calls it with the target device (or nil)
-- and copy. Level 3 of an error is from_dlpack's caller: level 2 is from_dlpack itself.
-- A producer may accept the keywords and still ignore copy: only IS_COPIED proves a copy.
local function request_capsule(x, target, copy)
  local kind = type(x)
  local method = (kind == "table" or kind == "userdata") and method_of(x, "__dlpack") or nil
  if method == nil then
    error("TypeError: from_dlpack expects a capsule or a value with a __dlpack method, not a "
      .. kind, 3)
  end
  local device_method = method_of(x, "__dlpack_device")
  if device_method == nil then
    error("TypeError: from_dlpack: the producer has a __dlpack method but no __dlpack_device "
      .. "method (a producer needs both)", 3)
  end
  local dev_type, dev_id = device_method(x)
  if target == nil and not device_type_available(dev_type) then
    error(string.format("BufferError: from_dlpack: the producer's device type %s is not "
      .. "supported by dlx", tostring(dev_type)), 3)
  end
  local kwargs = { max_version = { DLX_MAX_VERSION[1], DLX_MAX_VERSION[2] }, copy = copy }
  if target then kwargs.dl_device = { target.dltype, target.id } end
  -- on a device with streams, the producer orders its work before our current stream there
  if target == nil then kwargs.stream = core.dlpack_stream(dev_type, dev_id) end
  local ok, capsule = pcall(method, x, kwargs)
  if ok then return capsule end
  if core.error_class(capsule) ~= "TypeError" then error(capsule, 0) end
  -- an older producer that does not know the keywords: ask again without them
  return (method(x))
end

--- Imports x (a capsule, or a value with __dlpack/__dlpack_device) as a dlx tensor.
-- opts.device moves the result to that device, opts.copy is as in __dlpack.
M.from_dlpack = core.consumer(request_capsule)

return M
