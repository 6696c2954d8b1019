-- The binary ops beyond add, sub, mul and div: floor_divide, remainder, pow, maximum, minimum,
-- atan2, hypot, copysign, comparisons, logical and bitwise ops and shifts. Each op on each dtype
-- family in every layout pair, against values computed in Lua; then the edges: zero divisors,
-- negative exponents, NaN, shift amounts, and the dtypes an op refuses.
local h = require "spec.helper"
local R = require "spec.elementwise_ref"
local dlx = h.dlx
-- The CPU is the reference here; the GPUs are compared with it in spec/elementwise_device.lua.
dlx.set_default_device("cpu")

local NAN = 0 / 0

-- v wrapped to a bits-wide integer, signed or not.
local function wrap(v, bits, signed)
  if bits == 64 then return v end -- Lua's integers wrap there themselves
  local m = 1 << bits
  v = v % m
  if signed and v >= m // 2 then v = v - m end
  return v
end

local function int_pow(x, y)
  local r = 1
  for _ = 1, y do r = r * x end
  return r
end

local function copysign(x, y)
  local neg = y < 0 or (y == 0 and 1 / y < 0)
  x = math.abs(x)
  return neg and -x or x
end

local signed = { "int8", "int16", "int32", "int64" }
local unsigned = { "uint8", "uint16", "uint32", "uint64" }
local floats = { "float32", "float64", "float16", "bfloat16" }

local A = { { 7, -8, 9 }, { -5, 6, 3 } }
local B = { { 2, 3, -4 }, { 3, -2, 5 } }
local UA = { { 7, 8, 9 }, { 5, 6, 3 } }
local UB = { { 2, 3, 4 }, { 3, 2, 5 } }
local FA = { { 7.5, -8, 9.25 }, { -5.5, 6, 0.5 } }
local FB = { { 2, 3.5, -4 }, { 3, -2.5, 0.25 } }
local BA = { { true, false, true }, { false, true, false } }
local BB = { { true, true, false }, { false, false, true } }

local function bool(fn) return function(x, y) return fn(x, y) end end
local function truthy(x) return x ~= 0 and x ~= false end

local cases = {
  { "floor_divide", signed, A, B, function(x, y) return x // y end },
  { "floor_divide", unsigned, UA, UB, function(x, y) return x // y end },
  { "floor_divide", floats, FA, FB, function(x, y) return math.floor(x / y) end, 1e-2 },
  { "remainder", signed, A, B, function(x, y) return x % y end },
  { "remainder", unsigned, UA, UB, function(x, y) return x % y end },
  { "remainder", floats, FA, FB, function(x, y) return x % y end, 1e-2 },
  { "pow", signed, A, UB, int_pow, wraps = true },
  { "pow", unsigned, UA, UB, int_pow, wraps = true },
  { "pow", floats, UA, FB, function(x, y) return x ^ y end, 1e-2 },
  { "maximum", signed, A, B, math.max },
  { "maximum", floats, FA, FB, math.max },
  { "maximum", { "bool" }, BA, BB, function(x, y) return x or y end },
  { "minimum", unsigned, UA, UB, math.min },
  { "minimum", floats, FA, FB, math.min },
  { "atan2", { "float32", "float64" }, FA, FB, math.atan, 1e-6 },
  { "atan2", { "int32" }, A, B, math.atan, 1e-6 },
  { "hypot", { "float32", "float64" }, FA, FB, function(x, y) return math.sqrt(x * x + y * y) end,
    1e-6 },
  { "copysign", { "float32", "float64", "float16" }, FA, FB, copysign },
  { "eq", { "int32", "uint8", "float32", "float16" }, A, A,
    bool(function(x, y) return x == y end) },
  { "eq", { "bool" }, BA, BB, bool(function(x, y) return x == y end) },
  { "ne", { "int64", "float64" }, A, B, bool(function(x, y) return x ~= y end) },
  { "lt", { "int8", "float32", "bfloat16" }, A, B, bool(function(x, y) return x < y end) },
  { "le", { "int16", "float64" }, A, A, bool(function(x, y) return x <= y end) },
  { "gt", { "int32", "uint16", "float32" }, UA, UB, bool(function(x, y) return x > y end) },
  { "ge", { "int64", "float16" }, A, B, bool(function(x, y) return x >= y end) },
  { "logical_and", { "int32", "float32", "bool" }, { { 0, 1, 2 }, { 3, 0, 0 } },
    { { 1, 1, 0 }, { 5, 0, 2 } }, function(x, y) return truthy(x) and truthy(y) end },
  { "logical_or", { "int8", "float64" }, { { 0, 1, 2 }, { 3, 0, 0 } },
    { { 1, 1, 0 }, { 5, 0, 2 } }, function(x, y) return truthy(x) or truthy(y) end },
  { "logical_xor", { "uint8", "float16" }, { { 0, 1, 2 }, { 3, 0, 0 } },
    { { 1, 1, 0 }, { 5, 0, 2 } }, function(x, y) return truthy(x) ~= truthy(y) end },
  { "bitwise_and", signed, A, B, function(x, y) return x & y end },
  { "bitwise_or", unsigned, UA, UB, function(x, y) return x | y end },
  { "bitwise_xor", signed, A, B, function(x, y) return x ~ y end },
  { "bitwise_and", { "bool" }, BA, BB, function(x, y) return x and y end },
  { "bitwise_xor", { "bool" }, BA, BB, function(x, y) return x ~= y end },
  { "bitwise_left_shift", { "int8" }, A, UB, function(x, y) return wrap(x << y, 8, true) end },
  { "bitwise_left_shift", { "uint32" }, UA, UB, function(x, y) return wrap(x << y, 32) end },
  { "bitwise_right_shift", signed, A, UB, function(x, y) return x // (1 << y) end },
  { "bitwise_right_shift", unsigned, UA, UB, function(x, y) return x >> y end },
}

describe("binary ops on every dtype family and layout", function()
  for _, case in ipairs(cases) do
    local name, dtypes, a, b, fn0, rel = table.unpack(case)
    for _, dtype in ipairs(dtypes) do
      it(name .. " on " .. dtype, function()
        local fn = fn0
        if case.wraps then
          local bits = tonumber(dtype:match("%d+"))
          fn = function(x, y) return wrap(fn0(x, y), bits, dtype:sub(1, 1) == "i") end
        end
        local want = R.binary(fn, a, b)
        local tol = rel
        if dtype == "float16" or dtype == "bfloat16" then tol = 1e-2 end
        for _, la in ipairs(R.layouts(a, dtype)) do
          for _, lb in ipairs(R.layouts(b, dtype)) do
            R.same(la[2][name](la[2], lb[2]):totable(), want, tol, la[1] .. " x " .. lb[1])
          end
        end
        -- the function, in place and with a Lua number
        local ta = dlx.tensor(a, { dtype = dtype })
        R.same(dlx[name](ta, dlx.tensor(b, { dtype = dtype })):totable(), want, tol)
        local first = b[1][1]
        if type(first) == "number" then
          R.same(ta[name](ta, first):totable(), R.binary(fn, a, first), tol, "scalar")
          R.same(dlx[name](a[1][1], dlx.tensor(b, { dtype = dtype })):totable(),
            R.binary(fn, a[1][1], b), tol, "scalar first")
        end
      end)
    end
  end
end)

describe("integer division", function()
  it("by zero is a ValueError, and nothing is written", function()
    local a = dlx.tensor({ 5, 6, 7 })
    local out = dlx.tensor({ 1, 1, 1 })
    local err = h.raises("ValueError", function()
      return dlx.floor_divide(a, dlx.tensor({ 1, 0, 2 }), { out = out })
    end)
    assert.truthy(err:find("division by zero", 1, true))
    assert.are.same({ 1, 1, 1 }, out:totable())
    h.raises("ValueError", function() return a:remainder_(0) end)
    h.raises("ValueError", function() return a // 0 end)
    h.raises("ValueError", function() return 5 % dlx.tensor({ 1, 0 }, { dtype = "uint8" }) end)
    h.raises("ValueError", function() return a % dlx.tensor({ false }) end)
    assert.are.same({ 5, 6, 7 }, a:totable())
  end)

  it("floors and takes the divisor's sign, as Lua", function()
    local a = dlx.tensor({ 7, -7, 7, -7 })
    local b = dlx.tensor({ 2, 2, -2, -2 })
    assert.are.same({ 3, -4, -4, 3 }, (a // b):totable())
    assert.are.same({ 1, 1, -1, -1 }, (a % b):totable())
  end)

  it("wraps MIN // -1", function()
    local m = dlx.tensor({ -128, 5 }, { dtype = "int8" })
    assert.are.same({ -128, -5 }, (m // -1):totable())
    assert.are.same({ 0, 0 }, (m % -1):totable())
    local big = dlx.tensor({ math.mininteger })
    assert.are.same({ math.mininteger }, (big // -1):totable())
  end)

  it("of floats follows IEEE by zero", function()
    local f = dlx.tensor({ 1, -1, 0 }, { dtype = "float64" })
    local q, r = (f // 0):totable(), (f % 0):totable()
    assert.are.equal(math.huge, q[1])
    assert.are.equal(-math.huge, q[2])
    assert.is_true(q[3] ~= q[3])
    for i = 1, 3 do assert.is_true(r[i] ~= r[i]) end
    assert.are.same({ 1.5, 1.5 }, (dlx.tensor({ 5.5, -4.5 }) % 2):totable())
  end)
end)

describe("pow", function()
  it("refuses negative integer exponents before writing", function()
    local a = dlx.tensor({ 2, 3 })
    h.raises("ValueError", function() return a ^ -1 end)
    h.raises("ValueError", function() return a:pow_(dlx.tensor({ 1, -2 })) end)
    assert.are.same({ 2, 3 }, a:totable())
    assert.are.same({ 8, 1 }, (dlx.tensor({ 2, 1 }, { dtype = "uint8" }) ^ 3):totable())
  end)

  it("with a float exponent goes to float32; integers wrap", function()
    local r = dlx.tensor({ 4, 9 }) ^ 0.5
    assert.are.equal("float32", r.dtype)
    assert.are.same({ 2, 3 }, r:totable())
    assert.are.same({ 0 }, (dlx.tensor({ 2 }, { dtype = "int8" }) ^ 8):totable())
    assert.are.same({ -128 }, (dlx.tensor({ 2 }, { dtype = "int8" }) ^ 7):totable())
  end)

  it("of complex numbers", function()
    local z = dlx.tensor({ { re = 0, im = 1 } }, { dtype = "complex128" })
    local r = (z ^ 2):totable()[1]
    h.assert_close(r.re, -1, 1e-12)
    assert.is_true(math.abs(r.im) < 1e-12)
  end)
end)

describe("NaN", function()
  local x = dlx.tensor({ NAN, 1, NAN }, { dtype = "float32" })
  local y = dlx.tensor({ 1, NAN, NAN }, { dtype = "float32" })
  it("propagates through maximum and minimum", function()
    for _, r in ipairs({ dlx.maximum(x, y), dlx.minimum(x, y), dlx.maximum(y, x) }) do
      for _, v in ipairs(r:totable()) do assert.is_true(v ~= v) end
    end
  end)

  it("compares false except ne", function()
    for _, op in ipairs({ "eq", "lt", "le", "gt", "ge" }) do
      assert.are.same({ false, false, false }, x[op](x, y):totable())
    end
    assert.are.same({ true, true, true }, x:ne(y):totable())
  end)
end)

describe("shifts", function()
  it("by a negative amount or the width or more follow NumPy", function()
    local v = dlx.tensor({ 5, -5, 5, -5 }, { dtype = "int8" })
    local s = dlx.tensor({ 8, 8, -1, -1 }, { dtype = "int8" })
    assert.are.same({ 0, 0, 0, 0 }, (v << s):totable())
    assert.are.same({ 0, -1, 0, -1 }, (v >> s):totable())
    local u = dlx.tensor({ 5 }, { dtype = "uint64" })
    assert.are.same({ 0 }, (u << 64):totable())
    assert.are.same({ 0 }, (u >> 100):totable())
    assert.are.same({ 1 << 63 }, (dlx.tensor({ 1 }) << 63):totable())
  end)
end)

describe("results and operators", function()
  it("comparisons give bool, computed in the promoted dtype", function()
    local r = dlx.tensor({ 1, 2 }, { dtype = "int8" }):lt(dlx.tensor({ 1.5, 1.5 }))
    assert.are.equal("bool", r.dtype)
    assert.are.same({ true, false }, r:totable())
    local i16 = dlx.tensor({ 44, 300 }, { dtype = "int16" })
    local u8 = dlx.tensor({ 44, 44 }, { dtype = "uint8" })
    assert.are.same({ false, true }, i16:gt(u8):totable()) -- in int16: 300 is not wrapped to 44
  end)

  it("// % ^ & | ~ << >> and unary ~ on tensors and numbers", function()
    local a = dlx.tensor({ 12, -7 })
    assert.are.same({ 2, -2 }, (a // 5):totable())
    assert.are.same({ 2, 3 }, (a % 5):totable())
    assert.are.same({ 144, 49 }, (a ^ 2):totable())
    assert.are.same({ 4, 1 }, (a & 5):totable())
    assert.are.same({ 13, -3 }, (5 | a):totable())
    assert.are.same({ 9, -4 }, (a ~ 5):totable())
    assert.are.same({ 48, -28 }, (a << 2):totable())
    assert.are.same({ 3, -2 }, (a >> 2):totable())
    assert.are.same({ -13, 6 }, (~a):totable())
    assert.are.same({ 2, 3 }, (17 // dlx.tensor({ 8, 5 })):totable())
  end)

  it("in place and out= for comparisons: bool casts up to any kind", function()
    local t = dlx.tensor({ 1, 5 }, { dtype = "float32" })
    t:gt_(2)
    assert.are.same({ 0, 1 }, t:totable())
    local out = dlx.empty({ 2 }, { dtype = "int32" })
    dlx.eq(dlx.tensor({ 1, 2 }), 2, { out = out })
    assert.are.same({ 0, 1 }, out:totable())
  end)
end)

describe("dtypes an op refuses", function()
  it("are a TypeError naming the op and the dtype", function()
    local f = dlx.ones({ 2 })
    local err = h.raises("TypeError", function() return f & 1 end)
    assert.truthy(err:find("bitwise_and", 1, true) and err:find("float32", 1, true))
    h.raises("TypeError", function() return f << 1 end)
    h.raises("TypeError", function() return dlx.tensor({ true }) << dlx.tensor({ true }) end)
    assert.are.equal("int64", (dlx.tensor({ true }) << 1).dtype) -- bool and an integer: int64
    local z = dlx.tensor({ { re = 1, im = 1 } })
    h.raises("TypeError", function() return z:lt(z) end)
    h.raises("TypeError", function() return z // z end)
    h.raises("TypeError", function() return dlx.maximum(z, z) end)
    h.raises("TypeError", function() return dlx.atan2(z, 1) end)
    h.raises("TypeError", function() return dlx.tensor({ true }) // dlx.tensor({ true }) end)
    h.raises("TypeError", function() return dlx.tensor({ 1.5 }) | 1 end)
  end)
end)
