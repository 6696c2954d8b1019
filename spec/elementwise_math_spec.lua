-- The math functions (sqrt ... erf) against Lua's math library, per family: each float dtype in
-- every layout, as methods, functions, in place and out=; bools and integers computing in float32;
-- the edges (±0, ±inf, NaN, overflow, the ends of the domains); conj, real and imag. The ulp
-- accuracy of every kernel is measured in C (tests/c/test_cpu_math_ulp.c).
local h = require "spec.helper"
local R = require "spec.elementwise_ref"
local dlx = h.dlx
-- Only the CPU has elementwise kernels so far (CUDA and Level Zero raise a DeviceError).
dlx.set_default_device("cpu")

local INF, NAN = math.huge, 0 / 0
local exp, log, sqrt = math.exp, math.log, math.sqrt

-- erf by its Taylor series: enough for |x| <= 2.5 at float64's precision less a few digits.
local function erf(x)
  local sum, term, n = x, x, 0
  repeat
    n = n + 1
    term = -term * x * x / n
    sum = sum + term / (2 * n + 1)
  until math.abs(term / (2 * n + 1)) < 1e-17 * math.abs(sum)
  return 2 / sqrt(math.pi) * sum
end

local ANY = { { 0.5, -1.25, 2 }, { -0.75, 0.125, 3 } }
local POSITIVE = { { 0.5, 1.25, 2 }, { 0.75, 0.125, 30 } }
local UNIT = { { 0.5, -0.25, 0.9 }, { -0.75, 0.125, 0 } } -- inside (-1, 1)
local ABOVE_ONE = { { 1, 1.25, 2 }, { 7.5, 1.125, 30 } }

local functions = {
  { "sqrt", POSITIVE, sqrt },
  { "rsqrt", POSITIVE, function(x) return 1 / sqrt(x) end },
  { "exp", ANY, exp },
  { "exp2", ANY, function(x) return 2 ^ x end },
  { "expm1", ANY, function(x) return exp(x) - 1 end },
  { "log", POSITIVE, log },
  { "log2", POSITIVE, function(x) return log(x, 2) end },
  { "log10", POSITIVE, function(x) return log(x, 10) end },
  { "log1p", POSITIVE, function(x) return log(1 + x) end },
  { "sin", ANY, math.sin },
  { "cos", ANY, math.cos },
  { "tan", ANY, math.tan },
  { "asin", UNIT, math.asin },
  { "acos", UNIT, math.acos },
  { "atan", ANY, math.atan },
  { "sinh", ANY, function(x) return (exp(x) - exp(-x)) / 2 end },
  { "cosh", ANY, function(x) return (exp(x) + exp(-x)) / 2 end },
  { "tanh", ANY, function(x) return (exp(x) - exp(-x)) / (exp(x) + exp(-x)) end },
  { "asinh", ANY, function(x) return log(x + sqrt(x * x + 1)) end },
  { "acosh", ABOVE_ONE, function(x) return log(x + sqrt(x * x - 1)) end },
  { "atanh", UNIT, function(x) return 0.5 * log((1 + x) / (1 - x)) end },
  { "sigmoid", ANY, function(x) return 1 / (1 + exp(-x)) end },
  { "erf", ANY, erf },
}

-- Relative tolerances: the references above lose a few ulps of float64 themselves (expm1 and
-- sinh near 0 by cancellation); float16 and bfloat16 round to 11 and 8 bits.
local TOLERANCE = { float64 = 1e-13, float32 = 4e-7, float16 = 1e-3, bfloat16 = 8e-3 }

-- The values as the dtype holds them, so that the reference sees the same inputs.
local function stored(values, dtype)
  return dlx.tensor(values, { dtype = dtype }):to("float64"):totable()
end

describe("math functions against Lua's math library", function()
  for _, f in ipairs(functions) do
    local name, values, ref = table.unpack(f)
    for _, dtype in ipairs({ "float32", "float64", "float16", "bfloat16" }) do
      it(name .. " on " .. dtype .. " in every layout", function()
        local want = R.unary(ref, stored(values, dtype))
        local tol = TOLERANCE[dtype]
        for _, l in ipairs(R.layouts(values, dtype)) do
          local got = l[2][name](l[2])
          assert.are.equal(dtype, got.dtype)
          R.same(got:totable(), want, tol, l[1])
          R.same(dlx[name](l[2]):totable(), want, tol, l[1] .. " function")
        end
        local t = dlx.tensor(values, { dtype = dtype })
        local out = dlx.zeros({ 2, 3 }, { dtype = "float64" })
        assert.are.equal(out, dlx[name](t, { out = out }))
        R.same(out:totable(), want, tol, "out=")
        assert.are.equal(t, t[name .. "_"](t))
        R.same(t:totable(), want, tol, "in place")
      end)
    end
  end
end)

describe("math functions of bools and integers", function()
  it("compute in float32 (float64 stays float64)", function()
    local i = dlx.tensor({ 1, 4, 9 }, { dtype = "int32" })
    local r = i:sqrt()
    assert.are.equal("float32", r.dtype)
    assert.are.same({ 1, 2, 3 }, r:totable())
    assert.are.equal("float32", dlx.exp(dlx.tensor({ 1 }, { dtype = "int64" })).dtype)
    assert.are.equal("float32", dlx.tensor({ 1 }, { dtype = "uint8" }):log().dtype)
    local b = dlx.tensor({ true, false }):exp()
    assert.are.equal("float32", b.dtype)
    R.same(b:totable(), { math.exp(1), 1 }, 4e-7)
    assert.are.equal("float64", dlx.tensor({ 1 }, { dtype = "float64" }):exp().dtype)
    assert.are.equal("float16", dlx.tensor({ 1 }, { dtype = "float16" }):exp().dtype)
  end)

  it("refuse to write a float result into an integer tensor in place", function()
    local i = dlx.tensor({ 1, 4 }, { dtype = "int32" })
    h.raises("TypeError", function() i:sqrt_() end)
    assert.are.same({ 1, 4 }, i:totable())
    local out = dlx.zeros({ 2 }, { dtype = "float64" })
    dlx.sqrt(i, { out = out })
    assert.are.same({ 1, 2 }, out:totable())
  end)

  it("are not defined for complex operands", function()
    local z = dlx.tensor({ { re = 1, im = 1 } }, { dtype = "complex64" })
    for _, f in ipairs(functions) do
      h.raises("TypeError", function() z[f[1]](z) end)
    end
  end)
end)

describe("math functions at the edges", function()
  local function values(name, inputs, dtype)
    return dlx.tensor(inputs, { dtype = dtype })[name](dlx.tensor(inputs, { dtype = dtype }))
      :totable()
  end

  for _, dtype in ipairs({ "float32", "float64" }) do
    it("give IEEE's special values in " .. dtype, function()
      R.same(values("exp", { -INF, INF, NAN, 0 }, dtype), { 0, INF, NAN, 1 })
      R.same(values("exp", { 1000, -1000 }, dtype), { INF, 0 })
      R.same(values("log", { 0, -0.0, -1, INF, 1 }, dtype), { -INF, -INF, NAN, INF, 0 })
      R.same(values("sqrt", { -1, INF, 0 }, dtype), { NAN, INF, 0 })
      R.same(values("rsqrt", { 0, INF, -1 }, dtype), { INF, 0, NAN })
      R.same(values("tanh", { -INF, INF, 1000 }, dtype), { -1, 1, 1 })
      R.same(values("atanh", { 1, -1, 2 }, dtype), { INF, -INF, NAN })
      R.same(values("asin", { 2, -2 }, dtype), { NAN, NAN })
      R.same(values("acosh", { 0.5, 1 }, dtype), { NAN, 0 })
      R.same(values("sin", { INF, NAN }, dtype), { NAN, NAN })
      R.same(values("erf", { INF, -INF, 10 }, dtype), { 1, -1, 1 })
      R.same(values("expm1", { -INF, INF }, dtype), { -1, INF })
      R.same(values("log1p", { -1, -2 }, dtype), { -INF, NAN })
    end)

    it("keep the sign of zero in " .. dtype, function()
      for _, name in ipairs({ "sqrt", "expm1", "log1p", "sin", "tan", "asin", "atan", "sinh",
        "tanh", "asinh", "atanh", "erf" }) do
        local r = values(name, { -0.0 }, dtype)[1]
        assert.are.equal(-INF, 1 / r, name)
      end
      assert.are.equal(-INF, values("rsqrt", { -0.0 }, dtype)[1])
    end)

    it("sigmoid is stable for large |x| in " .. dtype, function()
      local r = values("sigmoid", { -INF, INF, -1000, 1000, 0, NAN }, dtype)
      R.same(r, { 0, 1, 0, 1, 0.5, NAN })
      -- far in the tail, the small results keep their precision instead of rounding to 0
      local tail = values("sigmoid", { -80 }, dtype)[1]
      R.same({ tail }, { math.exp(-80) }, dtype == "float32" and 4e-7 or 1e-13)
    end)
  end

  it("stay finite up to the overflow threshold", function()
    local r = values("exp", { 88.7, 709.7 }, "float64")
    assert.is_true(r[1] < INF and r[2] < INF)
    R.same(values("cosh", { 709.7 }, "float64"), { math.exp(709.7) / 2 }, 1e-13)
    R.same(values("sinh", { -710 }, "float64"), { -math.exp(709) * math.exp(1) / 2 }, 1e-13)
    assert.are.equal(INF, values("cosh", { 711 }, "float64")[1])
    R.same(values("exp", { 88.7 }, "float32"), { math.exp(88.7) }, 1e-5)
    assert.are.equal(INF, values("exp", { 89 }, "float32")[1])
  end)

  it("give subnormal results and take subnormal inputs", function()
    local tiny = 2 ^ -1074
    assert.are.equal(tiny, values("sin", { tiny }, "float64")[1])
    assert.are.equal(tiny, values("log1p", { tiny }, "float64")[1])
    local e = values("exp", { -740 }, "float64")[1]
    assert.is_true(e > 0 and e < 2 ^ -1022)
    R.same(values("log", { tiny }, "float64"), { -1074 * math.log(2) }, 1e-15)
    R.same(values("exp2", { -140 }, "float32"), { 2 ^ -140 })
  end)
end)

describe("conj, real and imag", function()
  local z = dlx.tensor({ { re = 1, im = 2 }, { re = -3, im = -0.5 } }, { dtype = "complex128" })

  it("split and conjugate complex values", function()
    assert.are.same({ 1, -3 }, z:real():totable())
    assert.are.equal("float64", z:real().dtype)
    assert.are.same({ 2, -0.5 }, z:imag():totable())
    assert.are.equal("float32", dlx.tensor({ { re = 1, im = 2 } }, { dtype = "complex64" })
      :imag().dtype)
    assert.are.same({ { re = 1, im = -2 }, { re = -3, im = 0.5 } }, z:conj():totable())
    assert.are.same({ 2, -0.5 }, dlx.imag(z:flip()):flip():totable())
  end)

  it("leave real tensors as they are, imag giving zeros of their dtype", function()
    local i = dlx.tensor({ { 1, -2 }, { 3, 4 } }, { dtype = "int16" })
    for _, l in ipairs(R.layouts({ { 1, -2 }, { 3, 4 } }, "int16")) do
      assert.are.same({ { 1, -2 }, { 3, 4 } }, l[2]:conj():totable(), l[1])
      assert.are.same({ { 1, -2 }, { 3, 4 } }, l[2]:real():totable(), l[1])
      assert.are.same({ { 0, 0 }, { 0, 0 } }, l[2]:imag():totable(), l[1])
    end
    assert.are.equal("int16", i:imag().dtype)
    assert.are.same({ false, false }, dlx.tensor({ true, false }):imag():totable())
    local f = dlx.tensor({ 1.5, NAN }, { dtype = "float16" })
    R.same(f:real():totable(), { 1.5, NAN })
    assert.are.equal("float16", f:conj().dtype)
  end)

  it("work in place and into out=", function()
    local w = dlx.tensor({ { re = 1, im = 2 } }, { dtype = "complex64" })
    assert.are.equal(w, w:conj_())
    assert.are.same({ { re = 1, im = -2 } }, w:totable())
    local out = dlx.zeros({ 2 }, { dtype = "float32" })
    dlx.real(z, { out = out })
    assert.are.same({ 1, -3 }, out:totable())
    -- real of complex into the complex tensor itself: the imaginary parts become 0
    local v = dlx.tensor({ { re = 5, im = 6 } }, { dtype = "complex128" })
    v:real_()
    assert.are.same({ { re = 5, im = 0 } }, v:totable())
  end)
end)
