-- median, nanmedian, kthvalue, mode, quantile, nanquantile, cummax, cummin, logcumsumexp,
-- nansum, nanmean and count_nonzero on the CPU: random rows of every dtype against references
-- computed in Lua from a stable sort (the order every backend promises: NaN last, -0.0 equal to
-- 0.0, equal values in their order), every layout, keepdim, PyTorch's NaN and tie rules, zero-size
-- tensors and errors.
local h = require "spec.helper"
local dlx = h.dlx

local INF, NAN = math.huge, 0 / 0

-- ---- references over Lua lists

local function less(x, y)
  if x ~= x then return false end
  if y ~= y then return true end
  return x < y
end

local function same_key(x, y) return not less(x, y) and not less(y, x) end

--- The 1-based positions of xs in stable sort order.
local function order(xs)
  local idx = {}
  for i = 1, #xs do idx[i] = i end
  table.sort(idx, function(a, b)
    if less(xs[a], xs[b]) then return true end
    if less(xs[b], xs[a]) then return false end
    return a < b
  end)
  return idx
end

local function nans(xs)
  local n = 0
  for _, x in ipairs(xs) do if x ~= x then n = n + 1 end end
  return n
end

--- value, index of an op of one row.
local function ref_row(op, xs, k)
  local o, n = order(xs), #xs
  local m = n - nans(xs)
  local rank
  if op == "kthvalue" then rank = k - 1
  elseif op == "median" then rank = m < n and m or (n - 1) // 2
  elseif op == "nanmedian" then rank = m > 0 and (m - 1) // 2 or 0
  else -- mode: the smallest most frequent value, its last position
    local best, most, run = 1, 0, 0
    for i = 1, n do
      run = (i > 1 and same_key(xs[o[i]], xs[o[i - 1]])) and run + 1 or 1
      if run > most then most, best = run, i end
    end
    local last = 0
    for i = 1, n do if same_key(xs[i], xs[o[best]]) then last = i end end
    return xs[last], last
  end
  return xs[o[rank + 1]], o[rank + 1]
end

local function lerp(a, b, w)
  if w < 0.5 then return a + w * (b - a) end
  return b - (b - a) * (1 - w)
end

local function round_half_even(x)
  local f = math.floor(x)
  if x - f ~= 0.5 then return math.floor(x + 0.5) end
  return f % 2 == 0 and f or f + 1
end

local function ref_quantile(xs, q, how, ignore_nan)
  local o, m = order(xs), #xs - nans(xs)
  if m == 0 or (not ignore_nan and m < #xs) then return NAN end
  local rank = q * (m - 1)
  local lo = math.floor(rank)
  local function at(r) return xs[o[math.min(r, m - 1) + 1]] end
  if how == "lower" then return at(lo) end
  if how == "higher" then return at(math.ceil(rank)) end
  if how == "nearest" then return at(round_half_even(rank)) end
  local hi = rank == lo and lo or lo + 1
  local w = how == "midpoint" and (rank == lo and 0 or 0.5) or rank - lo
  return lerp(at(lo), at(hi), w)
end

local function ref_cum(xs, max)
  local vs, is, best = {}, {}, nil
  for i, x in ipairs(xs) do
    local b = best and xs[best]
    if not best or x ~= x or (b == b and (max and x >= b or not max and x <= b)) then best = i end
    vs[i], is[i] = xs[best], best
  end
  return vs, is
end

local function ref_logcumsumexp(xs)
  local out, acc = {}, -INF
  for i, x in ipairs(xs) do
    local hi, lo = math.max(acc, x), math.min(acc, x)
    if x ~= x or acc ~= acc then acc = NAN
    elseif lo == -INF or hi == INF then acc = hi
    else acc = hi + math.log(1 + math.exp(lo - hi)) end
    out[i] = acc
  end
  return out
end

-- ---- data

local DTYPES = { "bool", "uint8", "int8", "int16", "int32", "int64", "uint32", "float16",
  "bfloat16", "float32", "float64" }
local FLOATS = { "float16", "bfloat16", "float32", "float64" }

local function is_float(dtype) return dtype:match("float") ~= nil end

--- n values of dtype with many ties; floats get -0.0, infinities and NaN now and then.
local function values(dtype, n, seed)
  math.randomseed(seed)
  local out = {}
  local specials = { -0.0, 0.0, INF, -INF, NAN }
  for i = 1, n do
    if dtype == "bool" then out[i] = math.random(0, 1) == 1
    elseif dtype:match("^uint") then out[i] = math.random(0, 6)
    elseif dtype:match("^int") then out[i] = math.random(-4, 4)
    elseif math.random(8) == 1 then out[i] = specials[math.random(#specials)]
    else out[i] = math.random(-12, 12) / 4 end
  end
  return out
end

local function num(x)
  if x == true then return 1 elseif x == false then return 0 end
  return x
end

local function same_value(want, got)
  want, got = num(want), num(got)
  if want ~= want then
    assert.is_true(got ~= got, ("want NaN, got %s"):format(tostring(got)))
  else
    assert.equal(want, got)
  end
end

--- The rows of a 2-d tensor along dim (1 or 2) as Lua lists (of numbers: bool as 0 and 1).
local function rows_along(t, dim)
  local tab, rows = t:totable(), {}
  for _, row in ipairs(tab) do
    for j, x in ipairs(row) do row[j] = num(x) end
  end
  local r, c = t.shape[1], t.shape[2]
  if dim == 2 then
    for i = 1, r do rows[i] = tab[i] end
  else
    for j = 1, c do
      rows[j] = {}
      for i = 1, r do rows[j][i] = tab[i][j] end
    end
  end
  return rows
end

--- 2-d views of the same values: contiguous, transposed, stepped.
local function layouts(dtype, seed)
  local base = dlx.tensor(values(dtype, 60, seed), { dtype = dtype })
  return {
    base:view{ 5, 12 },
    base:view{ 12, 5 }:transpose(1, 2),
    base:view{ 5, 12 }:narrow(2, 2, 9),
    base:view{ 6, 10 }:flip(2),
  }
end

--- Calls fn(t, dim, rows, li) for each layout t (the li-th) of dtype's values at seed and each
--- dim, rows being t's rows along dim.
local function each_view(dtype, seed, fn)
  for li, t in ipairs(layouts(dtype, seed)) do
    for dim = 1, 2 do fn(t, dim, rows_along(t, dim), li) end
  end
end

describe("median, nanmedian, kthvalue, mode", function()
  for _, dtype in ipairs(DTYPES) do
    it("match a stable sort's picks along each dim: " .. dtype, function()
      each_view(dtype, 7 + #dtype, function(t, dim, rows, li)
        local n = #rows[1]
        for _, op in ipairs { "median", "nanmedian", "mode", "kthvalue" } do
          local k = (li % n) + 1
          local v, i
          if op == "kthvalue" then v, i = t:kthvalue(k, dim) else v, i = t[op](t, dim) end
          assert.equal(dtype, v.dtype)
          assert.equal("int64", i.dtype)
          assert.same({ #rows }, v.shape)
          local vt, it_ = v:totable(), i:totable()
          for r, xs in ipairs(rows) do
            local wv, wi = ref_row(op, xs, k)
            same_value(wv, vt[r])
            assert.equal(wi, it_[r], ("%s row %d of layout %d, dim %d"):format(op, r, li, dim))
          end
        end
      end)
    end)
  end

  it("follow PyTorch on ties and NaN (1-based indices)", function()
    local t = dlx.tensor({ 3, 1, 3, 1, 2 }, { dtype = "float32" })
    local v, i = t:kthvalue(2)
    assert.same({ 1, 4 }, { v:item(), i:item() })
    v, i = t:kthvalue(4)
    assert.same({ 3, 1 }, { v:item(), i:item() })
    v, i = t:mode()
    assert.same({ 1, 4 }, { v:item(), i:item() })
    v, i = t:median(1)
    assert.same({ 2, 5 }, { v:item(), i:item() })
    local n = dlx.tensor({ 1, NAN, 0, NAN })
    v, i = n:median(1)
    assert.is_true(h.isnan(v:item()))
    assert.equal(2, i:item())
    v, i = n:nanmedian(1)
    assert.same({ 0, 3 }, { v:item(), i:item() })
    v, i = n:kthvalue(4)
    assert.is_true(h.isnan(v:item()))
    assert.equal(4, i:item())
    v, i = dlx.tensor({ NAN, NAN, NAN }):nanmedian(1)
    assert.is_true(h.isnan(v:item()))
    assert.equal(1, i:item())
  end)

  it("keep -0.0's bits and NaN's payload", function()
    local z = dlx.tensor({ -0.0, 0.0 })
    assert.equal(dlx.tensor({ -0.0 }):tobytes(), z:median():view{ 1 }:tobytes())
    local v, i = z:median(1)
    assert.equal(1, i:item())
    assert.equal(1 / v:item(), -INF)
  end)

  it("take every element without a dim (median, nanmedian: the value alone)", function()
    local t = dlx.tensor({ { 5, 1, 4 }, { 2, 3, 6 } }, { dtype = "int32" })
    local v, i = t:median()
    assert.equal(3, v:item())
    assert.is_nil(i)
    assert.same({}, v.shape)
    assert.equal(3, dlx.tensor({ { 5, NAN }, { 3, 1 } }):nanmedian():item())
    assert.equal(3, dlx.median(t):item())
    assert.equal(3, t:transpose(1, 2):median():item())
  end)

  it("keepdim, negative dims, 0-d tensors, one-element and long rows", function()
    local t = dlx.arange(24, { dtype = "float64" }):view{ 2, 3, 4 }
    local v, i = t:median(2, true)
    assert.same({ 2, 1, 4 }, v.shape)
    assert.same({ 2, 1, 4 }, i.shape)
    assert.same({ { { 4, 5, 6, 7 } }, { { 16, 17, 18, 19 } } }, v:totable())
    v = t:kthvalue(1, -1)
    assert.same({ { 0, 4, 8 }, { 12, 16, 20 } }, v:totable())
    v, i = dlx.tensor(7.5):median(1)
    assert.same({}, v.shape)
    assert.same({ 7.5, 1 }, { v:item(), i:item() })
    v, i = dlx.tensor(7.5):mode(-1, true)
    assert.same({}, v.shape)
    assert.same({ 7.5, 1 }, { v:item(), i:item() })
    -- a row long enough to be cut into blocks over the threads
    local n = 300001
    local long = dlx.arange(n, { dtype = "float32" }):flip(1)
    v, i = long:median(1)
    assert.same({ 150000, 150001 }, { v:item(), i:item() })
    assert.equal(150000, long:median():item())
    assert.equal(2999, long:kthvalue(3000):item())
  end)

  it("cut a long row into blocks over the threads, with the results of one thread", function()
    local saved = dlx.get_num_threads()
    local n = 1100001
    local x = dlx.rand(n, { dtype = "float32" }):mul(1000):floor() -- ties
    local sorted = x:sort():totable()
    local results = {}
    for _, threads in ipairs { 1, 4 } do
      dlx.set_num_threads(threads)
      local v, i = x:median(1)
      local q = x:quantile({ 0.1, 0.5, 0.999 }):totable()
      results[threads] = { v:item(), i:item(), x:median():item(), x:kthvalue(77):item(), q }
    end
    dlx.set_num_threads(saved)
    assert.same(results[1], results[4])
    local v, i, all, k77, q = table.unpack(results[4])
    assert.equal(sorted[(n - 1) // 2 + 1], v)
    assert.equal(v, all)
    assert.equal(v, x:totable()[i])
    assert.equal(sorted[77], k77)
    for j, p in ipairs { 0.1, 0.5, 0.999 } do
      local rank = p * (n - 1)
      local lo = math.floor(rank)
      local want = lerp(sorted[lo + 1], sorted[lo + 2], rank - lo)
      want = dlx.tensor(want, { dtype = "float32" })
      assert.equal(want:item(), q[j])
    end
  end)

  it("give empty results for empty rows of a non-empty dim", function()
    local v, i = dlx.zeros({ 0, 3 }):median(2)
    assert.same({ 0 }, v.shape)
    assert.same({ 0 }, i.shape)
    v = dlx.zeros({ 0, 3 }):quantile(0.5, { dim = 2 })
    assert.same({ 0 }, v.shape)
  end)

  it("refuse bad arguments with clear errors", function()
    local t = dlx.tensor({ 1, 2, 3 })
    h.raises("ValueError", function() t:kthvalue(0) end)
    h.raises("ValueError", function() t:kthvalue(4) end)
    h.raises("ValueError", function() t:median(2) end)
    h.raises("ValueError", function() dlx.zeros({ 2, 0 }):median(2) end)
    h.raises("ValueError", function() dlx.zeros({ 0 }):median() end)
    h.raises("TypeError", function() dlx.zeros({ 2 }, { dtype = "complex64" }):median(1) end)
    h.raises("TypeError", function() t:kthvalue("x") end)
    h.raises("TypeError", function() t:median(1, "yes") end)
  end)
end)

describe("quantile, nanquantile", function()
  local HOWS = { "linear", "lower", "higher", "nearest", "midpoint" }
  local QS = { 0, 0.1, 0.25, 0.5, 0.7, 0.75, 1 }
  for _, dtype in ipairs(FLOATS) do
    it("match interpolated picks of a stable sort: " .. dtype, function()
      each_view(dtype, 3 + #dtype, function(t, dim, rows)
        for _, how in ipairs(HOWS) do
          for _, ignore in ipairs { false, true } do
            local fn = ignore and dlx.nanquantile or dlx.quantile
            local got = fn(t, QS, { dim = dim, interpolation = how })
            assert.same({ #QS, #rows }, got.shape)
            assert.equal(dtype, got.dtype)
            local tab = got:totable()
            for qi, q in ipairs(QS) do
              for r, xs in ipairs(rows) do
                local want = dlx.tensor(ref_quantile(xs, q, how, ignore), { dtype = dtype })
                same_value(want:item(), tab[qi][r])
              end
            end
          end
        end
      end)
    end)
  end

  it("shapes: a number q, a list, keepdim, every element", function()
    local t = dlx.arange(12, { dtype = "float32" }):view{ 3, 4 }
    assert.same({ 3 }, t:quantile(0.5, { dim = 2 }).shape)
    assert.same({ 2, 3 }, t:quantile({ 0.5, 1 }, { dim = 2 }).shape)
    assert.same({ 2, 3, 1 }, t:quantile({ 0.5, 1 }, { dim = -1, keepdim = true }).shape)
    assert.same({ 1, 1 }, t:quantile(0.5, { keepdim = true }).shape)
    assert.same({}, t:quantile(0.5).shape)
    assert.equal(5.5, t:quantile(0.5):item())
    assert.same({ 0 }, t:quantile({}).shape)
    assert.same({ 1.5, 5.5, 9.5 }, dlx.quantile(t, 0.5, { dim = 2 }):totable())
  end)

  it("follow PyTorch on NaN and infinities", function()
    local t = dlx.tensor({ 1, 2, NAN })
    assert.is_true(h.isnan(t:quantile(0.5):item()))
    assert.equal(1.5, t:nanquantile(0.5):item())
    assert.is_true(h.isnan(dlx.tensor({ NAN, NAN }):nanquantile(0.5):item()))
    local inf = dlx.tensor({ 1, INF }, { dtype = "float64" })
    local got = inf:quantile({ 0, 0.5, 1 }):totable()
    assert.equal(1, got[1])
    assert.is_true(h.isnan(got[2]) and h.isnan(got[3])) -- a + 0 (inf - inf), as torch.lerp
    assert.same({ 1, 1, INF }, inf:quantile({ 0, 0.5, 1 }, { interpolation = "lower" }):totable())
  end)

  it("refuse bad arguments with clear errors", function()
    local t = dlx.tensor({ 1.0, 2.0 })
    h.raises("TypeError", function() dlx.tensor({ 1, 2 }):quantile(0.5) end)
    h.raises("ValueError", function() t:quantile(1.5) end)
    h.raises("ValueError", function() t:quantile({ 0.5, -0.1 }) end)
    h.raises("ValueError", function() t:quantile(NAN) end)
    h.raises("TypeError", function() t:quantile("half") end)
    h.raises("TypeError", function() t:quantile({ "half" }) end)
    h.raises("ValueError", function() t:quantile(0.5, { interpolation = "cubic" }) end)
    h.raises("TypeError", function() t:quantile(0.5, { interpolation = 1 }) end)
    h.raises("TypeError", function() t:quantile(0.5, { axis = 1 }) end)
    h.raises("TypeError", function() t:quantile(0.5, 1) end)
    h.raises("ValueError", function() dlx.zeros({ 0 }):quantile(0.5) end)
  end)
end)

describe("cummax, cummin, logcumsumexp", function()
  for _, dtype in ipairs(DTYPES) do
    it("match running references along each dim: " .. dtype, function()
      each_view(dtype, 11 + #dtype, function(t, dim, rows)
        for _, max in ipairs { true, false } do
          local v, i = (max and t.cummax or t.cummin)(t, dim)
          assert.same(t.shape, v.shape)
          assert.equal(dtype, v.dtype)
          local vr, ir = rows_along(v, dim), rows_along(i, dim)
          for r, xs in ipairs(rows) do
            local wv, wi = ref_cum(xs, max)
            for j = 1, #xs do
              same_value(wv[j], vr[r][j])
              assert.equal(wi[j], ir[r][j])
            end
          end
        end
        local l = dlx.logcumsumexp(t, dim)
        assert.equal(is_float(dtype) and dtype or "float32", l.dtype)
        local lr = rows_along(l, dim)
        for r, xs in ipairs(rows) do
          local nums = {}
          for j, x in ipairs(xs) do nums[j] = num(x) end
          local want = ref_logcumsumexp(nums)
          for j = 1, #xs do
            local w = dlx.tensor(want[j], { dtype = l.dtype }):item()
            if w ~= w or w == INF or w == -INF then same_value(w, lr[r][j])
            else h.assert_close(w, lr[r][j], l.dtype:match("16") and 1e-2 or 1e-6) end
          end
        end
      end)
    end)
  end

  it("follow PyTorch: ties and NaN move the index to the latest", function()
    local v, i = dlx.tensor({ 1, NAN, 0, NAN }):cummax(1)
    assert.same({ 1, 2, 2, 4 }, i:totable())
    assert.is_true(h.isnan(v:totable()[4]))
    v, i = dlx.tensor({ 1, 1, 2, 2 }):cummax(1)
    assert.same({ { 1, 1, 2, 2 }, { 1, 2, 3, 4 } }, { v:totable(), i:totable() })
    v, i = dlx.tensor({ 2, 2, 1, 1 }):cummin(1)
    assert.same({ { 2, 2, 1, 1 }, { 1, 2, 3, 4 } }, { v:totable(), i:totable() })
    assert.same({ -INF, 0, INF }, dlx.tensor({ -INF, 0, INF }):logcumsumexp():totable())
  end)

  it("0-d, empty and 3-d tensors; errors", function()
    local v, i = dlx.tensor(3):cummax()
    assert.same({}, v.shape)
    assert.same({ 3, 1 }, { v:item(), i:item() })
    v, i = dlx.zeros({ 2, 0 }):cummin(2)
    assert.same({ 2, 0 }, v.shape)
    assert.same({ 2, 0 }, i.shape)
    local t = dlx.arange(24):view{ 2, 3, 4 }
    v = t:flip(2):cummax(2)
    assert.same({ { 8, 9, 10, 11 }, { 8, 9, 10, 11 }, { 8, 9, 10, 11 } }, v:totable()[1])
    h.raises("TypeError", function() t:cummax() end)
    h.raises("ValueError", function() t:cummin(4) end)
    h.raises("TypeError", function() dlx.zeros({ 2 }, { dtype = "complex64" }):cummax(1) end)
    h.raises("TypeError", function() dlx.zeros({ 2 }, { dtype = "complex64" }):logcumsumexp(1) end)
  end)
end)

describe("nansum, nanmean, count_nonzero", function()
  it("skip NaN as PyTorch does, with the arguments of t:sum", function()
    local t = dlx.tensor({ { 1, NAN, 2 }, { NAN, NAN, 4 } })
    assert.equal(7, t:nansum():item())
    assert.same({ 3, 4 }, t:nansum(2):totable())
    assert.same({ { 3 }, { 4 } }, dlx.nansum(t, 2, true):totable())
    assert.same({ 1, 0, 6 }, t:nansum(1):totable())
    h.assert_close(7 / 3, t:nanmean():item(), 1e-6)
    local m = t:nanmean(1):totable()
    assert.same({ 1, 3 }, { m[1], m[3] })
    assert.is_true(h.isnan(m[2]))
    assert.equal("float64", dlx.tensor({ 1.5 }, { dtype = "float64" }):nanmean().dtype)
    assert.equal(6, dlx.tensor({ 1, 2, 3 }, { dtype = "int32" }):nansum():item())
    assert.equal("int64", dlx.tensor({ 1, 2, 3 }, { dtype = "int32" }):nansum().dtype)
    h.raises("TypeError", function() dlx.tensor({ 1, 2 }):nanmean() end)
    h.raises("TypeError", function() dlx.zeros({ 2 }, { dtype = "complex64" }):nansum() end)
  end)

  it("count_nonzero over all dims or some, any dtype", function()
    local t = dlx.tensor({ { 1, 0, NAN }, { 0, 0, -0.0 } })
    assert.equal(2, t:count_nonzero():item())
    assert.equal("int64", t:count_nonzero().dtype)
    assert.same({ 1, 0, 1 }, t:count_nonzero(1):totable())
    assert.same({ 2, 0 }, dlx.count_nonzero(t, { 2 }):totable())
    assert.equal(1, dlx.tensor({ true, false }):count_nonzero():item())
    assert.equal(0, dlx.zeros({ 0, 3 }):count_nonzero():item())
    h.raises("ValueError", function() t:count_nonzero(3) end)
  end)
end)
