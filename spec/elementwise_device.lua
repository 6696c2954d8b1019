--- The elementwise specs' cases on a GPU, against the CPU's results on the same data: every op on
--- each dtype family (the math functions within an ulp, where/clamp/lerp/nan_to_num exactly), the
--- layouts, Lua numbers and promotion, out= and in place, the integer and NaN rules, the errors.
--- Used by oneapi_elementwise_spec.lua and cuda_elementwise_spec.lua:
--- require "spec.elementwise_device" (device, it) inside a describe defines the tests (busted
--- gives `it` to spec files, not to the modules they require).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

-- Seeded values (h.seeded_values); positive: integers from 1 (divisors, shift counts; unsigned
-- ones always are).
local function values(dtype, n, seed, positive)
  return h.seeded_values(dtype, n, seed,
    { bool = 2, uint = { 1, 7 }, int = positive and { 1, 7 } or { -9, 9 } })
end

local BINARY = {
  all = { "add", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_xor" },
  numbers = { "sub", "floor_divide", "remainder", "fmod", "pow" },
  ints = { "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift" },
  floats = { "div", "atan2", "hypot", "copysign" },
}
local UNARY = {
  all = { "abs", "logical_not", "floor", "ceil", "trunc", "round", "isnan", "isinf", "isfinite" },
  numbers = { "neg", "sign", "square" },
  ints = { "bitwise_not" },
  floats = { "reciprocal", "frac" },
}

local function family(dtype)
  if dtype == "bool" then return "bool" end
  if dtype:match("int") then return "int" end
  if dtype:match("^complex") then return "complex" end
  return "float"
end

local ORDERED_ONLY = { lt = 1, le = 1, gt = 1, ge = 1, maximum = 1, minimum = 1, floor_divide = 1,
  remainder = 1, fmod = 1, sign = 1, floor = 1, ceil = 1, trunc = 1, round = 1, frac = 1 }

--- The ops of a group that dtype takes (as docs/elementwise.md lists them).
local function ops_for(groups, dtype)
  local f, out = family(dtype), {}
  local function add(list)
    for _, op in ipairs(list) do
      if not (f == "complex" and ORDERED_ONLY[op]) then out[#out + 1] = op end
    end
  end
  add(groups.all)
  if f ~= "bool" then add(groups.numbers) end
  if f == "int" or f == "bool" then add(groups.ints) end
  if f == "float" or f == "complex" then add(groups.floats) end
  local kept = {}
  for _, op in ipairs(out) do
    local refused = (f == "bool" and op:match("shift")) or (f == "complex" and
      (op == "atan2" or op == "hypot" or op == "copysign"))
    if not refused then kept[#kept + 1] = op end
  end
  return kept
end

return function(device, it)

  it("computes every op of every dtype as the CPU does, in every layout", function()
    for _, dtype in ipairs(h.NUMERIC) do
      local a = dlx.tensor(values(dtype, 4 * 6, 5), { dtype = dtype, device = "cpu" }):view{ 4, 6 }
      local b = dlx.tensor(values(dtype, 6 * 4, 7, true), { dtype = dtype, device = "cpu" })
        :view{ 6, 4 }:transpose(1, 2) -- transposed
      local row = dlx.tensor(values(dtype, 6, 9, true), { dtype = dtype, device = "cpu" })
      local da, db, drow = a:to(device), b:to(device), row:to(device)
      for _, op in ipairs(ops_for(BINARY, dtype)) do
        h.same_as_cpu(device, dlx[op](a, b), dlx[op](da, db))
        h.same_as_cpu(device, dlx[op](a, row), dlx[op](da, drow)) -- broadcast
        h.same_as_cpu(device, dlx[op](a:flip(1), b), dlx[op](da:flip(1), db)) -- negative strides
      end
      for _, op in ipairs(ops_for(UNARY, dtype)) do
        h.same_as_cpu(device, dlx[op](a), dlx[op](da))
        h.same_as_cpu(device, dlx[op](b), dlx[op](db))
      end
    end
  end)

  it("takes Lua numbers on either side, and mixes dtypes by promotion", function()
    local a = dlx.tensor(values("int16", 12, 3), { dtype = "int16", device = "cpu" }):view{ 3, 4 }
    local f = dlx.tensor(values("float16", 12, 4), { dtype = "float16", device = "cpu" })
      :view{ 4, 3 }:transpose(1, 2)
    local da, df = a:to(device), f:to(device)
    h.same_as_cpu(device, a + 3, da + 3)
    h.same_as_cpu(device, 2 - a, 2 - da)
    h.same_as_cpu(device, a * 1.5, da * 1.5)
    h.same_as_cpu(device, a // 3, da // 3)
    h.same_as_cpu(device, -7 % a:abs():add(1), -7 % da:abs():add(1))
    h.same_as_cpu(device, a + f, da + df) -- int16 + float16: float16
    h.same_as_cpu(device, a / a:abs():add(1), da / da:abs():add(1)) -- integers divide in float32
    h.same_as_cpu(device, f:pow(2), df:pow(2))
    h.same_as_cpu(device, a:gt(0), da:gt(0))
    h.same_as_cpu(device, a:bitwise_left_shift(3), da:bitwise_left_shift(3))
    h.same_as_cpu(device, dlx.maximum(f, 0.5), dlx.maximum(df, 0.5))
    h.same_as_cpu(device, dlx.add(a, { re = 1, im = 2 }), dlx.add(da, { re = 1, im = 2 }))
  end)

  it("writes into out= tensors of another dtype, in place, and 0-d and strided views", function()
    local cpu = dlx.tensor(values("float32", 20, 11), { dtype = "float32", device = "cpu" })
      :view{ 4, 5 }
    local dev = cpu:to(device)
    local want = dlx.zeros({ 4, 5 }, { dtype = "float64", device = "cpu" })
    local got = dlx.zeros({ 4, 5 }, { dtype = "float64", device = device })
    dlx.mul(cpu, cpu:flip(2), { out = want })
    dlx.mul(dev, dev:flip(2), { out = got })
    h.same_as_cpu(device, want, got)
    local c, d = cpu:clone(), dev:clone()
    c:add_(c:flip(1)) -- overlapping: as if the inputs were read first
    d:add_(d:flip(1))
    h.same_as_cpu(device, c, d)
    c:mul_(2)
    d:mul_(2)
    h.same_as_cpu(device, c, d)
    local cs = cpu:slice(1, 1, 4, 2):slice(2, 1, 5, 2)
    local ds = dev:slice(1, 1, 4, 2):slice(2, 1, 5, 2)
    h.same_as_cpu(device, cs:neg(), ds:neg())
    local c0, d0 = cpu:select(1, 2):select(1, 3), dev:select(1, 2):select(1, 3) -- 0-d
    h.same_as_cpu(device, c0:sub(1), d0:sub(1))
    local i = dlx.zeros({ 4, 5 }, { dtype = "int32", device = device })
    i:add_(dev:gt(0))
    local on_cpu = dlx.zeros({ 4, 5 }, { dtype = "int32", device = "cpu" }):add_(cpu:gt(0))
    h.same_as_cpu(device, on_cpu, i)
  end)

  it("gives fmod the dividend's sign and frac x - trunc(x), with the IEEE edges", function()
    local i = dlx.tensor({ 7, -7, 7, -7, -128, 5 }, { dtype = "int8", device = device })
    local j = dlx.tensor({ 3, 3, -3, -3, -1, 127 }, { dtype = "int8", device = device })
    h.same({ 1, -1, 1, -1, 0, 5 }, dlx.fmod(i, j):totable()) -- MIN fmod -1 is 0, no trap
    h.same({ 1, 2, -2, -1, 0, 5 }, dlx.remainder(i, j):totable())
    for _, dtype in ipairs({ "float16", "bfloat16", "float32", "float64" }) do
      local x = dlx.tensor({ 5.5, -5.5, 1 / 0, -0.0, 0 / 0, 3, 2.25 }, { dtype = dtype })
      local y = dlx.tensor({ 2, 2, 1, 1, 1, 0, -1 / 0 }, { dtype = dtype })
      local want, got = dlx.fmod(x, y), dlx.fmod(x:to(device), y:to(device))
      h.same(device, tostring(got.device))
      h.same_bits(want, got) -- exact ops: the same bits on every device
      local w = want:totable()
      assert.equal(1.5, w[1]); assert.equal(-1.5, w[2]); assert.is_true(h.isnan(w[3]))
      assert.equal(-math.huge, 1 / w[4]); assert.is_true(h.isnan(w[6])); assert.equal(2.25, w[7])
      local f = dlx.tensor({ 2.75, -2.75, -3, 1 / 0, -0.0 }, { dtype = dtype })
      h.same_bits(f:frac(), f:to(device):frac())
      local fr = f:to(device):frac():totable()
      assert.equal(0.75, fr[1]); assert.equal(-0.75, fr[2]); assert.equal(0, fr[3])
      assert.is_true(h.isnan(fr[4])); assert.equal(math.huge, 1 / fr[5]) -- -0 - -0 is +0
    end
  end)

  it("keeps the integer rules: wrapping, shifts past the width, NaN through maximum", function()
    local i8 = dlx.tensor({ 127, -128, 100, -1 }, { dtype = "int8", device = device })
    h.same({ -128, 127, 101, 0 }, (i8 + dlx.tensor({ 1, -1, 1, 1 }, { dtype = "int8",
      device = device })):totable())
    h.same({ 0, 0, 0, 0 }, i8:bitwise_left_shift(8):totable())
    h.same({ 0, -1, 0, -1 }, i8:bitwise_right_shift(9):totable())
    local f = dlx.tensor({ 1, 0 / 0, 3 }, { dtype = "float32", device = device })
    local m = dlx.maximum(f, 2):totable()
    assert.equal(2, m[1])
    assert.is_true(h.isnan(m[2]))
    assert.equal(3, m[3])
  end)

  it("computes the math functions as the CPU does, within an ulp", function()
    local MATH = { "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin",
      "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
      "sigmoid", "erf" }
    -- within an ulp of each other (both faithful); float64 a few (the device's double functions)
    local REL = { float16 = 2e-3, bfloat16 = 1.6e-2, float32 = 2.5e-7, float64 = 2e-15,
      int16 = 2.5e-7 }
    for dtype, rel in pairs(REL) do
      local vals = values(dtype, 4 * 6, 13)
      if dtype ~= "int16" then
        vals[1], vals[2], vals[3], vals[4] = 0.0, 1 / 0, -1 / 0, 0 / 0
        vals[5], vals[6] = 1e-3, 80
      end
      local a = dlx.tensor(vals, { dtype = dtype, device = "cpu" }):view{ 4, 6 }
      local da = a:to(device)
      for _, op in ipairs(MATH) do
        local want, got = dlx[op](a:transpose(1, 2)), dlx[op](da:transpose(1, 2))
        assert.equal(want.dtype, got.dtype)
        local w, g = want:view{ 24 }:totable(), got:view{ 24 }:totable()
        for i = 1, #w do
          local ok = (w[i] ~= w[i] and g[i] ~= g[i]) or w[i] == g[i] or
            math.abs(w[i] - g[i]) <= rel * math.abs(w[i])
          if not ok then h.same(w, g, op .. " of " .. dtype) end
        end
      end
    end
  end)

  it("computes conj, real, imag, where, clamp, lerp and nan_to_num exactly as the CPU", function()
    for _, dtype in ipairs(h.NUMERIC) do
      local a = dlx.tensor(values(dtype, 4 * 6, 15), { dtype = dtype, device = "cpu" }):view{ 4, 6 }
      local b = dlx.tensor(values(dtype, 6, 17), { dtype = dtype, device = "cpu" })
      local cond = dlx.tensor(values("int8", 4 * 6, 19), { dtype = "int8", device = "cpu" })
        :view{ 6, 4 }:transpose(1, 2)
      local da, db, dcond = a:to(device), b:to(device), cond:to(device)
      local f = family(dtype)
      for _, op in ipairs({ "conj", "real", "imag" }) do
        h.same(dlx[op](a:flip(2)):totable(), dlx[op](da:flip(2)):totable(), op .. " " .. dtype)
      end
      h.same(dlx.where(cond, a, b):totable(), dlx.where(dcond, da, db):totable(), "where")
      h.same(dlx.where(cond:gt(0), a, 1):totable(), dlx.where(dcond:gt(0), da, 1):totable(),
        "where with a number " .. dtype)
      if f ~= "complex" then
        local lo, hi = (f == "bool") and false or 1, (f == "bool") and true or 3
        h.same(a:clamp(lo, hi):totable(), da:clamp(lo, hi):totable(), "clamp " .. dtype)
        h.same(a:clamp(b):totable(), da:clamp(db):totable(), "clamp by a tensor " .. dtype)
        h.same(a:nan_to_num():totable(), da:nan_to_num():totable(), "nan_to_num " .. dtype)
      end
      if f == "float" then
        local w = dlx.tensor(values(dtype, 6, 21), { dtype = dtype, device = "cpu" }):div(4)
        h.same(dlx.lerp(a, b, w):totable(), dlx.lerp(da, db, w:to(device)):totable(), "lerp")
        h.same(dlx.lerp(a, b, 0.75):totable(), dlx.lerp(da, db, 0.75):totable(), "lerp " .. dtype)
        local e = dlx.tensor({ 0 / 0, 1 / 0, -1 / 0, 2 }, { dtype = dtype, device = "cpu" })
        local opts = { nan = 1, posinf = 2, neginf = -3 }
        h.same(e:nan_to_num(opts):totable(), e:to(device):nan_to_num(opts):totable())
        h.same(e:nan_to_num():totable(), e:to(device):nan_to_num():totable())
      end
    end
  end)

  it("refuses what the CPU refuses, before anything is written", function()
    local dev = dlx.tensor({ 4, 5, 6 }, { dtype = "int32", device = device })
    local zero = dlx.zeros(3, { dtype = "int32", device = device })
    h.raises("ValueError", function() return dev // zero end)
    h.same({ 4, 5, 6 }, dev:totable())
    h.raises("ValueError", function() return dlx.fmod(dev, zero) end)
    h.raises("ValueError", function() dev:fmod_(0) end)
    h.same({ 4, 5, 6 }, dev:totable())
    h.raises("TypeError", function() return dev:frac() end)
    local cpu = dlx.ones(3, { dtype = "int32", device = "cpu" })
    h.raises("DeviceError", function() return dev + cpu end)
    h.raises("TypeError", function() dev:add_(1.5) end)
  end)
end
