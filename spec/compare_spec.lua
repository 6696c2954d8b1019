-- dlx.equal, dlx.allclose and t:isclose: NumPy's array_equal and isclose semantics.
local h = require "spec.helper"
local dlx = h.dlx

local nan, inf = 0 / 0, math.huge

local function bools(t) return t:totable() end

describe("t:isclose(other[, opts])", function()
  it("uses |a - b| <= atol + rtol * |b| with NumPy's defaults (rtol 1e-5, atol 1e-8)", function()
    local a = dlx.tensor({ 1, 1, 100, 0, 0 }, { dtype = "float64" })
    local b = dlx.tensor({ 1 + 1e-6, 1 + 2e-5, 100.0009, 1e-9, 1e-7 }, { dtype = "float64" })
    local close = a:isclose(b)
    assert.equal("bool", close.dtype)
    assert.same({ true, false, true, true, false }, bools(close))
  end)

  it("is asymmetric as NumPy's: the tolerance grows with |other|", function()
    local a = dlx.tensor({ 10 }, { dtype = "float64" })
    local b = dlx.tensor({ 11 }, { dtype = "float64" })
    assert.same({ true }, bools(a:isclose(b, { rtol = 0.0909091, atol = 0 })))  -- 1 <= 1.0000001
    assert.same({ false }, bools(b:isclose(a, { rtol = 0.0909091, atol = 0 }))) -- 1 > 0.909091
  end)

  it("takes rtol and atol", function()
    local a = dlx.tensor({ 1.0, 2.0 })
    local b = dlx.tensor({ 1.1, 2.5 })
    assert.same({ true, false }, bools(a:isclose(b, { atol = 0.2 })))
    assert.same({ true, true }, bools(a:isclose(b, { rtol = 0.25 })))
    assert.same({ false, false }, bools(a:isclose(b, { rtol = 0, atol = 0 })))
    assert.same({ true }, bools(dlx.tensor({ 3.0 }):isclose(3.0, { rtol = 0, atol = 0 })))
  end)

  it("treats infinities as close only to themselves, and NaN only with equal_nan", function()
    local a = dlx.tensor({ inf, inf, -inf, nan, nan, 1, 1 }, { dtype = "float64" })
    local b = dlx.tensor({ inf, -inf, -inf, nan, 1, nan, inf }, { dtype = "float64" })
    assert.same({ true, false, true, false, false, false, false }, bools(a:isclose(b)))
    assert.same({ true, false, true, true, false, false, false },
      bools(a:isclose(b, { equal_nan = true })))
    -- a finite value is not close to inf even though |x - inf| <= rtol * inf
    assert.same({ false }, bools(dlx.tensor({ 1e308 }, { dtype = "float64" }):isclose(inf)))
  end)

  it("broadcasts its operands", function()
    local a = dlx.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, { dtype = "float32" })
    local b = dlx.tensor({ 1, 5, 3 }, { dtype = "float32" })
    local close = a:isclose(b)
    assert.same({ 2, 3 }, close.shape)
    assert.same({ { true, false, true }, { false, true, false } }, bools(close))
    assert.same({ 2, 3 }, a:isclose(dlx.tensor({ { 1 }, { 4 } }, { dtype = "float32" })).shape)
  end)

  it("takes a Lua number or complex table as the other operand, in either order", function()
    local a = dlx.tensor({ 1, 2, 1.000001 })
    assert.same({ true, false, true }, bools(a:isclose(1)))
    assert.same({ true, false, true }, bools(dlx.tensor({ 1, 1, 1 }):isclose(dlx.tensor(1.0))
      :logical_and(a:isclose(1.0))))
    assert.is_true(dlx.allclose(1, dlx.tensor({ 1.0, 1.0000001 })))
    local c = dlx.tensor({ { re = 1, im = 2 } })
    assert.same({ true }, bools(c:isclose({ re = 1, im = 2.000001 })))
    assert.same({ false }, bools(c:isclose({ re = 1, im = 2.1 })))
  end)

  it("computes integers in float64, so nothing wraps", function()
    local a = dlx.tensor({ 127, -128, 5 }, { dtype = "int8" })
    local b = dlx.tensor({ -128, 127, 5 }, { dtype = "int8" })
    assert.same({ false, false, true }, bools(a:isclose(b)))
    local big = dlx.tensor({ math.maxinteger }, { dtype = "int64" })
    assert.same({ false }, bools(big:isclose(dlx.tensor({ math.mininteger }, { dtype = "int64" }))))
    assert.same({ true, false }, bools(dlx.tensor({ 100, 100 }):isclose(dlx.tensor({ 101, 112 }),
      { rtol = 0.01, atol = 0 })))
    assert.same({ true, false }, bools(dlx.tensor({ true, false }):isclose(dlx.tensor({ 1, 1 }))))
  end)

  it("compares complex values by the modulus of the difference", function()
    local a = dlx.tensor({ { re = 1, im = 1 }, { re = 3, im = 4 } })
    local b = dlx.tensor({ { re = 1, im = 1.000001 }, { re = 3, im = -4 } })
    assert.same({ true, false }, bools(a:isclose(b)))
    local nans = dlx.tensor({ { re = nan, im = 0 } }, { dtype = "complex128" })
    assert.same({ false }, bools(nans:isclose(nans)))
    assert.same({ true }, bools(nans:isclose(nans, { equal_nan = true })))
  end)

  it("computes float16 and bfloat16 in float32", function()
    local a = dlx.tensor({ 1, 1000 }, { dtype = "float16" })
    local b = dlx.tensor({ 1.0009765625, 1000 }, { dtype = "float16" })
    assert.same({ false, true }, bools(a:isclose(b)))
    assert.same({ true, true }, bools(a:isclose(b, { rtol = 1e-3 })))
    local c = dlx.tensor({ 1, 2 }, { dtype = "bfloat16" })
    local d = dlx.tensor({ 1, 2.015625 }, { dtype = "bfloat16" })
    assert.same({ true, false }, bools(c:isclose(d)))
  end)

  it("gives an empty result for empty operands", function()
    local close = dlx.zeros({ 0, 3 }):isclose(dlx.zeros({ 3 }))
    assert.same({ 0, 3 }, close.shape)
  end)

  it("checks its options", function()
    local a = dlx.tensor({ 1.0 })
    h.raises("TypeError", function() return a:isclose(a, { rtol = "big" }) end)
    h.raises("ValueError", function() return a:isclose(a, { atol = -1 }) end)
    h.raises("ValueError", function() return a:isclose(a, { rtol = nan }) end)
    h.raises("TypeError", function() return a:isclose(a, { equal_nan = 1 }) end)
    h.raises("TypeError", function() return a:isclose(a, { tolerance = 1 }) end)
    h.raises("TypeError", function() return a:isclose(a, 5) end)
    h.raises("TypeError", function() return a:isclose("1") end)
    h.raises("ValueError", function() return dlx.tensor({ 1, 2 }):isclose(dlx.tensor({ 1, 2, 3 }))
    end)
    h.raises("TypeError", function() return dlx.allclose(1, 2) end)
  end)

  it("raises with the error pointing at the caller's line", function()
    local err = h.raises("TypeError", function()
      local close = dlx.tensor({ 1.0 }):isclose(1, { rtol = "x" })
      return close
    end)
    assert.truthy(err:find("compare_spec.lua", 1, true), err)
  end)
end)

describe("dlx.allclose(a, b[, opts])", function()
  it("is true when every element is close, with broadcasting", function()
    assert.is_true(dlx.allclose(dlx.tensor({ 1, 2, 3 }), dlx.tensor({ 1, 2, 3.00001 })))
    assert.is_false(dlx.allclose(dlx.tensor({ 1, 2, 3 }), dlx.tensor({ 1, 2, 3.1 })))
    assert.is_true(dlx.allclose(dlx.tensor({ 1, 2, 3.1 }), dlx.tensor({ 1, 2, 3 }), { atol = 0.2 }))
    assert.is_true(dlx.allclose(dlx.ones({ 4, 5 }), 1))
    assert.is_true(dlx.allclose(dlx.ones({ 4, 5 }), dlx.ones({ 5 })))
  end)

  it("follows equal_nan", function()
    local a = dlx.tensor({ 1, nan })
    assert.is_false(dlx.allclose(a, a))
    assert.is_true(dlx.allclose(a, a, { equal_nan = true }))
  end)

  it("is true for empty tensors", function()
    assert.is_true(dlx.allclose(dlx.zeros({ 0 }), dlx.ones({ 0 })))
  end)

  it("returns a Lua boolean", function()
    assert.equal("boolean", type(dlx.allclose(dlx.zeros({ 2 }), dlx.zeros({ 2 }))))
  end)
end)

describe("dlx.equal(a, b[, opts])", function()
  it("is true for the same shape and values", function()
    assert.is_true(dlx.equal(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 2 })))
    assert.is_false(dlx.equal(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 3 })))
    assert.is_true(dlx.equal(dlx.tensor({ { 1, 2 }, { 3, 4 } }):transpose(1, 2),
      dlx.tensor({ { 1, 3 }, { 2, 4 } })))
  end)

  it("is false for different shapes, without broadcasting", function()
    assert.is_false(dlx.equal(dlx.tensor({ 1, 2 }), dlx.tensor({ { 1, 2 } })))
    assert.is_false(dlx.equal(dlx.tensor({ 1, 1 }), dlx.tensor({ 1 })))
    assert.is_false(dlx.equal(dlx.tensor(1), dlx.tensor({ 1 })))
    assert.is_true(dlx.equal(dlx.zeros({ 0, 2 }), dlx.ones({ 0, 2 })))
    assert.is_false(dlx.equal(dlx.zeros({ 0, 2 }), dlx.ones({ 2, 0 })))
  end)

  it("compares values across dtypes in the promoted dtype (as NumPy and PyTorch)", function()
    assert.is_true(dlx.equal(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 2 }, { dtype = "float32" })))
    assert.is_true(dlx.equal(dlx.tensor({ 1, 0 }, { dtype = "uint8" }),
      dlx.tensor({ true, false })))
    assert.is_false(dlx.equal(dlx.tensor({ 0.1 }, { dtype = "float32" }),
      dlx.tensor({ 0.1 }, { dtype = "float64" })))
  end)

  it("treats NaN as unequal unless equal_nan", function()
    local a = dlx.tensor({ 1, nan })
    assert.is_false(dlx.equal(a, a))
    assert.is_true(dlx.equal(a, a, { equal_nan = true }))
    assert.is_false(dlx.equal(a, dlx.tensor({ nan, 1 }), { equal_nan = true }))
    assert.is_true(dlx.equal(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 2 }), { equal_nan = true }))
  end)

  it("compares complex and bool tensors", function()
    local c = dlx.tensor({ { re = 1, im = 2 } })
    assert.is_true(dlx.equal(c, dlx.tensor({ { re = 1, im = 2 } })))
    assert.is_false(dlx.equal(c, dlx.tensor({ { re = 1, im = -2 } })))
    assert.is_true(dlx.equal(dlx.tensor({ true, false }), dlx.tensor({ true, false })))
  end)

  it("needs two tensors", function()
    h.raises("TypeError", dlx.equal, dlx.tensor({ 1 }), 1)
    h.raises("TypeError", dlx.equal, { 1 }, dlx.tensor({ 1 }))
    h.raises("TypeError", dlx.equal, dlx.tensor({ 1 }), dlx.tensor({ 1 }), { rtol = 1 })
    h.raises("TypeError", dlx.equal, dlx.tensor({ 1 }), dlx.tensor({ 1 }), { equal_nan = "yes" })
  end)
end)
