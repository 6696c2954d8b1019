-- Property tests of dlx.cat, dlx.stack and t:split against NumPy (tests/property/numpy_joining.py):
-- random shapes (zero sizes among them), dims, input counts, dtypes and layouts (some inputs are
-- negatively strided views). The dtypes of a case are all integers and bools or all floats and
-- bools: for integers mixed with floats dlx promotes as PyTorch and the array API (int32 with
-- float32 gives float32), where NumPy widens (float64).
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/numpy_joining.py"

local INTEGERS = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
  "uint64" }
local FLOATS = { "bool", "float16", "float32", "float64" }

local pick, numel = N.pick, N.numel

-- An input: its field for NumPy and the dlx tensor (on the CPU, sometimes a flipped view).
local function random_input(dtype, shape)
  local values = {}
  for i = 1, numel(shape) do values[i] = math.random(0, dtype == "bool" and 1 or 5) end
  local t = dlx.tensor(values, { dtype = dtype, device = "cpu" }):view(shape)
  if #shape > 0 and math.random() < 0.3 then t = t:flip(1):contiguous():flip(1) end
  return table.concat({ dtype, table.concat(shape, ","), table.concat(values, " ") }, "|"), t
end

local function random_case(id)
  local op = math.random() < 0.5 and "cat" or "stack"
  local ndim = math.random(op == "cat" and 1 or 0, 3)
  local result_ndim = op == "stack" and ndim + 1 or ndim
  local dim = math.random(1, result_ndim)
  if math.random() < 0.4 then dim = dim - result_ndim - 1 end
  local base = {}
  for d = 1, ndim do base[d] = math.random() < 0.1 and 0 or math.random(1, 3) end
  local kinds = math.random() < 0.5 and INTEGERS or FLOATS
  local fields, tensors = { id, op, dim, math.random(1, 4) }, {}
  for k = 1, math.random(1, 4) do
    local shape = table.move(base, 1, ndim, 1, {})
    if op == "cat" then shape[dim > 0 and dim or ndim + dim + 1] = math.random(0, 3) end
    fields[4 + k], tensors[k] = random_input(pick(kinds), shape)
  end
  local name = ("case %d (seed %d): %s dim %d split %d of %s"):format(id, SEED, op, dim,
    fields[4], table.concat(fields, "  ", 5))
  return { op = op, dim = dim, size = fields[4], tensors = tensors,
    line = table.concat(fields, "\t"), name = name }
end

local flat = N.flat

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local dtype, shape, values, sizes = result:match("^[^\t]*\t([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
  if not dtype then fail("NumPy refused it: " .. result) end
  local t = dlx[case.op](case.tensors, case.dim)
  N.check_dtype(t, dtype, fail)
  N.check_shape(t, shape, fail)
  local got = flat(t)
  N.check_values(values, got, fail)
  local pieces, lengths = t:split(case.size, case.dim), {}
  local d = case.dim > 0 and case.dim or t.ndim + case.dim + 1
  for i, p in ipairs(pieces) do lengths[i] = p.shape[d] end
  if table.concat(lengths, ",") ~= sizes then
    fail(("split sizes %s vs NumPy's %s"):format(table.concat(lengths, ","), sizes))
  end
  if not dlx.equal(dlx.cat(pieces, case.dim), t) then fail("the split pieces do not join back") end
end

describe("cat, stack and split against NumPy", function()
  N.it_holds(it, pending, "joining",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
