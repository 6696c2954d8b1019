-- var, std, logsumexp, norm, cumsum, cumprod, softmax and log_softmax: values against references
-- computed in Lua, every layout (transposed, stepped, reversed, broadcast, 0-d, zero-size),
-- keepdim, dtypes, edge values and errors.
local h = require "spec.helper"
local dlx = h.dlx

local INF, NAN = math.huge, 0 / 0

-- ---- references over Lua lists

local function ref_var(xs, correction)
  local n, sum = #xs, 0
  for _, x in ipairs(xs) do sum = sum + x end
  local mean, ss = sum / n, 0
  for _, x in ipairs(xs) do ss = ss + (x - mean) ^ 2 end
  return ss / math.max(n - (correction or 0), 0)
end

local function ref_lse(xs)
  local max = -INF
  for _, x in ipairs(xs) do max = math.max(max, x) end
  if max == -INF or max == INF then return max end
  local s = 0
  for _, x in ipairs(xs) do s = s + math.exp(x - max) end
  return max + math.log(s)
end

local function ref_norm(xs, p)
  local s = 0
  for _, x in ipairs(xs) do
    if p == 1 then s = s + math.abs(x)
    elseif p == 2 then s = s + x * x
    else s = math.max(s, math.abs(x)) end
  end
  return p == 2 and math.sqrt(s) or s
end

local function ref_scan(xs, prod)
  local out, acc = {}, prod and 1 or 0
  for i, x in ipairs(xs) do
    acc = prod and acc * x or acc + x
    out[i] = acc
  end
  return out
end

local function ref_softmax(xs, log)
  local lse, out = ref_lse(xs), {}
  for i, x in ipairs(xs) do out[i] = log and x - lse or math.exp(x - lse) end
  return out
end

-- The lines of a 2-d table along dim (1: columns, 2: rows).
local function lines(tbl, dim)
  if dim == 2 then return tbl end
  local cols = {}
  for j = 1, #tbl[1] do
    cols[j] = {}
    for i = 1, #tbl do cols[j][i] = tbl[i][j] end
  end
  return cols
end

local function flat(tbl)
  local out = {}
  local function walk(t)
    if type(t) == "table" then
      for _, v in ipairs(t) do walk(v) end
    else
      out[#out + 1] = t
    end
  end
  walk(tbl)
  return out
end

-- Reduction of a 2-d tensor along dim (nil: all) by f over each line, as a Lua value.
local function ref_reduce(t, dim, f)
  local tbl = t:totable()
  if dim == nil then return f(flat(tbl)) end
  local out = {}
  for i, line in ipairs(lines(tbl, dim)) do out[i] = f(line) end
  return out
end

-- An op along dim of a 2-d tensor, line by line, as a 2-d table.
local function ref_along(t, dim, f)
  local out = {}
  for i, line in ipairs(lines(t:totable(), dim)) do out[i] = f(line) end
  return lines(out, dim) -- columns back into rows: lines() transposes
end

-- A 4 x 5 float64 matrix, and the same values in every layout the specs walk.
local function values()
  local v = {}
  for i = 1, 4 do
    v[i] = {}
    for j = 1, 5 do v[i][j] = ((i * 7 + j * 3) % 11) / 4 - 1 + i * 0.25 end
  end
  return v
end

local function layouts(dtype)
  local base = dlx.tensor(values(), { dtype = dtype or "float64" })
  local wide = dlx.zeros({ 8, 10 }, { dtype = dtype or "float64" })
  wide:slice(1, 1, 8, 2):slice(2, 1, 10, 2):copy_(base)
  return {
    contiguous = base,
    transposed = base:transpose(1, 2):clone():transpose(1, 2),
    stepped = wide:slice(1, 1, 8, 2):slice(2, 1, 10, 2),
    reversed = base:flip({ 1, 2 }):clone():flip({ 1, 2 }),
    broadcast = dlx.tensor({ values()[2] }, { dtype = dtype or "float64" }):expand({ 4, 5 }),
  }
end

describe("var and std", function()
  it("match the reference along each dim and over everything, in every layout", function()
    for _, t in pairs(layouts()) do
      for _, dim in ipairs({ 1, 2 }) do
        for _, c in ipairs({ 0, 1, 1.5 }) do
          local want = ref_reduce(t, dim, function(xs) return ref_var(xs, c) end)
          h.same_approx(want, t:var({ dim = dim, correction = c }):totable(), 1e-12, 1e-14)
          local sd = {}
          for i, v in ipairs(want) do sd[i] = math.sqrt(v) end
          h.same_approx(sd, t:std({ dim = dim, correction = c }):totable(), 1e-12, 1e-14)
        end
      end
      h.assert_close(ref_reduce(t, nil, ref_var), t:var():item(), 1e-12)
    end
  end)

  it("take dims and keepdim positionally or in the options table", function()
    local t = layouts().contiguous
    h.same({ 4, 1 }, t:var(2, true).shape)
    h.same({ 4, 1 }, t:var({ dim = -1, keepdim = true }).shape)
    h.same({ 1, 1 }, t:std({ dim = { 1, 2 }, keepdim = true }).shape)
    h.same({}, t:std().shape)
  end)

  it("default to correction 0, as the array API and NumPy", function()
    local t = dlx.tensor({ 1, 2, 3, 4 }, { dtype = "float64" })
    h.exact(1.25, t:var():item())
    h.assert_close(5 / 3, t:var({ correction = 1 }):item(), 1e-15)
  end)

  it("stay accurate for values with a large mean", function()
    local xs = {}
    for i = 1, 1000 do xs[i] = 1e9 + (i % 7) end
    local t = dlx.tensor(xs, { dtype = "float64" })
    h.assert_close(ref_var(xs, 0), t:var():item(), 1e-9)
  end)

  it("give float32 for integers and bool, keep float dtypes", function()
    h.same("float32", dlx.tensor({ 1, 2, 4 }, { dtype = "int32" }):var().dtype)
    h.same("float32", dlx.tensor({ true, false }, { dtype = "bool" }):std().dtype)
    h.assert_close(14 / 9, dlx.tensor({ 1, 2, 4 }, { dtype = "int64" }):var():item(), 1e-6)
    for _, dt in ipairs({ "float16", "bfloat16", "float32", "float64" }) do
      local r = dlx.tensor({ 1, 2, 4 }, { dtype = dt }):var()
      h.same(dt, r.dtype)
      h.assert_close(14 / 9, r:item(), 1e-2)
    end
  end)

  it("give NaN for nothing and for a correction that leaves no divisor", function()
    assert(h.isnan(dlx.zeros({ 0 }):var():item()))
    assert(h.isnan(dlx.tensor({ 3.0 }):var({ correction = 1 }):item()))
    h.same({ 2, 3 }, dlx.zeros({ 2, 0, 3 }):var(2).shape)
    h.same({ 0 }, dlx.zeros({ 0, 3 }):var(2).shape)
  end)

  it("propagate NaN and infinity", function()
    assert(h.isnan(dlx.tensor({ 1, NAN, 2 }):var():item()))
    assert(h.isnan(dlx.tensor({ 1, INF, 2 }):var():item()))
  end)

  it("of a 0-d tensor is 0", function()
    h.exact(0.0, dlx.tensor(5.0, { dtype = "float64" }):var():item())
  end)

  it("reject bad options", function()
    local t = layouts().contiguous
    h.raises("TypeError", function() return t:var({ correction = "1" }) end)
    h.raises("TypeError", function() return t:var({ dimm = 1 }) end)
    h.raises("ValueError", function() return t:var({ correction = INF }) end)
    h.raises("ValueError", function() return t:var(3) end)
    h.raises("TypeError", function() return dlx.tensor({ { re = 1, im = 2 } }):var() end)
  end)
end)

describe("logsumexp", function()
  it("matches the reference in every layout", function()
    for _, t in pairs(layouts()) do
      for _, dim in ipairs({ 1, 2 }) do
        h.same_approx(ref_reduce(t, dim, ref_lse), t:logsumexp(dim):totable(), 1e-13)
      end
      h.assert_close(ref_reduce(t, nil, ref_lse), t:logsumexp():item(), 1e-13)
    end
  end)

  it("does not overflow for large values and keeps dims with keepdim", function()
    local t = dlx.tensor({ { 1000, 1000 }, { -1000, -1000 } }, { dtype = "float64" })
    h.same_approx({ { 1000 + math.log(2) }, { -1000 + math.log(2) } },
      t:logsumexp(2, true):totable(), 1e-15)
  end)

  it("handles infinities, NaN and nothing", function()
    h.exact(INF, dlx.tensor({ 1, INF }):logsumexp():item())
    h.exact(-INF, dlx.tensor({ -INF, -INF }):logsumexp():item())
    h.exact(-INF, dlx.zeros({ 0 }):logsumexp():item())
    assert(h.isnan(dlx.tensor({ 1, NAN, INF }):logsumexp():item()))
  end)

  it("gives float32 for integers", function()
    local r = dlx.tensor({ 0, 0 }, { dtype = "int8" }):logsumexp()
    h.same("float32", r.dtype)
    h.assert_close(math.log(2), r:item(), 1e-6)
  end)
end)

describe("norm", function()
  it("matches the reference for p = 1, 2 and inf in every layout", function()
    for _, t in pairs(layouts()) do
      for _, p in ipairs({ 1, 2, INF }) do
        for _, dim in ipairs({ 1, 2 }) do
          local want = ref_reduce(t, dim, function(xs) return ref_norm(xs, p) end)
          h.same_approx(want, t:norm({ p = p, dim = dim }):totable(), 1e-13)
        end
        h.assert_close(ref_reduce(t, nil, function(xs) return ref_norm(xs, p) end),
          t:norm({ p = p }):item(), 1e-13)
      end
    end
  end)

  it("computes the 2-norm without overflow or underflow", function()
    h.assert_close(math.sqrt(2) * 1e300,
      dlx.tensor({ 1e300, 1e300 }, { dtype = "float64" }):norm():item(), 1e-15)
    h.assert_close(5e-300, dlx.tensor({ 3e-300, 4e-300 }, { dtype = "float64" }):norm():item(),
      1e-15)
    h.assert_close(5e30, dlx.tensor({ 3e30, 4e30 }, { dtype = "float32" }):norm():item(), 1e-6)
    h.assert_close(5e-320, dlx.tensor({ 3e-320, 4e-320 }, { dtype = "float64" }):norm():item(),
      1e-3) -- subnormals
    h.exact(5e-324, dlx.tensor({ 5e-324, 0 }, { dtype = "float64" }):norm():item())
  end)

  it("handles NaN, infinity and nothing", function()
    h.exact(INF, dlx.tensor({ 1, -INF }):norm():item())
    assert(h.isnan(dlx.tensor({ NAN, INF }):norm():item()))
    assert(h.isnan(dlx.tensor({ NAN, 1 }):norm({ p = INF }):item()))
    h.exact(0.0, dlx.zeros({ 0 }, { dtype = "float64" }):norm():item())
  end)

  it("gives float32 for integers and keeps dims with keepdim", function()
    local r = dlx.tensor({ { 3, -4 } }, { dtype = "int16" }):norm({ dim = 2, keepdim = true })
    h.same("float32", r.dtype)
    h.same({ { 5.0 } }, r:totable())
  end)

  it("rejects other p", function()
    h.raises("ValueError", function() return dlx.ones({ 2 }):norm({ p = 3 }) end)
    h.raises("TypeError", function() return dlx.ones({ 2 }):norm({ p = "fro" }) end)
  end)
end)

describe("cumsum and cumprod", function()
  it("match the reference along each dim in every layout", function()
    for _, t in pairs(layouts()) do
      for _, dim in ipairs({ 1, 2, -1 }) do
        local d = dim < 0 and 2 or dim
        h.same_approx(ref_along(t, d, ref_scan), t:cumsum(dim):totable(), 1e-14)
        h.same_approx(ref_along(t, d, function(xs) return ref_scan(xs, true) end),
          t:cumprod(dim):totable(), 1e-14)
      end
    end
  end)

  it("accumulate integers in int64 and wrap", function()
    local r = dlx.tensor({ 100, 100, 100 }, { dtype = "int8" }):cumsum()
    h.same("int64", r.dtype)
    h.exact({ 100, 200, 300 }, r:totable())
    h.same("uint64", dlx.tensor({ 1 }, { dtype = "uint64" }):cumsum().dtype)
    h.exact({ math.maxinteger, math.mininteger },
      dlx.tensor({ math.maxinteger, 1 }, { dtype = "int64" }):cumsum():totable())
    h.exact({ 1, 0, 0 }, dlx.tensor({ true, false, true }):cumprod():totable())
  end)

  it("scan the columns of integer and float16 matrices", function()
    for _, dt in ipairs({ "int32", "uint8", "float16" }) do
      local t = dlx.tensor({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }, { dtype = dt })
      h.same({ { 1, 2, 3 }, { 5, 7, 9 }, { 12, 15, 18 } }, t:cumsum(1):totable())
      h.same({ { 1, 2, 3 }, { 4, 10, 18 }, { 28, 80, 162 } }, t:cumprod(1):totable())
      h.same({ { 1, 2, 3 }, { 5, 7, 9 }, { 12, 15, 18 } }, t:transpose(1, 2):cumsum(2)
        :transpose(1, 2):totable())
      h.same({ { 1, 3, 6 }, { 4, 9, 15 }, { 7, 15, 24 } }, t:cumsum(2):totable())
    end
  end)

  it("keep float dtypes, rounding each result once", function()
    for _, dt in ipairs({ "float16", "bfloat16", "float32", "float64" }) do
      local r = dlx.tensor({ 0.5, 0.25, 2 }, { dtype = dt }):cumprod()
      h.same(dt, r.dtype)
      h.same({ 0.5, 0.125, 0.25 }, r:totable())
    end
  end)

  it("work on 0-d and zero-size tensors", function()
    h.exact(5, dlx.tensor(5, { dtype = "int32" }):cumsum():item())
    h.same({}, dlx.tensor(5.0):cumsum(1).shape)
    h.same({ 0, 3 }, dlx.zeros({ 0, 3 }):cumsum(2).shape)
    h.same({ 2, 0 }, dlx.zeros({ 2, 0 }):cumprod(2).shape)
  end)

  it("need a dim for tensors of two dims or more", function()
    h.raises("TypeError", function() return dlx.ones({ 2, 2 }):cumsum() end)
    h.raises("ValueError", function() return dlx.ones({ 2, 2 }):cumsum(3) end)
    h.raises("TypeError", function() return dlx.tensor({ { re = 1, im = 2 } }):cumsum() end)
  end)
end)

describe("softmax and log_softmax", function()
  it("match the reference along each dim in every layout", function()
    for _, t in pairs(layouts()) do
      for _, dim in ipairs({ 1, 2 }) do
        h.same_approx(ref_along(t, dim, ref_softmax), dlx.softmax(t, dim):totable(), 1e-13)
        h.same_approx(ref_along(t, dim, function(xs) return ref_softmax(xs, true) end),
          dlx.log_softmax(t, dim):totable(), 1e-13, 1e-15)
        h.same(dlx.softmax(t, dim):totable(), t:softmax(dim):totable())
        h.same(dlx.log_softmax(t, dim):totable(), t:log_softmax(dim):totable())
      end
    end
  end)

  it("compute float32 within a few ulp, long rows included", function()
    local n = 3001
    local xs = {}
    for i = 1, n do xs[i] = ((i * 37) % 101) / 7 - 5 end
    local t = dlx.tensor(xs, { dtype = "float32" })
    local want = ref_softmax(t:totable())
    h.same_approx(want, t:softmax():totable(), 1e-5)
    h.same_approx(ref_softmax(t:totable(), true), t:log_softmax():totable(), 1e-5, 1e-6)
    local m = dlx.tensor({ xs, xs }, { dtype = "float32" })
    h.same(m:softmax(2):totable()[2], t:softmax():totable())
  end)

  it("are stable for large values", function()
    local r = dlx.softmax(dlx.tensor({ 1000, 1000 }, { dtype = "float32" }), 1)
    h.same({ 0.5, 0.5 }, r:totable())
    h.same_approx({ -math.log(2), -math.log(2) },
      dlx.log_softmax(dlx.tensor({ -1e4, -1e4 }), 1):totable(), 1e-6)
  end)

  it("give NaN for a line with NaN, +inf or only -inf, as PyTorch", function()
    for _, xs in ipairs({ { 1, NAN }, { 1, INF }, { -INF, -INF } }) do
      for _, v in ipairs(dlx.tensor(xs):softmax():totable()) do assert(h.isnan(v)) end
    end
    h.same({ 1.0, 0.0 }, dlx.tensor({ 0, -INF }):softmax():totable())
  end)

  it("give float32 for integers and keep float16 and bfloat16", function()
    h.same("float32", dlx.tensor({ 1, 2 }, { dtype = "int64" }):softmax().dtype)
    for _, dt in ipairs({ "float16", "bfloat16" }) do
      local r = dlx.tensor({ 0, 0, 0, 0 }, { dtype = dt }):softmax()
      h.same(dt, r.dtype)
      h.same({ 0.25, 0.25, 0.25, 0.25 }, r:totable())
    end
  end)

  it("work on 0-d, zero-size tensors and with keepdim-free shapes", function()
    h.exact(1.0, dlx.tensor(3.0):softmax():item())
    h.exact(0.0, dlx.tensor(3.0):log_softmax():item())
    h.same({ 0, 4 }, dlx.zeros({ 0, 4 }):softmax(2).shape)
    h.same({ 3, 0 }, dlx.zeros({ 3, 0 }):softmax(2).shape)
  end)

  it("reject bad arguments", function()
    h.raises("TypeError", function() return dlx.softmax(dlx.ones({ 2, 2 })) end)
    h.raises("ValueError", function() return dlx.softmax(dlx.ones({ 2, 2 }), 3) end)
    h.raises("TypeError", function() return dlx.softmax(3, 1) end)
    h.raises("TypeError", function() return dlx.tensor({ { re = 1, im = 2 } }):softmax() end)
  end)
end)
