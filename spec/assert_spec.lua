-- require "dlx.assert": assert.tensor_equal, assert.tensor_close, the tensor formatter, and
-- tensors in assert.are.same; the failure messages are checked through pcall.
local h = require "spec.helper"
local dlx = h.dlx
local dlx_assert = require "dlx.assert"

local nan = 0 / 0

-- The message of a failing assertion call.
local function failure(fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "the assertion passed")
  return tostring(err)
end

local function has(text, piece)
  assert(text:find(piece, 1, true), ("%q not found in:\n%s"):format(piece, text))
end

describe("assert.tensor_equal(expected, actual[, opts])", function()
  it("passes for the same shape, dtype and values", function()
    assert.tensor_equal(dlx.tensor({ { 1, 2 }, { 3, 4 } }), dlx.tensor({ { 1, 2 }, { 3, 4 } }))
    assert.tensor_equal(dlx.zeros({ 0, 3 }), dlx.zeros({ 0, 3 }))
    assert.tensor_equal(dlx.tensor(5), dlx.tensor(5))
    assert.are.tensor_equal(dlx.tensor({ true }), dlx.tensor({ true }))
  end)

  it("takes expected as a table of values or one value, in actual's dtype", function()
    assert.tensor_equal({ 1, 2 }, dlx.tensor({ 1, 2 }, { dtype = "uint8" }))
    assert.tensor_equal({ { 1.5 }, { 2.5 } }, dlx.tensor({ { 1.5 }, { 2.5 } }))
    assert.tensor_equal(7, dlx.full({ 2, 2 }, 7, { dtype = "int16" }))
    has(failure(assert.tensor_equal, 7, dlx.tensor({ 7, 8 })), "first mismatch at index {2}")
  end)

  it("treats NaN as equal to NaN unless equal_nan = false", function()
    assert.tensor_equal(dlx.tensor({ 1, nan }), dlx.tensor({ 1, nan }))
    local msg = failure(assert.tensor_equal, dlx.tensor({ 1, nan }), dlx.tensor({ 1, nan }),
      { equal_nan = false })
    has(msg, "first mismatch at index {2}: expected nan, actual nan")
  end)

  it("shows the first mismatching index, the values, and the largest differences", function()
    local msg = failure(assert.tensor_equal, dlx.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }),
      dlx.tensor({ { 1, 2, 3 }, { 4, 7, 16 } }))
    has(msg, "Expected tensors to be equal:")
    has(msg, "the values differ")
    has(msg, "shapes: expected {2, 3}, actual {2, 3}")
    has(msg, "dtypes: expected int64, actual int64")
    has(msg, "mismatched elements: 2 / 6 (33.3%)")
    has(msg, "first mismatch at index {2, 2}: expected 5, actual 7")
    has(msg, "greatest absolute difference: 10. at index {2, 3}")
    has(msg, "greatest relative difference: 1.6666666666666667 at index {2, 3}")
  end)

  it("fails on different dtypes unless check_dtype = false", function()
    local a, b = dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 2 }, { dtype = "float32" })
    local msg = failure(assert.tensor_equal, a, b)
    has(msg, "the dtypes differ")
    has(msg, "dtypes: expected int64, actual float32")
    assert.tensor_equal(a, b, { check_dtype = false })
  end)

  it("fails on different shapes and prints both tensors", function()
    local msg = failure(assert.tensor_equal, dlx.tensor({ 1, 2 }), dlx.tensor({ { 1, 2 } }))
    has(msg, "the shapes differ")
    has(msg, "shapes: expected {2}, actual {1, 2}")
    has(msg, "expected: tensor([1, 2], shape={2}, dtype=int64, device=cpu)")
    has(msg, "actual:   tensor([[1, 2]], shape={1, 2}, dtype=int64, device=cpu)")
  end)

  it("fails when actual is not a tensor", function()
    has(failure(assert.tensor_equal, { 1 }, { 1 }), "actual is a table, not a tensor")
    has(failure(assert.tensor_equal, dlx.tensor({ 1 }), 1), "actual is a number, not a tensor")
  end)

  it("puts a message given last before the report", function()
    local msg = failure(assert.tensor_equal, dlx.tensor({ 1 }), dlx.tensor({ 2 }), "row sums")
    has(msg, "row sums\nExpected tensors to be equal:")
    msg = failure(assert.tensor_equal, dlx.tensor({ 1 }), dlx.tensor({ 2 }), {}, "with opts")
    has(msg, "with opts\nExpected tensors to be equal:")
  end)

  it("can be negated", function()
    assert.is_not.tensor_equal(dlx.tensor({ 1 }), dlx.tensor({ 2 }))
    local msg = failure(assert.is_not.tensor_equal, dlx.tensor({ 1 }), dlx.tensor({ 1 }))
    has(msg, "Expected tensors to differ:")
    has(msg, "the values are equal")
  end)

  it("checks its options", function()
    local t = dlx.tensor({ 1 })
    h.raises("TypeError", assert.tensor_equal, t, t, { rtol = 1 })
    h.raises("TypeError", assert.tensor_equal, t, t, { equal_nan = "no" })
  end)
end)

describe("assert.tensor_close(expected, actual[, opts])", function()
  it("passes within rtol and atol (defaults 1e-5 and 1e-8)", function()
    assert.tensor_close(dlx.tensor({ 1.0, 2.0, 3.0 }), dlx.tensor({ 1, 2, 3.00001 }))
    assert.tensor_close(dlx.tensor({ 1.0, 2.0 }), dlx.tensor({ 1.05, 2.1 }), { rtol = 0.05 })
    assert.tensor_close({ 0, 1 }, dlx.tensor({ 0.001, 1 }), { atol = 0.01 })
    assert.tensor_close(dlx.tensor({ 1 / 0, nan }), dlx.tensor({ 1 / 0, nan }))
  end)

  it("shows where and by how much the tensors differ", function()
    local expected = dlx.tensor({ { 1, 2 }, { 3, 4 } }, { dtype = "float64" })
    local actual = dlx.tensor({ { 1, 2.5 }, { 3, 4.4 } }, { dtype = "float64" })
    local msg = failure(assert.tensor_close, expected, actual, { rtol = 1e-3, atol = 1e-6 })
    has(msg, "Expected tensors to be close:")
    has(msg, "the values are not close")
    has(msg, "shapes: expected {2, 2}, actual {2, 2}")
    has(msg, "dtypes: expected float64, actual float64")
    has(msg, "mismatched elements: 2 / 4 (50.0%)")
    has(msg, "first mismatch at index {1, 2}: expected 2., actual 2.5")
    has(msg, "greatest absolute difference: 0.5 at index {1, 2} (atol 1e-06)")
    has(msg, "greatest relative difference: 0.25 at index {1, 2} (rtol 0.001)")
  end)

  it("counts only the mismatching elements in the largest differences", function()
    local expected = dlx.tensor({ 1000, 1 }, { dtype = "float64" })
    local actual = dlx.tensor({ 1000.5, 1.1 }, { dtype = "float64" })
    local msg = failure(assert.tensor_close, expected, actual, { rtol = 1e-3 })
    has(msg, "mismatched elements: 1 / 2 (50.0%)")
    has(msg, "greatest absolute difference: 0.10000000000000009 at index {2}")
  end)

  it("shows NaN and infinities at the first mismatch", function()
    local msg = failure(assert.tensor_close, dlx.tensor({ 1, 1 / 0 }), dlx.tensor({ 1, -1 / 0 }))
    has(msg, "first mismatch at index {2}: expected inf, actual -inf")
    has(msg, "greatest absolute difference: inf at index {2}")
    msg = failure(assert.tensor_close, dlx.tensor({ 1.0 }), dlx.tensor({ nan }),
      { equal_nan = false })
    has(msg, "first mismatch at index {1}: expected 1., actual nan")
  end)

  it("compares complex tensors and reports 0-d ones", function()
    assert.tensor_close({ { re = 1, im = 2 } }, dlx.tensor({ { re = 1, im = 2.000001 } }))
    local msg = failure(assert.tensor_close, dlx.tensor(1.0), dlx.tensor(2.0))
    has(msg, "first mismatch at index {}: expected 1., actual 2.")
    has(msg, "shapes: expected {}, actual {}")
  end)

  it("prints float32 values with the shortest digits that read back", function()
    local msg = failure(assert.tensor_close, dlx.tensor({ 123456.789 }), dlx.tensor({ 123458.5 }))
    has(msg, "expected 123456.79, actual 123458.5")
  end)

  it("checks its options", function()
    local t = dlx.tensor({ 1.0 })
    h.raises("TypeError", assert.tensor_close, t, t, { rtol = "x" })
    h.raises("TypeError", assert.tensor_close, t, t, { tolerance = 1 })
    h.raises("ValueError", assert.tensor_close, t, t, { atol = -1 })
  end)
end)

describe("tensors in luassert's messages and assert.are.same", function()
  it("formats tensors with tostring", function()
    local t = dlx.tensor({ 1, 2 })
    assert.equal(tostring(t), dlx_assert.formatter(t))
    assert.is_nil(dlx_assert.formatter({ 1, 2 }))
    local msg = failure(assert.is_nil, t)
    has(msg, "tensor([1, 2], shape={2}, dtype=int64, device=cpu)")
  end)

  it("formats closed tensors", function()
    local t = dlx.zeros({ 2 })
    t:close()
    assert.equal("tensor(<closed>)", dlx_assert.formatter(t))
  end)

  it("compares tensors by shape, dtype and values in assert.are.same", function()
    assert.are.same(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 2 }))
    assert.are.same({ x = dlx.tensor({ 1, 2 }), n = 1 }, { x = dlx.tensor({ 1, 2 }), n = 1 })
    assert.are_not.same(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 3 }))
    assert.are_not.same(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 2 }, { dtype = "int32" }))
    assert.are_not.same(dlx.tensor({ 1, 2 }), dlx.tensor({ { 1, 2 } }))
    assert.are_not.same({ x = dlx.tensor({ 1 }) }, { x = dlx.tensor({ 2 }) })
    local msg = failure(assert.are.same, dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 3 }))
    has(msg, "Expected:\ntensor([1, 2], shape={2}")
    has(msg, "Passed in:\ntensor([1, 3], shape={2}")
  end)

  it("leaves == as identity and assert.are.equal as luassert's", function()
    local a, b = dlx.tensor({ 1 }), dlx.tensor({ 1 })
    assert.is_false(a == b)
    assert.are_not.equal(a, b)
    assert.are.equal(a, a)
  end)

  it("keeps luassert's same for other values", function()
    assert.are.same({ 1, { 2 } }, { 1, { 2 } })
    assert.are_not.same({ 1 }, { 2 })
    assert.are.same("x", "x")
  end)

  it("can be required again without stacking formatters", function()
    package.loaded["dlx.assert"] = nil
    local again = require "dlx.assert"
    assert.are.same(dlx.tensor({ 1, 2 }), dlx.tensor({ 1, 2 }))
    local msg = failure(assert.is_nil, dlx.tensor({ 3 }))
    has(msg, "tensor([3]")
    assert.is_function(again.formatter)
  end)
end)

describe("require \"dlx.assert\" without luassert", function()
  it("is a clear error", function()
    local saved_loaded, saved_searchers = {}, package.searchers
    for name, value in pairs(package.loaded) do
      if name == "luassert" or name == "dlx.assert" then saved_loaded[name] = value end
    end
    package.loaded.luassert, package.loaded["dlx.assert"] = nil, nil
    package.searchers = {
      function(name)
        if name == "luassert" then return "\n\tno luassert in this test" end
        return saved_searchers[2](name)
      end,
    }
    local ok, err = pcall(require, "dlx.assert")
    package.searchers = saved_searchers
    for name, value in pairs(saved_loaded) do package.loaded[name] = value end
    assert.is_false(ok)
    has(tostring(err), "dlx.assert needs luassert")
  end)
end)
