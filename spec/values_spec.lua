-- Values in Lua: item and totable, for every computing dtype, views, 0-d and empty tensors.
local h = require "spec.helper"
local dlx = h.dlx

describe("item", function()
  it("returns the value of a one-element tensor of any ndim", function()
    h.exact(7, dlx.tensor(7):item())
    h.exact(7, dlx.tensor({ 7 }):item())
    h.exact(7, dlx.tensor({ { { 7 } } }):item())
    h.exact(0.0, dlx.zeros({ 1, 1, 1 }):item())
    h.exact(4, dlx.arange(6):view({ 2, 3 }):select(1, 2):select(1, 2):item())
  end)

  it("gives integers for integer dtypes, floats for float dtypes", function()
    for _, dt in ipairs({ "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
      "uint64" }) do
      local v = dlx.full({ 1 }, 3, { dtype = dt }):item()
      assert.equal("integer", math.type(v), dt)
      assert.equal(3, v)
    end
    for _, dt in ipairs({ "float16", "bfloat16", "float32", "float64" }) do
      local v = dlx.full({ 1 }, 3, { dtype = dt }):item()
      assert.equal("float", math.type(v), dt)
      assert.equal(3, v)
    end
  end)

  it("gives booleans for bool and {re, im} tables for complex", function()
    assert.equal(true, dlx.tensor({ true }):item())
    assert.equal(false, dlx.tensor(false):item())
    h.exact({ re = 1.5, im = -2.0 }, dlx.tensor({ re = 1.5, im = -2 }, { dtype = "complex128" })
      :item())
  end)

  it("reads the element a view starts at, for every dtype, as totable does", function()
    for _, dt in ipairs({ "bool", "int8", "int32", "int64", "uint32", "float16", "float32",
      "float64" }) do
      local values = dt == "bool" and { false, true, false, true, true, false }
        or { 1, -2, 3, 4, 5, 6 }
      if dt:find("^u") then values = { 1, 2, 3, 4, 250, 6 } end
      local t = dlx.tensor(values, { dtype = dt }):view({ 2, 3 })
      local expect = t:totable()
      for i = 1, 2 do
        for j = 1, 3 do
          assert.equal(expect[i][j], t:select(1, i):select(1, j):item(), dt)
          assert.equal(expect[i][j], t:transpose(1, 2):slice(1, j, j):slice(2, i, i):item(), dt)
        end
      end
    end
    h.exact(-2.5, dlx.tensor({ 1, -2.5 }, { dtype = "float64" }):slice(1, 2, 2):item())
    h.exact(math.mininteger, dlx.tensor({ 0, math.mininteger }):select(1, 2):item())
  end)

  it("gives the float32 value, not the Lua literal", function()
    h.exact(0.10000000149011612, dlx.tensor(0.1):item())
  end)

  it("gives the extremes of int64 exactly", function()
    h.exact(math.maxinteger, dlx.tensor(math.maxinteger):item())
    h.exact(math.mininteger, dlx.tensor(math.mininteger):item())
  end)

  it("gives uint64 values above math.maxinteger as floats", function()
    local u = dlx.tensor({ -1 }):astype("uint64")
    local v = u:item()
    assert.equal("float", math.type(v))
    assert.equal(18446744073709551615.0, v)
    local w = dlx.tensor({ math.mininteger }):astype("uint64"):item()
    assert.equal("float", math.type(w))
    assert.equal(9223372036854775808.0, w)
    local m = dlx.tensor({ math.maxinteger }):astype("uint64"):item()
    assert.equal("integer", math.type(m))
    assert.equal(math.maxinteger, m)
  end)

  it("is a ValueError for more or fewer than one element", function()
    local two = dlx.zeros({ 2 })
    h.raises("ValueError", two.item, two)
    local none = dlx.zeros({ 0 })
    h.raises("ValueError", none.item, none)
    local mat = dlx.zeros({ 1, 2 })
    h.raises("ValueError", mat.item, mat)
  end)
end)

describe("totable", function()
  it("returns nested tables in logical order", function()
    h.exact({ { 0, 1, 2 }, { 3, 4, 5 } }, dlx.arange(6):view({ 2, 3 }):totable())
    h.exact({ { { 0, 1 } }, { { 2, 3 } } }, dlx.arange(4):view({ 2, 1, 2 }):totable())
  end)

  it("returns a plain value for a 0-d tensor", function()
    h.exact(5, dlx.tensor(5):totable())
    h.exact(2.5, dlx.tensor(2.5):totable())
    h.exact(true, dlx.tensor(true):totable())
    h.exact({ re = 1.0, im = 2.0 }, dlx.tensor({ re = 1, im = 2 }):totable())
  end)

  it("returns empty tables for zero-size dims", function()
    h.exact({}, dlx.zeros({ 0 }):totable())
    h.exact({ {}, {} }, dlx.zeros({ 2, 0 }):totable())
    h.exact({}, dlx.zeros({ 0, 2 }):totable())
  end)

  it("returns complex numbers as {re, im} tables", function()
    local c = dlx.tensor({ { { re = 1, im = 2 }, { re = 3, im = 4 } } }, { dtype = "complex128" })
    h.exact({ { { re = 1.0, im = 2.0 }, { re = 3.0, im = 4.0 } } }, c:totable())
  end)

  it("returns booleans for bool", function()
    h.exact({ { true, false }, { false, true } },
      dlx.tensor({ { true, false }, { false, true } }):totable())
  end)

  it("returns the values of float16 and bfloat16", function()
    h.exact({ 0.0999755859375, -2.0 }, dlx.tensor({ 0.1, -2 }, { dtype = "float16" }):totable())
    h.exact({ 0.10009765625, 256.0 }, dlx.tensor({ 0.1, 256 }, { dtype = "bfloat16" }):totable())
  end)

  it("returns uint64 values above math.maxinteger as floats", function()
    h.exact({ 18446744073709551615.0, 1 }, dlx.tensor({ -1, 1 }):astype("uint64"):totable())
  end)

  it("follows views: transposed, flipped, expanded, stepped", function()
    local t = dlx.arange(6):view({ 2, 3 })
    h.exact({ { 0, 3 }, { 1, 4 }, { 2, 5 } }, t:transpose(1, 2):totable())
    h.exact({ { 5, 4, 3 }, { 2, 1, 0 } }, t:flip({ 1, 2 }):totable())
    h.exact({ { 0, 1, 2 }, { 0, 1, 2 } }, t:select(1, 1):expand({ 2, 3 }):totable())
    h.exact({ { 0, 2 }, { 3, 5 } }, t:slice(2, 1, 3, 2):totable())
  end)

  it("round-trips through dlx.tensor", function()
    local data = { { 1.5, -2.25 }, { 3.0, 4.5 } }
    h.exact(data, dlx.tensor(data, { dtype = "float64" }):totable())
    local ints = { { 1, -2, 3 }, { math.maxinteger, math.mininteger, 0 } }
    h.exact(ints, dlx.tensor(ints):totable())
  end)
end)
