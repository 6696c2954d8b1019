--- dlx.device: the default device of a Lua state.
-- Chosen on first use: DLX_DEVICE (a comma-separated list of specs, the first available wins),
-- otherwise the best available device (cuda:0, then oneapi:0, then cpu).
local core = require "dlx.core"

local M = {}

local preferred = { "cuda:0", "oneapi:0", "cpu" }
local current -- this state's default device, once chosen

-- The device for spec, or nil when it is valid but not available; other errors propagate.
local function try_device(spec)
  local ok, dev = pcall(core.device, spec)
  if ok then return dev end
  if core.error_class(dev) == "DeviceError" then return nil end
  error(dev, 0)
end

local function choose()
  local env = os.getenv("DLX_DEVICE")
  if env and env:find("%S") then
    for spec in env:gmatch("[^,%s]+") do
      local dev = try_device(spec)
      if dev then return dev end
    end
    error("DeviceError: none of the devices in DLX_DEVICE='" .. env .. "' is available", 0)
  end
  for _, spec in ipairs(preferred) do
    local dev = try_device(spec)
    if dev then return dev end
  end
  return core.device("cpu")
end

function M.default_device()
  if current == nil then current = choose() end
  return current
end

function M.set_default_device(spec)
  current = core.device(spec)
  return current
end

return M
