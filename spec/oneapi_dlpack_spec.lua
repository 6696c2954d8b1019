--- DLPack exchange of oneapi (kDLOneAPI = 14) tensors: the cases of spec/dlpack_device.lua
-- (zero-copy export and import, dl_device copies to and from the CPU), and oneapi's own: the
-- export to CUDA through the host, stream = nil, and the import check that asks Level Zero who
-- owns a pointer.
local h = require "spec.helper"
local dlx = h.dlx

local has_cuda = pcall(dlx.device, "cuda:0")

describe("oneapi DLPack #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.dlpack_device" ("oneapi:0", it, 14)

  local function sample()
    return dlx.arange(12, { dtype = "float32", device = "cpu" }):view{ 3, 4 }:to("oneapi:0")
  end

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
