--- dlx.compare: dlx.equal, dlx.allclose and t:isclose, built from the elementwise ops.
-- isclose is NumPy's formula composed of existing ops (sub, abs, mul, add, le, eq, isfinite,
-- isnan, logical ops) rather than an op of its own: it takes two tensors and three options, five
-- operands where the engine's ops take at most four, and composed it runs on every device and
-- dtype the elementwise ops run on, with their broadcasting and weak scalars, with no kernel to
-- add to each backend. It costs a few temporaries, which is fine for comparisons.
local core = require "dlx.core"
local raise = require "dlx.raise"

local api = core.api
local is_tensor = core.is_tensor

local M = {}

local DEFAULT_RTOL = 1e-5
local DEFAULT_ATOL = 1e-8

-- Dtypes isclose computes in as they are; float16 and bfloat16 go to float32, and bools and
-- integers to float64 (as NumPy), so that a - b neither wraps nor rounds.
local COMPUTES_AS_IS = { float32 = true, float64 = true, complex64 = true, complex128 = true }
local COMPUTES_IN_FLOAT32 = { float16 = true, bfloat16 = true }
local STORAGE_ONLY_PREFIX = { float8 = true, float6 = true, float4 = true }

local function compute_form(t)
  local dtype = t.dtype
  if COMPUTES_AS_IS[dtype] then return t end
  if COMPUTES_IN_FLOAT32[dtype] then return t:astype("float32") end
  if STORAGE_ONLY_PREFIX[dtype:match("^(float%d)_")] then return t end -- the ops raise
  return t:astype("float64")
end

local function is_complex_value(v)
  return type(v) == "table" and not is_tensor(v) and type(v.re) == "number"
      and type(v.im) == "number"
end

-- A Lua operand: a number (as a float) or a complex table; anything else is a TypeError.
local function scalar_operand(v, fname)
  if math.type(v) == "integer" then return v + 0.0 end
  if type(v) == "number" then return v end
  if is_complex_value(v) then return { re = v.re + 0.0, im = v.im + 0.0 } end
  raise("TypeError", "%s expects tensors or Lua numbers, got %s", fname, type(v))
end

local function operand(v, fname)
  if is_tensor(v) then return compute_form(v) end
  return scalar_operand(v, fname)
end

local function scalar_abs(v)
  if type(v) == "table" then
    local re, im = math.abs(v.re), math.abs(v.im)
    if re == math.huge or im == math.huge then return math.huge end
    if re ~= re or im ~= im then return 0 / 0 end
    local big, small = math.max(re, im), math.min(re, im)
    if big == 0 then return 0.0 end
    return big * math.sqrt(1 + (small / big) ^ 2)
  end
  return math.abs(v)
end

local function scalar_isnan(v)
  if type(v) == "table" then return v.re ~= v.re or v.im ~= v.im end
  return v ~= v
end

local function scalar_isfinite(v)
  if type(v) == "table" then return scalar_isfinite(v.re) and scalar_isfinite(v.im) end
  return v == v and v ~= math.huge and v ~= -math.huge
end

local function isnan_of(v) return is_tensor(v) and v:isnan() or scalar_isnan(v) end
local function isfinite_of(v) return is_tensor(v) and v:isfinite() or scalar_isfinite(v) end

local OPTIONS = { rtol = true, atol = true, equal_nan = true }

local function check_options(opts, fname)
  if opts == nil then return DEFAULT_RTOL, DEFAULT_ATOL, false end
  if type(opts) ~= "table" then
    raise("TypeError", "%s: options must be a table, got %s", fname, type(opts))
  end
  for key in pairs(opts) do
    if not OPTIONS[key] then
      raise("TypeError", "%s: unknown option %s", fname, tostring(key))
    end
  end
  local function tolerance(name, default)
    local v = opts[name]
    if v == nil then return default end
    if type(v) ~= "number" then
      raise("TypeError", "%s: %s must be a number, got %s", fname, name, type(v))
    end
    if v < 0 or v ~= v then
      raise("ValueError", "%s: %s must be >= 0, got %s", fname, name, tostring(v))
    end
    return v + 0.0
  end
  local equal_nan = opts.equal_nan
  if equal_nan ~= nil and type(equal_nan) ~= "boolean" then
    raise("TypeError", "%s: equal_nan must be a boolean, got %s", fname,
      type(equal_nan))
  end
  return tolerance("rtol", DEFAULT_RTOL), tolerance("atol", DEFAULT_ATOL), equal_nan == true
end

-- A bool tensor of the broadcast shape: |a - b| <= atol + rtol * |b| where b is finite, or
-- a == b (equal infinities), or both NaN when equal_nan.
local function isclose(a, b, opts, fname)
  if not is_tensor(a) and not is_tensor(b) then
    raise("TypeError", "%s expects at least one tensor", fname)
  end
  local rtol, atol, equal_nan = check_options(opts, fname)
  a, b = operand(a, fname), operand(b, fname)
  local tolerance -- a Lua b's is computed here and goes in as a weak scalar
  if is_tensor(b) then
    tolerance = api.add(api.mul(b:abs(), rtol), atol)
  else
    tolerance = atol + rtol * scalar_abs(b)
  end
  local close = api.le(api.abs(api.sub(a, b)), tolerance)
  close = api.logical_and(close, isfinite_of(b))
  close = api.logical_or(close, api.eq(a, b))
  if equal_nan then close = api.logical_or(close, api.logical_and(isnan_of(a), isnan_of(b))) end
  return close
end

--- t:isclose(other[, opts]): elementwise closeness, a bool tensor.
function M.isclose(a, b, opts)
  return isclose(a, b, opts, "isclose")
end

--- dlx.allclose(a, b[, opts]): whether every element of a is close to b's (broadcast).
function M.allclose(a, b, opts)
  return isclose(a, b, opts, "allclose"):all():item()
end

local function same_shape(a, b)
  if a.ndim ~= b.ndim then return false end
  local sa, sb = a.shape, b.shape
  for i = 1, a.ndim do
    if sa[i] ~= sb[i] then return false end
  end
  return true
end

--- dlx.equal(a, b[, opts]): same shape and equal values (compared in the promoted dtype); NaN
-- equals nothing unless opts.equal_nan.
function M.equal(a, b, opts)
  if not is_tensor(a) or not is_tensor(b) then
    raise("TypeError", "equal expects two tensors, got %s and %s",
      core.type(a) or type(a), core.type(b) or type(b))
  end
  local equal_nan = false
  if opts ~= nil then
    if type(opts) ~= "table" then
      raise("TypeError", "equal: options must be a table, got %s", type(opts))
    end
    for key, value in pairs(opts) do
      if key ~= "equal_nan" then
        raise("TypeError", "equal: unknown option %s", tostring(key))
      end
      if type(value) ~= "boolean" then
        raise("TypeError", "equal: equal_nan must be a boolean, got %s", type(value))
      end
      equal_nan = value
    end
  end
  if not same_shape(a, b) then return false end
  local same = api.eq(a, b)
  if equal_nan then same = api.logical_or(same, api.logical_and(a:isnan(), b:isnan())) end
  return same:all():item()
end

return M
