-- Reductions: sum, mean, prod, min, max, argmin, argmax, all, any; dims nil/int/list/negative,
-- keepdim, result dtypes, accuracy, NaN, empty tensors.
local h = require "spec.helper"
local dlx = h.dlx

local NAN = 0 / 0

local function m23() return dlx.arange(6):view({ 2, 3 }) end -- {{0,1,2},{3,4,5}}

-- Reference reduction over a nested table (3-d), for dims subsets.
local function ref_reduce(tbl, shape, dims, keepdim, op, init)
  local reduce = {}
  for _, d in ipairs(dims) do reduce[d] = true end
  local outshape = {}
  for d = 1, #shape do
    if reduce[d] then
      if keepdim then outshape[#outshape + 1] = 1 end
    else
      outshape[#outshape + 1] = shape[d]
    end
  end
  local acc = {}
  local function key(idx)
    local k = {}
    for d = 1, #shape do
      if reduce[d] then
        if keepdim then k[#k + 1] = 1 end
      else
        k[#k + 1] = idx[d]
      end
    end
    return k
  end
  local function walk(t, idx, d)
    if d > #shape then
      local k = table.concat(key(idx), ",")
      acc[k] = op(acc[k] == nil and init or acc[k], t)
      return
    end
    for i = 1, shape[d] do
      idx[d] = i
      walk(t[i], idx, d + 1)
    end
  end
  walk(tbl, {}, 1)
  local function build(prefix, d)
    if d > #outshape then return acc[table.concat(prefix, ",")] end
    local out = {}
    for i = 1, outshape[d] do
      prefix[d] = i
      out[i] = build(prefix, d + 1)
      prefix[d] = nil
    end
    return out
  end
  return build({}, 1)
end

describe("sum", function()
  it("sums everything into a 0-d tensor by default", function()
    local s = m23():sum()
    assert.equal(0, s.ndim)
    assert.equal("int64", s.dtype)
    h.exact(15, s:item())
  end)

  it("sums along a dim, a negative dim, or a list of dims", function()
    h.exact({ 3, 5, 7 }, m23():sum(1):totable())
    h.exact({ 3, 12 }, m23():sum(2):totable())
    h.exact({ 3, 12 }, m23():sum(-1):totable())
    h.exact({ 3, 5, 7 }, m23():sum(-2):totable())
    h.exact(15, m23():sum({ 1, 2 }):item())
    h.exact({ 3, 12 }, m23():sum({ 2 }):totable())
  end)

  it("keeps reduced dims with keepdim", function()
    local a = m23():sum(1, true)
    h.exact({ 1, 3 }, a.shape)
    h.exact({ { 3, 5, 7 } }, a:totable())
    h.exact({ 2, 1 }, m23():sum(2, true).shape)
    h.exact({ 1, 1 }, m23():sum({ 1, 2 }, true).shape)
    h.exact({ 1, 1 }, m23():sum(nil, true).shape)
    h.exact({ { 15 } }, m23():sum(nil, true):totable())
  end)

  it("matches a reference for every subset of dims of a 3-d tensor, with and without keepdim",
    function()
      local t = dlx.arange(24, { dtype = "float64" }):view({ 2, 3, 4 }):permute({ 3, 1, 2 })
      local tbl, shape = t:totable(), t.shape
      local subsets = { { 1 }, { 2 }, { 3 }, { 1, 2 }, { 1, 3 }, { 2, 3 }, { 3, 1 } }
      for _, dims in ipairs(subsets) do
        for _, keep in ipairs({ false, true }) do
          local want = ref_reduce(tbl, shape, dims, keep, function(a, b) return a + b end, 0.0)
          h.exact(want, t:sum(dims, keep):totable())
        end
      end
    end)

  it("gives int64 for bool and integers, uint64 for uint64, the input's dtype otherwise", function()
    local cases = { bool = "int64", int8 = "int64", int16 = "int64", int32 = "int64",
      int64 = "int64", uint8 = "int64", uint16 = "int64", uint32 = "int64", uint64 = "uint64",
      float16 = "float16", bfloat16 = "bfloat16", float32 = "float32", float64 = "float64",
      complex64 = "complex64", complex128 = "complex128" }
    for from, to in pairs(cases) do
      assert.equal(to, dlx.ones({ 3 }, { dtype = from }):sum().dtype, from)
      assert.equal(to, dlx.ones({ 3 }, { dtype = from }):prod().dtype, from)
    end
  end)

  it("does not overflow small integer types", function()
    h.exact(1000, dlx.full({ 10 }, 100, { dtype = "int8" }):sum():item())
    h.exact(2550, dlx.full({ 10 }, 255, { dtype = "uint8" }):sum():item())
    h.exact(3, dlx.tensor({ true, true, false, true }):sum():item())
    h.exact(40000 * 40000, dlx.full({ 40000 }, 40000, { dtype = "int32" }):sum():item())
  end)

  it("wraps integer sums in 64 bits", function()
    h.exact(math.mininteger, dlx.tensor({ math.maxinteger, 1 }):sum():item())
    h.exact(0, dlx.tensor({ -1, 1 }):astype("uint64"):sum():item())
  end)

  it("is pairwise-accurate: a million float32 0.1 sum close to the float64 result", function()
    local n = 1000000
    local f32_01 = 0.100000001490116119384765625
    local s = dlx.full({ n }, 0.1, { dtype = "float32" }):sum()
    assert.equal("float32", s.dtype)
    h.assert_close(s:item(), n * f32_01, 1e-6)
    local s2 = dlx.full({ 1000, 1000 }, 0.1, { dtype = "float32" }):sum(2)
    h.assert_close(s2:totable()[500], 1000 * f32_01, 1e-6)
    local s3 = dlx.full({ 1000, 1000 }, 0.1, { dtype = "float32" }):sum(1)
    h.assert_close(s3:totable()[1], 1000 * f32_01, 1e-6)
  end)

  it("is accurate along a strided dim too", function()
    local n = 1 << 20
    local t = dlx.full({ n, 2 }, 0.1, { dtype = "float32" }):select(2, 1) -- stride 2
    h.assert_close(t:sum():item(), n * 0.100000001490116119384765625, 1e-6)
  end)

  it("accumulates float16 and bfloat16 in float32", function()
    h.exact(4096.0, dlx.ones({ 4096 }, { dtype = "float16" }):sum():item())
    h.exact(512.0, dlx.ones({ 512 }, { dtype = "bfloat16" }):sum():item())
    h.exact({ 4096.0, 4096.0 }, dlx.ones({ 4096, 2 }, { dtype = "float16" }):sum(1):totable())
    h.exact(1.0, dlx.ones({ 4096 }, { dtype = "float16" }):mean():item())
    h.exact(1.0, dlx.ones({ 1024 }, { dtype = "bfloat16" }):mean():item())
  end)

  it("sums complex numbers", function()
    local c = dlx.tensor({ { re = 1, im = 2 }, { re = 3, im = -5 } })
    h.same({ re = 4, im = -3 }, c:sum():item())
  end)

  it("sums non-contiguous views", function()
    h.exact({ 3, 12 }, m23():transpose(1, 2):sum(1):totable())
    h.exact({ 12, 3 }, m23():flip(1):sum(2):totable())
    h.exact({ 3, 6 }, dlx.tensor({ 1, 2 }):expand({ 3, 2 }):sum(1):totable())
    h.exact(12, dlx.arange(10):slice(1, 1, 10, 4):sum():item())
  end)

  it("gives 0 for nothing", function()
    h.exact(0.0, dlx.zeros({ 0 }):sum():item())
    h.exact(0, dlx.zeros({ 0 }, { dtype = "int32" }):sum():item())
    h.exact({ 0.0, 0.0, 0.0 }, dlx.zeros({ 0, 3 }):sum(1):totable())
    h.exact({ 0 }, dlx.zeros({ 0, 3 }):sum(2).shape)
  end)

  it("rejects bad dims with a ValueError", function()
    local t = m23()
    h.raises("ValueError", t.sum, t, 3)
    h.raises("ValueError", t.sum, t, 0)
    h.raises("ValueError", t.sum, t, -3)
    h.raises("ValueError", t.sum, t, { 1, 1 })
    h.raises("ValueError", t.sum, t, { 1, 5 })
  end)

  it("rejects dims of the wrong type with a TypeError", function()
    local t = m23()
    h.raises("TypeError", t.sum, t, "1")
    h.raises("TypeError", t.sum, t, { "a" })
  end)
end)

describe("prod", function()
  it("multiplies", function()
    h.exact(120, dlx.arange(1, 6):prod():item())
    h.exact({ 0, 4, 10 }, m23():prod(1):totable())
    h.exact({ 0, 60 }, m23():prod(2):totable())
    h.exact({ { 0 }, { 60 } }, m23():prod(2, true):totable())
  end)

  it("accumulates small integers in int64", function()
    h.exact(1000000, dlx.full({ 3 }, 100, { dtype = "int8" }):prod():item())
  end)

  it("gives 1 for nothing", function()
    h.exact(1.0, dlx.zeros({ 0 }):prod():item())
    h.exact(1, dlx.zeros({ 0 }, { dtype = "int64" }):prod():item())
  end)

  it("multiplies complex numbers", function()
    local c = dlx.tensor({ { re = 0, im = 1 }, { re = 0, im = 1 } }, { dtype = "complex128" })
    h.same({ re = -1, im = 0 }, c:prod():item())
  end)
end)

describe("mean", function()
  it("gives float64 for integers and bool", function()
    local m = dlx.arange(4):mean()
    assert.equal("float64", m.dtype)
    h.exact(1.5, m:item())
    assert.equal("float64", dlx.tensor({ true, false }):mean().dtype)
    h.exact(0.5, dlx.tensor({ true, false }):mean():item())
    assert.equal("float64", dlx.ones({ 2 }, { dtype = "uint8" }):mean().dtype)
  end)

  it("keeps float and complex dtypes", function()
    local m = dlx.tensor({ 1, 2 }, { dtype = "float32" }):mean()
    assert.equal("float32", m.dtype)
    h.exact(1.5, m:item())
    assert.equal("float16", dlx.ones({ 2 }, { dtype = "float16" }):mean().dtype)
    assert.equal("bfloat16", dlx.ones({ 2 }, { dtype = "bfloat16" }):mean().dtype)
    local c = dlx.tensor({ { re = 1, im = 2 }, { re = 3, im = 4 } }):mean()
    assert.equal("complex64", c.dtype)
    h.same({ re = 2, im = 3 }, c:item())
  end)

  it("averages along dims", function()
    h.exact({ 1.5, 2.5, 3.5 }, m23():mean(1):totable())
    h.exact({ 1.0, 4.0 }, m23():mean(-1):totable())
    h.exact({ { 2.5 } }, m23():mean({ 1, 2 }, true):totable())
  end)

  it("is exact for large integers in float64", function()
    h.exact(2.0 ^ 52, dlx.full({ 4 }, 1 << 52, { dtype = "int64" }):mean():item())
  end)

  it("gives NaN for nothing", function()
    assert.is_true(h.isnan(dlx.zeros({ 0 }):mean():item()))
    assert.is_true(h.isnan(dlx.zeros({ 0 }, { dtype = "int32" }):mean():item()))
  end)
end)

describe("min and max", function()
  it("find the extremes in the input's dtype", function()
    local t = dlx.tensor({ { 3, -7, 5 }, { 2, 9, -1 } }, { dtype = "int8" })
    local mn, mx = t:min(), t:max()
    assert.equal("int8", mn.dtype)
    h.exact(-7, mn:item())
    h.exact(9, mx:item())
    h.exact({ 2, -7, -1 }, t:min(1):totable())
    h.exact({ 5, 9 }, t:max(2):totable())
    h.exact({ { 5 }, { 9 } }, t:max(-1, true):totable())
  end)

  it("work for every real dtype", function()
    for _, dt in ipairs({ "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
      "float16", "bfloat16", "float32", "float64" }) do
      local t = dlx.tensor({ 4, 1, 7, 2 }, { dtype = dt })
      assert.equal(1, t:min():item(), dt)
      assert.equal(7, t:max():item(), dt)
      assert.equal(dt, t:max().dtype)
    end
    h.exact(false, dlx.tensor({ true, false }):min():item())
    h.exact(true, dlx.tensor({ true, false }):max():item())
  end)

  it("propagate NaN", function()
    local t = dlx.tensor({ 1, NAN, 3 }, { dtype = "float64" })
    assert.is_true(h.isnan(t:max():item()))
    assert.is_true(h.isnan(t:min():item()))
    local f = dlx.tensor({ NAN, 1, 3 }, { dtype = "float32" })
    assert.is_true(h.isnan(f:max():item()))
    assert.is_true(h.isnan(f:min():item()))
    local last = dlx.tensor({ 1, 3, NAN }, { dtype = "float16" })
    assert.is_true(h.isnan(last:max():item()))
    assert.is_true(h.isnan(last:min():item()))
    local m = dlx.tensor({ { 1, NAN }, { 2, 3 } }, { dtype = "float32" }):max(1):totable()
    assert.equal(2, m[1])
    assert.is_true(h.isnan(m[2]))
  end)

  it("handle infinities and uint64 values above math.maxinteger", function()
    h.exact(-math.huge, dlx.tensor({ 1, -math.huge }, { dtype = "float64" }):min():item())
    local u = dlx.tensor({ -1, 5 }):astype("uint64")
    h.exact(18446744073709551615.0, u:max():item())
    h.exact(5, u:min():item())
  end)

  it("of nothing are a ValueError", function()
    local z = dlx.zeros({ 0 })
    h.raises("ValueError", z.min, z)
    h.raises("ValueError", z.max, z)
    local z2 = dlx.zeros({ 0, 3 })
    h.raises("ValueError", z2.max, z2, 1)
    h.exact({ 0 }, z2:max(2).shape)
  end)

  it("of complex tensors are a TypeError", function()
    local c = dlx.tensor({ { re = 1, im = 1 } })
    h.raises("TypeError", c.min, c)
    h.raises("TypeError", c.max, c)
  end)
end)

describe("argmin and argmax", function()
  it("give 1-based int64 indices of the first extreme", function()
    local t = dlx.tensor({ 3, 1, 4, 1, 5, 5 })
    local a = t:argmin()
    assert.equal("int64", a.dtype)
    assert.equal(0, a.ndim)
    h.exact(2, a:item())
    h.exact(5, t:argmax():item())
  end)

  it("index into the flattened tensor without dims", function()
    h.exact(6, m23():argmax():item())
    h.exact(1, m23():argmin():item())
    h.exact(1, m23():transpose(1, 2):argmin():item())
    h.exact(6, m23():transpose(1, 2):argmax():item()) -- {{0,3},{1,4},{2,5}}: 5 is 6th
    h.exact(4, m23():flip(2):argmax():item()) -- {{2,1,0},{5,4,3}}: 5 is 4th
  end)

  it("reduce one dim, with keepdim", function()
    local t = dlx.tensor({ { 1, 5 }, { 7, 2 } })
    h.exact({ 2, 1 }, t:argmax(1):totable())
    h.exact({ 2, 1 }, t:argmax(2):totable())
    h.exact({ 1, 2 }, t:argmin(-1):totable())
    h.exact({ { 1, 2 } }, t:argmin(1, true):totable())
    h.exact({ 2, 1 }, t:argmax(2, true).shape)
  end)

  it("give the first NaN", function()
    local t = dlx.tensor({ 1, NAN, 3, NAN }, { dtype = "float64" })
    h.exact(2, t:argmax():item())
    h.exact(2, t:argmin():item())
  end)

  it("of nothing are a ValueError", function()
    local z = dlx.zeros({ 0 })
    h.raises("ValueError", z.argmin, z)
    h.raises("ValueError", z.argmax, z)
  end)

  it("of complex tensors are a TypeError", function()
    local c = dlx.tensor({ { re = 1, im = 1 } })
    h.raises("TypeError", c.argmin, c)
    h.raises("TypeError", c.argmax, c)
  end)

  it("reject a bad dim with a ValueError", function()
    local t = m23()
    h.raises("ValueError", t.argmax, t, 3)
    h.raises("ValueError", t.argmax, t, 0)
  end)
end)

describe("all and any", function()
  it("give bool", function()
    local t = dlx.tensor({ 1, 0, 2 })
    assert.equal("bool", t:all().dtype)
    h.exact(false, t:all():item())
    h.exact(true, t:any():item())
    h.exact(true, dlx.tensor({ 1, 2 }):all():item())
    h.exact(false, dlx.zeros({ 3 }):any():item())
  end)

  it("reduce along dims with keepdim", function()
    local t = dlx.tensor({ { true, false }, { true, true } })
    h.exact({ true, false }, t:all(1):totable())
    h.exact({ true, true }, t:any(1):totable())
    h.exact({ { false }, { true } }, t:all(2, true):totable())
    h.exact(false, t:all({ 1, 2 }):item())
  end)

  it("treat NaN as true", function()
    h.exact(true, dlx.tensor({ NAN }, { dtype = "float64" }):all():item())
    h.exact(true, dlx.tensor({ 0.0, NAN }, { dtype = "float32" }):any():item())
  end)

  it("work on complex values", function()
    h.exact(true, dlx.tensor({ { re = 0, im = 1 } }):all():item())
    h.exact(false, dlx.tensor({ { re = 0, im = 0 } }):any():item())
  end)

  it("of nothing are true and false", function()
    h.exact(true, dlx.zeros({ 0 }):all():item())
    h.exact(false, dlx.zeros({ 0 }):any():item())
  end)
end)

describe("reductions of a 0-d tensor", function()
  it("give the value", function()
    local t = dlx.tensor(5)
    h.exact(5, t:sum():item())
    h.exact(5, t:max():item())
    h.exact(1, t:argmax():item())
    h.exact(5.0, t:mean():item())
  end)
end)
