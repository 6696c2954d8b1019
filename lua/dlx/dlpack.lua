--- dlx.dlpack: the consumer side of the DLPack protocol (from_dlpack).
-- The rules are the Python array API's: ask the producer for its device, then for a versioned
-- capsule; an old producer that raises TypeError for the keywords is asked again without them.
local core = require "dlx.core"

local M = {}

local DLX_MAX_VERSION = core.DLPACK_VERSION

local function check_options(opts)
  if opts == nil then return nil, nil end
  if type(opts) ~= "table" then
    error("TypeError: from_dlpack options must be a table {device =, copy =}, not a "
      .. type(opts), 3)
  end
  if opts.copy ~= nil and type(opts.copy) ~= "boolean" then
    error("TypeError: from_dlpack copy must be true, false or nil, not a " .. type(opts.copy), 3)
  end
  local target = opts.device ~= nil and core.device(opts.device) or nil
  return target, opts.copy
end

local function dlpack_method(x)
  local kind = type(x)
  if kind ~= "table" and kind ~= "userdata" then return nil end
  local ok, method = pcall(function() return x.__dlpack end)
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

-- Asks x for a capsule.
-- A producer may accept the keywords and still ignore copy: only IS_COPIED proves a copy.
local function request_capsule(x, method, target, copy)
  local dev_type, dev_id = x:__dlpack_device()
  if target == nil and not device_type_available(dev_type) then
    error(string.format("BufferError: from_dlpack: the producer's device type %s is not "
      .. "supported by dlx", tostring(dev_type)), 4) -- level 4: from_dlpack's caller
  end
  local kwargs = { max_version = { DLX_MAX_VERSION[1], DLX_MAX_VERSION[2] }, copy = copy }
  if target then kwargs.dl_device = { target.dltype, target.id } end
  -- on a device with streams, the producer orders its work before our current stream there
  if target == nil then kwargs.stream = core.dlpack_stream(dev_type, dev_id) end
  local ok, capsule = pcall(method, x, kwargs)
  if ok then return capsule end
  if core.error_class(capsule) ~= "TypeError" then error(capsule, 0) end
  -- an older producer that does not know the keywords: ask again without them
  return method(x), false
end

local IS_COPIED = 2

local function flagged_copied(capsule)
  local flags = capsule.flags -- nil for legacy or consumed capsules
  return flags ~= nil and flags & IS_COPIED ~= 0
end

-- The imported tensor, and whether the producer already made the copy that was asked for.
local function import(x, target, copy)
  if core.is_capsule(x) then return core.import_capsule(x), false end
  local method = dlpack_method(x)
  if method == nil then
    error("TypeError: from_dlpack expects a capsule or a value with a __dlpack method, not a "
      .. type(x), 3) -- level 3: from_dlpack's caller
  end
  local capsule = request_capsule(x, method, target, copy)
  if not core.is_capsule(capsule) then
    error("TypeError: __dlpack returned a " .. type(capsule) .. ", expected a capsule", 3)
  end
  local copied = flagged_copied(capsule)
  return core.import_capsule(capsule), copied
end

--- Imports x (a capsule, or a value with __dlpack/__dlpack_device) as a dlx tensor.
-- opts.device moves the result to that device, opts.copy is as in __dlpack.
function M.from_dlpack(x, opts)
  local target, copy = check_options(opts)
  local t, copied = import(x, target, copy)
  local source = t.device
  local moved = target ~= nil and source ~= target
  if moved and copy == false then
    t:close()
    error("BufferError: from_dlpack: the tensor is on " .. tostring(source)
      .. ", and moving it to " .. tostring(target) .. " needs a copy, but copy = false", 2)
  end
  if moved or (copy == true and not copied) then
    local result = t:to { device = target or source, copy = true }
    t:close()
    return result
  end
  return t
end

return M
