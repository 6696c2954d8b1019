-- tostring: values, shape, dtype and device, summaries beyond 1000 elements.
local h = require "spec.helper"
local dlx = h.dlx

describe("tostring(t)", function()
  it("prints an int64 matrix exactly as the README's tour shows", function()
    assert.equal("tensor([[1, 2], [3, 4]], shape={2, 2}, dtype=int64, device=cpu)",
      tostring(dlx.tensor({ { 1, 2 }, { 3, 4 } })))
    assert.equal("tensor([[0, 1, 2], [3, 4, 5]], shape={2, 3}, dtype=int64, device=cpu)",
      tostring(dlx.arange(6):view({ 2, 3 })))
  end)

  it("prints a 1-d tensor", function()
    assert.equal("tensor([1, 2, 3], shape={3}, dtype=int64, device=cpu)",
      tostring(dlx.tensor({ 1, 2, 3 })))
  end)

  it("prints views in their logical order", function()
    local t = dlx.tensor({ { 1, 2 }, { 3, 4 } })
    assert.truthy(tostring(t:transpose(1, 2)):find("[[1, 3], [2, 4]]", 1, true))
    assert.truthy(tostring(dlx.tensor({ 1, 2, 3 }):flip(1)):find("[3, 2, 1]", 1, true))
    assert.truthy(tostring(dlx.tensor({ 7 }):expand({ 3 })):find("[7, 7, 7]", 1, true))
  end)

  it("prints a 0-d tensor as its value", function()
    local s = tostring(dlx.tensor(5))
    assert.truthy(s:find("tensor(5,", 1, true), s)
    assert.truthy(s:find("shape={}", 1, true), s)
  end)

  it("prints the dtype and the values of floats", function()
    local s = tostring(dlx.tensor({ 1.5, -2.25 }))
    assert.truthy(s:find("dtype=float32", 1, true), s)
    assert.truthy(s:find("1.5", 1, true), s)
    assert.truthy(s:find("-2.25", 1, true), s)
    assert.truthy(s:find("shape={2}", 1, true), s)
    assert.truthy(s:find("device=cpu", 1, true), s)
  end)

  it("prints booleans and complex values", function()
    local b = tostring(dlx.tensor({ true, false }))
    assert.truthy(b:find("true", 1, true), b)
    assert.truthy(b:find("false", 1, true), b)
    assert.truthy(b:find("dtype=bool", 1, true), b)
    local c = tostring(dlx.tensor({ { re = 1, im = 2 } }))
    assert.truthy(c:find("dtype=complex64", 1, true), c)
    assert.truthy(c:find("1", 1, true) and c:find("2", 1, true), c)
  end)

  it("prints NaN and infinities without failing", function()
    local s = tostring(dlx.tensor({ 0 / 0, 1 / 0, -1 / 0 }, { dtype = "float64" }))
    assert.truthy(s:lower():find("nan", 1, true), s)
    assert.truthy(s:lower():find("inf", 1, true), s)
  end)

  it("prints empty tensors", function()
    local s = tostring(dlx.zeros({ 0 }))
    assert.truthy(s:find("[]", 1, true), s)
    assert.truthy(s:find("shape={0}", 1, true), s)
    local u = tostring(dlx.zeros({ 2, 0 }))
    assert.are.equal("tensor([], shape={2, 0}, dtype=float32, device=cpu)", u)
    -- no row is walked: a billion empty rows print at once
    local huge = dlx.zeros({ 1, 0 }):expand({ 2 ^ 30, 0 })
    assert.are.equal("tensor([], shape={1073741824, 0}, dtype=float32, device=cpu)", tostring(huge))
  end)

  it("prints 1000 elements in full", function()
    local s = tostring(dlx.arange(1000))
    assert.falsy(s:find("...", 1, true))
    assert.truthy(s:find("500, 501", 1, true))
    assert.truthy(s:find("998, 999]", 1, true))
  end)

  it("summarises more than 1000 elements with three from each end", function()
    local s = tostring(dlx.arange(2000))
    assert.truthy(s:find("[0, 1, 2, ..., 1997, 1998, 1999]", 1, true), s)
    assert.falsy(s:find("1000", 1, true))
    assert.truthy(s:find("shape={2000}", 1, true), s)
  end)

  it("summarises every dim of a large matrix", function()
    local s = tostring(dlx.arange(1200):view({ 40, 30 }))
    assert.truthy(s:find("[0, 1, 2, ..., 27, 28, 29]", 1, true), s)
    assert.truthy(s:find("[1170, 1171, 1172, ..., 1197, 1198, 1199]", 1, true), s)
    assert.falsy(s:find("[90,", 1, true), s) -- row 4 is left out
    assert.truthy(s:find("...", 1, true))
  end)

  it("works on a closed tensor", function()
    local t = dlx.zeros({ 2 })
    t:close()
    assert.is_string(tostring(t))
  end)

  it("prints devices", function()
    assert.equal("cpu", tostring(dlx.device("cpu")))
  end)
end)
