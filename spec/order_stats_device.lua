--- median, nanmedian, kthvalue, quantile and nanquantile on a GPU (the rows sorted by the
--- device's sort_rows, the ranks picked by its elementwise ops, sums and gathers), against the
--- CPU's selection on the same data, bit for bit: each dtype family, dims and keepdim, the
--- layouts (transposed, stepped, 0-d, empty), ties and NaN, every interpolation. nansum, nanmean
--- and count_nonzero (elementwise ops and sums) against the CPU's; mode (the sorted rows' runs
--- counted with cumsum and a scatter), cummax and cummin (the device's row_op) bit for bit, and
--- logcumsumexp within the CPU's tolerance.
--- Used by oneapi_order_stats_spec.lua and cuda_order_stats_spec.lua: require
--- "spec.order_stats_device" (device, it) inside a describe.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local INF, NAN = math.huge, 0 / 0

local function values(dtype, n, seed)
  math.randomseed(seed)
  local out, specials = {}, { -0.0, 0.0, INF, -INF, NAN }
  for i = 1, n do
    if dtype == "bool" then out[i] = math.random(0, 1) == 1
    elseif dtype:match("^uint") then out[i] = math.random(0, 6)
    elseif dtype:match("^int") then out[i] = math.random(-4, 4)
    elseif math.random(6) == 1 then out[i] = specials[math.random(#specials)]
    else out[i] = math.random(-12, 12) / 4 end
  end
  return out
end

local DTYPES = { "bool", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
  "float64" }
local FLOATS = { "float16", "bfloat16", "float32", "float64" }

--- CPU tensors of these values in several layouts (each 2-d but the last two).
local function layouts(dtype, seed)
  local base = dlx.tensor(values(dtype, 60, seed), { dtype = dtype, device = "cpu" })
  return {
    base:view{ 5, 12 },
    base:view{ 12, 5 }:transpose(1, 2),
    base:view{ 5, 12 }:narrow(2, 2, 9),
    base:view{ 60 },
    dlx.tensor(values(dtype, 1, seed)[1], { dtype = dtype, device = "cpu" }), -- 0-d
  }
end

return function(device, it)
  local function on(t) return t:to(device) end

  it("median, nanmedian and kthvalue pick what the CPU picks, bit for bit", function()
    for _, dtype in ipairs(DTYPES) do
      for li, t in ipairs(layouts(dtype, 5 + #dtype)) do
        local line = math.max(t.ndim, 1)
        for dim = 1, line do
          for _, op in ipairs { "median", "nanmedian", "kthvalue" } do
            local n = t.ndim == 0 and 1 or t.shape[dim]
            local k = (li % n) + 1
            local args = op == "kthvalue" and { k, dim, li % 2 == 0 } or { dim, li % 2 == 0 }
            local wv, wi = t[op](t, table.unpack(args))
            local d = on(t)
            local gv, gi = d[op](d, table.unpack(args))
            h.same_bits(wv, gv)
            h.same_bits(wi, gi)
          end
        end
        if t.numel > 0 then
          h.same_bits(t:median(), on(t):median())
          h.same_bits(t:nanmedian(), on(t):nanmedian())
        end
      end
    end
  end)

  it("quantile and nanquantile agree with the CPU's for every interpolation", function()
    local qs = { 0, 0.1, 0.25, 0.5, 0.7, 1 }
    for _, dtype in ipairs(FLOATS) do
      for _, t in ipairs(layouts(dtype, 9 + #dtype)) do
        for _, how in ipairs { "linear", "lower", "higher", "nearest", "midpoint" } do
          for _, fn in ipairs { "quantile", "nanquantile" } do
            local opts = { dim = t.ndim > 1 and 2 or nil, interpolation = how }
            h.same_bits(t[fn](t, qs, opts), on(t)[fn](on(t), qs, opts))
            local keep = { keepdim = true }
            h.same_bits(t[fn](t, 0.3, keep), on(t)[fn](on(t), 0.3, keep))
          end
        end
      end
    end
  end)

  it("mode picks what the CPU picks, bit for bit", function()
    for _, dtype in ipairs(DTYPES) do
      for li, t in ipairs(layouts(dtype, 13 + #dtype)) do
        for dim = 1, math.max(t.ndim, 1) do
          local wv, wi = t:mode(dim, li % 2 == 0)
          local gv, gi = on(t):mode(dim, li % 2 == 0)
          h.same_bits(wv, gv)
          h.same_bits(wi, gi)
        end
        if t.numel > 0 then
          local wv, wi = dlx.mode(t)
          local gv, gi = dlx.mode(on(t))
          h.same_bits(wv, gv)
          h.same_bits(wi, gi)
        end
      end
    end
    -- equally frequent values: the smallest; NaN and -0.0 / 0.0 each one value
    local t = dlx.tensor({ 0 / 0, 3, 0 / 0, -0.0, 3, 0.0, 1 }, { device = "cpu" })
    local wv, wi = t:mode()
    local gv, gi = on(t):mode()
    h.same_bits(wv, gv)
    h.same_bits(wi, gi)
  end)

  it("empty rows, errors as on the CPU", function()
    local v, i = on(dlx.zeros({ 0, 3 })):median(2)
    assert.same({ 0 }, v.shape)
    assert.same({ 0 }, i.shape)
    assert.equal(device, tostring(v.device))
    h.raises("ValueError", function() on(dlx.zeros({ 2, 0 })):median(2) end)
    h.raises("ValueError", function() on(dlx.tensor({ 1, 2 })):kthvalue(3) end)
    h.raises("TypeError", function() on(dlx.tensor({ 1, 2 })):quantile(0.5) end)
  end)

  it("nansum, nanmean and count_nonzero agree with the CPU's", function()
    for _, t in ipairs(layouts("float32", 3)) do
      if t.ndim == 2 then -- (the float32 sums of 5 or 12 elements are the same in any order)
        h.same_as_cpu(device, t:nansum(2), on(t):nansum(2), 1e-10)
        h.same_as_cpu(device, t:nanmean(1, true), on(t):nanmean(1, true), 1e-10)
        h.same_bits(t:count_nonzero(2), on(t):count_nonzero(2))
      end
    end
    h.same_bits(dlx.tensor({ 1, 0, 2 }, { dtype = "int8" }):count_nonzero(),
      on(dlx.tensor({ 1, 0, 2 }, { dtype = "int8" })):count_nonzero())
  end)

  it("cummax and cummin give the CPU's values and indices, bit for bit", function()
    for _, dtype in ipairs(DTYPES) do
      for _, t in ipairs(layouts(dtype, 17 + #dtype)) do
        for dim = 1, math.max(t.ndim, 1) do
          for _, op in ipairs { "cummax", "cummin" } do
            local wv, wi = t[op](t, dim)
            local gv, gi = on(t)[op](on(t), dim)
            h.same_bits(wv, gv)
            h.same_bits(wi, gi)
          end
        end
      end
    end
    local wv, wi = dlx.cummax(dlx.tensor({ 1, 0 / 0, 2, 0 / 0, -0.0, 0.0 }, { device = "cpu" }))
    local gv, gi = dlx.cummax(on(dlx.tensor({ 1, 0 / 0, 2, 0 / 0, -0.0, 0.0 },
      { device = "cpu" })))
    h.same_bits(wv, gv)
    h.same_bits(wi, gi)
  end)

  it("logcumsumexp agrees with the CPU's within its tolerance", function()
    for _, dtype in ipairs(DTYPES) do
      for _, t in ipairs(layouts(dtype, 19 + #dtype)) do
        for dim = 1, math.max(t.ndim, 1) do
          -- the device's exp and log1p: float64 within 1e-12, float32 1e-6, halves 1e-2
          h.same_as_cpu(device, t:logcumsumexp(dim), on(t):logcumsumexp(dim), 1e-12)
        end
      end
    end
    local t = dlx.tensor({ -INF, -INF, 0, INF, 1, NAN, 2 }, { dtype = "float64", device = "cpu" })
    h.same_as_cpu(device, t:logcumsumexp(1), on(t):logcumsumexp(1), 1e-12)
  end)
end
