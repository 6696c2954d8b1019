-- The CUDA backend where no CUDA device is present (this file runs everywhere; the GPU specs
-- are the other spec/cuda_*_spec.lua files, tagged #gpu). A build with the backend must load and
-- work CPU-only on machines without a driver or a GPU.
local h = require "spec.helper"
local dlx = h.dlx

local function device_types()
  local types = {}
  for _, dev in ipairs(dlx.devices()) do types[dev.type] = true end
  return types
end

describe("dlx.cuda", function()
  it("loads in every build and says whether the backend is built", function()
    assert.is_table(dlx.cuda)
    assert.is_boolean(dlx.cuda.is_built())
    assert.are.equal(dlx.cuda.device_count() > 0, dlx.cuda.is_available())
  end)

  it("counts the cuda devices that dlx.devices() lists", function()
    local n = 0
    for _, dev in ipairs(dlx.devices()) do
      if dev.type == "cuda" then n = n + 1 end
    end
    assert.are.equal(n, dlx.cuda.device_count())
  end)

  it("empties its cache without error, with or without devices", function()
    dlx.cuda.empty_cache()
    assert.are.equal(0, dlx.memory_allocated("cuda:0"))
  end)
end)

describe("a build without a usable CUDA device", function()
  if dlx.cuda.is_available() then
    pending("a CUDA device is present: spec/cuda_*_spec.lua (#gpu) cover it")
    return
  end

  it("lists no CUDA device, pinned or managed memory", function()
    local types = device_types()
    assert.is_nil(types.cuda)
    assert.is_nil(types.cuda_host)
    assert.is_nil(types.cuda_managed)
    assert.are.equal("cpu", tostring(dlx.default_device()))
  end)

  it("refuses cuda devices with a DeviceError that says how many were found", function()
    local msg = h.raises("DeviceError", dlx.device, "cuda:0")
    local why = dlx.cuda.is_built() and "0 cuda devices" or "without a cuda backend"
    assert.truthy(msg:find(why, 1, true), msg)
    h.raises("DeviceError", dlx.zeros, { 2 }, { device = "cuda" })
    h.raises("DeviceError", dlx.zeros, { 2 }, { device = "cuda_host" })
    h.raises("DeviceError", dlx.zeros, { 2 }, { device = "cuda_managed" })
  end)

  it("answers the other dlx.cuda calls: no current device, and DeviceErrors", function()
    assert.is_nil(dlx.cuda.current_device())
    h.raises("DeviceError", dlx.cuda.memory_cached)
    h.raises("DeviceError", dlx.cuda.busy_wait, 1000)
  end)

  it("has no cuda streams to give", function()
    h.raises("DeviceError", dlx.stream, "cuda:0")
    h.raises("DeviceError", dlx.current_stream, "cuda")
  end)
end)

describe("streams of devices without streams", function()
  it("are refused with a ValueError", function()
    local msg = h.raises("ValueError", dlx.stream, "cpu")
    assert.truthy(msg:find("no streams", 1, true), msg)
    h.raises("ValueError", dlx.current_stream, "cpu")
  end)

  it("never reach a CPU export: stream must be nil there", function()
    local t = dlx.zeros { 3 }
    h.raises("ValueError", t.__dlpack, t, { stream = 1 })
  end)
end)
