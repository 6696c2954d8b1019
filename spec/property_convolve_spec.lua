-- Property tests of convolve and correlate against NumPy 2 (tests/property/numpy_convolve.py):
-- random 1-d float64, int64 and complex128 operands of 1 to 12 elements (either one the
-- longer; one case in 20 a signal of 4096 to 6000 and 8 to 40 taps), every mode. Small integer
-- values keep every sum exact, so the results agree exactly; float64 values agree to 1e-12
-- relative to the sum of the products' magnitudes.
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/numpy_convolve.py"

local function random_operand(n, dtype)
  local values, text = {}, {}
  for i = 1, n do
    local function one()
      return dtype == "float64" and math.random() * 4 - 2 or math.random(-9, 9)
    end
    if dtype == "complex128" then
      local re, im = one(), one()
      values[i], text[i] = { re = re, im = im }, ("%d,%d"):format(re, im)
    else
      values[i] = one()
      text[i] = dtype == "float64" and ("%.17g"):format(values[i]) or tostring(values[i])
    end
  end
  return dlx.tensor(values, { dtype = dtype }), table.concat(text, " ")
end

local function random_case(id)
  local name = N.pick({ "convolve", "correlate" })
  local mode = N.pick({ "full", "same", "valid" })
  local dtype = N.pick({ "float64", "int64", "complex128" })
  local n, m = math.random(1, 12), math.random(1, 12)
  if id % 20 == 0 then -- a long signal: the blocked product of lua/dlx/conv.lua
    n, m = math.random(4096, 6000), math.random(8, 40)
    if math.random() < 0.5 then n, m = m, n end
  end
  local a, at = random_operand(n, dtype)
  local v, vt = random_operand(m, dtype)
  return { name = name, mode = mode, a = a, v = v, dtype = dtype, short = math.min(n, m),
    line = table.concat({ id, name, mode, dtype, at, vt }, "\t"),
    name_text = ("case %d (seed %d): %s of %d and %d %s, mode %s"):format(id, SEED, name, n, m,
      dtype, mode) }
end

-- The values of a 1-d result (complex ones as {re =, im =}).
local function values_of(t)
  local out = t:totable()
  return type(out) == "table" and out.re == nil and out or { out }
end

local function check(case, result)
  local function fail(why) error(case.name_text .. ": " .. why, 0) end
  local length, values = result:match("^[^\t]*\t([^\t]*)\t(.*)$")
  local got = dlx[case.name](case.a, case.v, case.mode)
  if got.dtype ~= case.dtype then fail("dtype " .. got.dtype) end
  if tostring(got.numel) ~= length then
    fail(("%d values vs NumPy's %s"):format(got.numel, length))
  end
  local flat, k = values_of(got), 0
  local bound = case.dtype == "float64" and 1e-12 * 4 * case.short or 0
  for text in values:gmatch("%S+") do
    k = k + 1
    local v, re, im = flat[k], text:match("^([^,]+),(.+)$")
    if re then
      if math.abs(v.re - tonumber(re)) > bound or math.abs(v.im - tonumber(im)) > bound then
        fail(("element %d: NumPy %s, dlx %s,%s"):format(k, text, v.re, v.im))
      end
    elseif v ~= v or math.abs(v - tonumber(text)) > bound then
      fail(("element %d: NumPy %s, dlx %s"):format(k, text, tostring(v)))
    end
  end
end

describe("convolve and correlate against NumPy", function()
  N.it_holds(it, pending, "convolve",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
