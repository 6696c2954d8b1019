-- Property tests of the small ops against NumPy (tests/property/numpy_small_ops.py): fmod
-- (np.fmod), t:roll (np.roll), t:diff (np.diff), t:rot90 (np.rot90), t:movedim (np.moveaxis),
-- t:unfold (sliding_window_view taken every step), dlx.meshgrid, dlx.broadcast_tensors
-- (np.broadcast_arrays) and dlx.shares_memory / may_share_memory (NumPy's, exact, on random
-- as_strided layouts of one buffer, negative strides and zero sizes among them). Random shapes,
-- dims (negative ones too), dtypes and layouts (some inputs are transposed or flipped views).
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/numpy_small_ops.py"

local DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64" }
local NUMBERS = { "int8", "int16", "int32", "int64", "uint8", "uint32", "float16", "float32",
  "float64" }
local OPS = { "fmod", "roll", "diff", "rot90", "movedim", "unfold", "meshgrid",
  "broadcast_tensors", "shares_memory" }

local pick, numel = N.pick, N.numel

-- A value of dtype: small integers, or quarters for floats; divisors are never 0.
local function value(dtype, divisor)
  if dtype == "bool" then return math.random(0, 1) end
  local float = dtype:match("^float") ~= nil
  if divisor then
    local v = math.random(1, 5) * (dtype:match("^uint") and 1 or pick({ -1, 1 }))
    return float and v / 4 * math.random(1, 3) or v
  end
  if dtype:match("^uint") then return math.random(0, 9) end
  return float and math.random(-40, 40) / 4 or math.random(-9, 9)
end

-- An input: its field for NumPy and the dlx tensor (N.input).
local function random_input(dtype, shape, divisor)
  local values = {}
  for i = 1, numel(shape) do values[i] = value(dtype, divisor) end
  return N.input(dtype, shape, values)
end

local function random_shape(min_ndim, max_ndim)
  local shape = {}
  for d = 1, math.random(min_ndim, max_ndim) do
    shape[d] = math.random() < 0.1 and 0 or math.random(1, 4)
  end
  return shape
end

local function random_dim(ndim)
  local d = math.random(1, ndim)
  return math.random() < 0.3 and d - ndim - 1 or d
end

-- A random layout within a buffer of n elements: ndim, shape, strides, offset (as one list).
local function random_layout(n)
  while true do
    local ndim, shape, strides, lo, hi = math.random(1, 3), {}, {}, 0, 0
    for d = 1, ndim do
      shape[d] = math.random() < 0.08 and 0 or math.random(1, 5)
      strides[d] = math.random(-7, 7)
      local span = (shape[d] - 1) * strides[d]
      if shape[d] > 0 then
        if span < 0 then lo = lo + span else hi = hi + span end
      end
    end
    if numel(shape) == 0 then lo, hi = 0, 0 end
    if hi - lo < n then
      local offset = math.random(-lo, n - 1 - hi)
      local out = { ndim }
      table.move(shape, 1, ndim, 2, out)
      table.move(strides, 1, ndim, ndim + 2, out)
      out[#out + 1] = offset
      return out, shape, strides, offset
    end
  end
end

local function random_case(id)
  local op = pick(OPS)
  local params, fields, tensors = {}, {}, {}
  local dtype = pick(DTYPES)
  if op == "fmod" then
    dtype = pick(NUMBERS)
    local shape = random_shape(0, 3)
    local bshape = #shape > 0 and math.random() < 0.3 and { shape[#shape] } or shape
    fields[1], tensors[1] = random_input(dtype, shape)
    fields[2], tensors[2] = random_input(dtype, bshape, true)
  elseif op == "meshgrid" or op == "broadcast_tensors" then
    local count, base = math.random(1, 3), random_shape(0, 3)
    params[1] = math.random(0, 1) -- meshgrid: 1 is "ij"
    for k = 1, count do
      local shape = op == "meshgrid" and { math.random(0, 4) } or {}
      if op == "broadcast_tensors" then
        local skip = math.random(0, #base)
        for d = skip + 1, #base do
          shape[#shape + 1] = math.random() < 0.3 and 1 or base[d]
        end
      end
      fields[k], tensors[k] = random_input(dtype, shape)
    end
  elseif op == "shares_memory" then
    local n = math.random(1, 40)
    local la, sa, ta, oa = random_layout(n)
    local lb, sb, tb, ob = random_layout(n)
    table.move(la, 1, #la, 1, params)
    table.move(lb, 1, #lb, #params + 1, params)
    fields[1], tensors[1] = random_input(dtype, { n })
    local buffer = tensors[1]:contiguous()
    tensors[1] = buffer:as_strided(sa, ta, oa)
    tensors[2] = buffer:as_strided(sb, tb, ob)
  else
    local min_ndim = (op == "rot90" or op == "movedim") and 2 or 1
    local shape = op == "roll" and random_shape(0, 3) or random_shape(min_ndim, 3)
    fields[1], tensors[1] = random_input(dtype, shape)
    local ndim = #shape
    if op == "roll" then
      params[1] = math.random(-7, 7)
      if ndim > 0 and math.random() < 0.7 then params[2] = random_dim(ndim) end
    elseif op == "diff" then
      params[1], params[2] = math.random(0, 4), random_dim(ndim)
    elseif op == "rot90" then
      local function positive(d) return d > 0 and d or ndim + d + 1 end
      local d1, d2 = random_dim(ndim), random_dim(ndim)
      while positive(d2) == positive(d1) do d2 = random_dim(ndim) end
      params[1], params[2], params[3] = math.random(-5, 5), d1, d2
    elseif op == "movedim" then
      params[1], params[2] = random_dim(ndim), random_dim(ndim)
    elseif op == "unfold" then
      local dim = random_dim(ndim)
      local size = shape[dim > 0 and dim or ndim + dim + 1]
      params[1], params[2], params[3] = dim, math.random(0, size), math.random(1, 3)
    end
  end
  local line = table.concat({ id, op, table.concat(params, ","), table.concat(fields, "\t") },
    "\t")
  local name = ("case %d (seed %d): %s (%s) of %s"):format(id, SEED, op,
    table.concat(params, ","), table.concat(fields, "  "))
  return { op = op, params = params, tensors = tensors, line = line, name = name }
end

-- The results of the case in dlx: a list of tensors, or the two booleans of shares_memory.
local function run(case)
  local p, t = case.params, case.tensors
  local a = t[1]
  if case.op == "fmod" then return { dlx.fmod(a, t[2]) } end
  if case.op == "roll" then return { #p == 1 and a:roll(p[1]) or a:roll(p[1], p[2]) } end
  if case.op == "diff" then return { a:diff(p[1], p[2]) } end
  if case.op == "rot90" then return { a:rot90(p[1], { p[2], p[3] }) } end
  if case.op == "movedim" then return { a:movedim(p[1], p[2]) } end
  if case.op == "unfold" then return { a:unfold(p[1], p[2], p[3]) } end
  if case.op == "meshgrid" then
    return dlx.meshgrid(t, { indexing = p[1] == 1 and "ij" or "xy" })
  end
  if case.op == "broadcast_tensors" then return dlx.broadcast_tensors(t) end
  return nil, { dlx.shares_memory(t[1], t[2]), dlx.may_share_memory(t[1], t[2]) }
end

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local dtype, shape, values = result:match("^[^\t]*\t([^\t]*)\t([^\t]*)\t([^\t]*)$")
  if not dtype then fail("NumPy refused it: " .. result) end
  local got, answers = run(case)
  if answers then return N.check_values(values, answers, fail) end
  N.check_dtype(got[1], dtype, fail)
  N.check_shape(got[1], shape, fail)
  local all = {}
  for _, r in ipairs(got) do
    for _, v in ipairs(N.flat(r)) do all[#all + 1] = v end
  end
  N.check_values(values, all, fail)
end

describe("the small ops against NumPy", function()
  N.it_holds(it, pending, "small ops",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
