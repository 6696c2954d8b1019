--- sort, argsort, topk and unique on a device against the CPU, bit for bit: the order is stable
--- and so unique, the same on every device. Used by the device specs (CUDA, cuda_host,
--- cuda_managed).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

-- Inputs with many equal values, NaN, -0.0 and infinities where the dtype has them.
local function input(dtype, shape)
  local t = dlx.randint(-4, 5, shape, {generator = dlx.Generator(7)}):astype("float64")
  if dtype:match("float") then
    local flat = t:reshape {-1}
    flat:select(1, 1):fill_(0 / 0)
    flat:select(1, 2):fill_(-0.0)
    flat:select(1, 3):fill_(math.huge)
    flat:select(1, 4):fill_(-math.huge)
  end
  return t:astype(dtype)
end

local same_bits = h.same_bits

local DTYPES = {"bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16",
  "bfloat16", "float32", "float64"}

--- Registers the comparisons of `device` against the CPU with `it`.
return function(device, it)
  for _, dtype in ipairs(DTYPES) do
    it("sorts " .. dtype .. " as the CPU does, along every dim, both ways", function()
      local cpu = input(dtype, {17, 301})
      local dev = cpu:to(device)
      for _, dim in ipairs {1, 2} do
        for _, descending in ipairs {false, true} do
          local wv, wi = cpu:sort(dim, descending)
          local gv, gi = dev:sort(dim, descending)
          assert.equal(tostring(dlx.device(device)), tostring(gv.device))
          same_bits(wv, gv)
          same_bits(wi, gi)
        end
      end
    end)
  end

  it("sorts a transposed view, a long row, 0-d and zero-size tensors", function()
    local cpu = input("float32", {40, 3}):transpose(1, 2)
    local wv, wi = cpu:sort()
    local gv, gi = cpu:to(device):sort()
    same_bits(wv, gv)
    same_bits(wi, gi)
    cpu = input("float32", {100003})
    wv, wi = cpu:sort(1, true)
    gv, gi = cpu:to(device):sort(1, true)
    same_bits(wv, gv)
    same_bits(wi, gi)
    gv, gi = dlx.tensor(3, {device = device}):sort()
    assert.equal(3, gv:item())
    assert.equal(1, gi:item())
    gv = dlx.zeros({4, 0}, {device = device}):sort(2)
    assert.same({4, 0}, gv.shape)
  end)

  it("gives topk and unique as the CPU does", function()
    local cpu = input("float64", {9, 50})
    local dev = cpu:to(device)
    local wv, wi = cpu:topk(5, 2)
    local gv, gi = dev:topk(5, 2)
    same_bits(wv, gv)
    same_bits(wi, gi)
    local wu, winv, wc = cpu:unique {return_inverse = true, return_counts = true}
    local gu, ginv, gc = dev:unique {return_inverse = true, return_counts = true}
    same_bits(wu, gu)
    same_bits(winv, ginv)
    same_bits(wc, gc)
  end)
end
