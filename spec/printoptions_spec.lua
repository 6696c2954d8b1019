-- Printing: the shortest digits that read back at the tensor's dtype, dlx.set_printoptions and
-- dlx.get_printoptions (precision, threshold, edgeitems, linewidth), line wrapping.
local h = require "spec.helper"
local dlx = h.dlx

-- The values part of tostring(t): what lies between "tensor(" and ", shape=".
local function values(t)
  return tostring(t):match("^tensor%((.-),%s+shape=")
end

describe("printing floats", function()
  after_each(function() dlx.set_printoptions("default") end)

  it("uses the shortest digits that read back as the same float32", function()
    assert.equal("[123456.79]", values(dlx.tensor({ 123456.789 }, { dtype = "float32" })))
    assert.equal("[0.1, 0.2, 0.3]", values(dlx.tensor({ 0.1, 0.2, 0.3 }, { dtype = "float32" })))
    assert.equal("[0.33333334]", values(dlx.tensor({ 1 / 3 }, { dtype = "float32" })))
    assert.equal("[16777216.]", values(dlx.tensor({ 16777216 }, { dtype = "float32" })))
    -- digits past the shortest are zeros, as NumPy writes them
    assert.equal("[355591070.]", values(dlx.tensor({ 355591072 }, { dtype = "float32" })))
  end)

  it("uses float64's own shortest digits", function()
    assert.equal("[0.1, 0.3333333333333333]",
      values(dlx.tensor({ 0.1, 1 / 3 }, { dtype = "float64" })))
    assert.equal("[123456.789]", values(dlx.tensor({ 123456.789 }, { dtype = "float64" })))
    assert.equal("[0.30000000000000004]",
      values(dlx.tensor({ 0.1 + 0.2 }, { dtype = "float64" })))
  end)

  it("uses float16's and bfloat16's precision", function()
    assert.equal("[0.1, 0.3333, 1000.5, 65500.]",
      values(dlx.tensor({ 0.1, 1 / 3, 1000.5, 65504 }, { dtype = "float16" })))
    assert.equal("[0.1, 0.334, 3.14, 123400.]",
      values(dlx.tensor({ 0.1, 1 / 3, 3.14159, 123456.789 }, { dtype = "bfloat16" })))
    -- the largest subnormal and the smallest normal float16
    assert.equal("[6.1e-05, 6.104e-05]",
      values(dlx.tensor({ 6.097555160522461e-05, 6.103515625e-05 }, { dtype = "float16" })))
  end)

  it("prints what NumPy 2's shortest repr prints, at random bit patterns", function()
    -- float, its value, then np.format_float_positional (scientific past 1e16 and below 1e-4)
    -- with unique=True, trim='.'
    local cases = {
    { "float32", 1.7959337372538735e-22, "1.7959337e-22" },
    { "float32", -4.505641891363188e-21, "-4.505642e-21" },
    { "float32", -1.0274568751356128e-07, "-1.0274569e-07" },
    { "float32", -13.320725440979004, "-13.320725" },
    { "float32", -1.6391443840877503e-15, "-1.6391444e-15" },
    { "float32", -9.058091996553987e-35, "-9.058092e-35" },
    { "float32", -4.628273519593127e+29, "-4.6282735e+29" },
    { "float32", 0.7154249548912048, "0.71542495" },
    { "float32", 3708.918212890625, "3708.9182" },
    { "float32", -0.010839838534593582, "-0.010839839" },
    { "float32", 15.656498908996582, "15.656499" },
    { "float32", 4195107.0, "4195107." },
    { "float16", -0.98974609375, "-0.9897" },
    { "float16", 0.0008044242858886719, "0.0008044" },
    { "float16", -0.03564453125, "-0.03564" },
    { "float16", 14608.0, "14610." },
    { "float16", 22.25, "22.25" },
    { "float16", 30528.0, "30530." },
    { "float16", -0.11187744140625, "-0.1119" },
    { "float16", -476.25, "-476.2" },
    { "float64", 9.823834842116573e+16, "9.823834842116573e+16" },
    { "float64", -0.00042171638800587833, "-0.00042171638800587833" },
    { "float64", 1009284.250240063, "1009284.250240063" },
    { "float64", 151155852.1413419, "151155852.1413419" },
    }
    for _, case in ipairs(cases) do
      local dtype, value, numpy = case[1], case[2], case[3]
      assert.equal("[" .. numpy .. "]", values(dlx.tensor({ value }, { dtype = dtype })))
    end
  end)

  it("writes whole floats with a point, and signed zeros, NaN and infinities", function()
    assert.equal("[1., -2., 0., -0.]",
      values(dlx.tensor({ 1, -2, 0, -0.0 }, { dtype = "float32" })))
    assert.equal("[nan, inf, -inf]", values(dlx.tensor({ 0 / 0, 1 / 0, -1 / 0 })))
  end)

  it("switches to scientific notation for very large and very small values", function()
    assert.equal("[1.e-05, 1.5e+20, 0.0001]",
      values(dlx.tensor({ 1e-5, 1.5e20, 1e-4 }, { dtype = "float64" })))
    assert.equal("[1.e+16, 9999999999999998.]",
      values(dlx.tensor({ 1e16, 9999999999999998 }, { dtype = "float64" })))
  end)

  it("prints complex parts at the precision of the part", function()
    assert.equal("[0.1-0.33333334j]", values(dlx.tensor({ { re = 0.1, im = -1 / 3 } })))
    assert.equal("[0.1+0.3333333333333333j]",
      values(dlx.tensor({ { re = 0.1, im = 1 / 3 } }, { dtype = "complex128" })))
  end)

  it("with a precision, prints at most that many digits after the point", function()
    dlx.set_printoptions({ precision = 2 })
    assert.equal("[3.14, 0.5, 2., 123456.79, 0.33]",
      values(dlx.tensor({ 3.14159, 0.5, 1.9999, 123456.789, 1 / 3 }, { dtype = "float64" })))
    assert.equal("[1.23e-05]", values(dlx.tensor({ 1.2345e-5 }, { dtype = "float64" })))
    dlx.set_printoptions({ precision = 0 })
    assert.equal("[3., 2.]", values(dlx.tensor({ 3.14159, 1.5 }, { dtype = "float64" })))
    assert.equal("[1, 2]", values(dlx.tensor({ 1, 2 }))) -- integers are left alone
    dlx.set_printoptions({ precision = "shortest" })
    assert.equal("[3.14159]", values(dlx.tensor({ 3.14159 }, { dtype = "float64" })))
  end)
end)

describe("dlx.set_printoptions(opts)", function()
  after_each(function() dlx.set_printoptions("default") end)

  it("has NumPy's defaults, and get_printoptions reads them back", function()
    assert.same({ precision = "shortest", threshold = 1000, edgeitems = 3, linewidth = 80 },
      dlx.get_printoptions())
  end)

  it("changes only the options named, and \"default\" restores them all", function()
    dlx.set_printoptions({ threshold = 10 })
    dlx.set_printoptions({ edgeitems = 2 })
    local got = dlx.get_printoptions()
    assert.equal(10, got.threshold)
    assert.equal(2, got.edgeitems)
    assert.equal(80, got.linewidth)
    dlx.set_printoptions("default")
    assert.equal(1000, dlx.get_printoptions().threshold)
  end)

  it("takes back what get_printoptions gave", function()
    local saved = dlx.get_printoptions()
    dlx.set_printoptions({ precision = 3, threshold = 5, edgeitems = 1, linewidth = 40 })
    dlx.set_printoptions(saved)
    assert.same(saved, dlx.get_printoptions())
  end)

  it("gives a copy that does not change the options", function()
    local got = dlx.get_printoptions()
    got.threshold = 1
    assert.equal(1000, dlx.get_printoptions().threshold)
  end)

  it("summarises beyond threshold with edgeitems at each end", function()
    dlx.set_printoptions({ threshold = 5, edgeitems = 2 })
    assert.equal("[0, 1, ..., 8, 9]", values(dlx.arange(10)))
    assert.equal("[0, 1, 2, 3, 4]", values(dlx.arange(5)))
    dlx.set_printoptions({ threshold = math.huge })
    assert.falsy(tostring(dlx.arange(2000)):find("...", 1, true))
    dlx.set_printoptions({ threshold = 0, edgeitems = 1 })
    assert.equal("[0, ..., 2]", values(dlx.arange(3)))
    assert.equal("[0, 1]", values(dlx.arange(2)))
  end)

  it("summarises every dim", function()
    dlx.set_printoptions({ threshold = 10, edgeitems = 1 })
    assert.equal("[[0, ..., 4], ..., [20, ..., 24]]", values(dlx.arange(25):view({ 5, 5 })))
    dlx.set_printoptions({ linewidth = 24 })
    assert.equal("[[0, ..., 4],\n        ...,\n        [20, ..., 24]]",
      values(dlx.arange(25):view({ 5, 5 })))
  end)

  it("keeps a tensor that fits linewidth on one line", function()
    assert.equal("tensor([[1, 2], [3, 4]], shape={2, 2}, dtype=int64, device=cpu)",
      tostring(dlx.tensor({ { 1, 2 }, { 3, 4 } })))
  end)

  it("wraps a long vector at linewidth, under its first element", function()
    dlx.set_printoptions({ linewidth = 30 })
    local s = tostring(dlx.arange(12))
    assert.equal("tensor([0, 1, 2, 3, 4, 5, 6,\n        7, 8, 9, 10, 11],\n"
      .. "       shape={12}, dtype=int64, device=cpu)", s)
    for line in s:gmatch("[^\n]+") do
      if not line:find("shape=", 1, true) then assert.truthy(#line <= 30, line) end
    end
  end)

  it("puts the rows of a matrix that does not fit on their own lines", function()
    dlx.set_printoptions({ linewidth = 20 })
    assert.equal("tensor([[0, 1, 2],\n        [3, 4, 5]],\n"
      .. "       shape={2, 3}, dtype=int64, device=cpu)", tostring(dlx.arange(6):view({ 2, 3 })))
  end)

  it("separates the blocks of a 3-d tensor with a blank line", function()
    dlx.set_printoptions({ linewidth = 20 })
    assert.equal("[[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]]",
      values(dlx.arange(8):view({ 2, 2, 2 })))
  end)

  it("applies to every dtype's numbers and leaves bools alone", function()
    dlx.set_printoptions({ precision = 1 })
    assert.equal("[true, false]", values(dlx.tensor({ true, false })))
    assert.equal("[0.1+0.3j]", values(dlx.tensor({ { re = 0.125, im = 1 / 3 } })))
  end)

  it("checks every option before changing any", function()
    h.raises("TypeError", dlx.set_printoptions, { precision = 2.5 })
    h.raises("TypeError", dlx.set_printoptions, { precision = "long" })
    h.raises("ValueError", dlx.set_printoptions, { precision = -1 })
    h.raises("ValueError", dlx.set_printoptions, { precision = 18 })
    h.raises("ValueError", dlx.set_printoptions, { threshold = -1 })
    h.raises("ValueError", dlx.set_printoptions, { edgeitems = 0 })
    h.raises("ValueError", dlx.set_printoptions, { linewidth = 0 })
    h.raises("TypeError", dlx.set_printoptions, { linewidth = "wide" })
    h.raises("TypeError", dlx.set_printoptions, { width = 10 })
    h.raises("TypeError", dlx.set_printoptions, "defaults")
    h.raises("TypeError", dlx.set_printoptions)
    h.raises("ValueError", dlx.set_printoptions, { threshold = 5, edgeitems = 0 })
    assert.equal(1000, dlx.get_printoptions().threshold)
  end)
end)
