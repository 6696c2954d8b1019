-- Property tests of histc, histogram, bincount and searchsorted against NumPy 2
-- (tests/property/numpy_count.py): random data of float64, float32 and int64 with ties, NaN and
-- values outside the range; histogram with equal bins (a range given or found) or random
-- increasing edges (repeated ones too), integer weights (exact sums) and density; bincount with
-- minlength and weights; searchsorted left and right into sorted lists with ties and NaN. histc
-- is PyTorch's formula, which the script computes with NumPy's arithmetic in the data's dtype.
-- Everything agrees exactly but density (1e-12 relative: NumPy's pairwise sum of the counts).
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/numpy_count.py"

local OPS = { "histc", "histogram", "histogram", "bincount", "searchsorted" }
local pick = N.pick

local function fmt(x) return x ~= x and "nan" or ("%.17g"):format(x) end

local function text(xs)
  if xs == nil then return "-" end
  local out = {}
  for i, x in ipairs(xs) do out[i] = fmt(x) end
  return table.concat(out, " ")
end

local function random_values(n, dtype, nan_rate)
  local xs = {}
  for i = 1, n do
    local x
    if dtype == "int64" then x = math.random(-4, 12)
    elseif math.random() < 0.5 then x = math.random(-8, 8) / 4
    else x = math.random() * 6 - 3 end
    if dtype == "float32" then x = string.unpack("f", string.pack("f", x)) end
    if math.random() < nan_rate then x = 0 / 0 end
    xs[i] = x
  end
  return xs
end

local function random_case(id)
  local op = pick(OPS)
  local dtype = op == "bincount" and "int64" or pick { "float64", "float32",
    op == "histc" and "float64" or "int64" }
  local n = math.random(0, 40)
  local c = { id = id, op = op, dtype = dtype, bins = math.random(1, 9), density = false,
    right = math.random() < 0.5, minlength = 0 }
  local ranged = math.random() < 0.6
  c.values = random_values(n, dtype, ranged and dtype ~= "int64" and 0.1 or 0)
  if ranged then
    c.lo = math.random(-8, 4) / 4
    c.hi = c.lo + math.random(op == "histc" and 1 or 0, 12) / 4 -- (histc: not the data's)
  end
  if op == "histc" and not ranged then c.lo, c.hi = 0, 0 end
  if op == "histogram" then
    if math.random() < 0.3 then
      local edges, e = {}, math.random(-12, 0) / 4
      for i = 1, math.random(2, 7) do
        edges[i] = e
        e = e + math.random(0, 5) / 4
      end
      c.edges, c.lo, c.hi = edges, nil, nil
    end
    if math.random() < 0.3 then c.weights = random_values(n, "int64", 0) end
    c.density = n > 0 and math.random() < 0.3
  elseif op == "bincount" then
    for i = 1, n do c.values[i] = math.abs(c.values[i]) end
    c.minlength = math.random(0, 15)
    if math.random() < 0.4 then c.weights = random_values(n, "float64", 0) end
  elseif op == "searchsorted" then
    local sorted = random_values(math.random(0, 12), dtype, dtype == "int64" and 0 or 0.15)
    table.sort(sorted, function(x, y) return x == x and (y ~= y or x < y) end)
    c.sorted = sorted
  end
  c.line = table.concat({ id, op, dtype, c.bins, c.lo and fmt(c.lo) or "none",
    c.hi and fmt(c.hi) or "none", c.density and 1 or 0, c.right and 1 or 0, c.minlength,
    text(c.values), text(c.weights or c.sorted), text(c.edges) }, "\t")
  c.name = ("case %d (seed %d): %s of %d %s"):format(id, SEED, op, n, dtype)
  return c
end

local function run(c)
  local t = dlx.tensor(c.values, { dtype = c.dtype })
  if c.op == "histc" then return t:histc(c.bins, c.lo, c.hi) end
  if c.op == "histogram" then
    local bins = c.edges and dlx.tensor(c.edges, { dtype = c.dtype == "int64" and "float64"
      or c.dtype }) or c.bins
    return dlx.histogram(t, bins, { range = c.lo and { c.lo, c.hi } or nil,
      weights = c.weights and dlx.tensor(c.weights, { dtype = "float64" }),
      density = c.density })
  end
  if c.op == "bincount" then
    return t:bincount { minlength = c.minlength,
      weights = c.weights and dlx.tensor(c.weights, { dtype = "float64" }) }
  end
  return dlx.searchsorted(dlx.tensor(c.sorted, { dtype = c.dtype }), t, { right = c.right })
end

local function compare(c, want, got, rel)
  local function fail(why) error(c.name .. ": " .. why .. "\n" .. c.line, 0) end
  local flat, k = N.flat(got), 0
  for text_value in want:gmatch("%S+") do
    k = k + 1
    local w, v = tonumber(text_value) or ({ inf = math.huge, ["-inf"] = -math.huge })[text_value]
      or 0 / 0, flat[k]
    if w ~= w then
      if v == v then fail(("element %d: NumPy nan, dlx %s"):format(k, tostring(v))) end
    elseif not (v == w or math.abs(v - w) <= rel * math.abs(w)) then
      fail(("element %d: NumPy %s, dlx %s"):format(k, text_value, tostring(v)))
    end
  end
  if k ~= #flat then fail(("%d values vs NumPy's %d"):format(#flat, k)) end
end

local function check(c, result)
  local first, second = result:match("^[^\t]*\t([^\t]*)\t(.*)$")
  local ok, got, edges = pcall(run, c)
  if not ok then error(c.name .. ": " .. tostring(got), 0) end
  compare(c, first, got, c.density and 1e-12 or 0)
  if second ~= "-" then compare(c, second, edges, 0) end
end

describe("histc, histogram, bincount and searchsorted against NumPy", function()
  N.it_holds(it, pending, "counting and searching",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
