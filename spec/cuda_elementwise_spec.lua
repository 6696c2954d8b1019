-- #gpu: elementwise ops on CUDA devices against the CPU backend (the cases of
-- spec/elementwise_device.lua): the vectorised contiguous kernels and the strided casting one,
-- every op of every dtype family, broadcast, scalars, out= and in place.
local h = require "spec.helper"

describe("#gpu CUDA elementwise ops", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.elementwise_device" ("cuda:0", it)

  it("takes the vectorised path for long contiguous tensors and misaligned views", function()
    local dlx = h.dlx
    local cpu = dlx.arange(1000003, { dtype = "float32", device = "cpu" })
    local dev = cpu:to("cuda:0")
    h.same((cpu * 2 + 1):totable(), (dev * 2 + 1):totable())
    local off = cpu:narrow(1, 2, 1000001) -- not 16-byte aligned: the strided kernel
    local doff = dev:narrow(1, 2, 1000001)
    h.same((off - off:flip(1)):totable(), (doff - doff:flip(1)):totable())
    h.same(cpu:gt(500000):totable(), dev:gt(500000):totable())
  end)

  it("reads flipped views backwards, never as contiguous vectors", function()
    local dlx = h.dlx
    -- 17 elements: the flipped view's first element (the last in memory) is 16-byte aligned
    for _, dtype in ipairs { "float32", "float64", "int8", "int64", "complex64" } do
      local cpu = dlx.arange(17, { dtype = dtype, device = "cpu" })
      local dev = cpu:to("cuda:0")
      h.same((cpu:flip(1) + cpu):totable(), (dev:flip(1) + dev):totable())
      h.same((cpu:flip(1) * 2):totable(), (dev:flip(1) * 2):totable())
      h.same(dlx.neg(cpu:flip(1)):totable(), dlx.neg(dev:flip(1)):totable())
    end
  end)
end)
