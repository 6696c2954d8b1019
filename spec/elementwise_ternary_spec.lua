-- where, clamp, lerp and nan_to_num: values in every layout, broadcasting of all operands, Lua
-- values, promotion, in place and out=, overlap, and errors.
local h = require "spec.helper"
local R = require "spec.elementwise_ref"
local dlx = h.dlx
-- Only the CPU has elementwise kernels so far (CUDA and Level Zero raise a DeviceError).
dlx.set_default_device("cpu")

local INF, NAN = math.huge, 0 / 0

describe("dlx.where", function()
  local C = { { true, false, true }, { false, true, false } }
  local A = { { 1, 2, 3 }, { 4, 5, 6 } }
  local B = { { -1, -2, -3 }, { -4, -5, -6 } }
  local want = { { 1, -2, 3 }, { -4, 5, -6 } }

  for _, dtype in ipairs({ "int8", "int64", "uint16", "float16", "bfloat16", "float32",
    "float64" }) do
    it("picks from a or b on " .. dtype .. " in every layout", function()
      local wanted = dtype:match("^uint") and { { 1, 0, 3 }, { 0, 5, 0 } } or want
      local b = dtype:match("^uint") and { { 0, 0, 0 }, { 0, 0, 0 } } or B
      local cs, as, bs = R.layouts(C, "bool"), R.layouts(A, dtype), R.layouts(b, dtype)
      for i = 1, #cs do
        for j = 1, #as do
          local r = dlx.where(cs[i][2], as[j][2], bs[(i + j) % #bs + 1][2])
          assert.are.equal(dtype, r.dtype)
          R.same(r:totable(), wanted, nil, cs[i][1] .. " / " .. as[j][1])
        end
      end
    end)
  end

  it("takes complex values and bools", function()
    local z = dlx.tensor({ { re = 1, im = 2 }, { re = 3, im = 4 } }, { dtype = "complex128" })
    assert.are.same({ { re = 1, im = 2 }, { re = 0, im = 0 } },
      dlx.where(dlx.tensor({ true, false }), z, 0):totable())
    assert.are.same({ true, false },
      dlx.where(dlx.tensor({ true, false }), dlx.tensor({ true, true }), false):totable())
  end)

  it("treats a condition of any dtype as ~= 0, and a Lua boolean as one value", function()
    local a, b = dlx.tensor({ 1, 2, 3 }), dlx.tensor({ 7, 8, 9 })
    assert.are.same({ 1, 8, 3 }, dlx.where(dlx.tensor({ 5, 0, -1 }), a, b):totable())
    assert.are.same({ 7, 2, 9 }, dlx.where(dlx.tensor({ 0, NAN, 0 }), a, b):totable())
    assert.are.same({ 1, 2, 3 }, dlx.where(true, a, b):totable())
    assert.are.same({ 7, 8, 9 }, dlx.where(false, a, b):totable())
  end)

  it("broadcasts all three", function()
    local cond = dlx.tensor({ { true }, { false } })          -- 2 x 1
    local a = dlx.tensor({ 1, 2, 3 })                          -- 3
    local b = dlx.tensor({ { 10, 20, 30 } }):expand({ 2, 3 }) -- 2 x 3, stride 0
    local r = dlx.where(cond, a, b)
    assert.are.same({ 2, 3 }, r.shape)
    assert.are.same({ { 1, 2, 3 }, { 10, 20, 30 } }, r:totable())
    h.raises("ValueError", function()
      dlx.where(dlx.tensor({ true, false }), dlx.zeros({ 3 }), 1)
    end)
  end)

  it("promotes a and b, with Lua values as weak scalars", function()
    local mask = dlx.tensor({ true, false })
    local i8 = dlx.tensor({ 1, 2 }, { dtype = "int8" })
    assert.are.equal("int8", dlx.where(mask, i8, 0).dtype)
    assert.are.equal("float32", dlx.where(mask, i8, 0.5).dtype)
    assert.are.equal("int16", dlx.where(mask, i8, dlx.tensor({ 1, 2 }, { dtype = "uint8" })).dtype)
    assert.are.equal("float64",
      dlx.where(mask, dlx.tensor({ 1, 2 }, { dtype = "float16" }),
        dlx.tensor({ 1.0 }, { dtype = "float64" })).dtype)
    assert.are.equal("float32", dlx.where(mask, dlx.tensor({ 1, 2 }, { dtype = "float16" }),
      dlx.tensor({ 1 }, { dtype = "bfloat16" })).dtype)
    -- two Lua values take dlx's default dtype of their kind
    local f = dlx.where(mask, 1.0, 0.0)
    assert.are.equal("float32", f.dtype)
    assert.are.same({ 1, 0 }, f:totable())
    assert.are.equal("int64", dlx.where(mask, 1, 0).dtype)
    assert.are.equal("bool", dlx.where(mask, true, false).dtype)
    h.raises("ValueError", function() dlx.where(mask, i8, 300) end)
  end)

  it("writes into out=, also when out overlaps an operand", function()
    local a = dlx.tensor({ 1, 2, 3, 4 })
    local out = dlx.zeros({ 4 }, { dtype = "float64" })
    assert.are.equal(out, dlx.where(a:gt(2), a, 0, { out = out }))
    assert.are.same({ 0, 0, 3, 4 }, out:totable())
    -- out is a reversed view of a: the result is as if a were read first
    dlx.where(dlx.tensor({ true, true, false, false }), a, -1, { out = a:flip() })
    assert.are.same({ -1, -1, 2, 1 }, a:totable())
    h.raises("TypeError", function()
      dlx.where(dlx.tensor({ true }), 1.5, 0, { out = dlx.zeros({ 1 }, { dtype = "int32" }) })
    end)
  end)

  it("refuses bad operands", function()
    h.raises("TypeError", function() dlx.where(true, 1, 2) end)
    h.raises("TypeError", function() dlx.where(dlx.tensor({ true }), "a", 2) end)
    h.raises("TypeError", function() dlx.where(dlx.tensor({ true }), 1, 2, 3) end)
    assert.is_nil(dlx.tensor({ 1 }).where)
  end)
end)

describe("t:clamp", function()
  local F = { { -2.5, 0.5, 3 }, { 1, -0.25, 10 } }

  for _, dtype in ipairs({ "int8", "int32", "uint8", "float16", "float32", "float64" }) do
    it("limits " .. dtype .. " in every layout", function()
      local values = dtype:match("int") and { { -2, 0, 3 }, { 1, -1, 10 } } or F
      if dtype == "uint8" then values = { { 0, 1, 3 }, { 2, 5, 10 } } end
      local want = R.unary(function(x) return math.min(math.max(x, 1), 3) end, values)
      for _, l in ipairs(R.layouts(values, dtype)) do
        local r = l[2]:clamp(1, 3)
        assert.are.equal(dtype, r.dtype)
        R.same(r:totable(), want, nil, l[1])
        R.same(dlx.clamp(l[2], 1, 3):totable(), want, nil, l[1] .. " function")
      end
      local t = dlx.tensor(values, { dtype = dtype })
      assert.are.equal(t, t:clamp_(1, 3))
      R.same(t:totable(), want, nil, "in place")
    end)
  end

  it("takes nil for either bound, not both", function()
    local t = dlx.tensor({ -5, 0, 5 })
    assert.are.same({ -5, 0, 2 }, t:clamp(nil, 2):totable())
    assert.are.same({ -1, 0, 5 }, t:clamp(-1):totable())
    assert.are.same({ -1, 0, 5 }, t:clamp(-1, nil):totable())
    h.raises("TypeError", function() t:clamp() end)
    h.raises("TypeError", function() t:clamp(nil, nil) end)
    t:clamp_(nil, 0)
    assert.are.same({ -5, 0, 0 }, t:totable())
  end)

  it("takes tensor bounds that broadcast, and gives max where min > max", function()
    local t = dlx.tensor({ { 1, 5, 9 }, { -1, 4, 20 } })
    local lo = dlx.tensor({ 0, 6, 2 })
    local hi = dlx.tensor({ { 8 }, { 3 } })
    assert.are.same({ { 1, 6, 8 }, { 0, 3, 3 } }, t:clamp(lo, hi):totable())
    assert.are.same({ 3, 3 }, dlx.tensor({ 0, 10 }):clamp(5, 3):totable())
  end)

  it("promotes as PyTorch and propagates NaN", function()
    local i = dlx.tensor({ 1, 5 }, { dtype = "int32" })
    local r = i:clamp(0.5, 2.5)
    assert.are.equal("float32", r.dtype)
    assert.are.same({ 1, 2.5 }, r:totable())
    assert.are.equal("int32", i:clamp(0, 2).dtype)
    assert.are.equal("float64", i:clamp(dlx.tensor({ 0 }, { dtype = "float64" }), 2).dtype)
    h.raises("TypeError", function() i:clamp_(0.5, 2) end)
    h.raises("ValueError", function() dlx.tensor({ 1 }, { dtype = "uint8" }):clamp(0, 300) end)
    local f = dlx.tensor({ NAN, 1, 5 }, { dtype = "float64" })
    R.same(f:clamp(0, 2):totable(), { NAN, 1, 2 })
    R.same(f:clamp(NAN, 2):totable(), { NAN, NAN, NAN })
    R.same(dlx.tensor({ -INF, INF }):clamp(-1, 1):totable(), { -1, 1 })
    h.raises("TypeError", function()
      dlx.tensor({ { re = 1, im = 0 } }, { dtype = "complex64" }):clamp(0, 1)
    end)
  end)

  it("writes into out=", function()
    local out = dlx.zeros({ 3 }, { dtype = "float64" })
    dlx.clamp(dlx.tensor({ -1, 0.5, 2 }), 0, 1, { out = out })
    assert.are.same({ 0, 0.5, 1 }, out:totable())
  end)
end)

describe("dlx.lerp", function()
  it("interpolates, exactly at both ends", function()
    local a, b = dlx.tensor({ 1, 2, -4 }, { dtype = "float64" }), dlx.tensor({ 3, 10, 1e16 },
      { dtype = "float64" })
    assert.are.same({ 2, 6, 0.5e16 - 2 }, dlx.lerp(a, b, 0.5):totable())
    assert.are.same({ 1, 2, -4 }, dlx.lerp(a, b, 0):totable())
    assert.are.same({ 3, 10, 1e16 }, dlx.lerp(a, b, 1):totable())
    local before = dlx.lerp(a, b, -0.25):totable() -- extrapolated below a
    assert.are.same({ 0.5, 0 }, { before[1], before[2] })
  end)

  it("works in every layout, with a tensor weight that broadcasts", function()
    local A = { { 0, 1, 2 }, { 3, 4, 5 } }
    local B = { { 10, 11, 12 }, { 13, 14, 15 } }
    local w = dlx.tensor({ 0, 0.25, 1 }, { dtype = "float32" })
    local want = { { 0, 3.5, 12 }, { 3, 6.5, 15 } }
    local as, bs = R.layouts(A, "float32"), R.layouts(B, "float32")
    for i = 1, #as do
      R.same(dlx.lerp(as[i][2], bs[#bs - i + 1][2], w):totable(), want, nil, as[i][1])
      R.same(as[i][2]:lerp(bs[i][2], w):totable(), want, nil, as[i][1] .. " method")
    end
    local t = dlx.tensor(A, { dtype = "float64" })
    assert.are.equal(t, t:lerp_(dlx.tensor(B, { dtype = "float64" }), w))
    assert.are.same(want, t:totable())
  end)

  it("computes integers in float32 and takes Lua numbers", function()
    local r = dlx.lerp(dlx.tensor({ 0, 10 }, { dtype = "int32" }), 20, 0.5)
    assert.are.equal("float32", r.dtype)
    assert.are.same({ 10, 15 }, r:totable())
    assert.are.same({ 5 }, dlx.lerp(0, dlx.tensor({ 10.0 }), 0.5):totable())
    assert.are.equal("float16",
      dlx.lerp(dlx.tensor({ 1 }, { dtype = "float16" }), 2, 0.5).dtype)
    h.raises("TypeError", function() dlx.tensor({ 1 }, { dtype = "int32" }):lerp_(2, 0.5) end)
    h.raises("TypeError", function()
      dlx.lerp(dlx.tensor({ { re = 1, im = 0 } }, { dtype = "complex64" }), 0, 0.5)
    end)
    h.raises("TypeError", function() dlx.lerp(1, 2, 0.5) end)
  end)
end)

describe("t:nan_to_num", function()
  local v = { NAN, INF, -INF, 1.5, -0.0 }

  it("gives NumPy's defaults per dtype", function()
    assert.are.same({ 0, 3.4028234663852886e38, -3.4028234663852886e38, 1.5, -0.0 },
      dlx.tensor(v, { dtype = "float32" }):nan_to_num():totable())
    assert.are.same({ 0, 1.7976931348623157e308, -1.7976931348623157e308, 1.5, -0.0 },
      dlx.tensor(v, { dtype = "float64" }):nan_to_num():totable())
    assert.are.same({ 0, 65504, -65504, 1.5, -0.0 },
      dlx.tensor(v, { dtype = "float16" }):nan_to_num():totable())
    local bf = dlx.tensor(v, { dtype = "bfloat16" }):nan_to_num():totable()
    assert.are.equal(0x1.fep127, bf[2])
    assert.are.equal(-0x1.fep127, bf[3])
  end)

  it("takes the values put in, in every layout", function()
    local m = { { NAN, 1, INF }, { -INF, NAN, -2 } }
    local want = { { -1, 1, 7 }, { -7, -1, -2 } }
    for _, l in ipairs(R.layouts(m, "float64")) do
      R.same(l[2]:nan_to_num({ nan = -1, posinf = 7, neginf = -7 }):totable(), want, nil, l[1])
      R.same(dlx.nan_to_num(l[2], { nan = -1, posinf = 7, neginf = -7 }):totable(), want, nil,
        l[1] .. " function")
    end
    local t = dlx.tensor(m, { dtype = "float32" })
    assert.are.equal(t, t:nan_to_num_({ nan = -1, posinf = 7, neginf = -7 }))
    assert.are.same(want, t:totable())
    local out = dlx.zeros({ 2, 3 }, { dtype = "float64" })
    assert.are.equal(out, dlx.nan_to_num(dlx.tensor(m), { nan = -1, posinf = 7, neginf = -7,
      out = out }))
    assert.are.same(want, out:totable())
  end)

  it("copies integer and bool tensors", function()
    local i = dlx.tensor({ 1, -2 }, { dtype = "int16" })
    local r = i:nan_to_num({ nan = 5 })
    assert.are.equal("int16", r.dtype)
    assert.are.same({ 1, -2 }, r:totable())
    assert.are.same({ true, false }, dlx.tensor({ true, false }):nan_to_num():totable())
  end)

  it("refuses bad options", function()
    local t = dlx.tensor({ 1.0 })
    h.raises("TypeError", function() t:nan_to_num({ nan = "x" }) end)
    h.raises("TypeError", function() t:nan_to_num({ nan = dlx.tensor({ 1 }) }) end)
    h.raises("TypeError", function() t:nan_to_num({ posinfinity = 1 }) end)
    h.raises("TypeError", function() t:nan_to_num(5) end)
    h.raises("TypeError", function() t:nan_to_num({ out = dlx.zeros({ 1 }) }) end)
    h.raises("TypeError", function()
      dlx.tensor({ { re = 1, im = 0 } }, { dtype = "complex64" }):nan_to_num()
    end)
  end)
end)
