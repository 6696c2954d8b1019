-- #gpu: reductions on CUDA devices against the CPU backend: full (CUB), inner-axis (warp or
-- block per output), outer-axis (a column per thread, split over blocks when the columns are
-- few), reordered dims, NaN rules, first-position arg reductions, half types summed in float32.
local h = require "spec.helper"
local dlx = h.dlx

describe("#gpu CUDA reductions", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu") -- tensors made without a device are the CPU references

  local DTYPES = { "bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "bfloat16",
    "float32", "float64", "complex64" }
  local DIMS = { "all", 1, 2, 3, { 1, 3 }, { 2, 3 }, { 1, 2 } }
  local ORDERED = { min = true, max = true, argmin = true, argmax = true }

  local function tolerance(dtype)
    if dtype == "float16" or dtype == "bfloat16" then return 1e-2 end
    if dtype == "float32" or dtype == "complex64" then return 1e-5 end
    return 0
  end

  local function compare(want, got, rel)
    if rel == 0 then
      h.same(want, got)
    elseif type(want) == "table" and want.re ~= nil then
      h.assert_close(want.re, got.re, rel, rel)
      h.assert_close(want.im, got.im, rel, rel)
    elseif type(want) == "table" then
      for i = 1, #want do compare(want[i], got[i], rel) end
    elseif type(want) == "number" then
      h.assert_close(want, got, rel, rel)
    else
      h.same(want, got)
    end
  end

  local function check(x, op, dims, keepdim)
    local d = dims ~= "all" and dims or nil
    local want = x[op](x, d, keepdim)
    local got = x:to("cuda")[op](x:to("cuda"), d, keepdim)
    assert.are.same(want.shape, got.shape)
    assert.are.equal(want.dtype, got.dtype)
    local ok, err = pcall(compare, want:totable(), got:to("cpu"):totable(), tolerance(x.dtype))
    assert(ok, ("%s %s over %s: %s"):format(x.dtype, op, tostring(dims), tostring(err)))
  end

  local function sample(dtype)
    -- small values (products stay exact), signs where the dtype has them, some repeats
    return (dlx.arange(210, { dtype = "int64" }) % 7 - 2):view { 5, 6, 7 }:astype(dtype)
  end

  it("agrees with the CPU for every op, dtype and set of dims", function()
    for _, dtype in ipairs(DTYPES) do
      local x = sample(dtype)
      local ops = { "sum", "mean", "prod", "min", "max", "argmin", "argmax", "all", "any" }
      for _, op in ipairs(ops) do
        for _, dims in ipairs(DIMS) do
          local complex = dtype == "complex64"
          local single = dims == "all" or type(dims) == "number"
          local arg = op == "argmin" or op == "argmax"
          if not (complex and ORDERED[op]) and (single or not arg) then
            check(x, op, dims, false)
            check(x, op, dims, true)
          end
        end
      end
    end
  end)

  it("reduces strided views (through a reordered copy when needed)", function()
    local x = sample("float32")
    for _, op in ipairs { "sum", "max", "argmax" } do
      local t = x:transpose(1, 3)
      check(t, op, 1)
      check(t, op, "all")
      check(x:flip(2), op, 2)
    end
    check(x:transpose(1, 3), "sum", { 1, 3 })
  end)

  it("sums 8192 x 8192 float32 over all, each dim, exactly for ones", function()
    local x = dlx.ones({ 8192, 8192 }, { device = "cuda" })
    assert.are.equal(8192 * 8192, x:sum():item())
    h.same(8192, x:sum(1):max():item())
    h.same(8192, x:sum(1):min():item())
    h.same(8192, x:sum(2):min():item())
    h.same(8192, x:sum(2):max():item())
  end)

  it("splits a long outer reduction over blocks and combines it right", function()
    local x = dlx.arange(100000 * 3, { dtype = "int64" }):view { 100000, 3 }
    check(x, "sum", 1)
    check(x, "argmax", 1)
    check(x:astype("float64"), "min", 1)
  end)

  it("accumulates float16 in float32", function()
    -- a float16 running sum would stop at 2048 (2048 + 1 rounds back to 2048)
    local x = dlx.ones({ 4096 }, { dtype = "float16", device = "cuda" })
    assert.are.equal(4096, x:sum():item())
    assert.are.equal(4096, x:view { 1, 4096 }:sum(2):item())
    assert.are.equal(4096, x:view { 4096, 1 }:sum(1):item())
  end)

  it("propagates NaN and gives the first position of extremes and NaN", function()
    local x = dlx.tensor({ 3, 1, 0 / 0, 1, 0 / 0, 5 }, { device = "cuda", dtype = "float32" })
    assert.is_true(h.isnan(x:max():item()))
    assert.is_true(h.isnan(x:min():item()))
    assert.are.equal(3, x:argmax():item())
    assert.are.equal(3, x:argmin():item())
    local y = dlx.tensor({ 4, 1, 5, 1, 5 }, { device = "cuda" })
    assert.are.equal(2, y:argmin():item())
    assert.are.equal(3, y:argmax():item())
  end)

  it("gives the identities over empty extents", function()
    local x = dlx.zeros({ 0, 3 }, { device = "cuda" })
    h.same({ 0, 0, 0 }, x:sum(1):totable())
    h.same({ 1, 1, 1 }, x:prod(1):totable())
    assert.is_true(h.isnan(x:mean(1):totable()[2]))
    h.same({ true, true, true }, x:all(1):totable())
    h.same({ false, false, false }, x:any(1):totable())
    h.raises("ValueError", x.max, x, 1)
  end)
end)
