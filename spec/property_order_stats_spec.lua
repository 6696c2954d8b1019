-- Property tests of median, nanmedian, quantile, nanquantile (every interpolation), cummax,
-- cummin, nansum, nanmean and count_nonzero against NumPy 2 (tests/property/numpy_order_stats.py):
-- random float64 tensors of 1 to 3 dims with ties and NaN, random dims (or every element), some
-- of them seen through flipped views. dlx's median is PyTorch's lower median, which NumPy gives
-- as np.quantile(method = "lower"). Quantiles agree to 1e-12 relative (NumPy takes the rank as
-- n q - q, dlx as q (n - 1)); the rest exactly. Infinities are left out: NumPy and PyTorch
-- interpolate them differently (order_stats_spec.lua has PyTorch's rule).
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/numpy_order_stats.py"

local OPS = { "median", "nanmedian", "quantile", "nanquantile", "cummax", "cummin", "nansum",
  "nanmean", "count_nonzero" }
local METHODS = { "linear", "lower", "higher", "nearest", "midpoint" }
local pick, numel = N.pick, N.numel

local function random_case(id)
  local op = pick(OPS)
  local ndim = math.random(1, 3)
  local shape = {}
  for d = 1, ndim do shape[d] = math.random(1, 5) end
  local dim = math.random(op:match("^cum") and 1 or 0, ndim)
  local q, method = math.random(0, 20) / 20, pick(METHODS)
  if math.random() < 0.2 then q = math.random() end
  local values, text = {}, {}
  local nan_rate = math.random() < 0.5 and 0 or 0.3
  for i = 1, numel(shape) do
    local x = math.random(-3, 3) / 2
    if math.random() < nan_rate then x = 0 / 0 end
    values[i], text[i] = x, x ~= x and "nan" or ("%.17g"):format(x)
  end
  local t = dlx.tensor(values, { dtype = "float64" }):view(shape)
  if math.random() < 0.3 then t = t:flip(1):contiguous():flip(1) end
  local line = table.concat({ id, op, dim, ("%.17g"):format(q), method, table.concat(shape, ","),
    table.concat(text, " ") }, "\t")
  local name = ("case %d (seed %d): %s dim %d q %.17g %s of shape {%s}"):format(id, SEED, op, dim,
    q, method, table.concat(shape, ","))
  return { op = op, dim = dim, q = q, method = method, t = t, line = line, name = name }
end

local function run(case)
  local t, dim = case.t, case.dim ~= 0 and case.dim or nil
  if case.op == "median" or case.op == "nanmedian" then return (t[case.op](t, dim)) end
  if case.op == "quantile" or case.op == "nanquantile" then
    return t[case.op](t, case.q, { dim = dim, interpolation = case.method })
  end
  if case.op == "cummax" or case.op == "cummin" then return (t[case.op](t, dim)) end
  return t[case.op](t, dim)
end

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local shape, values = result:match("^[^\t]*\t([^\t]*)\t(.*)$")
  local got = run(case)
  N.check_shape(got, shape, fail)
  local flat, k = N.flat(got), 0
  local rel = case.op:match("quantile") and 1e-12 or 0
  for text in values:gmatch("%S+") do
    k = k + 1
    local want, v = tonumber(text) or 0 / 0, flat[k]
    if want ~= want then
      if v == v then fail(("element %d: NumPy nan, dlx %s"):format(k, tostring(v))) end
    elseif not (v == want or math.abs(v - want) <= rel * math.abs(want)) then
      fail(("element %d: NumPy %s, dlx %s"):format(k, text, tostring(v)))
    end
  end
  if k ~= #flat then fail(("%d values vs NumPy's %d"):format(#flat, k)) end
end

describe("order statistics, cummax, cummin and the NaN reductions against NumPy", function()
  N.it_holds(it, pending, "order statistics",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
