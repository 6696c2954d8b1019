-- Differential property tests: random shapes, dtypes and chains of views (permutes, slices with
-- negative steps, flips, selects, unsqueezes, stride-0 expands), then copies, casts and
-- reductions, each compared with an independent reference: spec/property_ref.lua (plain Lua,
-- always) and NumPy (tests/property/numpy_ref.py, when python3 has numpy).
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local R = require "spec.property_ref"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(1500)

local DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "bfloat16", "float32", "float64", "complex64", "complex128" }
local REDUCTIONS = { "sum", "prod", "mean", "min", "max", "argmin", "argmax", "all", "any" }

local function pick(list) return list[math.random(#list)] end

-- ---- random inputs

local function random_shape()
  local shape = {}
  for d = 1, math.random(0, 4) do
    local r = math.random()
    shape[d] = r < 0.08 and 0 or (r < 0.9 and math.random(1, 4) or math.random(5, 7))
  end
  return shape
end

local EXTREMES = { int8 = { -128, 127 }, int16 = { -32768, 32767 },
  int32 = { -2147483648, 2147483647 }, int64 = { -(1 << 40), 1 << 40 }, uint8 = { 255 },
  uint16 = { 65535 }, uint32 = { 4294967295 }, uint64 = { 1 << 40 } }
-- Floats exact in float32 (so no conversion path rounds twice), some out of float16's range.
local FLOAT_SPECIALS = { 1000.25, -1000.25, 70000.0, -0.0, 2.0 ^ -20, 3.0 * 2.0 ^ -26, 4097.0 }

-- A raw Lua value for dtype, and the dtype dlx.tensor reads it as.
local function random_value(dtype)
  local kind = R.kind(dtype)
  local special = math.random() < 0.06
  if kind == "bool" then return math.random() < 0.5, "bool" end
  if kind == "int" or kind == "uint" then
    if special then return pick(EXTREMES[dtype]), "int64" end
    return kind == "int" and math.random(-100, 100) or math.random(0, 200), "int64"
  end
  local function half() return special and pick(FLOAT_SPECIALS) or math.random(-200, 200) / 2 end
  if kind == "complex" then return { re = half(), im = half() }, "complex128" end
  return half(), "float64"
end

-- A contiguous dlx tensor of dtype and shape, and its reference array.
local function random_source(dtype, shape)
  local raw, values = {}, {}
  for i = 1, R.numel(shape) do
    local v, from = random_value(dtype)
    raw[i], values[i] = v, R.cast(v, from, dtype)
  end
  local t
  if #shape == 0 then
    t = dlx.tensor(raw[1], { dtype = dtype })
  elseif #raw == 0 then
    t = dlx.empty(shape, { dtype = dtype })
  else
    t = dlx.tensor(raw, { dtype = dtype }):view(shape)
  end
  return t, { shape = shape, values = values }
end

-- A random permutation of 1..n.
local function permutation(n)
  local p = {}
  for i = 1, n do p[i] = i end
  for i = n, 2, -1 do
    local j = math.random(i)
    p[i], p[j] = p[j], p[i]
  end
  return p
end

-- One random view applied to both; returns the new pair and a description of the step.
local VIEWS = {
  function(t, a)
    local dims = permutation(#a.shape)
    return t:permute(dims), R.permute(a, dims), { "permute", dims }
  end,
  function(t, a)
    local dim = math.random(#a.shape)
    local n = a.shape[dim]
    if n == 0 then return t, a, nil end
    local first, last = math.random(n), math.random(n)
    local step = math.random(1, 3) * (first <= last and 1 or -1)
    return t:slice(dim, first, last, step), R.slice(a, dim, first, last, step),
      { "slice", dim, first, last, step }
  end,
  function(t, a)
    local dim = math.random(#a.shape)
    return t:flip(dim), R.flip(a, dim), { "flip", dim }
  end,
  function(t, a)
    local dim = math.random(#a.shape)
    if a.shape[dim] == 0 then return t, a, nil end
    local i = math.random(a.shape[dim])
    return t:select(dim, i), R.select(a, dim, i), { "select", dim, i }
  end,
  function(t, a)
    if #a.shape >= 5 then return t, a, nil end
    local dim = math.random(#a.shape + 1)
    return t:unsqueeze(dim), R.unsqueeze(a, dim), { "unsqueeze", dim }
  end,
  function(t, a)
    local shape = {}
    for d, n in ipairs(a.shape) do shape[d] = n == 1 and math.random(1, 3) or n end
    return t:expand(shape), R.expand(a, shape), { "expand", shape }
  end,
}

local function random_view(t, a)
  local steps = {}
  for _ = 1, math.random(0, 3) do
    if #a.shape > 0 then
      local step
      t, a, step = pick(VIEWS)(t, a)
      steps[#steps + 1] = step
    end
  end
  return t, a, steps
end

-- ---- comparison

-- tolerance: nil (exact) or {rel, abs}.
local function same_value(want, got, tolerance)
  if type(want) == "table" then
    return type(got) == "table" and same_value(want.re, got.re, tolerance)
      and same_value(want.im, got.im, tolerance)
  end
  if type(want) == "boolean" or math.type(want) == "integer" then return want == got end
  if type(got) ~= "number" then return false end
  if want ~= want then return got ~= got end
  if tolerance then return h.close(want, got, tolerance[1], tolerance[2]) end
  return want == got
end

local function show(v)
  if type(v) == "table" then return ("{re = %.17g, im = %.17g}"):format(v.re, v.im) end
  if type(v) == "number" then return ("%.17g"):format(v) end
  return tostring(v)
end

-- nil when the tensor holds exactly the reference array, else what differs.
local function differs(t, a, tolerance)
  local shape = t.shape
  if #shape ~= #a.shape then return "ndim " .. #shape .. " vs " .. #a.shape end
  for d = 1, #shape do
    if shape[d] ~= a.shape[d] then
      return ("size of dim %d: %d vs %d"):format(d, shape[d], a.shape[d])
    end
  end
  local got = #shape == 0 and { t:totable() } or R.flatten(t:totable())
  local uint64 = t.dtype == "uint64"
  for i = 1, #a.values do
    local want = a.values[i]
    -- the reference keeps uint64 in Lua integers; totable gives those above maxinteger as floats
    if uint64 and want < 0 then want = R.uint64_float(want) end
    if not same_value(want, got[i], tolerance) then
      return ("element %d: expected %s, got %s"):format(i, show(want), show(got[i]))
    end
  end
end

-- ---- the properties

local TOLERANCE = { float16 = 2e-3, bfloat16 = 1e-2, float32 = 1e-6, float64 = 1e-12,
  complex64 = 1e-6, complex128 = 1e-12 }

local function random_dims(ndim, op)
  if ndim == 0 or math.random() < 0.3 then return nil, nil end
  if op == "argmin" or op == "argmax" then
    local d = math.random(ndim)
    return d, { [d] = true }
  end
  local list, set = {}, {}
  for d = 1, ndim do
    if math.random() < 0.5 then list[#list + 1], set[d] = d, true end
  end
  if #list == 0 then return nil, nil end
  return list, set
end

-- Whether a float reduction may round in an order-dependent way (then it is not compared):
-- products whose magnitude leaves the exact integers of float32, and infinities.
local function order_dependent(op, dtype, a)
  local kind = R.kind(dtype)
  if kind ~= "float" and kind ~= "complex" then return false end
  if kind == "complex" and op == "prod" then return true end
  local magnitude = 1.0
  for _, v in ipairs(a.values) do
    local x = type(v) == "table" and math.max(math.abs(v.re), math.abs(v.im)) or math.abs(v)
    if x == math.huge or x ~= x then return true end
    if op == "prod" and x ~= 0 then magnitude = magnitude * x end
  end
  return magnitude > 2.0 ^ 24
end

local function largest_magnitude(a)
  local m = 0.0
  for _, v in ipairs(a.values) do
    local x = 1.0 -- booleans
    if type(v) == "table" then
      x = math.max(math.abs(v.re), math.abs(v.im))
    elseif type(v) == "number" then
      x = math.abs(v)
    end
    if x > m then m = x end
  end
  return m
end

local function check_reduction(t, a, dtype, case)
  local op = pick(REDUCTIONS)
  if (R.kind(dtype) == "complex") and (op ~= "sum" and op ~= "prod" and op ~= "mean"
        and op ~= "all" and op ~= "any") then
    h.raises("TypeError", t[op], t)
    return
  end
  local list, set = random_dims(#a.shape, op)
  local keepdim = math.random() < 0.5
  local extreme = op == "min" or op == "max" or op == "argmin" or op == "argmax"
  local want, out_dtype = R.reduce(a, dtype, op, set, keepdim)
  if extreme and R.numel(a.shape) == 0 and R.numel(want.shape) > 0 then
    h.raises("ValueError", t[op], t, list, keepdim) -- the extreme of nothing
    return
  end
  local got = t[op](t, list, keepdim)
  assert(got.dtype == out_dtype, case .. ": " .. op .. " gives " .. got.dtype)
  if order_dependent(op, dtype, a) then return end
  -- Sums and means round once in the reference but may round in every step of dlx's float32
  -- accumulator (values far apart in magnitude): the classic bound is a few units in the last
  -- place of the result plus n units of the largest summand.
  local tolerance
  local rel = TOLERANCE[out_dtype]
  if rel and (op == "sum" or op == "prod" or op == "mean") then
    tolerance = { rel, rel * R.numel(a.shape) * largest_magnitude(a) }
  end
  local why = differs(got, want, tolerance)
  if why then
    error(("%s: %s(dims %s, keepdim %s): %s"):format(case, op,
      list and table.concat(type(list) == "table" and list or { list }, ",") or "nil",
      tostring(keepdim), why), 0)
  end
end

local function describe_case(i, seed, dtype, shape, steps)
  local parts = {}
  for _, s in ipairs(steps) do
    local args = {}
    for k = 2, #s do
      args[#args + 1] = type(s[k]) == "table" and "{" .. table.concat(s[k], ",") .. "}" or s[k]
    end
    parts[#parts + 1] = s[1] .. "(" .. table.concat(args, ",") .. ")"
  end
  return ("case %d (seed %d): %s {%s} %s"):format(i, seed, dtype, table.concat(shape, ","),
    table.concat(parts, ":"))
end

local function check_case(i)
  local dtype = pick(DTYPES)
  local shape = random_shape()
  local src, ref = random_source(dtype, shape)
  local t, a, steps = random_view(src, ref)
  local case = describe_case(i, SEED, dtype, shape, steps)
  local function expect(result, want, what)
    local why = differs(result, want)
    if why then error(case .. ": " .. what .. ": " .. why, 0) end
  end
  expect(t, a, "the view")
  expect(t:clone(), a, "clone")
  expect(t:contiguous(), a, "contiguous")
  local to = pick(DTYPES)
  expect(t:astype(to), R.cast_all(a, dtype, to), "astype " .. to)
  local dst = dlx.empty(a.shape, { dtype = pick(DTYPES) })
  expect(dst:copy_(t), R.cast_all(a, dtype, dst.dtype), "copy_ into " .. dst.dtype)
  check_reduction(t, a, dtype, case)
end

-- ---- NumPy as a second reference

local NUMPY_SCRIPT = "tests/property/numpy_ref.py"
local NUMPY_DTYPES = {} -- NumPy has no bfloat16
for _, d in ipairs(DTYPES) do
  if d ~= "bfloat16" then NUMPY_DTYPES[#NUMPY_DTYPES + 1] = d end
end

local PYTHON = N.python_with_numpy()

local function format_value(v)
  if type(v) == "boolean" then return v and "1" or "0" end
  if type(v) == "table" then return ("%.17g,%.17g"):format(v.re, v.im) end
  if math.type(v) == "integer" then return ("%d"):format(v) end
  return ("%.17g"):format(v)
end

local function format_step(step)
  local args = {}
  for k = 2, #step do
    args[#args + 1] = type(step[k]) == "table" and table.concat(step[k], ",") or tostring(step[k])
  end
  return step[1] .. " " .. table.concat(args, " ")
end

local function parse_float(text)
  if text == "nan" or text == "-nan" then return 0.0 / 0.0 end
  if text == "inf" then return math.huge end
  if text == "-inf" then return -math.huge end
  return tonumber(text) + 0.0
end

-- NumPy's text of one value, read as the kind of value dlx gave.
local function parse_like(text, got)
  if type(got) == "boolean" then return text == "1" end
  if type(got) == "table" then
    local re, im = text:match("^([^,]+),(.+)$")
    return { re = parse_float(re), im = parse_float(im) }
  end
  if math.type(got) == "integer" then return math.tointeger(tonumber(text)) end
  return parse_float(text)
end

-- Casts NumPy leaves undefined: float to integer out of range, or NaN and infinities.
local function cast_undefined(a, dtype, to)
  local from_kind, to_kind = R.kind(dtype), R.kind(to)
  local from_float = from_kind == "float" or from_kind == "complex"
  if not from_float or (to_kind ~= "int" and to_kind ~= "uint") then return false end
  local bits = tonumber(to:match("%d+"))
  local lo = to_kind == "int" and -(2.0 ^ (bits - 1)) or 0.0
  local hi = to_kind == "int" and 2.0 ^ (bits - 1) or 2.0 ^ bits
  for _, v in ipairs(a.values) do
    local x = type(v) == "table" and v.re or v
    if x ~= x or x <= lo - 1 or x >= hi then return true end
  end
  return false
end

-- Integer products that wrap: NumPy's uint64 and dlx's int64 spell them differently.
local function product_wraps(op, a)
  if op ~= "prod" then return false end
  local m = 1.0 -- the product of every nonzero magnitude bounds each output's product
  for _, v in ipairs(a.values) do
    local x = math.abs(type(v) == "boolean" and 1 or (type(v) == "table" and v.re or v))
    if x ~= 0 then m = m * x end
  end
  return m >= 2.0 ^ 62
end

-- A random case for NumPy: the dlx results and the line that describes it.
local function numpy_case(i)
  local dtype = pick(NUMPY_DTYPES)
  local shape = random_shape()
  local src, ref = random_source(dtype, shape)
  local t, a, steps = random_view(src, ref)
  local to = pick(NUMPY_DTYPES)
  local op = pick(REDUCTIONS)
  local list = random_dims(#a.shape, op)
  local keepdim = math.random() < 0.5
  local values, views = {}, {}
  for k, v in ipairs(ref.values) do values[k] = format_value(v) end
  for k, step in ipairs(steps) do views[k] = format_step(step) end
  local dims = list == nil and "-" or table.concat(type(list) == "table" and list or { list }, ",")
  local ok, reduced = pcall(t[op], t, list, keepdim)
  return {
    name = describe_case(i, SEED + 1, dtype, shape, steps)
      .. (" cast %s, %s(%s, %s)"):format(to, op, dims, tostring(keepdim)),
    line = table.concat({ i, dtype, table.concat(shape, ","), table.concat(values, " "),
      table.concat(views, ";"), to, op, dims, keepdim and "1" or "0" }, "\t"),
    view = t,
    cast = not cast_undefined(a, dtype, to) and t:astype(to) or nil,
    reduced = ok and reduced or nil,
    reduce_error = not ok and reduced or nil,
    skip_reduce = (R.kind(dtype) == "complex" and (op == "min" or op == "max" or op == "argmin"
      or op == "argmax")) or order_dependent(op, dtype, a) or product_wraps(op, a),
    tolerance = (op == "sum" or op == "prod" or op == "mean")
      and TOLERANCE[R.reduce_dtype(op, dtype)] and { TOLERANCE[R.reduce_dtype(op, dtype)],
        TOLERANCE[R.reduce_dtype(op, dtype)] * R.numel(a.shape) * largest_magnitude(a) },
  }
end

-- nil when the tensor matches NumPy's line (shape and values), else what differs.
local function differs_from_numpy(t, shape_text, values_text, tolerance)
  local shape = t.shape
  if table.concat(shape, ",") ~= shape_text then
    return ("shape {%s} vs NumPy's (%s)"):format(table.concat(shape, ","), shape_text)
  end
  local got = #shape == 0 and { t:totable() } or R.flatten(t:totable())
  local k = 0
  for text in values_text:gmatch("%S+") do
    k = k + 1
    local want = parse_like(text, got[k])
    if not same_value(want, got[k], tolerance or nil) then
      return ("element %d: NumPy %s, dlx %s"):format(k, text, show(got[k]))
    end
  end
  if k ~= #got then return ("%d values vs NumPy's %d"):format(#got, k) end
end

local function compare_with_numpy(case, results)
  local function fail(what, why) error(case.name .. ": " .. what .. ": " .. why, 0) end
  for _, r in ipairs(results) do
    local what, shape_text, values_text = r[1], r[2], r[3] or ""
    if what == "view" then
      local why = differs_from_numpy(case.view, shape_text, values_text)
      if why then fail("the view", why) end
    elseif what == "cast" and case.cast then
      local why = differs_from_numpy(case.cast, shape_text, values_text)
      if why then fail("astype", why) end
    elseif what == "reduce" and not case.skip_reduce then
      if shape_text == "error" then
        -- NumPy refuses an arg/min/max over an empty dim even when the result is empty too
        if case.reduced and case.reduced.numel > 0 then
          fail("reduction", "NumPy refuses it, dlx does not")
        end
      elseif not case.reduced then
        fail("reduction", "dlx refuses it: " .. tostring(case.reduce_error))
      else
        local why = differs_from_numpy(case.reduced, shape_text, values_text, case.tolerance)
        if why then fail("reduction", why) end
      end
    end
  end
end

local function run_numpy(cases)
  local results = {}
  N.run(PYTHON, NUMPY_SCRIPT, cases, function(text)
    local id, what, shape, values = text:match("^(%d+)\t(%a+)\t([^\t]*)\t?(.*)$")
    local id_results = results[tonumber(id)] or {}
    results[tonumber(id)] = id_results
    id_results[#id_results + 1] = { what, shape, values }
  end)
  return results
end

describe("properties against the plain Lua reference", function()
  it(("hold for %d random cases (seed %d)"):format(CASES, SEED), function()
    print(("\nproperty seed %d, %d cases (DLX_PROPERTY_SEED=%d reproduces them)"):format(SEED,
      CASES, SEED))
    math.randomseed(SEED)
    for i = 1, CASES do check_case(i) end
  end)
end)

describe("properties against NumPy", function()
  local cases = math.max(CASES // 2, 1)
  if PYTHON == nil then
    pending("python3 has no numpy (apt-get install python3-numpy): skipped")
    return
  end
  it(("hold for %d random cases (seed %d)"):format(cases, SEED + 1), function()
    print(("\nNumPy property seed %d, %d cases"):format(SEED + 1, cases))
    math.randomseed(SEED + 1)
    local list = {}
    for i = 1, cases do list[i] = numpy_case(i) end
    local results = run_numpy(list)
    for i, case in ipairs(list) do
      assert(results[i] and #results[i] == 3, case.name .. ": NumPy gave no result")
      compare_with_numpy(case, results[i])
    end
  end)
end)
