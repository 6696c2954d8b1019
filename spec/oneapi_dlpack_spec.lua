--- DLPack exchange of oneapi (kDLOneAPI = 14) tensors: zero-copy export and import, dl_device
-- copies to and from the CPU, and the import check that asks Level Zero who owns a pointer.
local h = require "spec.helper"
local dlx = h.dlx

local two_devices = pcall(dlx.device, "oneapi:1")
local has_cuda = pcall(dlx.device, "cuda:0")

describe("oneapi DLPack #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end

  local function sample()
    return dlx.arange(12, { dtype = "float32", device = "cpu" }):view{ 3, 4 }:to("oneapi:0")
  end

  it("reports its device as (14, id)", function()
    local t = sample()
    assert.same({ 14, 0 }, { t:__dlpack_device() })
    if two_devices then assert.same({ 14, 1 }, { t:to("oneapi:1"):__dlpack_device() }) end
  end)

  it("exports zero-copy with the device, strides and offset of the view", function()
    local t = sample():transpose(1, 2):slice(1, 2)
    local d = h.testprod().export(t)
    assert.same({ 14, 0 }, d.device)
    assert.same({ 3, 3 }, d.shape)
    assert.same({ 1, 4 }, d.strides)
    assert.equal(4, d.byte_offset) -- one float32 in
    assert.equal(0, d.flags)
  end)

  it("imports its own export without a copy (writes show through)", function()
    local t = sample()
    local back = dlx.from_dlpack(t:__dlpack{ max_version = { 1, 3 } })
    assert.equal("oneapi:0", tostring(back.device))
    back:select(1, 1):fill_(-1)
    h.same({ -1, -1, -1, -1 }, t:select(1, 1):totable())
    local legacy = dlx.from_dlpack(t:__dlpack())
    h.same(t:totable(), legacy:totable())
  end)

  it("keeps exported memory alive after the tensor is closed", function()
    local t = sample()
    local cap = t:__dlpack{ max_version = { 1, 3 } }
    t:close()
    collectgarbage()
    h.same({ 8, 9, 10, 11 }, dlx.from_dlpack(cap):select(1, 3):totable())
  end)

  it("exports a copy to the CPU with dl_device, and from the CPU to oneapi", function()
    local t = sample():transpose(1, 2)
    local cap = t:__dlpack{ max_version = { 1, 3 }, dl_device = { 1, 0 } }
    assert.equal(h.FLAG_IS_COPIED, cap.flags)
    local host = dlx.from_dlpack(cap)
    assert.equal("cpu", tostring(host.device))
    h.same(t:totable(), host:totable())
    local up = host:__dlpack{ max_version = { 1, 3 }, dl_device = { 14, 0 } }
    local dev = dlx.from_dlpack(up)
    assert.equal("oneapi:0", tostring(dev.device))
    h.same(host:totable(), dev:totable())
    h.raises("BufferError", function() t:__dlpack{ dl_device = { 1, 0 }, copy = false } end)
    h.same(t:totable(), dlx.from_dlpack(t, { device = "cpu" }):totable())
  end)

  it("exports to CUDA through the host", function()
    if not has_cuda then
      pending("no CUDA device")
      return
    end
    local t = sample()
    local c = dlx.from_dlpack(t:__dlpack{ max_version = { 1, 3 }, dl_device = { 2, 0 } })
    assert.equal("cuda:0", tostring(c.device))
    h.same(t:totable(), c:totable())
  end)

  it("accepts stream = nil (the export is complete when __dlpack returns)", function()
    local t = sample()
    h.same(t:totable(), dlx.from_dlpack(t:__dlpack{ max_version = { 1, 3 }, stream = nil })
      :totable())
  end)

  it("refuses kDLOneAPI data that no Level Zero context knows", function()
    local tp = h.testprod()
    local cap, id = tp.make{ shape = { 4 }, device = { 14, 0 } } -- malloc'd host memory
    local msg = h.raises("BufferError", dlx.from_dlpack, cap)
    assert.truthy(msg:find("not memory of any oneapi device", 1, true))
    assert.equal(1, tp.deleted(id))
  end)
end)
