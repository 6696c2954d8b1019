-- Unary ops that need no libm beyond rounding: neg abs sign square reciprocal logical_not
-- bitwise_not floor ceil trunc round isnan isinf isfinite, on each dtype family in every layout,
-- as methods, functions, in place and out=; their result dtypes and edges.
local h = require "spec.helper"
local R = require "spec.elementwise_ref"
local dlx = h.dlx
-- The CPU is the reference here; the GPUs are compared with it in spec/elementwise_device.lua.
dlx.set_default_device("cpu")

local INF, NAN = math.huge, 0 / 0

local function sign(x)
  if x > 0 then return 1 elseif x < 0 then return -1 end
  return x
end

-- Half to even, as the default rounding mode.
local function round_even(x)
  local f = math.floor(x)
  local d = x - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then return f + 1 end
  return f
end

local function trunc(x) return x < 0 and math.ceil(x) or math.floor(x) end

local I = { { 3, -4, 0 }, { -7, 5, 1 } }
local U = { { 3, 4, 0 }, { 7, 5, 1 } }
local F = { { 2.5, -2.5, 0.5 }, { -1.5, 3.75, -0.25 } }
local BOOLS = { { true, false, true }, { false, false, true } }

local ints = { "int8", "int32", "int64" }
local uints = { "uint8", "uint64" }
local floats = { "float32", "float64", "float16", "bfloat16" }

local cases = {
  { "neg", ints, I, function(x) return -x end },
  { "neg", floats, F, function(x) return -x end },
  { "abs", ints, I, math.abs },
  { "abs", uints, U, math.abs },
  { "abs", floats, F, math.abs },
  { "abs", { "bool" }, BOOLS, function(x) return x end },
  { "sign", ints, I, sign },
  { "sign", uints, U, sign },
  { "sign", floats, F, sign },
  { "square", ints, I, function(x) return x * x end },
  { "square", floats, F, function(x) return x * x end },
  { "reciprocal", { "float32", "float64" }, F, function(x) return 1 / x end },
  { "logical_not", ints, I, function(x) return x == 0 end },
  { "logical_not", floats, F, function(x) return x == 0 end },
  { "logical_not", { "bool" }, BOOLS, function(x) return not x end },
  { "bitwise_not", ints, I, function(x) return ~x end },
  { "bitwise_not", { "bool" }, BOOLS, function(x) return not x end },
  { "floor", floats, F, math.floor },
  { "floor", ints, I, function(x) return x end },
  { "ceil", floats, F, math.ceil },
  { "trunc", floats, F, trunc },
  { "trunc", uints, U, function(x) return x end },
  { "round", floats, F, round_even },
  { "round", ints, I, function(x) return x end },
  { "isnan", floats, F, function() return false end },
  { "isnan", ints, I, function() return false end },
  { "isinf", ints, I, function() return false end },
  { "isfinite", floats, F, function() return true end },
  { "isfinite", { "bool" }, BOOLS, function() return true end },
}

describe("unary ops on every dtype family and layout", function()
  for _, case in ipairs(cases) do
    local name, dtypes, values, fn = table.unpack(case)
    for _, dtype in ipairs(dtypes) do
      it(name .. " on " .. dtype, function()
        local want = R.unary(fn, values)
        local tol = (dtype == "float16" or dtype == "bfloat16") and 1e-2 or nil
        if name == "reciprocal" and dtype == "float32" then tol = 1e-6 end
        for _, l in ipairs(R.layouts(values, dtype)) do
          R.same(l[2][name](l[2]):totable(), want, tol, l[1])
          R.same(dlx[name](l[2]):totable(), want, tol, l[1] .. " function")
        end
        local t = dlx.tensor(values, { dtype = dtype })
        local result = t[name](t)
        if result.dtype == dtype then -- in place where the result keeps the dtype
          assert.are.equal(t, t[name .. "_"](t))
          R.same(t:totable(), want, tol, "in place")
        end
      end)
    end
  end
end)

describe("unary results", function()
  it("keep the dtype, or give bool or float32 where the op says", function()
    local i = dlx.tensor({ 1, 2 }, { dtype = "int16" })
    assert.are.equal("int16", i:neg().dtype)
    assert.are.equal("int16", i:floor().dtype)
    assert.are.equal("bool", i:isnan().dtype)
    assert.are.equal("bool", i:logical_not().dtype)
    local r = i:reciprocal()
    assert.are.equal("float32", r.dtype)
    assert.are.same({ 1, 0.5 }, r:totable())
    local z = dlx.tensor({ { re = 3, im = 4 } }, { dtype = "complex128" })
    assert.are.equal("float64", z:abs().dtype)
    assert.are.same({ 5 }, z:abs():totable())
    assert.are.equal("float32", dlx.tensor({ { re = 3, im = 4 } }, { dtype = "complex64" })
      :abs().dtype)
    assert.are.same({ { re = -3, im = -4 } }, (-z):totable())
    assert.are.same({ { re = -7, im = 24 } }, z:square():totable())
  end)

  it("round half to even, keep -0 and NaN", function()
    local r = dlx.tensor({ 0.5, 1.5, 2.5, -0.5, -2.5, 2.4999 }, { dtype = "float64" }):round()
    assert.are.same({ 0, 2, 2, -0.0, -2, 2 }, r:totable())
    assert.are.equal(-INF, 1 / r:totable()[4]) -- -0.5 rounds to -0
    local s = dlx.tensor({ -0.0, NAN, 0.0 }, { dtype = "float32" }):sign():totable()
    assert.are.equal(-INF, 1 / s[1])
    assert.is_true(s[2] ~= s[2])
  end)

  it("isnan, isinf and isfinite at the edges", function()
    local v = dlx.tensor({ NAN, INF, -INF, 0, -1e300 }, { dtype = "float64" })
    assert.are.same({ true, false, false, false, false }, v:isnan():totable())
    assert.are.same({ false, true, true, false, false }, v:isinf():totable())
    assert.are.same({ false, false, false, true, true }, v:isfinite():totable())
    local h16 = dlx.tensor({ 70000, 1 }, { dtype = "float16" }) -- 70000 overflows to inf
    assert.are.same({ true, false }, h16:isinf():totable())
    local z = dlx.tensor({ { re = 1, im = NAN }, { re = INF, im = 0 }, { re = 1, im = 2 } })
    assert.are.same({ true, false, false }, z:isnan():totable())
    assert.are.same({ false, true, false }, z:isinf():totable())
    assert.are.same({ false, false, true }, z:isfinite():totable())
  end)

  it("wrap the integers' extremes", function()
    local m = dlx.tensor({ -128, 127 }, { dtype = "int8" })
    assert.are.same({ -128, -127 }, m:neg():totable())
    assert.are.same({ -128, 127 }, m:abs():totable())
    assert.are.same({ 0, 1 }, (m:square()):totable())
    assert.are.same({ 255 }, dlx.tensor({ 1 }, { dtype = "uint8" }):neg():totable())
  end)

  it("in place refuses results of a lower kind; out= casts up", function()
    local i = dlx.tensor({ 1, 2 })
    h.raises("TypeError", function() return i:reciprocal_() end)
    local out = dlx.empty({ 2 }, { dtype = "float64" })
    assert.are.equal(out, dlx.neg(i, { out = out }))
    assert.are.same({ -1, -2 }, out:totable())
    local f = dlx.tensor({ 1.5, -2 })
    f:isnan_() -- bool results go up into any kind
    assert.are.same({ 0, 0 }, f:totable())
  end)

  it("take 0-d, zero-size, broadcast and overlapping views", function()
    assert.are.equal(-5, dlx.tensor(5):neg():item())
    assert.are.same({ 0, 2 }, dlx.zeros({ 0, 2 }):abs().shape)
    local row = dlx.tensor({ { 1, -2 } }):expand({ 3, 2 })
    assert.are.same({ { -1, 2 }, { -1, 2 }, { -1, 2 } }, row:neg():totable())
    local x = dlx.arange(6)
    dlx.neg(x:narrow(1, 1, 5), { out = x:narrow(1, 2, 5) })
    assert.are.same({ 0, 0, -1, -2, -3, -4 }, x:totable())
    local y = dlx.arange(4)
    dlx.neg(y:flip(), { out = y })
    assert.are.same({ -3, -2, -1, 0 }, y:totable())
  end)

  it("refuse dtypes the op does not take", function()
    h.raises("TypeError", function() return dlx.tensor({ true }):neg() end)
    h.raises("TypeError", function() return -dlx.tensor({ true }) end)
    h.raises("TypeError", function() return dlx.ones({ 2 }):bitwise_not() end)
    h.raises("TypeError", function() return ~dlx.ones({ 2 }) end)
    h.raises("TypeError", function() return dlx.tensor({ { re = 1 } }):floor() end)
    h.raises("TypeError", function() return dlx.tensor({ { re = 1 } }):sign() end)
    h.raises("TypeError", function() return dlx.empty({ 1 }, { dtype = "float8_e5m2" }):abs() end)
    h.raises("TypeError", function() return dlx.neg(3) end)
  end)
end)
