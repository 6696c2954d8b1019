--- oneapi (Level Zero) tensors: the copies of spec/copies_device.lua (creation, moves to and
-- from the CPU, layouts, casts, fills, each checked against the same operation on the CPU), and
-- what is oneapi's own: the device list, the memory count, devices of two drivers. Without a Level
-- Zero device (a GPU, or the test driver of tests/ze_driver) the specs are reported pending. CPU
-- tensors are made with device = "cpu": with a oneapi device present, it is the default device.
local h = require "spec.helper"
local dlx = h.dlx

local copies = require "spec.copies_device"
local random_tensor = copies.random_tensor

describe("oneapi copies #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  copies("oneapi:0", it, pending)

  it("lists oneapi devices after the CPU and names them oneapi:N", function()
    local names = {}
    for _, d in ipairs(dlx.devices()) do names[#names + 1] = tostring(d) end
    assert.equal("cpu", names[1])
    local found = false
    for _, n in ipairs(names) do found = found or n == "oneapi:0" end
    assert.is_true(found)
    local dev = dlx.device("oneapi:0")
    assert.equal("oneapi", dev.type)
    assert.equal(0, dev.id)
    assert.equal(14, dev.dltype)
    h.raises("DeviceError", dlx.device, "oneapi:99")
  end)

  it("counts the device memory it holds in dlx.memory_allocated", function()
    local before = dlx.memory_allocated("oneapi:0")
    local t = dlx.zeros({ 1024 }, { dtype = "float64", device = "oneapi:0" })
    assert.are.equal(before + 8192, dlx.memory_allocated("oneapi:0"))
    t:close()
    assert.are.equal(before, dlx.memory_allocated("oneapi:0"))
  end)

  it("moves tensors between devices of two drivers (two contexts, through the host)", function()
    local want = tonumber(os.getenv("DLX_REQUIRE_ONEAPI_DEVICES") or "0")
    local count = 0
    for _, d in ipairs(dlx.devices()) do count = count + (d.type == "oneapi" and 1 or 0) end
    assert(count >= want, ("expected %d oneapi devices, found %d"):format(want, count))
    if count < 4 then
      pending("the test driver with one driver (list it twice in ZE_ENABLE_ALT_DRIVERS)")
      return
    end
    local cpu = random_tensor({ 4, 9 }, "float32", 19)
    local a = cpu:to("oneapi:0")
    local b = a:to("oneapi:3")
    assert.equal("oneapi:3", tostring(b.device))
    h.same(cpu:totable(), b:totable())
    local back = dlx.zeros({ 9, 4 }, { dtype = "float64", device = "oneapi:1" })
    back:copy_(b:transpose(1, 2))
    h.same(cpu:transpose(1, 2):astype("float64"):totable(), back:totable())
    local imported = dlx.from_dlpack(b:__dlpack{ max_version = { 1, 3 } })
    assert.equal("oneapi:3", tostring(imported.device))
  end)
end)
