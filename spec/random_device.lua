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
  -- the distributions of src/common/distributions.h
  {"bernoulli_ float32", function(o)
    return dlx.empty({4097}, {device = o.device}):bernoulli_(0.3, {generator = o.generator})
  end},
  {"bernoulli_ of a tensor p into int8", function(o)
    local p = dlx.linspace(0, 1, 1001, {device = o.device, dtype = "float64"})
    local t = dlx.empty({3, 1001}, {device = o.device, dtype = "int8"})
    return t:bernoulli_(p, {generator = o.generator})
  end},
  {"bernoulli of a float16 tensor", function(o)
    local p = dlx.linspace(0, 1, 2049, {device = o.device, dtype = "float16"})
    return dlx.bernoulli(p, {generator = o.generator})
  end},
  {"bernoulli of a number, bool", function(o)
    o.dtype = "bool"; return dlx.bernoulli(0.7, {999}, o)
  end},
  {"exponential_ float32", function(o)
    return dlx.empty({5003}, {device = o.device}):exponential_(1.5, {generator = o.generator})
  end},
  {"exponential_ float64 strided", function(o)
    local t = dlx.zeros({40, 31}, {device = o.device, dtype = "float64"}):transpose(1, 2)
    return t:exponential_(0.25, {generator = o.generator})
  end},
  {"cauchy_ float64", function(o)
    local t = dlx.empty({3001}, {device = o.device, dtype = "float64"})
    return t:cauchy_(-2, 0.5, {generator = o.generator})
  end},
  {"cauchy_ bfloat16", function(o)
    local t = dlx.empty({3001}, {device = o.device, dtype = "bfloat16"})
    return t:cauchy_(0, 1, {generator = o.generator})
  end},
  {"log_normal_ float32", function(o)
    return dlx.empty({4001}, {device = o.device}):log_normal_(0.5, 1.25, {generator = o.generator})
  end},
  {"log_normal_ float64, tails past float32", function(o)
    local t = dlx.empty({2001}, {device = o.device, dtype = "float64"})
    return t:log_normal_(-300, 40, {generator = o.generator})
  end},
  {"geometric_ float64", function(o)
    local t = dlx.empty({3001}, {device = o.device, dtype = "float64"})
    return t:geometric_(0.05, {generator = o.generator})
  end},
  {"geometric_ int16, saturating", function(o)
    local t = dlx.empty({3001}, {device = o.device, dtype = "int16"})
    return t:geometric_(1e-6, {generator = o.generator})
  end},
  {"poisson of small and large rates, float32", function(o)
    local rates = dlx.linspace(0, 60, 6001, {device = o.device})
    return dlx.poisson(rates, {generator = o.generator})
  end},
  {"poisson of huge rates, float64", function(o)
    local rates = dlx.linspace(1e3, 1e12, 1001, {device = o.device, dtype = "float64"})
    return dlx.poisson(rates, {generator = o.generator})
  end},
  {"normal of tensor means and stds", function(o)
    local mean = dlx.linspace(-5, 5, 301, {device = o.device, dtype = "float64"})
    local std = dlx.linspace(0, 2, 7, {device = o.device}):reshape({7, 1})
    return dlx.normal(mean, std, {generator = o.generator})
  end},
  {"normal of a number and a tensor std, float32", function(o)
    local std = dlx.linspace(0.5, 3, 1000, {device = o.device})
    return dlx.normal(3, std, {generator = o.generator})
  end},
  {"normal of numbers and a shape", function(o)
    o.dtype = "float16"; return dlx.normal(1, 2, {77, 13}, o)
  end},
  {"random_ int16 default range", function(o)
    local t = dlx.empty({2001}, {device = o.device, dtype = "int16"})
    return t:random_({generator = o.generator})
  end},
  {"random_ uint64 [5, 2^40)", function(o)
    local t = dlx.empty({2001}, {device = o.device, dtype = "uint64"})
    return t:random_(5, 1 << 40, {generator = o.generator})
  end},
  {"random_ float32 and bool", function(o)
    local f = dlx.empty({1001}, {device = o.device}):random_(-50, 50, {generator = o.generator})
    local b = dlx.empty({1001}, {device = o.device, dtype = "bool"})
    b:random_({generator = o.generator})
    return dlx.cat({f, b:astype("float32")})
  end},
  {"multinomial without replacement, float32", function(o)
    local w = dlx.linspace(0, 3, 2000, {device = o.device}):reshape({20, 100})
    return dlx.multinomial(w, 40, {generator = o.generator})
  end},
  {"multinomial without replacement, float64 1-d", function(o)
    local w = dlx.linspace(1, 2, 999, {device = o.device, dtype = "float64"})
    return dlx.multinomial(w, 999, {generator = o.generator})
  end},
  {"multinomial with replacement, float16", function(o)
    local w = dlx.linspace(0, 1, 3 * 700, {device = o.device, dtype = "float16"}):reshape({3, 700})
    return dlx.multinomial(w, 5000, {replacement = true, generator = o.generator})
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
