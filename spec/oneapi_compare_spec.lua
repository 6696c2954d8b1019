--- oneapi (Level Zero): t:isclose, dlx.allclose, dlx.equal and the tensor assertions on a oneapi
-- device give what they give on the CPU (they are composed of elementwise ops).
local h = require "spec.helper"
local dlx = h.dlx
require "dlx.assert"

local nan, inf = 0 / 0, math.huge

describe("oneapi comparisons #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end

  local a_values = { 1, 2, nan, inf, -inf, 1e10, 0, 127, -3.5 }
  local b_values = { 1.000001, 2.1, nan, inf, inf, 1.00001e10, 1e-9, -128, -3.5 }

  it("isclose and allclose match the CPU in every computable dtype family", function()
    for _, dtype in ipairs({ "float32", "float64", "float16", "int32", "uint8" }) do
      local a_list, b_list = a_values, b_values
      if not dtype:match("^float") then
        a_list, b_list = { 1, 2, 100, 127, 0, 50 }, { 1, 3, 101, 0, 0, 55 }
      end
      local a = dlx.tensor(a_list, { dtype = dtype, device = "cpu" })
      local b = dlx.tensor(b_list, { dtype = dtype, device = "cpu" })
      local da, db = a:to("oneapi:0"), b:to("oneapi:0")
      for _, opts in ipairs({ {}, { equal_nan = true }, { rtol = 0.1, atol = 0.5 } }) do
        local want, got = a:isclose(b, opts), da:isclose(db, opts)
        h.same_as_cpu("oneapi:0", want, got)
        assert.equal(dlx.allclose(a, b, opts), dlx.allclose(da, db, opts))
      end
      h.same_as_cpu("oneapi:0", a:isclose(1), da:isclose(1))
    end
  end)

  it("broadcasts on the device", function()
    local a = dlx.arange(12, { dtype = "float32", device = "oneapi:0" }):view({ 3, 4 })
    local b = dlx.tensor({ 0, 1, 2, 4 }, { dtype = "float32", device = "oneapi:0" })
    assert.same({ { true, true, true, false }, { false, false, false, false },
      { false, false, false, false } }, a:isclose(b):totable())
  end)

  it("equal compares on the device, and refuses tensors on two devices", function()
    local a = dlx.tensor({ 1, 2, 3 }, { device = "oneapi:0" })
    assert.is_true(dlx.equal(a, dlx.tensor({ 1, 2, 3 }, { device = "oneapi:0" })))
    assert.is_false(dlx.equal(a, dlx.tensor({ 1, 2, 4 }, { device = "oneapi:0" })))
    h.raises("DeviceError", dlx.equal, a, dlx.tensor({ 1, 2, 3 }, { device = "cpu" }))
  end)

  it("tensor_close reports a mismatch found on the device", function()
    local expected = dlx.tensor({ { 1, 2 }, { 3, 4 } }, { dtype = "float64", device = "oneapi:0" })
    local actual = dlx.tensor({ { 1, 2.5 }, { 3, 4 } }, { dtype = "float64", device = "oneapi:0" })
    assert.tensor_close(expected, expected)
    local ok, err = pcall(assert.tensor_close, expected, actual)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("first mismatch at index {1, 2}: expected 2., actual 2.5", 1,
      true), tostring(err))
    ok, err = pcall(assert.tensor_equal, expected, expected:to("cpu"))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("the devices differ", 1, true), tostring(err))
  end)
end)
