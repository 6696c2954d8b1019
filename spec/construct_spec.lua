-- More creation: linspace, logspace, eye, empty_like, zeros_like, ones_like, full_like, tril,
-- triu. linspace's values are NumPy's (printed by NumPy 2 for the same arguments and dtype).
local h = require "spec.helper"
local dlx = h.dlx

local function cpu(data, dtype) return dlx.tensor(data, { dtype = dtype, device = "cpu" }) end

describe("dlx.linspace", function()
  it("gives NumPy's values", function()
    -- numpy.linspace(0.1, 0.7, 7, dtype=float32)
    h.exact({ 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645,
      0.5, 0.6000000238418579, 0.699999988079071 }, dlx.linspace(0.1, 0.7, 7,
        { device = "cpu" }):totable())
    -- numpy.linspace(-3, 7.5, 6, dtype=int32): the floor, then the cast
    h.exact({ -3, -1, 1, 3, 5, 7 }, dlx.linspace(-3, 7.5, 6, { dtype = "int32",
      device = "cpu" }):totable())
    -- start + i * step in float64, the last value exactly stop
    local t = dlx.linspace(0, 1, 10, { dtype = "float64", device = "cpu" }):totable()
    for i = 1, 9 do assert.equal(0 + (i - 1) * (1 / 9), t[i]) end
    assert.equal(1, t[10])
  end)

  it("defaults to float32 on the default device", function()
    local t = dlx.linspace(0, 1, 5)
    assert.equal("float32", t.dtype)
    assert.is_true(t.device == dlx.default_device())
    h.same({ 0, 0.25, 0.5, 0.75, 1 }, t:to("cpu"):totable())
  end)

  it("handles n = 0, n = 1, descending and equal ends", function()
    h.exact({ 0 }, dlx.linspace(0, 1, 0, { device = "cpu" }).shape)
    h.same({ 2 }, dlx.linspace(2, 5, 1, { device = "cpu" }):totable())
    h.same({ 3, 2, 1 }, dlx.linspace(3, 1, 3, { device = "cpu" }):totable())
    h.same({ 4, 4, 4 }, dlx.linspace(4, 4, 3, { device = "cpu" }):totable())
  end)

  it("checks its arguments", function()
    h.raises("ValueError", dlx.linspace, 0, 1, -1)
    h.raises("TypeError", dlx.linspace, 0, "1", 3)
    h.raises("ValueError", dlx.linspace, 0, 1, 2.5)
    h.raises("TypeError", dlx.linspace, 0, 1, 3, { dtpye = "int64" })
  end)
end)

describe("dlx.logspace", function()
  it("gives base ^ linspace", function()
    h.same({ 1, 10, 100, 1000 }, dlx.logspace(0, 3, 4, { device = "cpu" }):totable())
    h.same({ 1, 2, 4, 8 }, dlx.logspace(0, 3, 4, { base = 2, dtype = "float64",
      device = "cpu" }):totable())
    h.exact({ 1, 10, 100 }, dlx.logspace(0, 2, 3, { dtype = "int64", device = "cpu" }):totable())
    assert.equal("float32", dlx.logspace(0, 1, 2).dtype)
  end)

  it("checks its options", function()
    local msg = h.raises("TypeError", dlx.logspace, 0, 1, 3, { bse = 2 })
    assert.truthy(msg:find("base", 1, true), msg)
    h.raises("TypeError", dlx.logspace, 0, 1, 3, { base = "2" })
    h.raises("TypeError", dlx.logspace, 0, 1, 3, "opts")
  end)
end)

describe("dlx.eye", function()
  it("makes identity and rectangular matrices", function()
    h.same({ { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }, dlx.eye(3, { device = "cpu" }):totable())
    h.exact({ { 1, 0, 0, 0 }, { 0, 1, 0, 0 } }, dlx.eye(2, 4, { dtype = "int32",
      device = "cpu" }):totable())
    h.same({ { 1, 0 }, { 0, 1 }, { 0, 0 } }, dlx.eye(3, 2, { device = "cpu" }):totable())
    h.exact({ 0, 3 }, dlx.eye(0, 3).shape)
    h.exact({ { true, false }, { false, true } }, dlx.eye(2, { dtype = "bool",
      device = "cpu" }):totable())
    assert.equal("float32", dlx.eye(2).dtype)
  end)

  it("checks its arguments", function()
    h.raises("ValueError", dlx.eye, -1)
    h.raises("ValueError", dlx.eye, 2, -1)
    h.raises("TypeError", dlx.eye, "2")
    h.raises("TypeError", dlx.eye, 2, 2, { size = 3 })
  end)
end)

describe("the *_like functions", function()
  local t = cpu({ { 1, 2, 3 }, { 4, 5, 6 } }, "int16"):transpose(1, 2)

  it("take the shape, dtype and device of t, C-contiguous", function()
    for _, make in ipairs { dlx.empty_like, dlx.zeros_like, dlx.ones_like } do
      local u = make(t)
      h.exact({ 3, 2 }, u.shape)
      h.exact({ 2, 1 }, u.strides)
      assert.equal("int16", u.dtype)
      assert.is_true(u.device == dlx.device("cpu"))
    end
    h.exact({ { 0, 0 }, { 0, 0 }, { 0, 0 } }, dlx.zeros_like(t):totable())
    h.exact({ { 1, 1 }, { 1, 1 }, { 1, 1 } }, dlx.ones_like(t):totable())
    h.exact({ { 7, 7 }, { 7, 7 }, { 7, 7 } }, dlx.full_like(t, 7.9):totable())
  end)

  it("let opts override the dtype and device", function()
    assert.equal("float64", dlx.zeros_like(t, { dtype = "float64" }).dtype)
    h.same({ 2.5, 2.5 }, dlx.full_like(cpu({ 1, 2 }), 2.5, { dtype = "float32" }):totable())
    assert.is_true(dlx.ones_like(t, { device = "cpu" }).device == dlx.device("cpu"))
    h.exact({}, dlx.zeros_like(cpu(3)).shape)
  end)

  it("check their arguments", function()
    h.raises("TypeError", dlx.zeros_like, {})
    h.raises("TypeError", dlx.empty_like, t, { dtpye = "int8" })
    h.raises("TypeError", dlx.full_like, t)
    h.raises("TypeError", dlx.full_like, t, { re = 1, im = 2 })
    h.raises("ValueError", dlx.ones_like, t, { usm = "device" })
  end)
end)

describe("dlx.tril and dlx.triu", function()
  local m = dlx.arange(1, 13, { device = "cpu" }):view({ 3, 4 })

  it("keep the lower or upper triangle from the k-th diagonal, as NumPy", function()
    h.exact({ { 1, 0, 0, 0 }, { 5, 6, 0, 0 }, { 9, 10, 11, 0 } }, dlx.tril(m):totable())
    h.exact({ { 1, 2, 0, 0 }, { 5, 6, 7, 0 }, { 9, 10, 11, 12 } }, m:tril(1):totable())
    h.exact({ { 0, 0, 0, 0 }, { 5, 0, 0, 0 }, { 9, 10, 0, 0 } }, m:tril(-1):totable())
    h.exact({ { 1, 2, 3, 4 }, { 0, 6, 7, 8 }, { 0, 0, 11, 12 } }, dlx.triu(m):totable())
    h.exact({ { 0, 0, 3, 4 }, { 0, 0, 0, 8 }, { 0, 0, 0, 0 } }, m:triu(2):totable())
    h.exact({ { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 0, 10, 11, 12 } }, m:triu(-1):totable())
    h.exact(m:totable(), m:tril(100):totable())
    h.exact(dlx.zeros_like(m):totable(), m:tril(-100):totable())
    h.exact(m:totable(), m:triu(-100):totable())
    h.exact(dlx.zeros_like(m):totable(), m:triu(100):totable())
  end)

  it("work on batches, strided inputs, and copy", function()
    local b = dlx.stack({ m, m * 2 })
    h.exact({ dlx.tril(m):totable(), dlx.tril(m * 2):totable() }, b:tril():totable())
    h.exact(dlx.triu(m:transpose(1, 2)):totable(), dlx.triu(m:transpose(1,
      2):contiguous()):totable())
    local c = m:triu()
    c:fill_(0)
    assert.equal(2, m:totable()[1][2])
    h.exact({ 0, 3 }, dlx.tril(dlx.empty({ 0, 3 }, { device = "cpu" })).shape)
  end)

  it("need at least 2 dims", function()
    h.raises("ValueError", dlx.tril, cpu({ 1, 2 }))
    h.raises("ValueError", dlx.triu, cpu(1))
    h.raises("TypeError", dlx.tril, m, "1")
  end)
end)
