-- Devices: dlx.devices, dlx.device, device fields, tostring, ==, the default device and
-- DLX_DEVICE, and the module's constants.
local h = require "spec.helper"
local dlx = h.dlx

local function has_type(t)
  for _, d in ipairs(dlx.devices()) do
    if d.type == t then return true end
  end
  return false
end

describe("module constants", function()
  it("dlx.version is include/dlx.h's DLX_VERSION_STRING", function()
    local header = assert(io.open("include/dlx.h")) -- the specs run from the repository root
    local version = header:read("a"):match('\n#define DLX_VERSION_STRING "([^"]*)"\n')
    header:close()
    assert.matches("^%d+%.%d+%.%d+$", version)
    assert.equal(version, dlx.version)
  end)

  it("dlx.DLPACK_VERSION is {1, 3}", function()
    h.exact({ 1, 3 }, dlx.DLPACK_VERSION)
  end)

  it("dlx.DLDeviceType has every DLPack 1.3 device type", function()
    h.exact({
      kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLVulkan = 7, kDLMetal = 8,
      kDLVPI = 9, kDLROCM = 10, kDLROCMHost = 11, kDLExtDev = 12, kDLCUDAManaged = 13,
      kDLOneAPI = 14, kDLWebGPU = 15, kDLHexagon = 16, kDLMAIA = 17, kDLTrn = 18,
    }, dlx.DLDeviceType)
  end)

  it("dlx.DLDataTypeCode has every DLPack 1.3 dtype code", function()
    h.exact({
      kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLOpaqueHandle = 3, kDLBfloat = 4, kDLComplex = 5,
      kDLBool = 6, kDLFloat8_e3m4 = 7, kDLFloat8_e4m3 = 8, kDLFloat8_e4m3b11fnuz = 9,
      kDLFloat8_e4m3fn = 10, kDLFloat8_e4m3fnuz = 11, kDLFloat8_e5m2 = 12,
      kDLFloat8_e5m2fnuz = 13, kDLFloat8_e8m0fnu = 14, kDLFloat6_e2m3fn = 15,
      kDLFloat6_e3m2fn = 16, kDLFloat4_e2m1fn = 17,
    }, dlx.DLDataTypeCode)
  end)
end)

describe("dlx.devices", function()
  it("lists the CPU first", function()
    local devs = dlx.devices()
    assert.is_table(devs)
    assert.is_true(#devs >= 1)
    assert.equal("cpu", devs[1].type)
    assert.equal(0, devs[1].id)
    assert.equal("cpu", tostring(devs[1]))
  end)

  it("returns devices that dlx.device accepts back", function()
    for _, d in ipairs(dlx.devices()) do
      assert.is_true(dlx.device(tostring(d)) == d)
      assert.is_true(dlx.device({ d.dltype, d.id }) == d)
    end
  end)
end)

describe("dlx.device", function()
  it("makes the CPU device from \"cpu\"", function()
    local cpu = dlx.device("cpu")
    assert.equal("cpu", cpu.type)
    assert.equal(0, cpu.id)
    assert.equal(math.type(cpu.id), "integer")
    assert.equal(1, cpu.dltype)
    assert.equal(dlx.DLDeviceType.kDLCPU, cpu.dltype)
    assert.equal("cpu", tostring(cpu))
  end)

  it("accepts a DLPack pair {1, 0}", function()
    local cpu = dlx.device({ 1, 0 })
    assert.equal("cpu", cpu.type)
    assert.equal(0, cpu.id)
  end)

  it("accepts a device", function()
    local cpu = dlx.device("cpu")
    assert.is_true(dlx.device(cpu) == cpu)
  end)

  it("compares devices with == by type and id", function()
    assert.is_true(dlx.device("cpu") == dlx.device({ 1, 0 }))
    assert.is_true(dlx.device("cpu") == dlx.device(dlx.device("cpu")))
    assert.is_false(dlx.device("cpu") ~= dlx.device("cpu"))
  end)

  it("gives a DeviceError for CUDA when there is no CUDA device", function()
    if has_type("cuda") then
      local d = dlx.device("cuda")
      assert.equal("cuda", d.type)
      assert.equal(0, d.id)
      assert.equal("cuda:0", tostring(d))
      assert.equal(2, d.dltype)
    else
      h.raises("DeviceError", dlx.device, "cuda")
      h.raises("DeviceError", dlx.device, "cuda:0")
      h.raises("DeviceError", dlx.device, "cuda:1")
      h.raises("DeviceError", dlx.device, { 2, 0 })
    end
  end)

  it("gives a DeviceError for cuda_host and cuda_managed without CUDA", function()
    if has_type("cuda") then
      assert.equal("cuda_host", tostring(dlx.device("cuda_host")))
      assert.equal("cuda_managed", tostring(dlx.device("cuda_managed")))
    else
      h.raises("DeviceError", dlx.device, "cuda_host")
      h.raises("DeviceError", dlx.device, "cuda_managed")
      h.raises("DeviceError", dlx.device, { 3, 0 })
      h.raises("DeviceError", dlx.device, { 13, 0 })
    end
  end)

  it("gives a DeviceError for oneAPI when there is no oneAPI device", function()
    if has_type("oneapi") then
      local d = dlx.device("oneapi:0")
      assert.equal("oneapi", d.type)
      assert.equal("oneapi:0", tostring(d))
      assert.equal(14, d.dltype)
    else
      h.raises("DeviceError", dlx.device, "oneapi")
      h.raises("DeviceError", dlx.device, "oneapi:0")
      h.raises("DeviceError", dlx.device, { 14, 0 })
    end
  end)

  it("gives a DeviceError for a device index that does not exist", function()
    h.raises("DeviceError", dlx.device, "cuda:4096")
    h.raises("DeviceError", dlx.device, { 2, 4096 })
  end)

  it("gives a DeviceError for DLPack device types dlx does not serve", function()
    h.raises("DeviceError", dlx.device, { 4, 0 }) -- OpenCL
    h.raises("DeviceError", dlx.device, { 8, 0 }) -- Metal
  end)

  it("rejects an unknown device name with a classified error", function()
    h.raises("ValueError", dlx.device, "tpu")
    h.raises("ValueError", dlx.device, "cuda:x")
  end)

  it("rejects a spec of the wrong type with a TypeError", function()
    h.raises("TypeError", dlx.device, true)
    h.raises("TypeError", dlx.device, nil)
    h.raises("TypeError", dlx.device, function() end)
  end)
end)

describe("the default device", function()
  it("is the CPU when no GPU is available, and creation uses it", function()
    local d = dlx.default_device()
    if not has_type("cuda") and not has_type("oneapi") then
      assert.is_true(d == dlx.device("cpu"))
    end
    assert.is_true(dlx.zeros({ 2 }).device == d)
    assert.is_true(dlx.arange(3).device == d)
    assert.is_true(dlx.tensor({ 1, 2 }).device == d)
  end)

  it("can be set, and a device that is not available leaves it unchanged", function()
    local before = dlx.default_device()
    dlx.set_default_device("cpu")
    assert.is_true(dlx.default_device() == dlx.device("cpu"))
    assert.is_true(dlx.empty({ 1 }).device == dlx.device("cpu"))
    h.raises("DeviceError", dlx.set_default_device, "oneapi:4096")
    assert.is_true(dlx.default_device() == dlx.device("cpu"))
    dlx.set_default_device(before)
    assert.is_true(dlx.default_device() == before)
  end)

  local probe = [[
    local ok, r = pcall(function()
      local dlx = require "dlx"
      return tostring(dlx.default_device()) .. " " .. tostring(dlx.zeros({1}).device)
    end)
    io.write(ok and "OK " or "ERR ", tostring(r), "\n")
  ]]

  it("is the best available device without DLX_DEVICE", function()
    local out = h.run_lua(probe, { DLX_DEVICE = false })
    local best = has_type("cuda") and "cuda:0" or has_type("oneapi") and "oneapi:0" or "cpu"
    assert.equal("OK " .. best .. " " .. best .. "\n", out)
  end)

  it("follows DLX_DEVICE=cpu", function()
    local out = h.run_lua(probe, { DLX_DEVICE = "cpu" })
    assert.equal("OK cpu cpu\n", out)
  end)

  it("takes the first available entry of a DLX_DEVICE list", function()
    local out = h.run_lua(probe, { DLX_DEVICE = "oneapi:4096,cuda:4096,cpu" })
    assert.equal("OK cpu cpu\n", out)
  end)

  it("is a DeviceError when no DLX_DEVICE entry is available", function()
    local out = h.run_lua(probe, { DLX_DEVICE = "cuda:4096,oneapi:4096" })
    assert.truthy(out:match("^ERR "), out)
    assert.equal("DeviceError", (h.error_class(out:gsub("^ERR ", ""))), out)
  end)
end)
