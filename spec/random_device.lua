--- Random numbers on a device against the CPU, bit for bit: the same seed gives the same bytes
--- for every kind and dtype, contiguous or strided, and the generator moves on alike. Used by
--- spec/random_spec.lua (the CPU on 1 and several threads) and the device specs.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

-- Each case draws from a fresh generator on `device` and returns the tensor and the generator.
local cases = {
  {"rand float32", function(o) return dlx.rand({1000, 37}, o) end},
  {"rand float64", function(o) o.dtype = "float64"; return dlx.rand({4099}, o) end},
  {"rand float16", function(o) o.dtype = "float16"; return dlx.rand({4099}, o) end},
  {"rand bfloat16", function(o) o.dtype = "bfloat16"; return dlx.rand({4099}, o) end},
  {"randn float32", function(o) return dlx.randn({50001}, o) end},
  {"randn float64", function(o) o.dtype = "float64"; return dlx.randn({3, 3333}, o) end},
  {"randn bfloat16", function(o) o.dtype = "bfloat16"; return dlx.randn({777}, o) end},
  {"randint int64", function(o) return dlx.randint(-50, 50, {10007}, o) end},
  {"randint int8", function(o) o.dtype = "int8"; return dlx.randint(-128, 128, {999}, o) end},
  {"randint uint16", function(o) o.dtype = "uint16"; return dlx.randint(7, 60000, {999}, o) end},
  {"randint wide", function(o) return dlx.randint(-(1 << 40), 1 << 41, {1001}, o) end},
  {"randperm", function(o) return dlx.randperm(5000, o) end},
  {"uniform_ strided", function(o)
    local t = dlx.zeros({64, 48}, {device = o.device, dtype = "float64"}):transpose(1, 2)
    return t:uniform_(-3, 5, {generator = o.generator})
  end},
  {"normal_ float32", function(o)
    return dlx.empty({513}, {device = o.device}):normal_(10, 0.5, {generator = o.generator})
  end},
}

--- Registers the comparisons of `device` against the CPU with `it`.
return function(device, it)
  for _, case in ipairs(cases) do
    local name, draw = case[1], case[2]
    it(name .. " gives the CPU's bits", function()
      local g_dev, g_cpu = dlx.Generator(20240607), dlx.Generator(20240607)
      local got = draw({device = device, generator = g_dev})
      local want = draw({device = "cpu", generator = g_cpu})
      assert.equal(tostring(dlx.device(device)), tostring(got.device))
      assert.equal(want.dtype, got.dtype)
      assert.is_true(want:tobytes() == got:tobytes())
      assert.equal(g_cpu:get_offset(), g_dev:get_offset())
      assert.is_true(g_dev:get_offset() > 0)
    end)
  end
end
