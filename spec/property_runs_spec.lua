-- Property tests of t:unique_consecutive (values, inverse and counts; flattened and along a dim)
-- and t:argwhere against NumPy (tests/property/numpy_runs.py): random shapes (zero sizes and
-- 0-d among them), dims (negative ones too), dtypes, long runs, NaN and -0.0, and layouts (some
-- inputs are transposed or flipped views). DLX_PROPERTY_SEED fixes the seed (printed on every
-- run); DLX_PROPERTY_CASES the count.
local N = require "spec.property_numpy"

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/numpy_runs.py"

local DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64" }

local pick, numel = N.pick, N.numel

-- n values of dtype, each repeating the one before it half of the time.
local function run_values(dtype, n)
  local out = {}
  for i = 1, n do
    if i > 1 and math.random() < 0.5 then out[i] = out[i - 1]
    elseif dtype == "bool" then out[i] = math.random(0, 1)
    elseif dtype:match("^uint") then out[i] = math.random(0, 3)
    elseif dtype:match("^float") and math.random() < 0.15 then
      out[i] = pick({ 0 / 0, -0.0, math.huge })
    else out[i] = math.random(-2, 2) end
  end
  return out
end

local function random_input(dtype, shape)
  return N.input(dtype, shape, run_values(dtype, numel(shape)))
end

local function random_case(id)
  local op = pick({ "unique_consecutive", "unique_consecutive", "argwhere" })
  local dtype, shape = pick(DTYPES), {}
  for d = 1, math.random(0, 3) do shape[d] = math.random() < 0.08 and 0 or math.random(1, 5) end
  local dim = ""
  if op == "unique_consecutive" and #shape > 0 and math.random() < 0.5 then
    local zeros, zero_at = 0, nil
    for d, s in ipairs(shape) do if s == 0 then zeros, zero_at = zeros + 1, d end end
    if zeros <= 1 then -- PyTorch refuses an empty dim other than dim
      local d = zero_at or math.random(1, #shape)
      dim = math.random() < 0.3 and d - #shape - 1 or d
    end
  end
  local field, t = random_input(dtype, shape)
  local line = table.concat({ id, op, dim, field }, "\t")
  local name = ("case %d (seed %d): %s (dim %s) of %s"):format(id, SEED, op, dim, field)
  return { op = op, dim = dim ~= "" and dim or nil, t = t, line = line, name = name }
end

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local dtype, shapes, values = result:match("^[^\t]*\t([^\t]*)\t([^\t]*)\t([^\t]*)$")
  if not dtype then fail("NumPy refused it: " .. result) end
  local got
  if case.op == "argwhere" then got = { case.t:argwhere() }
  else
    got = { case.t:unique_consecutive { dim = case.dim, return_inverse = true,
      return_counts = true } }
  end
  N.check_dtype(got[1], dtype, fail)
  local mine = {}
  for i, r in ipairs(got) do mine[i] = table.concat(r.shape, ",") end
  if table.concat(mine, ";") ~= shapes then
    fail(("shapes %s vs NumPy's %s"):format(table.concat(mine, ";"), shapes))
  end
  local all, k = {}, 0
  for _, r in ipairs(got) do
    for _, v in ipairs(N.flat(r)) do all[#all + 1] = v end
  end
  for text in values:gmatch("%S+") do
    k = k + 1
    local v = all[k]
    if type(v) == "boolean" then v = v and 1 or 0 end
    local want = text == "inf" and math.huge or text == "-inf" and -math.huge or tonumber(text)
    local same = text == "nan" and v ~= v or v == want
    if not same then fail(("element %d: NumPy %s, dlx %s"):format(k, text, tostring(v))) end
  end
  if k ~= #all then fail(("%d values vs NumPy's %d"):format(#all, k)) end
end

describe("unique_consecutive and argwhere against NumPy", function()
  N.it_holds(it, pending, "runs",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
